// spectral-autodiff adds @<function>_grad: the loss and its gradients.
// RUN: spectral-opt %s --spectral-autodiff='function=filter' | FileCheck %s --check-prefix=FILTER
// RUN: spectral-opt %s --spectral-autodiff='function=classify wrt=1' | FileCheck %s --check-prefix=CLASSIFY
// RUN: spectral-opt %s --spectral-autodiff='function=filter name=backward' | FileCheck %s --check-prefix=NAMED
// RUN: spectral-opt %s --spectral-autodiff='function=spectrum' | FileCheck %s --check-prefix=SPECTRUM
// RUN: spectral-opt %s --spectral-autodiff='function=cosines' | FileCheck %s --check-prefix=COSINES
// RUN: spectral-opt %s --spectral-autodiff='function=modes' | FileCheck %s --check-prefix=MODES
//
// The gradient graph compiles and runs like any other: against the reference
// evaluator, on the host device.
// RUN: spectral-opt %s --spectral-autodiff='function=filter' -o %t.mlir
// RUN: spectral-run %t.mlir --function=filter_grad --device=host --random-inputs --validate 2>&1 | FileCheck %s --check-prefix=GRADRUN
// GRADRUN-COUNT-3: validate result #{{[0-9]}} {{.*}}: PASS
// RUN: spectral-opt %s --spectral-autodiff='function=classify' -o %t.classify.mlir
// RUN: spectral-run %t.classify.mlir --function=classify_grad --device=host --random-inputs --validate 2>&1 | FileCheck %s --check-prefix=CLASSRUN
// CLASSRUN-COUNT-3: validate result #{{[0-9]}} {{.*}}: PASS
// RUN: for f in spectrum cosines modes; do \
// RUN:   spectral-opt %s --spectral-autodiff="function=$f" -o %t.$f.mlir && \
// RUN:   spectral-run %t.$f.mlir --function=${f}_grad --device=host --random-inputs --validate 2>&1 || exit 1; \
// RUN: done | FileCheck %s --check-prefix=MORERUN
// MORERUN-COUNT-6: validate result #{{[0-9]}} {{.*}}: PASS

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

// |fft(x)| with norm ortho: the modulus passes z / |z| (0 at 0) and the
// orthonormal transform's adjoint is its inverse.
// SPECTRUM-LABEL: func.func @spectrum_grad(
// SPECTRUM: %[[F:.*]] = spectral.fft %arg0 axes [1] norm ortho
// SPECTRUM: spectral.div %[[F]], %{{.*}} : tensor<4x8xcomplex<f32>>, tensor<4x8xcomplex<f32>>
// SPECTRUM: spectral.select
// SPECTRUM: spectral.ifft %{{.*}} axes [1] norm ortho : tensor<4x8xcomplex<f32>>
func.func @spectrum(%x: tensor<4x8xcomplex<f32>>) -> tensor<f32> {
  %f = spectral.fft %x axes [1] norm ortho : tensor<4x8xcomplex<f32>>
  %a = spectral.abs %f : tensor<4x8xcomplex<f32>>
  %s = spectral.reduce_sum %a axes [0, 1] : tensor<4x8xf32>
  return %s : tensor<f32>
}

// A type-2 DCT (norm backward): its adjoint is the unscaled type-2 idct
// (norm forward) of the gradient with bin 0 doubled.
// COSINES-LABEL: func.func @cosines_grad(
// COSINES: spectral.constant dense<{{\[}}[2.000000e+00, 1.000000e+00, 1.000000e+00
// COSINES: spectral.idct %{{.*}} axes [1] norm forward : tensor<4x8xf32>
func.func @cosines(%x: tensor<4x8xf32>) -> tensor<f32> {
  %c = spectral.dct %x axes [1] : tensor<4x8xf32>
  %m = spectral.mul %c, %c : tensor<4x8xf32>, tensor<4x8xf32>
  %s = spectral.reduce_sum %m axes [0, 1] : tensor<4x8xf32>
  return %s : tensor<f32>
}

// Top-k values: their gradient goes back where they were taken (scatter);
// reduce_max shares it among the maxima; softmax's is y (g - sum(g y)).
// MODES-LABEL: func.func @modes_grad(
// MODES: %values, %indices = spectral.topk_modes %arg0 k 3
// MODES: spectral.cmp eq
// MODES: spectral.sub
// MODES: spectral.scatter %{{.*}}, %indices : tensor<4x3xf32>, tensor<4x3xi64> -> tensor<4x16xf32>
func.func @modes(%x: tensor<4x16xf32>) -> tensor<f32> {
  %v, %i = spectral.topk_modes %x k 3 : tensor<4x16xf32>
  %e = spectral.softmax %v axis 1 : tensor<4x3xf32>
  %s = spectral.reduce_max %e axes [0, 1] : tensor<4x3xf32>
  return %s : tensor<f32>
}
