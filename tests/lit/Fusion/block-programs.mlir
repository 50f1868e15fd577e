// RUN: spectral-opt %s --spectral-fuse=block-programs --split-input-file | FileCheck %s

// Block programs that read one tensor become one (horizontal fusion): two
// softmax selections over one pool of patterns (PureFFT's layers) are one
// kernel that reads the pool once.
// CHECK-LABEL: func.func @siblings_share_a_launch
// CHECK-NEXT:    %[[R:.*]]:2 = spectral.fusion %arg1, %arg0
// CHECK-COUNT-2:   spectral.softmax
// CHECK:           spectral.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[R]]#0, %[[R]]#1
func.func @siblings_share_a_launch(%pool: tensor<32x64xf32>, %l: tensor<2x64xf32>) -> (tensor<1x64xf32>, tensor<1x64xf32>) {
  %l0 = spectral.slice %l start [0, 0] limit [1, 64] : tensor<2x64xf32>
  %a0 = spectral.mul %pool, %l0 : tensor<32x64xf32>, tensor<1x64xf32>
  %c0 = spectral.reduce_sum %a0 axes [1] keepdims : tensor<32x64xf32>
  %w0 = spectral.softmax %c0 axis 0 : tensor<32x1xf32>
  %p0 = spectral.mul %pool, %w0 : tensor<32x64xf32>, tensor<32x1xf32>
  %s0 = spectral.reduce_sum %p0 axes [0] keepdims : tensor<32x64xf32>
  %l1 = spectral.slice %l start [1, 0] limit [2, 64] : tensor<2x64xf32>
  %a1 = spectral.mul %pool, %l1 : tensor<32x64xf32>, tensor<1x64xf32>
  %c1 = spectral.reduce_sum %a1 axes [1] keepdims : tensor<32x64xf32>
  %w1 = spectral.softmax %c1 axis 0 : tensor<32x1xf32>
  %p1 = spectral.mul %pool, %w1 : tensor<32x64xf32>, tensor<32x1xf32>
  %s1 = spectral.reduce_sum %p1 axes [0] keepdims : tensor<32x64xf32>
  return %s0, %s1 : tensor<1x64xf32>, tensor<1x64xf32>
}

// -----

// Not when one reads, through a kernel outside (the rfft), what the other
// computes: one region would wait for itself.
// CHECK-LABEL: func.func @sibling_through_a_transform
// CHECK:         spectral.fusion %arg0, %arg1
// CHECK:         spectral.rfft
// CHECK:         spectral.fusion %{{.*}}, %arg0
func.func @sibling_through_a_transform(%pool: tensor<32x64xf32>, %x: tensor<32x64xf32>) -> tensor<1x64xcomplex<f32>> {
  %c0 = spectral.reduce_sum %pool axes [1] keepdims : tensor<32x64xf32>
  %w0 = spectral.softmax %c0 axis 0 : tensor<32x1xf32>
  %p0 = spectral.mul %x, %w0 : tensor<32x64xf32>, tensor<32x1xf32>
  %f = spectral.rfft %p0 axes [1] : tensor<32x64xf32>
  %r = spectral.real %f : tensor<32x33xcomplex<f32>>
  %m = spectral.reduce_max %r axes [1] keepdims : tensor<32x33xf32>
  %q = spectral.mul %pool, %m : tensor<32x64xf32>, tensor<32x1xf32>
  %s = spectral.reduce_sum %q axes [0] keepdims : tensor<32x64xf32>
  %w1 = spectral.softmax %s axis 1 : tensor<1x64xf32>
  %g = spectral.complex %w1, %w1 : tensor<1x64xf32>, tensor<1x64xf32>
  return %g : tensor<1x64xcomplex<f32>>
}

// -----

// Nor when the two together exceed a block program's 2^20 element
// operations (each sum reads 563,200 elements).
// CHECK-LABEL: func.func @siblings_too_large_together
// CHECK-COUNT-2: spectral.fusion %arg0 :
func.func @siblings_too_large_together(%pool: tensor<512x1100xf32>)
    -> (tensor<512x1xf32>, tensor<512x1xf32>) {
  %c0 = spectral.reduce_sum %pool axes [1] keepdims : tensor<512x1100xf32>
  %w0 = spectral.softmax %c0 axis 0 : tensor<512x1xf32>
  %c1 = spectral.reduce_max %pool axes [1] keepdims : tensor<512x1100xf32>
  %w1 = spectral.softmax %c1 axis 0 : tensor<512x1xf32>
  return %w0, %w1 : tensor<512x1xf32>, tensor<512x1xf32>
}

// -----

// Nor when each reports a run-time error (a label out of range): a launch
// has one error word, so two losses on one set of labels stay two kernels.
// CHECK-LABEL: func.func @siblings_that_both_report
// CHECK:         spectral.fusion %arg0, %arg2
// CHECK:         spectral.fusion %arg1, %arg2
func.func @siblings_that_both_report(%x1: tensor<64x10xf32>, %x2: tensor<64x10xf32>,
                                     %labels: tensor<64xi32>) -> (tensor<f32>, tensor<f32>) {
  %m1 = spectral.reduce_mean %x1 axes [1] keepdims : tensor<64x10xf32>
  %y1 = spectral.sub %x1, %m1 : tensor<64x10xf32>, tensor<64x1xf32>
  %l1 = spectral.cross_entropy %y1, %labels : tensor<64x10xf32>, tensor<64xi32>
  %m2 = spectral.reduce_max %x2 axes [1] keepdims : tensor<64x10xf32>
  %y2 = spectral.sub %x2, %m2 : tensor<64x10xf32>, tensor<64x1xf32>
  %l2 = spectral.cross_entropy %y2, %labels : tensor<64x10xf32>, tensor<64xi32>
  return %l1, %l2 : tensor<f32>, tensor<f32>
}

// -----

// One connected program takes one of two losses that read its values; the
// other is a kernel of its own.
// CHECK-LABEL: func.func @one_reporting_op_per_program
// CHECK-COUNT-1: spectral.cross_entropy
// CHECK:         spectral.yield
// CHECK:         spectral.cross_entropy
func.func @one_reporting_op_per_program(%x: tensor<64x10xf32>, %a: tensor<64xi32>,
                                        %b: tensor<64xi32>) -> (tensor<f32>, tensor<f32>) {
  %m = spectral.reduce_mean %x axes [1] keepdims : tensor<64x10xf32>
  %y = spectral.sub %x, %m : tensor<64x10xf32>, tensor<64x1xf32>
  %l1 = spectral.cross_entropy %y, %a : tensor<64x10xf32>, tensor<64xi32>
  %l2 = spectral.cross_entropy %y, %b : tensor<64x10xf32>, tensor<64xi32>
  return %l1, %l2 : tensor<f32>, tensor<f32>
}
