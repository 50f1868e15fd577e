//===- EvaluatorInternal.h - op families of the reference evaluator -*- C++ -*-===//
//
// Each family returns std::nullopt for ops it does not handle, so evaluate()
// asks them in turn. Operands arrive in op order; results leave in op order.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/Reference/Evaluator.h"

#include "mlir/IR/Operation.h"

#include <optional>

namespace spectral::reference {

using Operands = llvm::ArrayRef<const Tensor *>;
using Results = llvm::Expected<std::vector<Tensor>>;
using Complex = std::complex<double>;

/// Zeros shaped like `type` (a static ranked tensor), or an error when it is
/// too large; `op` locates the error.
llvm::Expected<Tensor> zerosLike(mlir::Operation *op, mlir::Type type);

/// An error located at `op`: "loc: 'spectral.gather': message".
llvm::Error opError(mlir::Operation *op, const llvm::Twine &message);

/// The most multiply-adds one transform may cost the reference evaluator
/// (its transforms are naive): 2^36 is a minute or so.
constexpr int64_t kMaxReferenceCost = int64_t(1) << 36;
/// The same for a contraction (matmul, channel_mix: plain loops of complex
/// multiply-adds): 2^34 is 20 s or so.
constexpr int64_t kMaxReferenceContractionCost = int64_t(1) << 34;

/// An error when `outputs` results of `terms` multiply-adds each cost more
/// than kMaxReferenceContractionCost (a matmul: M N per batch, K terms each).
llvm::Error checkContractionCost(mlir::Operation *op, int64_t outputs, int64_t terms);

/// Row-major strides of `shape`.
std::vector<int64_t> stridesOf(const std::vector<int64_t> &shape);

/// `value` as an element of `kind` holds it: integers truncate toward zero and
/// wrap modulo 2^bits (exact while |value| < 2^53, as every element is held
/// in double), i1 is "not zero" (NaN included), reals drop the imaginary
/// part, f32 and complex<f32> round to float. `value` must be finite for i32
/// and i64: evaluate() reports a NaN or infinity there as an error.
Complex roundToKind(ElementKind kind, Complex value);

/// A result with a single tensor.
Results single(Tensor tensor);

std::optional<Results> evaluatePointwise(mlir::Operation *op, Operands in);
std::optional<Results> evaluateShape(mlir::Operation *op, Operands in);
std::optional<Results> evaluateSpectral(mlir::Operation *op, Operands in);
std::optional<Results> evaluateTraining(mlir::Operation *op, Operands in);

} // namespace spectral::reference
