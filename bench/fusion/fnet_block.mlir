// An FNet block of the fusion targets: the real part of a 2-D FFT over the
// sequence (512) and hidden (768) axes, a residual, and a layer norm over
// the hidden axis with a learned scale and shift. Target: at most 3 kernels.
//
//   spectral-run bench/fusion/fnet_block.mlir --random-inputs --report --benchmark=10
func.func @main(%x: tensor<512x768xf32>, %gamma: tensor<768xf32>, %beta: tensor<768xf32>)
    -> tensor<512x768xf32> {
  %z = spectral.cast %x : tensor<512x768xf32> to tensor<512x768xcomplex<f32>>
  %f = spectral.fft %z axes [0, 1] : tensor<512x768xcomplex<f32>>
  %mix = spectral.real %f : tensor<512x768xcomplex<f32>>
  %h = spectral.add %x, %mix : tensor<512x768xf32>, tensor<512x768xf32>
  %mean = spectral.reduce_mean %h axes [1] keepdims : tensor<512x768xf32>
  %centered = spectral.sub %h, %mean : tensor<512x768xf32>, tensor<512x1xf32>
  %square = spectral.mul %centered, %centered : tensor<512x768xf32>, tensor<512x768xf32>
  %var = spectral.reduce_mean %square axes [1] keepdims : tensor<512x768xf32>
  %eps = spectral.constant dense<1.0e-5> : tensor<512x1xf32>
  %var_eps = spectral.add %var, %eps : tensor<512x1xf32>, tensor<512x1xf32>
  %std = spectral.sqrt %var_eps : tensor<512x1xf32>
  %normed = spectral.div %centered, %std : tensor<512x768xf32>, tensor<512x1xf32>
  %scaled = spectral.mul %normed, %gamma : tensor<512x768xf32>, tensor<768xf32>
  %out = spectral.add %scaled, %beta : tensor<512x768xf32>, tensor<768xf32>
  return %out : tensor<512x768xf32>
}
