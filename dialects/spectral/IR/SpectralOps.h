//===- SpectralOps.h - spectral dialect operations --------------*- C++ -*-===//
#pragma once

#include "dialects/spectral/IR/SpectralDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <complex>
#include <optional>

#include "dialects/spectral/IR/SpectralEnums.h.inc"
#include "dialects/spectral/IR/SpectralInterfaces.h.inc"

#define GET_OP_CLASSES
#include "dialects/spectral/IR/SpectralOps.h.inc"

namespace mlir::spectral {

/// numpy broadcasting of two shapes; failure when a dim pair is neither equal
/// nor 1.
FailureOr<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> a,
                                                ArrayRef<int64_t> b);

/// The flat row-major index in an operand of `shape`, numpy-broadcast to
/// `resultShape`, that result element `flat` reads.
int64_t broadcastSourceIndex(ArrayRef<int64_t> resultShape,
                             ArrayRef<int64_t> shape, int64_t flat);

/// Number of elements of `shape`, or nothing when it does not fit in int64.
std::optional<int64_t> checkedElementCount(ArrayRef<int64_t> shape);

/// f32 for f32 and complex<f32>, f64 for f64 and complex<f64>; ints unchanged.
Type realElementType(Type element);

/// complex<t> for a real t; complex types unchanged.
Type complexElementType(Type element);

/// A dense attribute of `type` holding `values` (one value: a splat), each
/// converted to the element type (integers truncate); null when an integer
/// is not exact in double.
Attribute constantElements(RankedTensorType type, ArrayRef<std::complex<double>> values);

} // namespace mlir::spectral
