//===- CodegenContext.h - what every op family's codegen works with -*- C++ -*-===//
//
// Codegen walks a func in order. Each value has a buffer in the Program being
// built (an argument's input buffer, a result's temporary, a constant, or a
// view); an op family lowers one op (or one spectral.fusion region) by adding
// kernels and steps that read its operands' buffers and write its results'.
// Families live one per file (Elementwise.cpp, Transforms.cpp, ...) and
// report errors located at the op.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/Codegen/ProgramBuilder.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Error.h"

#include <string>

namespace spectral::codegen {

class CodegenContext {
public:
  explicit CodegenContext(ProgramBuilder &builder) : builder(builder) {}

  ProgramBuilder &builder;
  /// Kernels [0, costedKernels) have their FLOPs (Codegen.cpp shares an op's
  /// nominal FLOPs among the kernels it adds).
  size_t costedKernels = 0;

  /// The buffer holding `value` (it must have one already).
  int bufferOf(mlir::Value value) const;
  void setBuffer(mlir::Value value, int buffer) { buffers_[value] = buffer; }
  bool hasBuffer(mlir::Value value) const { return buffers_.count(value); }
  /// A new temporary buffer for an op result, registered as its buffer.
  int newResultBuffer(mlir::Value result);
  /// A scratch buffer of `elements` elements of `dtype`, named after `op`.
  int newScratch(mlir::Operation *op, DType dtype, int64_t elements);

  /// "spectral.fft (graph.mlir:4:8)": how steps, kernels and errors name an op.
  static std::string describe(mlir::Operation *op);
  /// An error located at `op`, as the reference evaluator words them:
  /// "graph.mlir:4:8: 'spectral.fft': message".
  static llvm::Error error(mlir::Operation *op, const llvm::Twine &message);

private:
  llvm::DenseMap<mlir::Value, int> buffers_;
  int scratchCount_ = 0;
};

/// DType of a tensor type's element type (the dialect's types only).
DType dtypeOf(mlir::Type type);

/// "graph.mlir:4:8" for a file location (or the first one inside a fused
/// location, as folded constants get), else "".
std::string locationText(mlir::Location location);
/// Static shape of a ranked tensor type.
std::vector<int64_t> shapeOf(mlir::Type type);
/// The C++ type kernels use for a dtype: "float", "spectral_fft::cplx<double>",
/// "bool", "int", "long long".
const char *cppType(DType dtype);
/// A name fragment for entry names: "f32", "c64", "i1", ...
const char *shortName(DType dtype);
/// "4x8x128" (or "scalar" for rank 0).
std::string shapeName(llvm::ArrayRef<int64_t> shape);
/// A 1-D launch over `count` items, `threads` per block, `items` per thread,
/// at most 65535 * 16 blocks (the loops are grid-stride).
Dim3 gridFor(int64_t count, int threads, int items = 1);

// The op families: each returns false when `op` is not one of its ops, true
// when it lowered it, or an error located at the op.
llvm::Expected<bool> lowerTransform(CodegenContext &context, mlir::Operation *op);
llvm::Expected<bool> lowerReduction(CodegenContext &context, mlir::Operation *op);
llvm::Expected<bool> lowerContraction(CodegenContext &context, mlir::Operation *op);
llvm::Expected<bool> lowerSparse(CodegenContext &context, mlir::Operation *op);
llvm::Expected<bool> lowerTraining(CodegenContext &context, mlir::Operation *op);

} // namespace spectral::codegen
