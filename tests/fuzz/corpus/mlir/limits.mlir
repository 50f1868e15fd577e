// The forms the source limits look at: strings, comments, arrows, result
// numbers and counts, nesting (scripts/dev fuzz adds examples/*.mlir).
func.func @main(%x: tensor<4x8xcomplex<f32>>) -> (tensor<4x8xcomplex<f32>>, tensor<4x8xcomplex<f32>>) attributes {note = "sparse<[[0]], [1.0]> -> >= #1"} {
  %0:2 = "spectral.fusion"(%x) ({
  ^bb0(%a: tensor<4x8xcomplex<f32>>):
    %f = spectral.fft %a axes [1] norm ortho : tensor<4x8xcomplex<f32>>
    %c = spectral.conj %f : tensor<4x8xcomplex<f32>>
    spectral.yield %f, %c : tensor<4x8xcomplex<f32>>, tensor<4x8xcomplex<f32>>
  }) : (tensor<4x8xcomplex<f32>>) -> (tensor<4x8xcomplex<f32>>, tensor<4x8xcomplex<f32>>)
  %k = spectral.constant dense<[[(1.0, 2.0)]]> : tensor<1x1xcomplex<f32>>
  %m = spectral.mul %0#1, %k : tensor<4x8xcomplex<f32>>, tensor<1x1xcomplex<f32>>
  return %0 #0, %m : tensor<4x8xcomplex<f32>>, tensor<4x8xcomplex<f32>>
}
