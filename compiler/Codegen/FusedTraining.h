//===- FusedTraining.h - a gradient computed in an optimizer step's loads -*- C++ -*-===//
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

} // namespace spectral::codegen
