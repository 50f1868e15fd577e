// A batched 1-D FFT: 4096 rows of 1024 complex floats, forward along the
// last axis. bench/fft/spectral-run-vs-fftw.sh runs it with spectral-run
// --benchmark next to FFTW on the same shape.
func.func @main(%x: tensor<4096x1024xcomplex<f32>>) -> tensor<4096x1024xcomplex<f32>> {
  %y = spectral.fft %x axes [1] : tensor<4096x1024xcomplex<f32>>
  return %y : tensor<4096x1024xcomplex<f32>>
}
