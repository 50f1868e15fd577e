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

/// A group rendered into another kernel's Load or Store functor.
struct FusedGroup {
  std::string definition;          // the struct: input pointers, error word, functions
  std::vector<mlir::Value> leaves; // its pointer members in0, in1, ... in order
  std::vector<std::string> calls;  // per requested value, the expression computing it
  bool reportsErrors = false;      // some op can fail (integer division, casts)
};

/// Renders `ops` as struct `name`; `calls[k]` computes `values[k]` through
/// the object `object` at the index expression `index`. `inlined` (may be
/// null) is a value computed outside the group, an anchor's result, whose
/// element at `index` is the expression `a`; an op that would read it at
/// another element is an error (not fusable). A requested value no op
/// computes is a leaf (read as it is). A leaf listed in `accessors`
/// is read through a member of the type given there (any type with
/// `operator[](long long)`, e.g. a view of shared memory) instead of a
/// pointer.
llvm::Expected<FusedGroup>
renderFusedGroup(llvm::ArrayRef<mlir::Operation *> ops, mlir::Value inlined,
                 llvm::ArrayRef<mlir::Value> values, const std::string &name,
                 const std::string &object, const std::string &index, const std::string &a,
                 llvm::ArrayRef<std::pair<mlir::Value, std::string>> accessors = {});

} // namespace spectral::codegen
