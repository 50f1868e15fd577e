// The 2-D FNO layer of the fusion targets: batch 16, 32 -> 32 channels on a
// 64 x 64 grid, 12 x 12 modes in both corners along the first spatial axis:
// rfft2, the two corners, channel mixing, zero padding back, irfft2, bias,
// GELU. Target: at most 3 kernels, bytes within 1.3x of the minimum.
//
//   spectral-run bench/fusion/fno2d_layer.mlir --random-inputs --report --benchmark=10
func.func @main(%x: tensor<16x32x64x64xf32>, %w_low: tensor<32x32x12x12xcomplex<f32>>,
                %w_high: tensor<32x32x12x12xcomplex<f32>>, %bias: tensor<32x1x1xf32>)
    -> tensor<16x32x64x64xf32> {
  %spectrum = spectral.rfft %x axes [2, 3] : tensor<16x32x64x64xf32>
  %low = spectral.slice %spectrum start [0, 0, 0, 0] limit [16, 32, 12, 12]
      : tensor<16x32x64x33xcomplex<f32>>
  %high = spectral.slice %spectrum start [0, 0, 52, 0] limit [16, 32, 64, 12]
      : tensor<16x32x64x33xcomplex<f32>>
  %mixed_low = spectral.channel_mix %low, %w_low
      : tensor<16x32x12x12xcomplex<f32>>, tensor<32x32x12x12xcomplex<f32>>
  %mixed_high = spectral.channel_mix %high, %w_high
      : tensor<16x32x12x12xcomplex<f32>>, tensor<32x32x12x12xcomplex<f32>>
  %zeros = spectral.constant dense<(0.0, 0.0)> : tensor<16x32x40x12xcomplex<f32>>
  %rows = spectral.concat %mixed_low, %zeros, %mixed_high axis 2
      : tensor<16x32x12x12xcomplex<f32>>, tensor<16x32x40x12xcomplex<f32>>,
        tensor<16x32x12x12xcomplex<f32>>
  %full = spectral.pad %rows low [0, 0, 0, 0] high [0, 0, 0, 21] : tensor<16x32x64x12xcomplex<f32>>
  %y = spectral.irfft %full axes [2, 3] length 64 : tensor<16x32x64x33xcomplex<f32>>
  %biased = spectral.add %y, %bias : tensor<16x32x64x64xf32>, tensor<32x1x1xf32>
  %out = spectral.gelu %biased : tensor<16x32x64x64xf32>
  return %out : tensor<16x32x64x64xf32>
}
