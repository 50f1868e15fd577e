// What the source limits accept: "sparse<" in a string or a comment, an
// arrow's '>', result numbers up to the limit, 120 levels of nesting.
// RUN: spectral-opt %s --allow-unregistered-dialect | FileCheck %s
// RUN: %python -c "n = 120; print('func.func @main(%%x: tensor<4xf32>) { %%0 = spectral.constant dense<' + '[' * n + '1.0' + ']' * n + '> : tensor<' + '1x' * n + 'f32> return }')" > %t.deep.mlir
// RUN: spectral-opt %t.deep.mlir | FileCheck %s --check-prefix=DEEP
// DEEP: spectral.constant dense<1.000000e+00>
// CHECK-LABEL: func.func @main
// CHECK: note = "sparse<{{.*}}> is refused; -> > >"
// CHECK: spectral.fft
func.func @main(%x: tensor<8xcomplex<f32>>) -> (tensor<8xcomplex<f32>>, tensor<8xcomplex<f32>>) {
  // sparse<[[0]], [1.0]> in a comment is not a literal
  %0:2 = "test.pair"(%x) {attrs = {note = "sparse<[[0]], [1.0]> is refused; -> > >"}} : (tensor<8xcomplex<f32>>) -> (tensor<8xcomplex<f32>>, tensor<8xcomplex<f32>>)
  %1 = spectral.fft %0#1 axes [0] : tensor<8xcomplex<f32>>
  return %0#0, %1 : tensor<8xcomplex<f32>>, tensor<8xcomplex<f32>>
}
