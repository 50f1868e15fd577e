// A host compiler that fails, or that writes something that is no shared
// object, is an error naming the kernel; nothing of it is cached, and the
// next run with a working compiler compiles and runs.
// RUN: rm -rf %t.cache %t.junk-cxx
// RUN: env SPECTRAL_CACHE_DIR=%t.cache SPECTRAL_HOST_CXX=false not spectral-run %s --device=host \
// RUN:   --random-inputs 2>&1 | FileCheck %s --check-prefix=FAILING
// FAILING: error: compiling kernel '{{.*}}' for spectral.exp ({{.*}}host-compiler-faults.mlir:[[@LINE+14]]:8): host compiler failed on kernel '{{.*}}' (exit status 1)
//
// RUN: printf '#!/bin/sh\nwhile [ "$1" != -o ]; do shift; done\necho junk > "$2"\n' > %t.junk-cxx
// RUN: chmod +x %t.junk-cxx
// RUN: env SPECTRAL_CACHE_DIR=%t.cache SPECTRAL_HOST_CXX=%t.junk-cxx not spectral-run %s --device=host \
// RUN:   --random-inputs 2>&1 | FileCheck %s --check-prefix=JUNK
// JUNK-NOT: recompiling
// JUNK: cannot load kernel '{{.*}}': {{.*}}
// RUN: find %t.cache -name '*.bin' | count 0
//
// RUN: env SPECTRAL_CACHE_DIR=%t.cache spectral-run %s --device=host --random-inputs --seed=2 --validate \
// RUN:   2>&1 | FileCheck %s --check-prefix=WORKING
// WORKING: validate result #0 {{.*}}: PASS
func.func @main(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = spectral.exp %x : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}
