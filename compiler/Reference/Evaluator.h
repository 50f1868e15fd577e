//===- Evaluator.h - reference evaluator of spectral graphs -----*- C++ -*-===//
//
// The executable specification of the spectral dialect: runs a func.func on
// host arrays with straightforward loops in double precision. Compiled kernels
// are checked against it; it is checked against FFTW and closed forms.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/Error.h"

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

namespace spectral::reference {

/// The element types a spectral tensor may have.
enum class ElementKind { I1, I32, I64, F32, F64, C64, C128 };

/// "f32", "complex<f64>", ... as MLIR spells them.
const char *elementKindName(ElementKind kind);
bool isComplexKind(ElementKind kind);
bool isIntegerKind(ElementKind kind);

/// The kind of an MLIR element type; fails for types the dialect does not use.
llvm::Expected<ElementKind> elementKindOf(mlir::Type elementType);

/// A dense row-major tensor. Every element is held as a complex double
/// (imaginary part 0 for real and integer kinds); the kind says what it is.
struct Tensor {
  ElementKind kind = ElementKind::F32;
  std::vector<int64_t> shape;
  std::vector<std::complex<double>> data;

  int64_t size() const { return static_cast<int64_t>(data.size()); }
  /// "tensor<4x8xf32>".
  std::string typeString() const;
};

/// The largest tensor the evaluator allocates (elements).
constexpr int64_t kMaxReferenceElements = int64_t(1) << 28;

/// Runs `function` on `inputs` (one per argument, matching its type) and
/// returns its results. Errors name the op (with its location) and the value
/// at fault: an index out of range, a label out of range, a tensor too large.
llvm::Expected<std::vector<Tensor>> evaluate(mlir::func::FuncOp function,
                                             const std::vector<Tensor> &inputs);

/// Checks that `tensor` matches `type` (a ranked tensor type); the message
/// names `what` ("argument #0 (%x)").
llvm::Error checkMatches(const Tensor &tensor, mlir::Type type,
                         const std::string &what);

} // namespace spectral::reference
