// RUN: spectral-opt %s --spectral-simplify --split-input-file | FileCheck %s

// Duplicate transforms merge, and the merged pair then folds away.
// CHECK-LABEL: func.func @duplicates_then_inverse_pair
// CHECK-SAME:    (%[[X:.*]]: tensor<8xcomplex<f32>>)
// CHECK-NEXT:    %[[F:.*]] = spectral.fft %[[X]] axes [0]
// CHECK-NEXT:    %[[C:.*]] = spectral.conj %[[F]]
// CHECK-NEXT:    %[[I:.*]] = spectral.ifft %[[C]] axes [0]
// CHECK-NEXT:    return %[[I]], %[[I]], %[[X]]
func.func @duplicates_then_inverse_pair(%x: tensor<8xcomplex<f32>>)
    -> (tensor<8xcomplex<f32>>, tensor<8xcomplex<f32>>, tensor<8xcomplex<f32>>) {
  %a = spectral.fft %x axes [0] : tensor<8xcomplex<f32>>
  %b = spectral.fft %x axes [0] : tensor<8xcomplex<f32>>
  %c = spectral.conj %a : tensor<8xcomplex<f32>>
  %d = spectral.conj %b : tensor<8xcomplex<f32>>
  %e = spectral.ifft %c axes [0] : tensor<8xcomplex<f32>>
  %f = spectral.ifft %d axes [0] : tensor<8xcomplex<f32>>
  %g = spectral.ifft %a axes [0] : tensor<8xcomplex<f32>>
  return %e, %f, %g : tensor<8xcomplex<f32>>, tensor<8xcomplex<f32>>, tensor<8xcomplex<f32>>
}

// -----

// Unused work disappears; a constant expression folds to one constant.
// CHECK-LABEL: func.func @dead_code_and_constants
// CHECK-NEXT:    %[[C:.*]] = spectral.constant dense<5.000000e+00> : tensor<4xf32>
// CHECK-NEXT:    return %[[C]]
func.func @dead_code_and_constants(%x: tensor<4xf32>) -> tensor<4xf32> {
  %unused = spectral.exp %x : tensor<4xf32>
  %two = spectral.constant dense<2.0> : tensor<4xf32>
  %three = spectral.constant dense<3.0> : tensor<4xf32>
  %five = spectral.add %two, %three : tensor<4xf32>, tensor<4xf32>
  return %five : tensor<4xf32>
}

// PureFFT's forward pass as the model states it forms batch x patterns x
// frequencies products in four layers; after simplification none is left.
// RUN: spectral-opt %S/../../../examples/purefft_forward.mlir --spectral-simplify | FileCheck %s --check-prefix=PUREFFT
// PUREFFT-LABEL: func.func @main
// PUREFFT-NOT:   64x32x840
// PUREFFT:       spectral.cross_entropy

// -----

// A gradient's reductions: the factors constant along the batch move out of
// each (through products used elsewhere too), and the two sums of dy * x
// that remain are one.
// CHECK-LABEL: func.func @gradient_reductions_share_one_sum
// CHECK-SAME:    (%[[X:.*]]: tensor<4x8xf32>, %[[DY:.*]]: tensor<4x8xf32>,
// CHECK:         %[[P:.*]] = spectral.mul %[[X]], %[[DY]] : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-NEXT:    %[[S:.*]] = spectral.reduce_sum %[[P]] axes [0] keepdims
// CHECK-NOT:     spectral.reduce_sum
// CHECK:         return
func.func @gradient_reductions_share_one_sum(%x: tensor<4x8xf32>, %dy: tensor<4x8xf32>,
                                             %s0: tensor<1x8xf32>, %s1: tensor<1x8xf32>)
    -> (tensor<4x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>) {
  %h1 = spectral.mul %x, %s0 : tensor<4x8xf32>, tensor<1x8xf32>
  %h2 = spectral.mul %h1, %s1 : tensor<4x8xf32>, tensor<1x8xf32>
  %d1 = spectral.mul %dy, %s1 : tensor<4x8xf32>, tensor<1x8xf32>
  %p0 = spectral.mul %d1, %x : tensor<4x8xf32>, tensor<4x8xf32>
  %g0 = spectral.reduce_sum %p0 axes [0] keepdims : tensor<4x8xf32>
  %p1 = spectral.mul %dy, %h1 : tensor<4x8xf32>, tensor<4x8xf32>
  %g1 = spectral.reduce_sum %p1 axes [0] keepdims : tensor<4x8xf32>
  return %h2, %g0, %g1 : tensor<4x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>
}
