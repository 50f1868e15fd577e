// The 64 largest modes of each of 256 rows of 4096 complex floats, scattered
// back into a dense tensor: the top-k and scatter units, both phased on the
// host device. Run it with
//   spectral-run bench/sparse/topk_scatter.mlir --random-inputs --benchmark=10
// and with SPECTRAL_HOST_SCHEDULE=fibers to compare the per-thread forms.
func.func @main(%x: tensor<256x4096xcomplex<f32>>) -> tensor<256x4096xcomplex<f32>> {
  %v, %i = spectral.topk_modes %x k 64 : tensor<256x4096xcomplex<f32>>
  %y = spectral.scatter %v, %i : tensor<256x64xcomplex<f32>>, tensor<256x64xi64> -> tensor<256x4096xcomplex<f32>>
  return %y : tensor<256x4096xcomplex<f32>>
}
