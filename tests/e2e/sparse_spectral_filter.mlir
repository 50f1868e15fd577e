// A sparse spectral filter: keep the 24 strongest modes of each image's 2-D
// spectrum, scale them by learned per-mode gains, and return to space; plus
// a DCT-domain low-pass of the same images. Run by the e2e tests with
// --validate on the host device.
func.func @main(%x: tensor<3x16x32xf32>, %gains: tensor<3x24xcomplex<f32>>)
    -> (tensor<3x16x32xf32>, tensor<3x16x32xf32>, tensor<3x24xi64>) {
  %c = spectral.cast %x : tensor<3x16x32xf32> to tensor<3x16x32xcomplex<f32>>
  %spectrum = spectral.fft %c axes [1, 2] norm ortho : tensor<3x16x32xcomplex<f32>>
  %rows = spectral.reshape %spectrum : tensor<3x16x32xcomplex<f32>> -> tensor<3x512xcomplex<f32>>
  %values, %indices = spectral.topk_modes %rows k 24 : tensor<3x512xcomplex<f32>>
  %scaled = spectral.mul %values, %gains : tensor<3x24xcomplex<f32>>, tensor<3x24xcomplex<f32>>
  %sparse = spectral.scatter %scaled, %indices
      : tensor<3x24xcomplex<f32>>, tensor<3x24xi64> -> tensor<3x512xcomplex<f32>>
  %grid = spectral.reshape %sparse : tensor<3x512xcomplex<f32>> -> tensor<3x16x32xcomplex<f32>>
  %back = spectral.ifft %grid axes [1, 2] norm ortho : tensor<3x16x32xcomplex<f32>>
  %filtered = spectral.real %back : tensor<3x16x32xcomplex<f32>>
  %cosines = spectral.dct %x axes [1, 2] norm ortho : tensor<3x16x32xf32>
  %low = spectral.slice %cosines start [0, 0, 0] limit [3, 8, 16] : tensor<3x16x32xf32>
  %padded = spectral.pad %low low [0, 0, 0] high [0, 8, 16] : tensor<3x8x16xf32>
  %smooth = spectral.idct %padded axes [1, 2] norm ortho : tensor<3x16x32xf32>
  return %filtered, %smooth, %indices : tensor<3x16x32xf32>, tensor<3x16x32xf32>, tensor<3x24xi64>
}
