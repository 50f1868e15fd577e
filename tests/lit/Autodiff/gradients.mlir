// spectral-autodiff adds @<function>_grad: the loss and its gradients.
// RUN: spectral-opt %s --spectral-autodiff='function=filter' | FileCheck %s --check-prefix=FILTER
// RUN: spectral-opt %s --spectral-autodiff='function=classify wrt=1' | FileCheck %s --check-prefix=CLASSIFY
// RUN: spectral-opt %s --spectral-autodiff='function=filter name=backward' | FileCheck %s --check-prefix=NAMED
//
// The gradient graph compiles and runs like any other: against the reference
// evaluator, on the host device.
// RUN: spectral-opt %s --spectral-autodiff='function=filter' -o %t.mlir
// RUN: spectral-run %t.mlir --function=filter_grad --device=host --random-inputs --validate 2>&1 | FileCheck %s --check-prefix=GRADRUN
// GRADRUN-COUNT-3: validate result #{{[0-9]}} {{.*}}: PASS
// RUN: spectral-opt %s --spectral-autodiff='function=classify' -o %t.classify.mlir
// RUN: spectral-run %t.classify.mlir --function=classify_grad --device=host --random-inputs --validate 2>&1 | FileCheck %s --check-prefix=CLASSRUN
// CLASSRUN-COUNT-3: validate result #{{[0-9]}} {{.*}}: PASS

// A spectral filter: rfft's adjoint is an irfft of the half spectrum with its
// interior bins halved (the weights constant), unscaled (norm forward).
// FILTER-LABEL: func.func @filter_grad(%arg0: tensor<4x16xf32>, %arg1: tensor<9xcomplex<f32>>)
// FILTER-SAME: -> (tensor<f32>, tensor<4x16xf32>, tensor<9xcomplex<f32>>)
// FILTER: %[[ONE:.*]] = spectral.constant dense<1.000000e+00> : tensor<f32>
// FILTER: spectral.rfft %{{.*}} axes [1] norm forward : tensor<4x16xf32>
// FILTER: spectral.constant dense<[{{\[}}(1.000000e+00,0.000000e+00), (2.000000e+00,0.000000e+00)
// FILTER: spectral.conj
// FILTER: spectral.reduce_sum %{{.*}} axes [0] keepdims : tensor<4x9xcomplex<f32>>
// FILTER: spectral.constant dense<[{{\[}}(1.000000e+00,0.000000e+00), (5.000000e-01,0.000000e+00)
// FILTER: spectral.irfft %{{.*}} axes [1] length 16 norm forward : tensor<4x9xcomplex<f32>>
// FILTER: return %{{.*}}, %{{.*}}, %{{.*}} : tensor<f32>, tensor<4x16xf32>, tensor<9xcomplex<f32>>
// NAMED: func.func @backward(
func.func @filter(%x: tensor<4x16xf32>, %w: tensor<9xcomplex<f32>>) -> tensor<f32> {
  %f = spectral.rfft %x axes [1] : tensor<4x16xf32>
  %m = spectral.mul %f, %w : tensor<4x9xcomplex<f32>>, tensor<9xcomplex<f32>>
  %y = spectral.irfft %m axes [1] length 16 : tensor<4x9xcomplex<f32>>
  %s = spectral.mul %y, %y : tensor<4x16xf32>, tensor<4x16xf32>
  %loss = spectral.reduce_mean %s axes [0, 1] : tensor<4x16xf32>
  return %loss : tensor<f32>
}

// Only the weights (wrt=1): cross_entropy gives softmax - onehot of the labels;
// nothing flows to the features or the labels.
// CLASSIFY-LABEL: func.func @classify_grad(
// CLASSIFY-SAME: -> (tensor<f32>, tensor<3x10xf32>)
// CLASSIFY: spectral.cmp eq %{{.*}}, %{{.*}} : tensor<8x1xi32>, tensor<1x10xi32>
// CLASSIFY: spectral.softmax %{{.*}} axis 1 : tensor<8x10xf32>
// CLASSIFY: spectral.matmul %{{.*}}, %{{.*}} : tensor<3x8xf32>, tensor<8x10xf32>
// CLASSIFY-NOT: spectral.matmul
// CLASSIFY: return
func.func @classify(%x: tensor<8x3xf32>, %w: tensor<3x10xf32>, %labels: tensor<8xi32>) -> tensor<f32> {
  %logits = spectral.matmul %x, %w : tensor<8x3xf32>, tensor<3x10xf32>
  %loss = spectral.cross_entropy %logits, %labels : tensor<8x10xf32>, tensor<8xi32>
  return %loss : tensor<f32>
}
