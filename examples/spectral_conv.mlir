// A 1-D Fourier neural operator layer (FNO): take each channel to the
// frequency domain, keep its 16 lowest modes, mix the channels mode by mode
// with complex weights, return to space, add a per-channel bias, apply GELU.
//
//   spectral-run examples/spectral_conv.mlir --random-inputs --seed=1
//   spectral-run examples/spectral_conv.mlir --input=@x.npy --input=@w.npy \
//       --input=@bias.npy --output=@y.npy
func.func @main(%x: tensor<4x8x128xf32>, %weights: tensor<8x8x16xcomplex<f32>>,
                %bias: tensor<8x1xf32>) -> tensor<4x8x128xf32> {
  %spectrum = spectral.rfft %x axes [2] : tensor<4x8x128xf32>
  %low = spectral.slice %spectrum start [0, 0, 0] limit [4, 8, 16]
      : tensor<4x8x65xcomplex<f32>>
  %mixed = spectral.channel_mix %low, %weights
      : tensor<4x8x16xcomplex<f32>>, tensor<8x8x16xcomplex<f32>>
  %full = spectral.pad %mixed low [0, 0, 0] high [0, 0, 49]
      : tensor<4x8x16xcomplex<f32>>
  %y = spectral.irfft %full axes [2] length 128 : tensor<4x8x65xcomplex<f32>>
  %biased = spectral.add %y, %bias : tensor<4x8x128xf32>, tensor<8x1xf32>
  %out = spectral.gelu %biased : tensor<4x8x128xf32>
  return %out : tensor<4x8x128xf32>
}
