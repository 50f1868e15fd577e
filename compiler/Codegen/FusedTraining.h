//===- FusedTraining.h - operands computed in the loads of opaque anchors -*- C++ -*-===//
//
// The anchors whose templates read one operand through a Load but whose
// other operands and results are plain: an optimizer step (its gradient),
// topk_modes (its dense operand), gather (its dense operand) and scatter
// (its values). A region of elementwise ops computing that operand, then
// the anchor, whose results it yields as they are, runs as the anchor's own
// kernels.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/Codegen/CodegenContext.h"

#include "dialects/spectral/IR/SpectralOps.h"

namespace spectral::codegen {

/// Lowers a spectral.fusion region of elementwise ops computing the gradient
/// of one sgd_step or adam_step, whose results it yields as they are: the
/// step's own kernel, the gradient computed at each element as it is read
/// (a clip scale times the gradient, a gradient assembled from parts). The
/// other operands are read from their buffers. False, with nothing added to
/// the Program, when the region has another shape (Training.cpp).
llvm::Expected<bool> lowerFusedOptimizerStep(CodegenContext &context,
                                             mlir::spectral::FusionOp fusion,
                                             llvm::ArrayRef<mlir::Operation *> ops);

/// Lowers a region of several sgd_step or adam_step ops that share a launch
/// (fusion::shareAnOptimizerLaunch) as one kernel updating every tensor.
llvm::Expected<bool> lowerFusedOptimizerSteps(CodegenContext &context,
                                              mlir::spectral::FusionOp fusion,
                                              llvm::ArrayRef<mlir::Operation *> ops);

/// The same for topk_modes, gather and scatter (Sparse.cpp): the dense
/// operand (the values, for scatter) computed at each element it reads;
/// indices read as they are.
llvm::Expected<bool> lowerFusedSparse(CodegenContext &context, mlir::spectral::FusionOp fusion,
                                      llvm::ArrayRef<mlir::Operation *> ops);

} // namespace spectral::codegen
