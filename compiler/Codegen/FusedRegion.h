//===- FusedRegion.h - elementwise ops around one anchor, as functors -*- C++ -*-===//
//
// A spectral.fusion region of elementwise ops around one anchor op (a
// transform, a reduction, softmax) runs as the anchor's own kernels: the
// ops its operand needs become the anchor's Load functor (the prologue),
// and every value the region yields is computed in its Store functor from
// the anchor's result at the element being stored (the epilogue; ops
// before the anchor are recomputed there when a yield needs them). This
// file finds that shape and renders both groups; FusedTransforms.cpp and
// FusedReductions.cpp hand them to their templates.
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

struct FusedRegion {
  mlir::Operation *anchor = nullptr;
  std::vector<mlir::Operation *> before; // the ops the prologue computes
  std::vector<mlir::Operation *> after;  // the ops the epilogue computes
  std::vector<mlir::Value> yielded;      // empty: nothing is used, no kernel is needed
  std::optional<FusedGroup> prologue;    // none: the anchor reads its operand's buffer
  std::optional<FusedGroup> epilogue;    // none: the anchor writes the region's one result
};

/// The region `ops` (in order; non-splat constants already given buffers
/// and left out) with its groups rendered at the index expression `index`,
/// the anchor's value there named `a`. Nothing, with nothing added to the
/// Program, when the region has another shape: not exactly one op that is
/// not elementwise, or that one refused by `isAnchor`; a yielded value of
/// another shape than the anchor's result, or not computed by the region; a
/// read of the anchor's result at another element; an op that can fail.
std::optional<FusedRegion> analyzeFusedRegion(mlir::spectral::FusionOp fusion,
                                              llvm::ArrayRef<mlir::Operation *> ops,
                                              llvm::function_ref<bool(mlir::Operation *)> isAnchor,
                                              const std::string &index);

/// Renames the group's struct (rendered as "Prologue" or "Epilogue") after
/// its text, so that functors of different text never share a name in one
/// unit; returns the eight hex digits appended.
std::string nameAfterText(FusedGroup &group, const std::string &placeholder);

/// "spectral.mul (x.mlir:3:8), spectral.exp (x.mlir:4:8)": the ops a functor
/// computes (splat constants are literals, not ops of their own).
std::string describeFusedOps(llvm::ArrayRef<mlir::Operation *> ops);

} // namespace spectral::codegen
