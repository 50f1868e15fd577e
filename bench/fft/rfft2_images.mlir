// R2C of a batch of 128 Fashion-MNIST-sized images, 28 x 28 (the PureFFT
// features' transform; issue 11 compares it with PyTorch's CPU FFT):
//
//   spectral-run bench/fft/rfft2_images.mlir --random-inputs --benchmark=20
//   bench/fusion/vs_torch.sh   (beside PyTorch)
func.func @main(%x: tensor<128x28x28xf32>) -> tensor<128x28x15xcomplex<f32>> {
  %s = spectral.rfft %x axes [1, 2] : tensor<128x28x28xf32>
  return %s : tensor<128x28x15xcomplex<f32>>
}
