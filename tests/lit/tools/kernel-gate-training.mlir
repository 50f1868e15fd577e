// The static gate on the PureFFT training step (examples/purefft_forward.mlir
// through spectral-train-step): every kernel compiles with NVRTC for sm_80
// and sm_90 without spilling (the dump's summary: its sixth column), and the
// whole step is a handful of kernels (8 when this was written: the forward
// pass, the loss and its gradient, the matmuls of the class scores and
// their gradients, the backward block program and one Adam launch).
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: spectral-opt %S/../../../examples/purefft_forward.mlir --spectral-simplify \
// RUN:   --spectral-train-step='params=2,3,4' -o %t/purefft_step.mlir
// RUN: for arch in sm_80 sm_90; do \
// RUN:   spectral-run %t/purefft_step.mlir --function=main_step --device=host --random-inputs \
// RUN:     --dump-kernels=%t/purefft_step.$arch --dump-arch=$arch > /dev/null 2>&1 || exit 1; \
// RUN: done
// RUN: cat %t/purefft_step.sm_80/summary.txt %t/purefft_step.sm_90/summary.txt | FileCheck %s
// RUN: awk '$1 !~ /^#/ && $1 != "kernel" && $6 != "0" {print FILENAME, $0}' %t/*/summary.txt | count 0
// CHECK: # main_step: {{[1-8]}} kernels, sm_80
// CHECK: # main_step: {{[1-8]}} kernels, sm_90
