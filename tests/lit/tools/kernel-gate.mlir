// The static gate on the kernels of the example graphs, the fusion
// targets of bench/fusion/ and the sparse graphs of tests/e2e/: every kernel compiles with NVRTC for sm_80 and
// sm_90 without spilling (column 6 of the dump's summary is the spill
// bytes). The PureFFT training step has a gate of its own
// (kernel-gate-training.mlir).
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: for g in examples/spectral_conv examples/spectral_filter examples/purefft_forward \
// RUN:          examples/fno2d_block bench/fusion/fno2d_layer bench/fusion/fnet_block \
// RUN:          tests/e2e/sparse_spectral_filter tests/e2e/spectral_probes; do \
// RUN:   for arch in sm_80 sm_90; do \
// RUN:     spectral-run %S/../../../$g.mlir --device=host --random-inputs \
// RUN:       --dump-kernels=%t/$(basename $g).$arch --dump-arch=$arch > /dev/null 2>&1 || exit 1; \
// RUN:   done; \
// RUN: done
// RUN: cat %t/*/summary.txt | FileCheck %s
// RUN: cat %t/*/summary.txt | awk '$1 !~ /^#/ && $1 != "kernel" && $6 != "0" {print}' | count 0
// CHECK-COUNT-8: # main: {{[0-9]+}} kernel{{s?}}, sm_80
