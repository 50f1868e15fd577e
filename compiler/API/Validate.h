//===- Validate.h - compiled results against the reference evaluator -*- C++ -*-===//
#pragma once

#include "compiler/Reference/Evaluator.h"
#include "runtime/program/executor.h"

#include <string>

namespace spectral {

/// The Program's element type for an evaluator kind, and back.
DType dtypeOfKind(reference::ElementKind kind);
reference::ElementKind kindOfDtype(DType dtype);

/// Reference tensors <-> host arrays in the Program's layout (the results
/// are rounded to their element type; i1 is one byte).
HostTensor toHostTensor(const reference::Tensor &tensor);
reference::Tensor toReferenceTensor(const HostTensor &tensor);

/// One output's agreement with the reference.
struct Agreement {
  double maxAbsError = 0;  // max |got - ref| over the elements
  double maxReference = 0; // max |ref|
  double relative = 0;     // maxAbsError / maxReference (maxAbsError when that is 0)
  /// Why the result fails whatever the tolerance ("" when nothing does): a
  /// shape mismatch, a NaN or infinity where the reference has another
  /// value, or an integer that differs.
  std::string mismatch;
  bool pass = false;
};

/// 1e-4 for 32-bit element types, 1e-10 for 64-bit ones.
double defaultTolerance(DType dtype);

/// Compares element by element with the reference rounded to the result's
/// type: NaN must match NaN, infinities must match exactly, integers and
/// booleans exactly; otherwise `relative` <= tolerance.
Agreement compareWithReference(const HostTensor &got, const reference::Tensor &expected,
                               double tolerance);

} // namespace spectral
