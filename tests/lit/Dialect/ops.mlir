// Round trip of every spectral op: parse, print, parse the printed form again.
// RUN: spectral-opt %s -split-input-file | spectral-opt -split-input-file | FileCheck %s
// The generic form must round trip too.
// RUN: spectral-opt %s -split-input-file -mlir-print-op-generic | spectral-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @constant
func.func @constant() -> (tensor<2xf32>, tensor<complex<f64>>, tensor<2x2xi32>, tensor<3xi1>, tensor<4xi64>) {
  // CHECK: spectral.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %0 = spectral.constant dense<[1.0, 2.0]> : tensor<2xf32>
  // CHECK: spectral.constant dense<(1.000000e+00,-2.000000e+00)> : tensor<complex<f64>>
  %1 = spectral.constant dense<(1.0, -2.0)> : tensor<complex<f64>>
  // CHECK: spectral.constant dense<{{\[}}[1, 2], [3, 4]]> : tensor<2x2xi32>
  %2 = spectral.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  // CHECK: spectral.constant dense<[true, false, true]> : tensor<3xi1>
  %3 = spectral.constant dense<[true, false, true]> : tensor<3xi1>
  // CHECK: spectral.constant dense<-1> : tensor<4xi64>
  %4 = spectral.constant dense<-1> : tensor<4xi64>
  return %0, %1, %2, %3, %4 : tensor<2xf32>, tensor<complex<f64>>, tensor<2x2xi32>, tensor<3xi1>, tensor<4xi64>
}

// -----

// CHECK-LABEL: func.func @same_type_unary
// CHECK-SAME: (%[[R:.*]]: tensor<2x3xf32>, %[[C:.*]]: tensor<4xcomplex<f64>>, %[[I:.*]]: tensor<5xi32>)
func.func @same_type_unary(%r: tensor<2x3xf32>, %c: tensor<4xcomplex<f64>>, %i: tensor<5xi32>) {
  // CHECK: spectral.neg %[[R]] : tensor<2x3xf32>
  // CHECK: spectral.neg %[[C]] : tensor<4xcomplex<f64>>
  // CHECK: spectral.neg %[[I]] : tensor<5xi32>
  %0 = spectral.neg %r : tensor<2x3xf32>
  %1 = spectral.neg %c : tensor<4xcomplex<f64>>
  %2 = spectral.neg %i : tensor<5xi32>
  // CHECK: spectral.exp %[[R]] : tensor<2x3xf32>
  // CHECK: spectral.exp %[[C]] : tensor<4xcomplex<f64>>
  %3 = spectral.exp %r : tensor<2x3xf32>
  %4 = spectral.exp %c : tensor<4xcomplex<f64>>
  // CHECK: spectral.log %[[R]] : tensor<2x3xf32>
  // CHECK: spectral.log %[[C]] : tensor<4xcomplex<f64>>
  %5 = spectral.log %r : tensor<2x3xf32>
  %6 = spectral.log %c : tensor<4xcomplex<f64>>
  // CHECK: spectral.sqrt %[[R]] : tensor<2x3xf32>
  // CHECK: spectral.sqrt %[[C]] : tensor<4xcomplex<f64>>
  %7 = spectral.sqrt %r : tensor<2x3xf32>
  %8 = spectral.sqrt %c : tensor<4xcomplex<f64>>
  // CHECK: spectral.tanh %[[R]] : tensor<2x3xf32>
  // CHECK: spectral.tanh %[[C]] : tensor<4xcomplex<f64>>
  %9 = spectral.tanh %r : tensor<2x3xf32>
  %10 = spectral.tanh %c : tensor<4xcomplex<f64>>
  // CHECK: spectral.relu %[[R]] : tensor<2x3xf32>
  // CHECK: spectral.gelu %[[R]] : tensor<2x3xf32>
  // CHECK: spectral.sigmoid %[[R]] : tensor<2x3xf32>
  // CHECK: spectral.conj %[[C]] : tensor<4xcomplex<f64>>
  %11 = spectral.relu %r : tensor<2x3xf32>
  %12 = spectral.gelu %r : tensor<2x3xf32>
  %13 = spectral.sigmoid %r : tensor<2x3xf32>
  %14 = spectral.conj %c : tensor<4xcomplex<f64>>
  return
}

// -----

// CHECK-LABEL: func.func @to_real_unary
// CHECK-SAME: (%[[R:.*]]: tensor<3xf64>, %[[C:.*]]: tensor<2x3xcomplex<f32>>, %[[I:.*]]: tensor<4xi64>)
func.func @to_real_unary(%r: tensor<3xf64>, %c: tensor<2x3xcomplex<f32>>, %i: tensor<4xi64>)
    -> (tensor<3xf64>, tensor<2x3xf32>, tensor<4xi64>, tensor<2x3xf32>, tensor<2x3xf32>) {
  // CHECK: spectral.abs %[[R]] : tensor<3xf64>
  // CHECK: spectral.abs %[[C]] : tensor<2x3xcomplex<f32>>
  // CHECK: spectral.abs %[[I]] : tensor<4xi64>
  // CHECK: spectral.real %[[C]] : tensor<2x3xcomplex<f32>>
  // CHECK: spectral.imag %[[C]] : tensor<2x3xcomplex<f32>>
  %0 = spectral.abs %r : tensor<3xf64>
  %1 = spectral.abs %c : tensor<2x3xcomplex<f32>>
  %2 = spectral.abs %i : tensor<4xi64>
  %3 = spectral.real %c : tensor<2x3xcomplex<f32>>
  %4 = spectral.imag %c : tensor<2x3xcomplex<f32>>
  return %0, %1, %2, %3, %4 : tensor<3xf64>, tensor<2x3xf32>, tensor<4xi64>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Binary ops broadcast like numpy: [2, 1, 4] with [3, 1] is [2, 3, 4].
// CHECK-LABEL: func.func @binary_broadcast
func.func @binary_broadcast(%a: tensor<2x1x4xf32>, %b: tensor<3x1xf32>,
                            %c: tensor<4xcomplex<f64>>, %d: tensor<complex<f64>>,
                            %i: tensor<5xi32>, %j: tensor<1xi32>)
    -> (tensor<2x3x4xf32>, tensor<4xcomplex<f64>>, tensor<5xi32>, tensor<2x3x4xf32>, tensor<2x3x4xcomplex<f32>>) {
  // CHECK: spectral.add %{{.*}}, %{{.*}} : tensor<2x1x4xf32>, tensor<3x1xf32>
  // CHECK: spectral.sub %{{.*}}, %{{.*}} : tensor<4xcomplex<f64>>, tensor<complex<f64>>
  // CHECK: spectral.mul %{{.*}}, %{{.*}} : tensor<5xi32>, tensor<1xi32>
  // CHECK: spectral.div %{{.*}}, %{{.*}} : tensor<3x1xf32>, tensor<2x1x4xf32>
  // CHECK: spectral.complex %{{.*}}, %{{.*}} : tensor<2x1x4xf32>, tensor<3x1xf32>
  %0 = spectral.add %a, %b : tensor<2x1x4xf32>, tensor<3x1xf32>
  %1 = spectral.sub %c, %d : tensor<4xcomplex<f64>>, tensor<complex<f64>>
  %2 = spectral.mul %i, %j : tensor<5xi32>, tensor<1xi32>
  %3 = spectral.div %b, %a : tensor<3x1xf32>, tensor<2x1x4xf32>
  %4 = spectral.complex %a, %b : tensor<2x1x4xf32>, tensor<3x1xf32>
  return %0, %1, %2, %3, %4 : tensor<2x3x4xf32>, tensor<4xcomplex<f64>>, tensor<5xi32>, tensor<2x3x4xf32>, tensor<2x3x4xcomplex<f32>>
}

// -----

// CHECK-LABEL: func.func @cmp_select
func.func @cmp_select(%a: tensor<2x3xf64>, %b: tensor<3xf64>, %i: tensor<4xi64>,
                      %x: tensor<2x3xcomplex<f32>>, %y: tensor<complex<f32>>)
    -> (tensor<2x3xi1>, tensor<4xi1>, tensor<2x3xcomplex<f32>>) {
  // CHECK: spectral.cmp lt %{{.*}}, %{{.*}} : tensor<2x3xf64>, tensor<3xf64>
  // CHECK: spectral.cmp eq
  // CHECK: spectral.cmp ne
  // CHECK: spectral.cmp le
  // CHECK: spectral.cmp gt
  // CHECK: spectral.cmp ge %{{.*}}, %{{.*}} : tensor<4xi64>, tensor<4xi64>
  %0 = spectral.cmp lt %a, %b : tensor<2x3xf64>, tensor<3xf64>
  %1 = spectral.cmp eq %a, %b : tensor<2x3xf64>, tensor<3xf64>
  %2 = spectral.cmp ne %a, %b : tensor<2x3xf64>, tensor<3xf64>
  %3 = spectral.cmp le %a, %b : tensor<2x3xf64>, tensor<3xf64>
  %4 = spectral.cmp gt %a, %b : tensor<2x3xf64>, tensor<3xf64>
  %5 = spectral.cmp ge %i, %i : tensor<4xi64>, tensor<4xi64>
  // CHECK: spectral.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x3xi1>, tensor<2x3xcomplex<f32>>, tensor<complex<f32>>
  %6 = spectral.select %0, %x, %y : tensor<2x3xi1>, tensor<2x3xcomplex<f32>>, tensor<complex<f32>>
  return %0, %5, %6 : tensor<2x3xi1>, tensor<4xi1>, tensor<2x3xcomplex<f32>>
}

// -----

// CHECK-LABEL: func.func @cast
func.func @cast(%r: tensor<2x3xf32>, %i: tensor<4xi32>, %b: tensor<4xi1>, %c: tensor<2xcomplex<f32>>) {
  // CHECK: spectral.cast %{{.*}} : tensor<2x3xf32> to tensor<2x3xcomplex<f64>>
  // CHECK: spectral.cast %{{.*}} : tensor<2x3xf32> to tensor<2x3xi64>
  // CHECK: spectral.cast %{{.*}} : tensor<4xi32> to tensor<4xf64>
  // CHECK: spectral.cast %{{.*}} : tensor<4xi1> to tensor<4xf32>
  // CHECK: spectral.cast %{{.*}} : tensor<2xcomplex<f32>> to tensor<2xcomplex<f64>>
  %0 = spectral.cast %r : tensor<2x3xf32> to tensor<2x3xcomplex<f64>>
  %1 = spectral.cast %r : tensor<2x3xf32> to tensor<2x3xi64>
  %2 = spectral.cast %i : tensor<4xi32> to tensor<4xf64>
  %3 = spectral.cast %b : tensor<4xi1> to tensor<4xf32>
  %4 = spectral.cast %c : tensor<2xcomplex<f32>> to tensor<2xcomplex<f64>>
  return
}

// -----

// Norm is printed only when it is not the default (backward).
// CHECK-LABEL: func.func @fft_ifft
func.func @fft_ifft(%x: tensor<4x6x8xcomplex<f32>>, %y: tensor<7xcomplex<f64>>) {
  // CHECK: spectral.fft %{{.*}} axes [2] : tensor<4x6x8xcomplex<f32>>
  // CHECK: spectral.fft %{{.*}} axes [0, 2] norm ortho : tensor<4x6x8xcomplex<f32>>
  // CHECK: spectral.fft %{{.*}} axes [2, 1, 0] norm forward : tensor<4x6x8xcomplex<f32>>
  // CHECK: spectral.fft %{{.*}} axes [0] : tensor<7xcomplex<f64>>
  %0 = spectral.fft %x axes [2] : tensor<4x6x8xcomplex<f32>>
  %1 = spectral.fft %x axes [0, 2] norm ortho : tensor<4x6x8xcomplex<f32>>
  %2 = spectral.fft %x axes [2, 1, 0] norm forward : tensor<4x6x8xcomplex<f32>>
  %3 = spectral.fft %y axes [0] norm backward : tensor<7xcomplex<f64>>
  // CHECK: spectral.ifft %{{.*}} axes [1] : tensor<4x6x8xcomplex<f32>>
  // CHECK: spectral.ifft %{{.*}} axes [1, 2] norm ortho : tensor<4x6x8xcomplex<f32>>
  // CHECK: spectral.ifft %{{.*}} axes [0] norm forward : tensor<7xcomplex<f64>>
  %4 = spectral.ifft %x axes [1] : tensor<4x6x8xcomplex<f32>>
  %5 = spectral.ifft %x axes [1, 2] norm ortho : tensor<4x6x8xcomplex<f32>>
  %6 = spectral.ifft %y axes [0] norm forward : tensor<7xcomplex<f64>>
  return
}

// -----

// rfft halves the last listed axis: N -> N / 2 + 1.
// CHECK-LABEL: func.func @rfft_irfft
func.func @rfft_irfft(%x: tensor<4x9xf32>, %y: tensor<6x8xf64>)
    -> (tensor<4x5xcomplex<f32>>, tensor<3x9xcomplex<f32>>, tensor<6x8xf64>, tensor<4x9xf32>) {
  // CHECK: spectral.rfft %{{.*}} axes [1] : tensor<4x9xf32>
  // CHECK: spectral.rfft %{{.*}} axes [1, 0] norm ortho : tensor<4x9xf32>
  // CHECK: spectral.rfft %{{.*}} axes [0, 1] norm forward : tensor<6x8xf64>
  %0 = spectral.rfft %x axes [1] : tensor<4x9xf32>
  %1 = spectral.rfft %x axes [1, 0] norm ortho : tensor<4x9xf32>
  %2 = spectral.rfft %y axes [0, 1] norm forward : tensor<6x8xf64>
  // CHECK: spectral.irfft %{{.*}} axes [0, 1] length 8 norm forward : tensor<6x5xcomplex<f64>>
  // CHECK: spectral.irfft %{{.*}} axes [1] length 9 : tensor<4x5xcomplex<f32>>
  %3 = spectral.irfft %2 axes [0, 1] length 8 norm forward : tensor<6x5xcomplex<f64>>
  %4 = spectral.irfft %0 axes [1] length 9 : tensor<4x5xcomplex<f32>>
  return %0, %1, %3, %4 : tensor<4x5xcomplex<f32>>, tensor<3x9xcomplex<f32>>, tensor<6x8xf64>, tensor<4x9xf32>
}

// -----

// DCT type 2 and backward norm are the defaults and are not printed.
// CHECK-LABEL: func.func @dct_idct
func.func @dct_idct(%x: tensor<4x8xf32>, %y: tensor<5xf64>) {
  // CHECK: spectral.dct %{{.*}} axes [1] : tensor<4x8xf32>
  // CHECK: spectral.dct %{{.*}} axes [0, 1] type 3 : tensor<4x8xf32>
  // CHECK: spectral.dct %{{.*}} axes [0] type 3 norm ortho : tensor<5xf64>
  // CHECK: spectral.dct %{{.*}} axes [1] norm forward : tensor<4x8xf32>
  %0 = spectral.dct %x axes [1] type 2 norm backward : tensor<4x8xf32>
  %1 = spectral.dct %x axes [0, 1] type 3 : tensor<4x8xf32>
  %2 = spectral.dct %y axes [0] type 3 norm ortho : tensor<5xf64>
  %3 = spectral.dct %x axes [1] norm forward : tensor<4x8xf32>
  // CHECK: spectral.idct %{{.*}} axes [1] : tensor<4x8xf32>
  // CHECK: spectral.idct %{{.*}} axes [0] type 3 norm ortho : tensor<5xf64>
  %4 = spectral.idct %x axes [1] : tensor<4x8xf32>
  %5 = spectral.idct %y axes [0] type 3 norm ortho : tensor<5xf64>
  return
}

// -----

// CHECK-LABEL: func.func @topk_gather_scatter
func.func @topk_gather_scatter(%x: tensor<2x3x16xcomplex<f32>>, %r: tensor<16xf32>)
    -> (tensor<2x3x4xcomplex<f32>>, tensor<2x3x4xi64>, tensor<5xcomplex<f32>>, tensor<5xi64>,
        tensor<2x3x4xcomplex<f32>>, tensor<5xcomplex<f32>>, tensor<2x3x16xcomplex<f32>>, tensor<2x3x16xcomplex<f32>>) {
  // CHECK: %{{.*}}, %{{.*}} = spectral.topk_modes %{{.*}} k 4 : tensor<2x3x16xcomplex<f32>>
  // CHECK: %{{.*}}, %{{.*}} = spectral.topk_modes %{{.*}} k 5 flat : tensor<2x3x16xcomplex<f32>>
  // CHECK: spectral.topk_modes %{{.*}} k 16 : tensor<16xf32>
  %v, %i = spectral.topk_modes %x k 4 : tensor<2x3x16xcomplex<f32>>
  %fv, %fi = spectral.topk_modes %x k 5 flat : tensor<2x3x16xcomplex<f32>>
  %rv, %ri = spectral.topk_modes %r k 16 : tensor<16xf32>
  // CHECK: spectral.gather %{{.*}}[%{{.*}}] : tensor<2x3x16xcomplex<f32>>, tensor<2x3x4xi64>
  // CHECK: spectral.gather %{{.*}}[%{{.*}}] : tensor<2x3x16xcomplex<f32>>, tensor<5xi64>
  %g = spectral.gather %x[%i] : tensor<2x3x16xcomplex<f32>>, tensor<2x3x4xi64>
  %fg = spectral.gather %x[%fi] : tensor<2x3x16xcomplex<f32>>, tensor<5xi64>
  // CHECK: spectral.scatter %{{.*}}, %{{.*}} : tensor<2x3x4xcomplex<f32>>, tensor<2x3x4xi64> -> tensor<2x3x16xcomplex<f32>>
  // CHECK: spectral.scatter %{{.*}}, %{{.*}} : tensor<5xcomplex<f32>>, tensor<5xi64> -> tensor<2x3x16xcomplex<f32>>
  %s = spectral.scatter %v, %i : tensor<2x3x4xcomplex<f32>>, tensor<2x3x4xi64> -> tensor<2x3x16xcomplex<f32>>
  %fs = spectral.scatter %fv, %fi : tensor<5xcomplex<f32>>, tensor<5xi64> -> tensor<2x3x16xcomplex<f32>>
  return %v, %i, %fv, %fi, %g, %fg, %s, %fs : tensor<2x3x4xcomplex<f32>>, tensor<2x3x4xi64>, tensor<5xcomplex<f32>>, tensor<5xi64>,
      tensor<2x3x4xcomplex<f32>>, tensor<5xcomplex<f32>>, tensor<2x3x16xcomplex<f32>>, tensor<2x3x16xcomplex<f32>>
}

// -----

// sparse_add keeps k1 + k2 slots, sparse_mul min(k1, k2).
// CHECK-LABEL: func.func @sparse_binary
func.func @sparse_binary(%av: tensor<2x3xf64>, %ai: tensor<2x3xi64>,
                         %bv: tensor<2x5xf64>, %bi: tensor<2x5xi64>,
                         %cv: tensor<4xi32>, %ci: tensor<4xi64>)
    -> (tensor<2x8xf64>, tensor<2x8xi64>, tensor<2x3xf64>, tensor<2x3xi64>, tensor<8xi32>, tensor<8xi64>) {
  // CHECK: spectral.sparse_add %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x3xf64>, tensor<2x5xf64>
  // CHECK: spectral.sparse_mul %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x3xf64>, tensor<2x5xf64>
  // CHECK: spectral.sparse_add %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<4xi32>, tensor<4xi32>
  %0:2 = spectral.sparse_add %av, %ai, %bv, %bi : tensor<2x3xf64>, tensor<2x5xf64>
  %1:2 = spectral.sparse_mul %av, %ai, %bv, %bi : tensor<2x3xf64>, tensor<2x5xf64>
  %2:2 = spectral.sparse_add %cv, %ci, %cv, %ci : tensor<4xi32>, tensor<4xi32>
  return %0#0, %0#1, %1#0, %1#1, %2#0, %2#1 : tensor<2x8xf64>, tensor<2x8xi64>, tensor<2x3xf64>, tensor<2x3xi64>, tensor<8xi32>, tensor<8xi64>
}

// -----

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<2x3x4xf32>, %c: tensor<5x6xcomplex<f64>>, %i: tensor<7xi32>)
    -> (tensor<3xf32>, tensor<2x1x1xf32>, tensor<complex<f64>>, tensor<1x6xcomplex<f64>>, tensor<i32>, tensor<2x3x1xf32>) {
  // CHECK: spectral.reduce_sum %{{.*}} axes [0, 2] : tensor<2x3x4xf32>
  // CHECK: spectral.reduce_sum %{{.*}} axes [2, 1] keepdims : tensor<2x3x4xf32>
  // CHECK: spectral.reduce_sum %{{.*}} axes [0, 1] : tensor<5x6xcomplex<f64>>
  // CHECK: spectral.reduce_mean %{{.*}} axes [0] keepdims : tensor<5x6xcomplex<f64>>
  // CHECK: spectral.reduce_max %{{.*}} axes [0] : tensor<7xi32>
  // CHECK: spectral.reduce_max %{{.*}} axes [2] keepdims : tensor<2x3x4xf32>
  %0 = spectral.reduce_sum %x axes [0, 2] : tensor<2x3x4xf32>
  %1 = spectral.reduce_sum %x axes [2, 1] keepdims : tensor<2x3x4xf32>
  %2 = spectral.reduce_sum %c axes [0, 1] : tensor<5x6xcomplex<f64>>
  %3 = spectral.reduce_mean %c axes [0] keepdims : tensor<5x6xcomplex<f64>>
  %4 = spectral.reduce_max %i axes [0] : tensor<7xi32>
  %5 = spectral.reduce_max %x axes [2] keepdims : tensor<2x3x4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<3xf32>, tensor<2x1x1xf32>, tensor<complex<f64>>, tensor<1x6xcomplex<f64>>, tensor<i32>, tensor<2x3x1xf32>
}

// -----

// CHECK-LABEL: func.func @softmax
func.func @softmax(%x: tensor<2x10xf32>, %y: tensor<7xf64>) {
  // CHECK: spectral.softmax %{{.*}} axis 1 : tensor<2x10xf32>
  // CHECK: spectral.log_softmax %{{.*}} axis 0 : tensor<2x10xf32>
  // CHECK: spectral.log_softmax %{{.*}} axis 0 : tensor<7xf64>
  %0 = spectral.softmax %x axis 1 : tensor<2x10xf32>
  %1 = spectral.log_softmax %x axis 0 : tensor<2x10xf32>
  %2 = spectral.log_softmax %y axis 0 : tensor<7xf64>
  return
}

// -----

// CHECK-LABEL: func.func @reshape_transpose_broadcast
func.func @reshape_transpose_broadcast(%x: tensor<2x3x4xf32>, %s: tensor<i1>, %c: tensor<3x1xcomplex<f32>>)
    -> (tensor<6x4xf32>, tensor<1xi1>, tensor<4x2x3xf32>, tensor<2x3x4xf32>, tensor<5x3x7xcomplex<f32>>, tensor<2x2xi1>) {
  // CHECK: spectral.reshape %{{.*}} : tensor<2x3x4xf32> -> tensor<6x4xf32>
  // CHECK: spectral.reshape %{{.*}} : tensor<i1> -> tensor<1xi1>
  %0 = spectral.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %1 = spectral.reshape %s : tensor<i1> -> tensor<1xi1>
  // CHECK: spectral.transpose %{{.*}} perm [2, 0, 1] : tensor<2x3x4xf32>
  // CHECK: spectral.transpose %{{.*}} perm [0, 1, 2] : tensor<2x3x4xf32>
  %2 = spectral.transpose %x perm [2, 0, 1] : tensor<2x3x4xf32>
  %3 = spectral.transpose %x perm [0, 1, 2] : tensor<2x3x4xf32>
  // CHECK: spectral.broadcast %{{.*}} : tensor<3x1xcomplex<f32>> -> tensor<5x3x7xcomplex<f32>>
  // CHECK: spectral.broadcast %{{.*}} : tensor<i1> -> tensor<2x2xi1>
  %4 = spectral.broadcast %c : tensor<3x1xcomplex<f32>> -> tensor<5x3x7xcomplex<f32>>
  %5 = spectral.broadcast %s : tensor<i1> -> tensor<2x2xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<6x4xf32>, tensor<1xi1>, tensor<4x2x3xf32>, tensor<2x3x4xf32>, tensor<5x3x7xcomplex<f32>>, tensor<2x2xi1>
}

// -----

// CHECK-LABEL: func.func @slice_pad_concat
func.func @slice_pad_concat(%x: tensor<8x6xf32>, %c: tensor<4xcomplex<f64>>, %i: tensor<2x3xi64>, %j: tensor<2x5xi64>)
    -> (tensor<3x6xf32>, tensor<4x2xf32>, tensor<0x6xf32>, tensor<1x6xf32>, tensor<11x8xf32>, tensor<7xcomplex<f64>>, tensor<2x11xi64>, tensor<4xcomplex<f64>>) {
  // CHECK: spectral.slice %{{.*}} start [2, 0] limit [5, 6] : tensor<8x6xf32>
  // CHECK: spectral.slice %{{.*}} start [0, 1] limit [8, 6] stride [2, 3] : tensor<8x6xf32>
  // CHECK: spectral.slice %{{.*}} start [3, 0] limit [3, 6] : tensor<8x6xf32>
  %0 = spectral.slice %x start [2, 0] limit [5, 6] : tensor<8x6xf32>
  %1 = spectral.slice %x start [0, 1] limit [8, 6] stride [2, 3] : tensor<8x6xf32>
  %2 = spectral.slice %x start [3, 0] limit [3, 6] : tensor<8x6xf32>
  // A stride past the end takes the first element only.
  // CHECK: spectral.slice %{{.*}} start [0, 0] limit [8, 6] stride [9223372036854775807, 1] : tensor<8x6xf32>
  %big = spectral.slice %x start [0, 0] limit [8, 6] stride [9223372036854775807, 1] : tensor<8x6xf32>
  // CHECK: spectral.pad %{{.*}} low [1, 0] high [2, 2] : tensor<8x6xf32>
  // CHECK: spectral.pad %{{.*}} low [1] high [2] value -2.500000e+00 : tensor<4xcomplex<f64>>
  %3 = spectral.pad %x low [1, 0] high [2, 2] : tensor<8x6xf32>
  %4 = spectral.pad %c low [1] high [2] value -2.5 : tensor<4xcomplex<f64>>
  // CHECK: spectral.concat %{{.*}}, %{{.*}}, %{{.*}} axis 1 : tensor<2x3xi64>, tensor<2x5xi64>, tensor<2x3xi64>
  // CHECK: spectral.concat %{{.*}} axis 0 : tensor<4xcomplex<f64>>
  %5 = spectral.concat %i, %j, %i axis 1 : tensor<2x3xi64>, tensor<2x5xi64>, tensor<2x3xi64>
  %6 = spectral.concat %c axis 0 : tensor<4xcomplex<f64>>
  return %0, %1, %2, %big, %3, %4, %5, %6 : tensor<3x6xf32>, tensor<4x2xf32>, tensor<0x6xf32>, tensor<1x6xf32>, tensor<11x8xf32>, tensor<7xcomplex<f64>>, tensor<2x11xi64>, tensor<4xcomplex<f64>>
}

// -----

// Batch dims of matmul broadcast: [5, 1, 2, 3] x [4, 3, 6] -> [5, 4, 2, 6].
// CHECK-LABEL: func.func @contractions
func.func @contractions(%a: tensor<5x1x2x3xf32>, %b: tensor<4x3x6xf32>,
                        %m: tensor<2x3xcomplex<f64>>, %n: tensor<3x2xcomplex<f64>>,
                        %p: tensor<2x3xi32>, %q: tensor<3x3xi32>,
                        %x: tensor<8x4x6x5xcomplex<f32>>, %w: tensor<4x2x6x5xcomplex<f32>>,
                        %x2: tensor<3x4xf64>, %w2: tensor<4x7xf64>)
    -> (tensor<5x4x2x6xf32>, tensor<2x2xcomplex<f64>>, tensor<2x3xi32>, tensor<8x2x6x5xcomplex<f32>>, tensor<3x7xf64>) {
  // CHECK: spectral.matmul %{{.*}}, %{{.*}} : tensor<5x1x2x3xf32>, tensor<4x3x6xf32>
  // CHECK: spectral.matmul %{{.*}}, %{{.*}} : tensor<2x3xcomplex<f64>>, tensor<3x2xcomplex<f64>>
  // CHECK: spectral.matmul %{{.*}}, %{{.*}} : tensor<2x3xi32>, tensor<3x3xi32>
  %0 = spectral.matmul %a, %b : tensor<5x1x2x3xf32>, tensor<4x3x6xf32>
  %1 = spectral.matmul %m, %n : tensor<2x3xcomplex<f64>>, tensor<3x2xcomplex<f64>>
  %2 = spectral.matmul %p, %q : tensor<2x3xi32>, tensor<3x3xi32>
  // CHECK: spectral.channel_mix %{{.*}}, %{{.*}} : tensor<8x4x6x5xcomplex<f32>>, tensor<4x2x6x5xcomplex<f32>>
  // CHECK: spectral.channel_mix %{{.*}}, %{{.*}} : tensor<3x4xf64>, tensor<4x7xf64>
  %3 = spectral.channel_mix %x, %w : tensor<8x4x6x5xcomplex<f32>>, tensor<4x2x6x5xcomplex<f32>>
  %4 = spectral.channel_mix %x2, %w2 : tensor<3x4xf64>, tensor<4x7xf64>
  return %0, %1, %2, %3, %4 : tensor<5x4x2x6xf32>, tensor<2x2xcomplex<f64>>, tensor<2x3xi32>, tensor<8x2x6x5xcomplex<f32>>, tensor<3x7xf64>
}

// -----

// CHECK-LABEL: func.func @losses
func.func @losses(%logits: tensor<4x10xf32>, %labels: tensor<4xi32>, %l64: tensor<4xi64>,
                  %p: tensor<3x2xcomplex<f64>>, %t: tensor<3x2xcomplex<f64>>, %r: tensor<5xf32>)
    -> (tensor<f32>, tensor<f32>, tensor<f64>, tensor<f32>) {
  // CHECK: spectral.cross_entropy %{{.*}}, %{{.*}} : tensor<4x10xf32>, tensor<4xi32>
  // CHECK: spectral.cross_entropy %{{.*}}, %{{.*}} : tensor<4x10xf32>, tensor<4xi64>
  // CHECK: spectral.mse %{{.*}}, %{{.*}} : tensor<3x2xcomplex<f64>>
  // CHECK: spectral.mse %{{.*}}, %{{.*}} : tensor<5xf32>
  %0 = spectral.cross_entropy %logits, %labels : tensor<4x10xf32>, tensor<4xi32>
  %1 = spectral.cross_entropy %logits, %l64 : tensor<4x10xf32>, tensor<4xi64>
  %2 = spectral.mse %p, %t : tensor<3x2xcomplex<f64>>
  %3 = spectral.mse %r, %r : tensor<5xf32>
  return %0, %1, %2, %3 : tensor<f32>, tensor<f32>, tensor<f64>, tensor<f32>
}

// -----

// Optional attributes are printed only when they differ from their defaults.
// CHECK-LABEL: func.func @sgd_step
func.func @sgd_step(%p: tensor<4x3xf32>, %g: tensor<4x3xf32>, %v: tensor<4x3xf32>, %c: tensor<2xcomplex<f64>>, %lr: tensor<f64>) {
  // CHECK: spectral.sgd_step %{{.*}}, %{{.*}}, %{{.*}} lr 1.000000e-01 : tensor<4x3xf32>
  // CHECK: spectral.sgd_step %{{.*}}, %{{.*}}, %{{.*}} lr 1.000000e-02 momentum 9.000000e-01 : tensor<4x3xf32>
  // CHECK: spectral.sgd_step %{{.*}}, %{{.*}}, %{{.*}} lr 1.000000e-02 momentum 9.000000e-01 weight_decay 5.000000e-04 nesterov : tensor<4x3xf32>
  // momentum 0.0 is the default and is not printed.
  // CHECK: spectral.sgd_step %{{.*}}, %{{.*}}, %{{.*}} lr 2.500000e-01 weight_decay 1.000000e-03 : tensor<2xcomplex<f64>>
  %0:2 = spectral.sgd_step %p, %g, %v lr 0.1 : tensor<4x3xf32>
  %1:2 = spectral.sgd_step %p, %g, %v lr 0.01 momentum 0.9 : tensor<4x3xf32>
  %2:2 = spectral.sgd_step %p, %g, %v lr 0.01 momentum 0.9 weight_decay 5.0e-4 nesterov : tensor<4x3xf32>
  %3:2 = spectral.sgd_step %c, %c, %c lr 0.25 momentum 0.0 weight_decay 1.0e-3 : tensor<2xcomplex<f64>>
  // The learning rate as data.
  // CHECK: spectral.sgd_step %{{.*}}, %{{.*}}, %{{.*}} lr_from(%{{.*}} : tensor<f64>) momentum 9.000000e-01 : tensor<4x3xf32>
  %4:2 = spectral.sgd_step %p, %g, %v lr_from(%lr : tensor<f64>) momentum 0.9 : tensor<4x3xf32>
  return
}

// -----

// The second moment of a complex parameter is real.
// CHECK-LABEL: func.func @adam_step
func.func @adam_step(%p: tensor<4x3xf32>, %m: tensor<4x3xf32>, %v: tensor<4x3xf32>, %step: tensor<i64>,
                     %cp: tensor<2xcomplex<f64>>, %cv: tensor<2xf64>, %step32: tensor<i32>,
                     %lr: tensor<f32>)
    -> (tensor<2xcomplex<f64>>, tensor<2xcomplex<f64>>, tensor<2xf64>) {
  // CHECK: spectral.adam_step %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} lr 1.000000e-03 : tensor<4x3xf32>, tensor<4x3xf32>, tensor<i64>
  // CHECK: spectral.adam_step %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} lr 1.000000e-03 beta1 7.500000e-01 beta2 9.375000e-01 eps 7.812500e-03 weight_decay 1.000000e-02 decoupled : tensor<4x3xf32>, tensor<4x3xf32>, tensor<i64>
  // beta1 0.9 is the default and is not printed.
  // CHECK: spectral.adam_step %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} lr 5.000000e-01 weight_decay 1.000000e-01 : tensor<2xcomplex<f64>>, tensor<2xf64>, tensor<i32>
  %0:3 = spectral.adam_step %p, %p, %m, %v, %step lr 1.0e-3 : tensor<4x3xf32>, tensor<4x3xf32>, tensor<i64>
  %1:3 = spectral.adam_step %p, %p, %m, %v, %step lr 1.0e-3 beta1 0.75 beta2 0.9375 eps 0.0078125 weight_decay 0.01 decoupled
      : tensor<4x3xf32>, tensor<4x3xf32>, tensor<i64>
  %2:3 = spectral.adam_step %cp, %cp, %cp, %cv, %step32 lr 0.5 beta1 0.9 weight_decay 0.1 : tensor<2xcomplex<f64>>, tensor<2xf64>, tensor<i32>
  // CHECK: spectral.adam_step %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} lr_from(%{{.*}} : tensor<f32>) decoupled : tensor<4x3xf32>, tensor<4x3xf32>, tensor<i64>
  %3:3 = spectral.adam_step %p, %p, %m, %v, %step lr_from(%lr : tensor<f32>) decoupled : tensor<4x3xf32>, tensor<4x3xf32>, tensor<i64>
  return %2#0, %2#1, %2#2 : tensor<2xcomplex<f64>>, tensor<2xcomplex<f64>>, tensor<2xf64>
}

// -----

// The last result is the global norm before clipping, in the real element type.
// CHECK-LABEL: func.func @clip_global_norm
func.func @clip_global_norm(%a: tensor<4x3xf32>, %b: tensor<2xcomplex<f32>>, %c: tensor<f64>)
    -> (tensor<4x3xf32>, tensor<2xcomplex<f32>>, tensor<f32>, tensor<f64>, tensor<f64>) {
  // CHECK: spectral.clip_global_norm %{{.*}}, %{{.*}} max_norm 1.000000e+00 : tensor<4x3xf32>, tensor<2xcomplex<f32>>
  // CHECK: spectral.clip_global_norm %{{.*}} max_norm 5.000000e-01 : tensor<f64>
  %0:3 = spectral.clip_global_norm %a, %b max_norm 1.0 : tensor<4x3xf32>, tensor<2xcomplex<f32>>
  %1:2 = spectral.clip_global_norm %c max_norm 0.5 : tensor<f64>
  return %0#0, %0#1, %0#2, %1#0, %1#1 : tensor<4x3xf32>, tensor<2xcomplex<f32>>, tensor<f32>, tensor<f64>, tensor<f64>
}

// -----

// CHECK-LABEL: func.func @fusion
func.func @fusion(%x: tensor<4x8xf32>, %y: tensor<8xf32>, %c: tensor<4x8xcomplex<f32>>)
    -> (tensor<4x8xf32>, tensor<4x8xcomplex<f32>>, tensor<4xf32>) {
  // CHECK: %{{.*}}:3 = spectral.fusion %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8xf32>, tensor<4x8xcomplex<f32>>) -> (tensor<4x8xf32>, tensor<4x8xcomplex<f32>>, tensor<4xf32>) {
  // CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8xf32>, %[[C:.*]]: tensor<4x8xcomplex<f32>>):
  // CHECK-NEXT:   %[[S:.*]] = spectral.add %[[A]], %[[B]] : tensor<4x8xf32>, tensor<8xf32>
  // CHECK-NEXT:   %[[E:.*]] = spectral.exp %[[C]] : tensor<4x8xcomplex<f32>>
  // CHECK-NEXT:   %[[R:.*]] = spectral.reduce_sum %[[S]] axes [1] : tensor<4x8xf32>
  // CHECK-NEXT:   spectral.yield %[[S]], %[[E]], %[[R]] : tensor<4x8xf32>, tensor<4x8xcomplex<f32>>, tensor<4xf32>
  // CHECK-NEXT: }
  %0:3 = spectral.fusion %x, %y, %c : (tensor<4x8xf32>, tensor<8xf32>, tensor<4x8xcomplex<f32>>)
      -> (tensor<4x8xf32>, tensor<4x8xcomplex<f32>>, tensor<4xf32>) {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<8xf32>, %cc: tensor<4x8xcomplex<f32>>):
    %s = spectral.add %a, %b : tensor<4x8xf32>, tensor<8xf32>
    %e = spectral.exp %cc : tensor<4x8xcomplex<f32>>
    %r = spectral.reduce_sum %s axes [1] : tensor<4x8xf32>
    spectral.yield %s, %e, %r : tensor<4x8xf32>, tensor<4x8xcomplex<f32>>, tensor<4xf32>
  }
  return %0#0, %0#1, %0#2 : tensor<4x8xf32>, tensor<4x8xcomplex<f32>>, tensor<4xf32>
}

// -----

// A fusion with no inputs (a constant kernel) and one with no results.
// CHECK-LABEL: func.func @fusion_edges
func.func @fusion_edges() -> tensor<3xf32> {
  // CHECK: spectral.fusion : () -> tensor<3xf32> {
  // CHECK:   spectral.constant dense<2.000000e+00> : tensor<3xf32>
  // CHECK:   spectral.yield %{{.*}} : tensor<3xf32>
  %0 = spectral.fusion : () -> tensor<3xf32> {
    %c = spectral.constant dense<2.0> : tensor<3xf32>
    spectral.yield %c : tensor<3xf32>
  }
  // CHECK: spectral.fusion %{{.*}} : (tensor<3xf32>) -> () {
  // CHECK-NEXT: ^bb0(%{{.*}}: tensor<3xf32>):
  // CHECK-NEXT:   spectral.yield{{$}}
  spectral.fusion %0 : (tensor<3xf32>) -> () {
  ^bb0(%a: tensor<3xf32>):
    spectral.yield
  }
  return %0 : tensor<3xf32>
}
