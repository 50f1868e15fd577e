// Spectral probes: a few fixed modes of each image's 2-D spectrum (indices a
// top-k chose once, kept as a trained model keeps them; -1 an unused probe),
// weighted, and their magnitudes. The gather is computed in the store of the
// FFT (one kernel, a block per image). Run by the e2e tests with --validate
// on the host device.
func.func @main(%x: tensor<4x12x20xf32>, %w: tensor<4x8xcomplex<f32>>)
    -> (tensor<4x8xf32>, tensor<4x8xcomplex<f32>>) {
  %i = spectral.constant dense<[[0, 1, 2, 20, 21, 40, 239, -1],
                                [3, 3, 60, 61, 100, 119, 120, 200],
                                [-1, -1, 5, 25, 45, 65, 85, 105],
                                [239, 238, 237, 1, 0, 21, 22, 23]]> : tensor<4x8xi64>
  %c = spectral.cast %x : tensor<4x12x20xf32> to tensor<4x12x20xcomplex<f32>>
  %s = spectral.fft %c axes [1, 2] norm ortho : tensor<4x12x20xcomplex<f32>>
  %rows = spectral.reshape %s : tensor<4x12x20xcomplex<f32>> -> tensor<4x240xcomplex<f32>>
  %g = spectral.gather %rows[%i] : tensor<4x240xcomplex<f32>>, tensor<4x8xi64>
  %y = spectral.mul %g, %w : tensor<4x8xcomplex<f32>>, tensor<4x8xcomplex<f32>>
  %m = spectral.abs %y : tensor<4x8xcomplex<f32>>
  return %m, %y : tensor<4x8xf32>, tensor<4x8xcomplex<f32>>
}
