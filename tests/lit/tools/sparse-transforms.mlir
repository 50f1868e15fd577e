// Top-k, gather and scatter folded into the complex FFTs of one image per
// block: each graph below is the number of kernels it says, and its results
// agree with the reference evaluator.
//
// RUN: for f in filter_with_bias exp_before_scatter probes_then_scale rows_f64; do \
// RUN:   spectral-run %s --function=$f --device=host --random-inputs --validate --report || exit 1; \
// RUN: done 2>&1 | FileCheck %s
// RUN: spectral-run %s --function=filter_with_bias --device=host --random-inputs --no-fuse --report \
// RUN:   2>&1 | FileCheck %s --check-prefix=UNFUSED

// The bias of the store is broadcast before the scatter: the store computes
// it, and the whole inverse is one kernel.
// CHECK: # filter_with_bias: 2 kernels
// CHECK: fft2_topk_c64_8x8_k5
// CHECK: scatter_ifft2_c64_8x8_k5
// CHECK-COUNT-2: PASS
// UNFUSED: # filter_with_bias: 7 kernels
func.func @filter_with_bias(%x: tensor<4x8x8xcomplex<f32>>, %bias: tensor<8x8xf32>)
    -> (tensor<4x8x8xf32>, tensor<4x5xi64>) {
  %b = spectral.broadcast %bias : tensor<8x8xf32> -> tensor<4x8x8xf32>
  %s = spectral.fft %x axes [1, 2] norm ortho : tensor<4x8x8xcomplex<f32>>
  %rows = spectral.reshape %s : tensor<4x8x8xcomplex<f32>> -> tensor<4x64xcomplex<f32>>
  %v, %i = spectral.topk_modes %rows k 5 : tensor<4x64xcomplex<f32>>
  %d = spectral.scatter %v, %i : tensor<4x5xcomplex<f32>>, tensor<4x5xi64> -> tensor<4x64xcomplex<f32>>
  %g = spectral.reshape %d : tensor<4x64xcomplex<f32>> -> tensor<4x8x8xcomplex<f32>>
  %y = spectral.ifft %g axes [1, 2] norm ortho : tensor<4x8x8xcomplex<f32>>
  %r = spectral.real %y : tensor<4x8x8xcomplex<f32>>
  %o = spectral.add %r, %b : tensor<4x8x8xf32>, tensor<4x8x8xf32>
  return %o, %i : tensor<4x8x8xf32>, tensor<4x5xi64>
}

// An op the store reads placed between the scatter and the ifft.
// CHECK: # exp_before_scatter: 1 kernel
// CHECK: scatter_ifft2_c64_4x4_k3
// CHECK: PASS
func.func @exp_before_scatter(%v: tensor<2x3xcomplex<f32>>, %x: tensor<2x4x4xf32>) -> tensor<2x4x4xf32> {
  %i = spectral.constant dense<[[0, 5, 5], [15, 2, -1]]> : tensor<2x3xi64>
  %d = spectral.scatter %v, %i : tensor<2x3xcomplex<f32>>, tensor<2x3xi64> -> tensor<2x16xcomplex<f32>>
  %e = spectral.exp %x : tensor<2x4x4xf32>
  %g = spectral.reshape %d : tensor<2x16xcomplex<f32>> -> tensor<2x4x4xcomplex<f32>>
  %y = spectral.ifft %g axes [1, 2] : tensor<2x4x4xcomplex<f32>>
  %r = spectral.real %y : tensor<2x4x4xcomplex<f32>>
  %o = spectral.add %r, %e : tensor<2x4x4xf32>, tensor<2x4x4xf32>
  return %o : tensor<2x4x4xf32>
}

// Probes: fixed modes gathered in the store; the scaling after is its own
// kernel (a gather's result is stored as it is).
// CHECK: # probes_then_scale: 2 kernels
// CHECK: fft2_gather_c64_6x10_k4
// CHECK: PASS
func.func @probes_then_scale(%x: tensor<3x6x10xf32>) -> tensor<3x4xcomplex<f32>> {
  %i = spectral.constant dense<[[0, 59, 11, -1], [1, 1, 2, 3], [30, 31, 32, 33]]> : tensor<3x4xi64>
  %c = spectral.cast %x : tensor<3x6x10xf32> to tensor<3x6x10xcomplex<f32>>
  %s = spectral.fft %c axes [1, 2] : tensor<3x6x10xcomplex<f32>>
  %rows = spectral.reshape %s : tensor<3x6x10xcomplex<f32>> -> tensor<3x60xcomplex<f32>>
  %g = spectral.gather %rows[%i] : tensor<3x60xcomplex<f32>>, tensor<3x4xi64>
  %two = spectral.constant dense<(2.0, 0.0)> : tensor<3x4xcomplex<f32>>
  %y = spectral.mul %g, %two : tensor<3x4xcomplex<f32>>, tensor<3x4xcomplex<f32>>
  return %y : tensor<3x4xcomplex<f32>>
}

// Along one axis, in f64: each row an image.
// CHECK: # rows_f64: 2 kernels
// CHECK: fft2_topk_c128_1x48_k6
// CHECK: scatter_ifft2_c128_1x48_k6
// CHECK-COUNT-2: PASS
func.func @rows_f64(%x: tensor<5x48xcomplex<f64>>) -> (tensor<5x48xcomplex<f64>>, tensor<5x6xi64>) {
  %s = spectral.fft %x axes [1] : tensor<5x48xcomplex<f64>>
  %v, %i = spectral.topk_modes %s k 6 : tensor<5x48xcomplex<f64>>
  %d = spectral.scatter %v, %i : tensor<5x6xcomplex<f64>>, tensor<5x6xi64> -> tensor<5x48xcomplex<f64>>
  %y = spectral.ifft %d axes [1] : tensor<5x48xcomplex<f64>>
  return %y, %i : tensor<5x48xcomplex<f64>>, tensor<5x6xi64>
}
