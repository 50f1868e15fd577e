// A cache entry whose checksum is valid but whose host kernel does not load
// is recompiled and replaced, with a warning: the run still succeeds, with
// the same results, and the next run finds the repaired entry.
// RUN: rm -rf %t.cache
// RUN: env SPECTRAL_CACHE_DIR=%t.cache spectral-run %s --device=host --random-inputs --seed=3 > %t.first
// RUN: spectral-garble-cache-payloads %t.cache | FileCheck %s --check-prefix=GARBLED
// RUN: env SPECTRAL_CACHE_DIR=%t.cache spectral-run %s --device=host --random-inputs --seed=3 2> %t.err > %t.second
// RUN: diff %t.first %t.second
// RUN: FileCheck %s < %t.err
// RUN: env SPECTRAL_CACHE_DIR=%t.cache spectral-run %s --device=host --random-inputs --seed=3 2>&1 > /dev/null \
// RUN:   | FileCheck %s --check-prefix=REPAIRED --allow-empty
// In require mode nothing is compiled: the load's error is the run's.
// RUN: spectral-garble-cache-payloads %t.cache > /dev/null
// RUN: env SPECTRAL_CACHE_DIR=%t.cache SPECTRAL_CACHE=require not spectral-run %s --device=host \
// RUN:   --random-inputs --seed=3 2>&1 | FileCheck %s --check-prefix=REQUIRE
// REQUIRE-NOT: recompiling
// REQUIRE: cannot load kernel
// REQUIRE-NOT: recompiling
// GARBLED: garbled {{[1-9][0-9]*}} entries
// CHECK: spectral: kernel cache: cannot load kernel '{{.*}}': {{.*}}; recompiling it
// REPAIRED-NOT: kernel cache
func.func @main(%x: tensor<8x16xf32>) -> tensor<8xf32> {
  %e = spectral.exp %x : tensor<8x16xf32>
  %s = spectral.reduce_sum %e axes [1] : tensor<8x16xf32>
  return %s : tensor<8xf32>
}
