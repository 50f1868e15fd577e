//===- FusedRegion.h - elementwise ops around one anchor, as functors -*- C++ -*-===//
//
// A spectral.fusion region of elementwise ops around one anchor op (a
// transform, a reduction, softmax, a contraction) runs as the anchor's own
// kernels: the ops each operand needs become the anchor's Load functor for
// that operand (its prologue), and every value the region yields is
// computed in its Store functor from the anchor's result at the element
// being stored (the epilogue; ops before the anchor are recomputed there
// when a yield needs them). This file finds that shape and renders the
// groups; FusedTransforms.cpp, FusedReductions.cpp and
// FusedContractions.cpp hand them to their templates.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/Codegen/Elementwise.h"

#include "dialects/spectral/IR/SpectralOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>
#include <string>
#include <vector>

namespace spectral::codegen {

/// The ops that compute one operand of the anchor, rendered at the
/// operand's own flat (row-major) index: calls[0] is its element there.
struct FusedPrologue {
  std::vector<mlir::Operation *> ops;
  FusedGroup group;
};

struct FusedRegion {
  mlir::Operation *anchor = nullptr;
  /// Per operand of the anchor; none: the anchor reads that operand's buffer.
  std::vector<std::optional<FusedPrologue>> prologues;
  std::vector<mlir::Operation *> after;  // the ops the epilogue computes
  std::vector<mlir::Value> yielded;      // empty: nothing is used, no kernel is needed
  std::optional<FusedGroup> epilogue;    // none: the anchor writes the region's one result
};

/// The region `ops` (in order; non-splat constants already given buffers
/// and left out) with its groups rendered at the index expression `index`
/// (a prologue's over its operand's elements, the epilogue's over the
/// result's), the anchor's value there named `a`. Nothing, with nothing
/// added to the Program, when the region has another shape: not exactly one
/// op that is not elementwise, or that one refused by `isAnchor`; a yielded
/// value of another shape than the anchor's result, or not computed by the
/// region; a read of the anchor's result at another element; an op that can
/// fail.
std::optional<FusedRegion> analyzeFusedRegion(mlir::spectral::FusionOp fusion,
                                              llvm::ArrayRef<mlir::Operation *> ops,
                                              llvm::function_ref<bool(mlir::Operation *)> isAnchor,
                                              const std::string &index);

/// The ops of `ops` that `roots` depend on, in order: a functor computes
/// only what its values need (and reads only those ops' inputs).
std::vector<mlir::Operation *> needed(llvm::ArrayRef<mlir::Operation *> ops,
                                      llvm::ArrayRef<mlir::Value> roots);

/// renderFusedGroup with the object "g"; nothing when the group cannot be
/// fused (the error consumed) or one of its ops can fail.
std::optional<FusedGroup> renderFusable(llvm::ArrayRef<mlir::Operation *> ops, mlir::Value inlined,
                                        llvm::ArrayRef<mlir::Value> values,
                                        const std::string &name, const std::string &index,
                                        const std::string &a);

/// The ops of `others` and the group computing `yielded` at each element of
/// `result` (an anchor's result, inlined as `a` at `index`): every yield has
/// its shape and is `result` or computed by those ops, every leaf has a
/// buffer. `group` is empty when the one yield is `result` itself (a plain
/// store); nothing when a yield cannot be stored so.
struct StoreGroup {
  std::vector<mlir::Operation *> ops;
  std::optional<FusedGroup> group;
};
std::optional<StoreGroup> renderStore(CodegenContext &context,
                                      llvm::ArrayRef<mlir::Operation *> others,
                                      llvm::ArrayRef<mlir::Value> yielded, mlir::Value result,
                                      const std::string &index);

/// Whether every value `group` reads from memory has a buffer (a region
/// argument or a constant), not a value of the region computed elsewhere.
bool leavesHaveBuffers(CodegenContext &context, const FusedGroup &group);

/// Whether `value`, an operand an anchor reads from memory as it is (labels,
/// indices, optimizer state), has a buffer or can get one: a constant the
/// region holds (a splat cloned in as a literal).
bool readableAsIs(CodegenContext &context, mlir::Value value);

/// Gives each of `values` (readableAsIs) a buffer: constants become
/// constant buffers.
llvm::Error giveBuffers(CodegenContext &context, llvm::ArrayRef<mlir::Value> values);

/// A region of elementwise ops computing one operand of its last op, the
/// anchor, whose results the region yields as they are (optimizer steps,
/// top-k, gather, scatter: FusedTraining.h).
struct ComputedOperand {
  mlir::Operation *anchor = nullptr;
  std::vector<mlir::Operation *> ops;  // the ops computing the operand
  FusedGroup group;                    // rendered at the flat index "i"
};

/// That shape, with operand `operand` of an anchor `isAnchor` accepts
/// computed and its other operands read as they are (constants the region
/// holds are given buffers); nothing, with nothing added to the Program,
/// when the region has another shape.
llvm::Expected<std::optional<ComputedOperand>>
analyzeComputedOperand(CodegenContext &context, mlir::spectral::FusionOp fusion,
                       llvm::ArrayRef<mlir::Operation *> ops,
                       llvm::function_ref<bool(mlir::Operation *)> isAnchor, unsigned operand);

/// Gives `fusion`'s results the buffers of the values it yields.
void bindYieldedBuffers(CodegenContext &context, mlir::spectral::FusionOp fusion);

/// The buffers of `fusion`'s results: the ones they have, new ones for the rest.
std::vector<int> fusionOutputs(CodegenContext &context, mlir::spectral::FusionOp fusion);

/// Eight hex digits naming `text` (FNV-1a): kernels and functors of
/// different text get different names.
std::string textDigest(const std::string &text);

/// Renames the group's struct (rendered as "Prologue" or "Epilogue") after
/// its text, so that functors of different text never share a name in one
/// unit; returns the eight hex digits appended.
std::string nameAfterText(FusedGroup &group, const std::string &placeholder);

/// "spectral.mul (x.mlir:3:8), spectral.exp (x.mlir:4:8)": the ops a functor
/// computes (splat constants are literals, not ops of their own).
std::string describeFusedOps(llvm::ArrayRef<mlir::Operation *> ops);

} // namespace spectral::codegen
