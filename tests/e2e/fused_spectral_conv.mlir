// examples/spectral_conv.mlir with its fusion regions written by hand, as
// the fusion pass will form them: the spectrum's low modes are taken and
// mixed in kernels of their own, and the inverse transform, bias and GELU
// run as one kernel (the irfft's store computes gelu(y + bias)). Run by
// the e2e tests with --validate on the host device.
func.func @main(%x: tensor<4x8x128xf32>, %weights: tensor<8x8x16xcomplex<f32>>,
                %bias: tensor<8x1xf32>) -> tensor<4x8x128xf32> {
  %spectrum = spectral.rfft %x axes [2] : tensor<4x8x128xf32>
  %low = spectral.slice %spectrum start [0, 0, 0] limit [4, 8, 16]
      : tensor<4x8x65xcomplex<f32>>
  %mixed = spectral.channel_mix %low, %weights
      : tensor<4x8x16xcomplex<f32>>, tensor<8x8x16xcomplex<f32>>
  %out = spectral.fusion %mixed, %bias
      : (tensor<4x8x16xcomplex<f32>>, tensor<8x1xf32>) -> tensor<4x8x128xf32> {
  ^bb0(%m: tensor<4x8x16xcomplex<f32>>, %b: tensor<8x1xf32>):
    %full = spectral.pad %m low [0, 0, 0] high [0, 0, 49] : tensor<4x8x16xcomplex<f32>>
    %y = spectral.irfft %full axes [2] length 128 : tensor<4x8x65xcomplex<f32>>
    %biased = spectral.add %y, %b : tensor<4x8x128xf32>, tensor<8x1xf32>
    %g = spectral.gelu %biased : tensor<4x8x128xf32>
    spectral.yield %g : tensor<4x8x128xf32>
  }
  return %out : tensor<4x8x128xf32>
}
