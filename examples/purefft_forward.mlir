// The PureFFT classifier's forward pass and loss (shared/seeds: PureFFT):
// features are the real and imaginary parts of rfft2 of 28 x 28 images
// (2 x 28 x 15 = 840 values), four pattern layers each select a softmax
// mix of a pool of 32 patterns and multiply the features by it, class
// scores match the result with 10 class patterns, cross-entropy on labels.
//
// Written as the model states it: each layer forms batch x patterns x
// frequencies, x[b, p, f] * weighted[p, f], and sums over p. spectral-simplify
// moves the factor x out of that sum (it does not depend on p), so no
// tensor of batch x patterns x frequencies is ever formed: each layer is a
// scale of the features.
//
//   spectral-run examples/purefft_forward.mlir --random-inputs --validate --report
func.func @main(%x: tensor<64x840xf32>, %labels: tensor<64xi32>, %pool: tensor<32x840xf32>,
                %layers: tensor<4x840xf32>, %classes: tensor<10x840xf32>) -> tensor<f32> {
  %x3 = spectral.reshape %x : tensor<64x840xf32> -> tensor<64x1x840xf32>
  // Layer 0.
  %l0 = spectral.slice %layers start [0, 0] limit [1, 840] : tensor<4x840xf32>
  %s0 = spectral.mul %pool, %l0 : tensor<32x840xf32>, tensor<1x840xf32>
  %c0 = spectral.reduce_sum %s0 axes [1] keepdims : tensor<32x840xf32>
  %w0 = spectral.softmax %c0 axis 0 : tensor<32x1xf32>
  %p0 = spectral.mul %pool, %w0 : tensor<32x840xf32>, tensor<32x1xf32>
  %a0 = spectral.mul %x3, %p0 : tensor<64x1x840xf32>, tensor<32x840xf32>
  %y0 = spectral.reduce_sum %a0 axes [1] keepdims : tensor<64x32x840xf32>
  // Layer 1.
  %l1 = spectral.slice %layers start [1, 0] limit [2, 840] : tensor<4x840xf32>
  %s1 = spectral.mul %pool, %l1 : tensor<32x840xf32>, tensor<1x840xf32>
  %c1 = spectral.reduce_sum %s1 axes [1] keepdims : tensor<32x840xf32>
  %w1 = spectral.softmax %c1 axis 0 : tensor<32x1xf32>
  %p1 = spectral.mul %pool, %w1 : tensor<32x840xf32>, tensor<32x1xf32>
  %a1 = spectral.mul %y0, %p1 : tensor<64x1x840xf32>, tensor<32x840xf32>
  %y1 = spectral.reduce_sum %a1 axes [1] keepdims : tensor<64x32x840xf32>
  // Layer 2.
  %l2 = spectral.slice %layers start [2, 0] limit [3, 840] : tensor<4x840xf32>
  %s2 = spectral.mul %pool, %l2 : tensor<32x840xf32>, tensor<1x840xf32>
  %c2 = spectral.reduce_sum %s2 axes [1] keepdims : tensor<32x840xf32>
  %w2 = spectral.softmax %c2 axis 0 : tensor<32x1xf32>
  %p2 = spectral.mul %pool, %w2 : tensor<32x840xf32>, tensor<32x1xf32>
  %a2 = spectral.mul %y1, %p2 : tensor<64x1x840xf32>, tensor<32x840xf32>
  %y2 = spectral.reduce_sum %a2 axes [1] keepdims : tensor<64x32x840xf32>
  // Layer 3.
  %l3 = spectral.slice %layers start [3, 0] limit [4, 840] : tensor<4x840xf32>
  %s3 = spectral.mul %pool, %l3 : tensor<32x840xf32>, tensor<1x840xf32>
  %c3 = spectral.reduce_sum %s3 axes [1] keepdims : tensor<32x840xf32>
  %w3 = spectral.softmax %c3 axis 0 : tensor<32x1xf32>
  %p3 = spectral.mul %pool, %w3 : tensor<32x840xf32>, tensor<32x1xf32>
  %a3 = spectral.mul %y2, %p3 : tensor<64x1x840xf32>, tensor<32x840xf32>
  %y3 = spectral.reduce_sum %a3 axes [1] keepdims : tensor<64x32x840xf32>
  // Class scores and the loss.
  %m = spectral.mul %y3, %classes : tensor<64x1x840xf32>, tensor<10x840xf32>
  %scores = spectral.reduce_sum %m axes [2] : tensor<64x10x840xf32>
  %loss = spectral.cross_entropy %scores, %labels : tensor<64x10xf32>, tensor<64xi32>
  return %loss : tensor<f32>
}
