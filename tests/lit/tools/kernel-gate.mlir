// The static gate on the kernels of the example graphs (the fusion targets
// among them): every kernel compiles with NVRTC for sm_80 and sm_90 without
// spilling (column 6 of the dump's summary is the spill bytes).
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: for g in spectral_conv spectral_filter purefft_forward fno2d_block; do \
// RUN:   for arch in sm_80 sm_90; do \
// RUN:     spectral-run %S/../../../examples/$g.mlir --device=host --random-inputs \
// RUN:       --dump-kernels=%t/$g.$arch --dump-arch=$arch > /dev/null 2>&1 || exit 1; \
// RUN:   done; \
// RUN: done
// RUN: cat %t/*/summary.txt | FileCheck %s
// RUN: cat %t/*/summary.txt | awk '$1 !~ /^#/ && $1 != "kernel" && $6 != "0" {print}' | count 0
// CHECK-COUNT-4: # main: {{[0-9]+}} kernel{{s?}}, sm_80
