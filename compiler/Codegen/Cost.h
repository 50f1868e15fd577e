//===- Cost.h - nominal floating-point operations of an op ------*- C++ -*-===//
//
// What --report counts as an op's FLOPs, for its roofline estimate: the
// textbook count of the math, not what a kernel executes. Transforms count
// 5 N log2 N per complex transform of length N (half for real transforms),
// as benchFFT does, whatever algorithm runs (a Bluestein length costs more);
// contractions 2 per real multiply-add and 8 per complex one; pointwise ops
// one per real result element (a complex multiply 6, a division 11, a
// transcendental function 8 on complex values); data movement (index maps,
// casts, gather/scatter, selects) counts nothing.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/IR/Operation.h"

#include <cstdint>

namespace spectral::codegen {

/// The nominal FLOPs of one execution of `op` (a spectral.fusion region:
/// the sum of its ops).
int64_t nominalFlops(mlir::Operation *op);

} // namespace spectral::codegen
