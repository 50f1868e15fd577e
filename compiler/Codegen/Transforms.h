//===- Transforms.h - transform ops as planned passes -----------*- C++ -*-===//
#pragma once

#include "compiler/Codegen/CodegenContext.h"
#include "compiler/Planning/FftPlanner.h"
#include "compiler/Planning/FftUnits.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>
#include <vector>

namespace spectral::codegen {

/// fft, ifft, rfft, irfft, dct, idct.
bool isTransformOp(mlir::Operation *op);

/// A transform op as passes of the FFT planner, one per axis.
struct TransformPasses {
  enum Special {
    kNone,     // run `passes`
    kNothing,  // the result is empty
    kCopy,     // every axis has length 1: the result is the operand
    kZero,     // the operand is empty but the result is not (rfft of length 0)
    kOrthoDct, // the orthonormal DCT, which scales first entries apart
  } special = kNone;
  /// The first pass reads `input`, the last writes `output`; the ones
  /// between work on the intermediate buffer.
  std::vector<planning::FftAxis> passes;
};

/// The passes of `op` from buffer `input` to buffer `output` (either may be
/// -1 when a fused functor takes that side's place). `intermediate` gives
/// the buffer between passes when there are several: the result's buffer,
/// or for irfft a complex array shaped like its operand.
llvm::Expected<TransformPasses> transformPasses(CodegenContext &context, mlir::Operation *op,
                                                int input, int output,
                                                llvm::function_ref<int()> intermediate);

/// Plans one pass with `ends`, its error located at `op`.
llvm::Error planAxis(CodegenContext &context, mlir::Operation *op,
                     const planning::FftAxis &axis, const planning::AxisEnds &ends);

/// The product of the norm factors of `op`'s passes (one per axis), or
/// nothing when it is not planned as plain passes: the one scaling a kernel
/// transforming every axis at once applies.
std::optional<double> plainNormFactor(CodegenContext &context, mlir::Operation *op);

} // namespace spectral::codegen
