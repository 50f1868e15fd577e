//===- SourceLimits.h - what MLIR text the spectral tools accept ----------===//
//
// MLIR 19's parser is not made for hostile text: it recurses once per level
// of nesting (a stack overflow near 30,000 levels of `tensor<tensor<...`,
// `[[[...` or nested regions) and per operator of an affine expression,
// sizes a result list by the largest `%v#N` it reads (`%1#2147483647` asks
// for 32 GiB), and crashes verifying some sparse element literals. Every
// parse in the tools and the API first runs checkSourceLimits, so such text
// is an error at its location instead. The check reads tokens as the lexer
// does (whitespace and comments between them, strings skipped). Bytecode is
// refused: it embeds text (affine maps) that the parser would read unchecked.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/Support/SourceMgr.h"

namespace mlir::spectral {

/// The deepest nesting of (), [], {} and <> accepted (real graphs nest ~10;
/// the parser then needs about 0.5 MB of stack).
constexpr int kMaxSourceNesting = 128;
/// The largest result number (`%v#N`) or result count (`%v:N =`) accepted.
constexpr int64_t kMaxSourceResults = 1 << 16;
/// The most result slots (N + 1 for each %v#N read) one file may make the
/// parser allocate, 16 bytes each.
constexpr int64_t kMaxSourceResultSlots = int64_t(1) << 22;

/// Checks the text of `buffer` in `sources` against the limits above and
/// refuses sparse element literals (spectral constants are dense) and affine
/// maps and sets (no spectral op takes one); emits an error at the first
/// offending location through `context` and fails.
LogicalResult checkSourceLimits(const llvm::SourceMgr &sources, unsigned buffer,
                                MLIRContext *context);

} // namespace mlir::spectral
