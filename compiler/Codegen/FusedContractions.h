//===- FusedContractions.h - elementwise ops in a contraction's loads and stores -*- C++ -*-===//
#pragma once

#include "compiler/Codegen/FusedReductions.h"

namespace spectral::codegen {

/// Whether `op` is a matmul or channel_mix whose kernel reads each operand
/// through one Load and writes its result through one Store (not when its
/// result is empty, nor for dims past 2^31 - 1: its own lowering reports that).
bool takesContractionEnds(mlir::Operation *op);

/// Lowers such an op (takesContractionEnds) with `lhs` and `rhs` giving its
/// operands' elements at their flat offsets and `store` writing its result's
/// (Contractions.cpp).
llvm::Error lowerContractionWithEnds(CodegenContext &context, mlir::Operation *op,
                                     const ElementEnd &lhs, const ElementEnd &rhs,
                                     const ElementEnd &store);

/// Lowers a spectral.fusion region whose ops (`ops`, in order, non-splat
/// constants already given buffers and left out) are elementwise ops around
/// one matmul or channel_mix: the ops each operand needs fused into that
/// operand's Load, the ones after it into its Store. False, with nothing
/// added to the Program, when the region has another shape.
llvm::Expected<bool> lowerFusedContraction(CodegenContext &context,
                                           mlir::spectral::FusionOp fusion,
                                           llvm::ArrayRef<mlir::Operation *> ops);

} // namespace spectral::codegen
