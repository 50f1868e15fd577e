// A 2-D Fourier neural operator block, about twenty ops: the spectral path
// (rfft2, the two low-frequency corners, channel mixing, zero padding back,
// irfft2) plus a pointwise channel path (a 1x1 convolution as a matmul), a
// residual sum, a per-sample normalization and GELU.
//
//   spectral-run examples/fno2d_block.mlir --random-inputs --validate
func.func @main(%x: tensor<2x8x32x32xf32>, %w_low: tensor<8x8x8x8xcomplex<f32>>,
                %w_high: tensor<8x8x8x8xcomplex<f32>>, %w_skip: tensor<8x8xf32>,
                %bias: tensor<8x1x1xf32>) -> tensor<2x8x32x32xf32> {
  %spectrum = spectral.rfft %x axes [2, 3] : tensor<2x8x32x32xf32>
  %low = spectral.slice %spectrum start [0, 0, 0, 0] limit [2, 8, 8, 8]
      : tensor<2x8x32x17xcomplex<f32>>
  %high = spectral.slice %spectrum start [0, 0, 24, 0] limit [2, 8, 32, 8]
      : tensor<2x8x32x17xcomplex<f32>>
  %mixed_low = spectral.channel_mix %low, %w_low
      : tensor<2x8x8x8xcomplex<f32>>, tensor<8x8x8x8xcomplex<f32>>
  %mixed_high = spectral.channel_mix %high, %w_high
      : tensor<2x8x8x8xcomplex<f32>>, tensor<8x8x8x8xcomplex<f32>>
  %zeros = spectral.constant dense<(0.0, 0.0)> : tensor<2x8x16x8xcomplex<f32>>
  %rows = spectral.concat %mixed_low, %zeros, %mixed_high axis 2
      : tensor<2x8x8x8xcomplex<f32>>, tensor<2x8x16x8xcomplex<f32>>, tensor<2x8x8x8xcomplex<f32>>
  %full = spectral.pad %rows low [0, 0, 0, 0] high [0, 0, 0, 9] : tensor<2x8x32x8xcomplex<f32>>
  %spatial = spectral.irfft %full axes [2, 3] length 32 : tensor<2x8x32x17xcomplex<f32>>
  %flat = spectral.reshape %x : tensor<2x8x32x32xf32> -> tensor<2x8x1024xf32>
  %skip = spectral.matmul %w_skip, %flat : tensor<8x8xf32>, tensor<2x8x1024xf32>
  %skip4 = spectral.reshape %skip : tensor<2x8x1024xf32> -> tensor<2x8x32x32xf32>
  %sum = spectral.add %spatial, %skip4 : tensor<2x8x32x32xf32>, tensor<2x8x32x32xf32>
  %biased = spectral.add %sum, %bias : tensor<2x8x32x32xf32>, tensor<8x1x1xf32>
  %mean = spectral.reduce_mean %biased axes [1, 2, 3] keepdims : tensor<2x8x32x32xf32>
  %centered = spectral.sub %biased, %mean : tensor<2x8x32x32xf32>, tensor<2x1x1x1xf32>
  %square = spectral.mul %centered, %centered : tensor<2x8x32x32xf32>, tensor<2x8x32x32xf32>
  %var = spectral.reduce_mean %square axes [1, 2, 3] keepdims : tensor<2x8x32x32xf32>
  %eps = spectral.constant dense<1.0e-5> : tensor<f32>
  %var_eps = spectral.add %var, %eps : tensor<2x1x1x1xf32>, tensor<f32>
  %std = spectral.sqrt %var_eps : tensor<2x1x1x1xf32>
  %normed = spectral.div %centered, %std : tensor<2x8x32x32xf32>, tensor<2x1x1x1xf32>
  %out = spectral.gelu %normed : tensor<2x8x32x32xf32>
  return %out : tensor<2x8x32x32xf32>
}
