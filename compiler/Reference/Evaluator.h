//===- Evaluator.h - reference evaluator of spectral graphs -----*- C++ -*-===//
//
// The executable specification of the spectral dialect: runs a func.func on
// host arrays with straightforward loops. Compiled kernels are checked against
// it; it is checked against FFTW and closed forms.
//
// Precision: every op computes in double (complex double), and float and
// complex results are held in double between ops whatever their declared
// type, so an f32 graph is evaluated more accurately than f32 kernels run it.
// spectral.cast is the exception: to f32 / complex<f32> it rounds each part
// to the nearest float. Integer results (of any op) truncate toward zero and
// wrap to their width; they are exact while their magnitude stays below 2^53
// and inexact beyond (the nearest double, then wrapped). A NaN or infinity
// bound for an i32 / i64 result is a run-time error at the op; i1 is "not
// zero", so NaN is true (numpy's astype(bool)).
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

/// The largest tensor the evaluator creates or accepts, in elements: 2^26
/// elements of 16 bytes (one complex double each) are 1 GiB.
constexpr int64_t kMaxReferenceElements = int64_t(1) << 26;

/// Runs `function` on `inputs` (one per argument, matching its type) and
/// returns its results. Errors name the op (with its location) and the value
/// at fault: an index out of range, a label out of range, a tensor too large,
/// a NaN bound for an integer tensor, a transform too long for naive O(N^2).
llvm::Expected<std::vector<Tensor>> evaluate(mlir::func::FuncOp function,
                                             const std::vector<Tensor> &inputs);

/// Checks that `tensor` matches `type` (a static ranked tensor type of at most
/// kMaxReferenceElements elements); messages begin with `what`, e.g.
/// "argument #0 must be tensor<3xf32>, got tensor<3xf64>".
llvm::Error checkMatches(const Tensor &tensor, mlir::Type type,
                         const std::string &what);

} // namespace spectral::reference
