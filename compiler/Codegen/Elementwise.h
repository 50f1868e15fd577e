//===- Elementwise.h - pointwise and index-map ops as one kernel -*- C++ -*-===//
#pragma once

#include "compiler/Codegen/CodegenContext.h"

namespace spectral::codegen {

/// Pointwise ops, splat constants and the ops that only move elements
/// (broadcast, transpose, slice, pad, concat, reshape).
bool isElementwiseOp(mlir::Operation *op);

/// One kernel computing `outputs` (values of the group, written to
/// `outputBuffers`) from `ops`, in order; operands produced outside the group
/// are read from their buffers.
llvm::Error lowerElementwise(CodegenContext &context, llvm::ArrayRef<mlir::Operation *> ops,
                             llvm::ArrayRef<mlir::Value> outputs,
                             llvm::ArrayRef<int> outputBuffers);

} // namespace spectral::codegen
