// The reference evaluator's limits are errors at the op, quickly: a matmul
// over 2^34 multiply-adds (4096^3 would take minutes); running out of memory
// is reference-memory-limit.mlir.
// RUN: not timeout 60 spectral-run %s --function=big_matmul --device=reference --random-inputs 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MATMUL
// MATMUL: reference-limits.mlir:[[@LINE+2]]:8: 'spectral.matmul': is too large for the reference evaluator: 16777216 results of 4096 multiply-adds each, more than the 2^34 allowed
func.func @big_matmul(%a: tensor<4096x4096xf32>, %b: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %0 = spectral.matmul %a, %b : tensor<4096x4096xf32>, tensor<4096x4096xf32>
  return %0 : tensor<4096x4096xf32>
}
