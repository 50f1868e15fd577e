// A sparse spectral filter of 256 images of 32 x 32: each image's 2-D FFT,
// its 64 strongest modes kept (top-k), scattered back and transformed back.
// Fusion makes it two kernels of fft_complex2d.cuh (fft2_topk,
// scatter_ifft2), both phased on the host device. Run it with
//   spectral-run bench/sparse/image_filter.mlir --random-inputs --benchmark=10
// and with SPECTRAL_HOST_SCHEDULE=fibers to compare the per-thread forms.
func.func @main(%x: tensor<256x32x32xcomplex<f32>>) -> tensor<256x32x32xcomplex<f32>> {
  %s = spectral.fft %x axes [1, 2] norm ortho : tensor<256x32x32xcomplex<f32>>
  %rows = spectral.reshape %s : tensor<256x32x32xcomplex<f32>> -> tensor<256x1024xcomplex<f32>>
  %v, %i = spectral.topk_modes %rows k 64 : tensor<256x1024xcomplex<f32>>
  %d = spectral.scatter %v, %i : tensor<256x64xcomplex<f32>>, tensor<256x64xi64> -> tensor<256x1024xcomplex<f32>>
  %g = spectral.reshape %d : tensor<256x1024xcomplex<f32>> -> tensor<256x32x32xcomplex<f32>>
  %y = spectral.ifft %g axes [1, 2] norm ortho : tensor<256x32x32xcomplex<f32>>
  return %y : tensor<256x32x32xcomplex<f32>>
}
