// The reference evaluator running out of memory is an error at the op, not
// an abort: every element is a complex double, so one 2^26-element tensor is
// 1 GiB, under a 4 GiB address-space limit. ASan cannot run under that limit.
// UNSUPPORTED: asan
// RUN: (%limit_memory; not timeout 120 spectral-run %s --function=big_neg --device=reference --random-inputs 2>&1) \
// RUN:   | FileCheck %s --check-prefix=MEMORY
// MEMORY: ran out of memory in the reference evaluator, which holds every element as a complex double (16 bytes)
func.func @big_neg(%a: tensor<67108864xf32>) -> tensor<67108864xf32> {
  %0 = spectral.neg %a : tensor<67108864xf32>
  %1 = spectral.exp %0 : tensor<67108864xf32>
  return %1 : tensor<67108864xf32>
}
