// spectral-fuse never forms regions that read each other's results: a group
// formed earlier is one node of the dependency graph, and a recomputed op
// makes its readers depend on what it reads. These graphs (from random
// graphs that broke earlier versions) must come out as valid IR.
// RUN: spectral-opt %s --spectral-fuse --split-input-file | FileCheck %s

// The reduction of %v4 may not take %v0 into its load while the chain
// holding %v0 reads the reduction's result through %v7.
// CHECK-LABEL: func.func @groups_are_nodes
// CHECK:         return
func.func @groups_are_nodes(%a: tensor<16x64xf32>, %b: tensor<16x64xf32>, %c: tensor<16x1xf32>)
    -> (tensor<16x64xf32>, tensor<16x1xf32>, tensor<16x1xf32>, tensor<16x64xf32>, tensor<16x64xf32>) {
  %v0 = spectral.sub %a, %c : tensor<16x64xf32>, tensor<16x1xf32>
  %v1 = spectral.reduce_sum %v0 axes [1] keepdims : tensor<16x64xf32>
  %v2 = spectral.reduce_mean %b axes [1] keepdims : tensor<16x64xf32>
  %v3 = spectral.mul %b, %a : tensor<16x64xf32>, tensor<16x64xf32>
  %v4 = spectral.add %v0, %c : tensor<16x64xf32>, tensor<16x1xf32>
  %v5 = spectral.reduce_mean %v4 axes [1] keepdims : tensor<16x64xf32>
  %v6 = spectral.add %v0, %v3 : tensor<16x64xf32>, tensor<16x64xf32>
  %v7 = spectral.mul %v3, %v5 : tensor<16x64xf32>, tensor<16x1xf32>
  return %v0, %v1, %v2, %v6, %v7
      : tensor<16x64xf32>, tensor<16x1xf32>, tensor<16x1xf32>, tensor<16x64xf32>, tensor<16x64xf32>
}

// -----

// CHECK-LABEL: func.func
// CHECK: return
func.func @cyc1(%a: tensor<16x64xf32>, %b: tensor<16x64xf32>)
    -> (tensor<16x64xf32>, tensor<16x1xf32>, tensor<16x64xf32>) {
  %p = spectral.add %a, %b : tensor<16x64xf32>, tensor<16x64xf32>
  %d = spectral.exp %p : tensor<16x64xf32>
  %f = spectral.neg %d : tensor<16x64xf32>
  %d2 = spectral.tanh %d : tensor<16x64xf32>
  %r = spectral.reduce_sum %d2 axes [1] keepdims : tensor<16x64xf32>
  %k = spectral.reduce_mean %d2 axes [1] keepdims : tensor<16x64xf32>
  %y = spectral.add %p, %r : tensor<16x64xf32>, tensor<16x1xf32>
  return %f, %k, %y : tensor<16x64xf32>, tensor<16x1xf32>, tensor<16x64xf32>
}

// -----

// CHECK-LABEL: func.func
// CHECK: return
func.func @cyc2(%a: tensor<16x64xf32>, %c: tensor<16x1xf32>) -> (tensor<16x1xf32>, tensor<16x64xf32>) {
  %v0 = spectral.mul %a, %c : tensor<16x64xf32>, tensor<16x1xf32>
  %v1 = spectral.tanh %v0 : tensor<16x64xf32>
  %v3 = spectral.sub %v1, %c : tensor<16x64xf32>, tensor<16x1xf32>
  %v7 = spectral.add %a, %v3 : tensor<16x64xf32>, tensor<16x64xf32>
  %v8 = spectral.mul %v1, %c : tensor<16x64xf32>, tensor<16x1xf32>
  %v9 = spectral.exp %v8 : tensor<16x64xf32>
  %v10 = spectral.reduce_mean %v9 axes [1] keepdims : tensor<16x64xf32>
  %v11 = spectral.reduce_sum %v8 axes [1] keepdims : tensor<16x64xf32>
  %v13 = spectral.add %v7, %v10 : tensor<16x64xf32>, tensor<16x1xf32>
  return %v11, %v13 : tensor<16x1xf32>, tensor<16x64xf32>
}

// -----

// CHECK-LABEL: func.func
// CHECK: return
func.func @main(%a: tensor<16x64xf32>, %b: tensor<16x64xf32>, %c: tensor<16x1xf32>) -> (tensor<16x1xf32>, tensor<16x1xf32>, tensor<16x64xf32>, tensor<16x1xf32>, tensor<16x64xf32>, tensor<16x1xf32>, tensor<16x1xf32>, tensor<16x1xf32>, tensor<16x64xf32>, tensor<16x1xf32>) {
  %two = spectral.constant dense<2.0> : tensor<16x64xf32>
  %v0 = spectral.reduce_max %b axes [1] keepdims : tensor<16x64xf32>
  %v1 = spectral.reduce_sum %b axes [1] keepdims : tensor<16x64xf32>
  %v2 = spectral.exp %a : tensor<16x64xf32>
  %v3 = spectral.sigmoid %v2 : tensor<16x64xf32>
  %v4 = spectral.neg %v2 : tensor<16x64xf32>
  %v5 = spectral.exp %c : tensor<16x1xf32>
  %v6 = spectral.sub %v4, %c : tensor<16x64xf32>, tensor<16x1xf32>
  %v7 = spectral.reduce_max %v3 axes [1] keepdims : tensor<16x64xf32>
  %v8 = spectral.mul %v2, %two : tensor<16x64xf32>, tensor<16x64xf32>
  %v9 = spectral.reduce_mean %v8 axes [1] keepdims : tensor<16x64xf32>
  %v10 = spectral.sigmoid %v3 : tensor<16x64xf32>
  %v11 = spectral.reduce_max %v10 axes [1] keepdims : tensor<16x64xf32>
  %v12 = spectral.sub %v8, %v11 : tensor<16x64xf32>, tensor<16x1xf32>
  %v13 = spectral.reduce_sum %v10 axes [1] keepdims : tensor<16x64xf32>
  return %v0, %v1, %v4, %v5, %v6, %v7, %v9, %v11, %v12, %v13 : tensor<16x1xf32>, tensor<16x1xf32>, tensor<16x64xf32>, tensor<16x1xf32>, tensor<16x64xf32>, tensor<16x1xf32>, tensor<16x1xf32>, tensor<16x1xf32>, tensor<16x64xf32>, tensor<16x1xf32>
}

