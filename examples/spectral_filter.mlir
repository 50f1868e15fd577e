// A spectral filter over rows of 4096 samples: each row to the frequency
// domain, every bin scaled by a learned complex weight, back to samples.
// spectral-fuse makes it one kernel (a round trip): each row's spectrum
// stays in shared memory between the two transforms.
//
//   spectral-run examples/spectral_filter.mlir --random-inputs --validate --report
func.func @main(%x: tensor<64x4096xf32>, %w: tensor<2049xcomplex<f32>>) -> tensor<64x4096xf32> {
  %spectrum = spectral.rfft %x axes [1] : tensor<64x4096xf32>
  %filtered = spectral.mul %spectrum, %w : tensor<64x2049xcomplex<f32>>, tensor<2049xcomplex<f32>>
  %y = spectral.irfft %filtered axes [1] length 4096 : tensor<64x2049xcomplex<f32>>
  return %y : tensor<64x4096xf32>
}
