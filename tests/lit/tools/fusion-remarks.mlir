// spectral-run fuses by default and says why a pair stayed apart with
// --fusion-remarks; --no-fuse compiles every op as its own kernel.

// RUN: spectral-run %s --device=host --random-inputs --benchmark=1 --fusion-remarks 2>&1 >/dev/null | FileCheck %s --check-prefix=FUSED
// FUSED: fusion-remarks.mlir:[[@LINE+10]]:8: remark: not fused with its consumer 'spectral.transpose' ({{.*}}fusion-remarks.mlir:[[@LINE+11]]:8): it moves elements
// FUSED-NOT: see current operation
// FUSED: compile: {{.*}}; 2 kernels:

// RUN: spectral-run %s --device=host --random-inputs --benchmark=1 --no-fuse 2>&1 >/dev/null | FileCheck %s --check-prefix=UNFUSED
// UNFUSED-NOT: remark
// UNFUSED: compile: {{.*}}; 5 kernels:

func.func @main(%x: tensor<4x16xcomplex<f32>>) -> tensor<16x4xf32> {
  %s = spectral.mul %x, %x : tensor<4x16xcomplex<f32>>, tensor<4x16xcomplex<f32>>
  %f = spectral.fft %s axes [1] : tensor<4x16xcomplex<f32>>
  %t = spectral.transpose %f perm [1, 0] : tensor<4x16xcomplex<f32>>
  %r = spectral.real %t : tensor<16x4xcomplex<f32>>
  %e = spectral.exp %r : tensor<16x4xf32>
  return %e : tensor<16x4xf32>
}

// The example graphs: every region spectral-fuse forms compiles fused (the
// kernel counts would grow if codegen fell back to one kernel per op).
// RUN: spectral-run %S/../../../examples/spectral_conv.mlir --device=host --random-inputs --benchmark=1 2>&1 >/dev/null | FileCheck %s --check-prefix=CONV
// CONV: compile: {{.*}}; 1 kernel:
// RUN: spectral-run %S/../../../examples/fno2d_block.mlir --device=host --random-inputs --benchmark=1 2>&1 >/dev/null | FileCheck %s --check-prefix=FNO2D
// FNO2D: compile: {{.*}}; 5 kernels:
// RUN: spectral-run %S/../../../examples/spectral_filter.mlir --device=host --random-inputs --benchmark=1 2>&1 >/dev/null | FileCheck %s --check-prefix=FILTER
// FILTER: compile: {{.*}}; 1 kernel:
// RUN: spectral-run %S/../../../examples/purefft_forward.mlir --device=host --random-inputs --benchmark=1 2>&1 >/dev/null | FileCheck %s --check-prefix=PUREFFT
// The class scores are a matmul (spectral-simplify's ContractionAsMatmul: its
// gradient is two matmuls, not a batch x classes x frequencies broadcast):
// the pattern layers, the matmul and the loss.
// PUREFFT: compile: {{.*}}; 3 kernels:
// The fusion targets of bench/fusion/ (at most 3 kernels each).
// RUN: spectral-run %S/../../../bench/fusion/fno2d_layer.mlir --device=host --random-inputs --benchmark=1 2>&1 >/dev/null | FileCheck %s --check-prefix=FNO2D-LAYER
// FNO2D-LAYER: compile: {{.*}}; 3 kernels:
// RUN: spectral-run %S/../../../bench/fusion/fnet_block.mlir --device=host --random-inputs --benchmark=1 2>&1 >/dev/null | FileCheck %s --check-prefix=FNET
// FNET: compile: {{.*}}; 3 kernels:
