// Folds of the spectral dialect: one function per identity (hence the
// length), with the cases that must not fold next to the ones that must.
// RUN: spectral-opt %s -canonicalize -split-input-file | FileCheck %s

//===----------------------------------------------------------------------===//
// Transform pairs
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @ifft_of_fft
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xcomplex<f32>>)
// CHECK-NEXT: return %[[X]]
func.func @ifft_of_fft(%x: tensor<4x8xcomplex<f32>>) -> tensor<4x8xcomplex<f32>> {
  %0 = spectral.fft %x axes [0, 1] : tensor<4x8xcomplex<f32>>
  %1 = spectral.ifft %0 axes [0, 1] : tensor<4x8xcomplex<f32>>
  return %1 : tensor<4x8xcomplex<f32>>
}

// -----

// The axes are a set: their order does not matter for a C2C pair.
// CHECK-LABEL: func.func @fft_of_ifft_ortho
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xcomplex<f64>>)
// CHECK-NEXT: return %[[X]]
func.func @fft_of_ifft_ortho(%x: tensor<4x8xcomplex<f64>>) -> tensor<4x8xcomplex<f64>> {
  %0 = spectral.ifft %x axes [1, 0] norm ortho : tensor<4x8xcomplex<f64>>
  %1 = spectral.fft %0 axes [0, 1] norm ortho : tensor<4x8xcomplex<f64>>
  return %1 : tensor<4x8xcomplex<f64>>
}

// -----

// CHECK-LABEL: func.func @fft_of_ifft_forward
// CHECK-SAME: (%[[X:.*]]: tensor<8xcomplex<f32>>)
// CHECK-NEXT: return %[[X]]
func.func @fft_of_ifft_forward(%x: tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>> {
  %0 = spectral.ifft %x axes [0] norm forward : tensor<8xcomplex<f32>>
  %1 = spectral.fft %0 axes [0] norm forward : tensor<8xcomplex<f32>>
  return %1 : tensor<8xcomplex<f32>>
}

// -----

// fft unscaled then ifft "forward" (also unscaled) is N * x, not x.
// CHECK-LABEL: func.func @ifft_of_fft_norms_differ
// CHECK: %[[F:.*]] = spectral.fft %{{.*}} axes [0] : tensor<8xcomplex<f32>>
// CHECK: %[[I:.*]] = spectral.ifft %[[F]] axes [0] norm forward : tensor<8xcomplex<f32>>
// CHECK: return %[[I]]
func.func @ifft_of_fft_norms_differ(%x: tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>> {
  %0 = spectral.fft %x axes [0] : tensor<8xcomplex<f32>>
  %1 = spectral.ifft %0 axes [0] norm forward : tensor<8xcomplex<f32>>
  return %1 : tensor<8xcomplex<f32>>
}

// -----

// CHECK-LABEL: func.func @ifft_of_fft_axes_differ
// CHECK: %[[F:.*]] = spectral.fft %{{.*}} axes [0] : tensor<4x4xcomplex<f32>>
// CHECK: %[[I:.*]] = spectral.ifft %[[F]] axes [1] : tensor<4x4xcomplex<f32>>
// CHECK: return %[[I]]
func.func @ifft_of_fft_axes_differ(%x: tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>> {
  %0 = spectral.fft %x axes [0] : tensor<4x4xcomplex<f32>>
  %1 = spectral.ifft %0 axes [1] : tensor<4x4xcomplex<f32>>
  return %1 : tensor<4x4xcomplex<f32>>
}

// -----

// CHECK-LABEL: func.func @ifft_of_fft_axes_subset
// CHECK: spectral.fft
// CHECK: spectral.ifft
func.func @ifft_of_fft_axes_subset(%x: tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>> {
  %0 = spectral.fft %x axes [0, 1] : tensor<4x4xcomplex<f32>>
  %1 = spectral.ifft %0 axes [1] : tensor<4x4xcomplex<f32>>
  return %1 : tensor<4x4xcomplex<f32>>
}

// -----

// Two forward transforms are not a pair.
// CHECK-LABEL: func.func @fft_of_fft
// CHECK: spectral.fft
// CHECK: spectral.fft
func.func @fft_of_fft(%x: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  %0 = spectral.fft %x axes [0] : tensor<4xcomplex<f32>>
  %1 = spectral.fft %0 axes [0] : tensor<4xcomplex<f32>>
  return %1 : tensor<4xcomplex<f32>>
}

// -----

// CHECK-LABEL: func.func @irfft_of_rfft
// CHECK-SAME: (%[[X:.*]]: tensor<3x9xf32>)
// CHECK-NEXT: return %[[X]]
func.func @irfft_of_rfft(%x: tensor<3x9xf32>) -> tensor<3x9xf32> {
  %0 = spectral.rfft %x axes [0, 1] norm ortho : tensor<3x9xf32>
  %1 = spectral.irfft %0 axes [0, 1] length 9 norm ortho : tensor<3x5xcomplex<f32>>
  return %1 : tensor<3x9xf32>
}

// -----

// 8 real values give 5 bins, and so do 9: length 9 is another signal.
// CHECK-LABEL: func.func @irfft_of_rfft_length_differs
// CHECK: %[[R:.*]] = spectral.rfft %{{.*}} axes [0] : tensor<8xf32>
// CHECK: %[[I:.*]] = spectral.irfft %[[R]] axes [0] length 9 : tensor<5xcomplex<f32>>
// CHECK: return %[[I]]
func.func @irfft_of_rfft_length_differs(%x: tensor<8xf32>) -> tensor<9xf32> {
  %0 = spectral.rfft %x axes [0] : tensor<8xf32>
  %1 = spectral.irfft %0 axes [0] length 9 : tensor<5xcomplex<f32>>
  return %1 : tensor<9xf32>
}

// -----

// CHECK-LABEL: func.func @irfft_of_rfft_norms_differ
// CHECK: spectral.rfft
// CHECK: spectral.irfft
func.func @irfft_of_rfft_norms_differ(%x: tensor<8xf64>) -> tensor<8xf64> {
  %0 = spectral.rfft %x axes [0] norm ortho : tensor<8xf64>
  %1 = spectral.irfft %0 axes [0] length 8 : tensor<5xcomplex<f64>>
  return %1 : tensor<8xf64>
}

// -----

// CHECK-LABEL: func.func @idct_of_dct
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: return %[[X]]
func.func @idct_of_dct(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = spectral.dct %x axes [1] : tensor<4x8xf32>
  %1 = spectral.idct %0 axes [1] : tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @dct_of_idct_type_3
// CHECK-SAME: (%[[X:.*]]: tensor<8xf64>)
// CHECK-NEXT: return %[[X]]
func.func @dct_of_idct_type_3(%x: tensor<8xf64>) -> tensor<8xf64> {
  %0 = spectral.idct %x axes [0] type 3 norm ortho : tensor<8xf64>
  %1 = spectral.dct %0 axes [0] type 3 norm ortho : tensor<8xf64>
  return %1 : tensor<8xf64>
}

// -----

// CHECK-LABEL: func.func @idct_of_dct_types_differ
// CHECK: %[[D:.*]] = spectral.dct %{{.*}} axes [0] : tensor<8xf32>
// CHECK: %[[I:.*]] = spectral.idct %[[D]] axes [0] type 3 : tensor<8xf32>
// CHECK: return %[[I]]
func.func @idct_of_dct_types_differ(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = spectral.dct %x axes [0] type 2 : tensor<8xf32>
  %1 = spectral.idct %0 axes [0] type 3 : tensor<8xf32>
  return %1 : tensor<8xf32>
}

// -----

// CHECK-LABEL: func.func @idct_of_dct_norms_differ
// CHECK: spectral.dct
// CHECK: spectral.idct
func.func @idct_of_dct_norms_differ(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = spectral.dct %x axes [0] norm ortho : tensor<8xf32>
  %1 = spectral.idct %0 axes [0] : tensor<8xf32>
  return %1 : tensor<8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Arithmetic identities
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @add_zero
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32>)
// CHECK-NEXT: return %[[X]], %[[X]]
func.func @add_zero(%x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %zero = spectral.constant dense<0.0> : tensor<4xf32>
  %0 = spectral.add %x, %zero : tensor<2x4xf32>, tensor<4xf32>
  %1 = spectral.add %zero, %x : tensor<4xf32>, tensor<2x4xf32>
  return %0, %1 : tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// CHECK-LABEL: func.func @add_zero_complex_and_int
// CHECK-SAME: (%[[C:.*]]: tensor<3xcomplex<f64>>, %[[I:.*]]: tensor<3xi32>)
// CHECK-NEXT: return %[[C]], %[[I]]
func.func @add_zero_complex_and_int(%c: tensor<3xcomplex<f64>>, %i: tensor<3xi32>) -> (tensor<3xcomplex<f64>>, tensor<3xi32>) {
  %czero = spectral.constant dense<(0.0, 0.0)> : tensor<complex<f64>>
  %izero = spectral.constant dense<0> : tensor<3xi32>
  %0 = spectral.add %c, %czero : tensor<3xcomplex<f64>>, tensor<complex<f64>>
  %1 = spectral.add %izero, %i : tensor<3xi32>, tensor<3xi32>
  return %0, %1 : tensor<3xcomplex<f64>>, tensor<3xi32>
}

// -----

// x + 0 broadcast to a bigger shape is not x.
// CHECK-LABEL: func.func @add_zero_broadcasts
// CHECK: %[[ZERO:.*]] = spectral.constant dense<0.000000e+00> : tensor<3x4xf32>
// CHECK: %[[SUM:.*]] = spectral.add %{{.*}}, %[[ZERO]] : tensor<4xf32>, tensor<3x4xf32>
// CHECK: return %[[SUM]]
func.func @add_zero_broadcasts(%x: tensor<4xf32>) -> tensor<3x4xf32> {
  %zero = spectral.constant dense<0.0> : tensor<3x4xf32>
  %0 = spectral.add %x, %zero : tensor<4xf32>, tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// (0 + i0 is not 0 + i1; a 1 in the imaginary part is not zero.)
// CHECK-LABEL: func.func @add_imaginary_unit
// CHECK: spectral.add
func.func @add_imaginary_unit(%c: tensor<3xcomplex<f32>>) -> tensor<3xcomplex<f32>> {
  %i = spectral.constant dense<(0.0, 1.0)> : tensor<complex<f32>>
  %0 = spectral.add %c, %i : tensor<3xcomplex<f32>>, tensor<complex<f32>>
  return %0 : tensor<3xcomplex<f32>>
}

// -----

// x - 0 folds, 0 - x does not.
// CHECK-LABEL: func.func @sub_zero
// CHECK-SAME: (%[[X:.*]]: tensor<4xf64>)
// CHECK: %[[ZERO:.*]] = spectral.constant dense<0.000000e+00> : tensor<4xf64>
// CHECK: %[[NEG:.*]] = spectral.sub %[[ZERO]], %[[X]] : tensor<4xf64>, tensor<4xf64>
// CHECK: return %[[X]], %[[NEG]]
func.func @sub_zero(%x: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
  %zero = spectral.constant dense<0.0> : tensor<4xf64>
  %0 = spectral.sub %x, %zero : tensor<4xf64>, tensor<4xf64>
  %1 = spectral.sub %zero, %x : tensor<4xf64>, tensor<4xf64>
  return %0, %1 : tensor<4xf64>, tensor<4xf64>
}

// -----

// CHECK-LABEL: func.func @mul_one
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[C:.*]]: tensor<3xcomplex<f32>>)
// CHECK-NEXT: return %[[X]], %[[X]], %[[C]]
func.func @mul_one(%x: tensor<2x3xf32>, %c: tensor<3xcomplex<f32>>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xcomplex<f32>>) {
  %one = spectral.constant dense<1.0> : tensor<f32>
  %cone = spectral.constant dense<(1.0, 0.0)> : tensor<3xcomplex<f32>>
  %0 = spectral.mul %x, %one : tensor<2x3xf32>, tensor<f32>
  %1 = spectral.mul %one, %x : tensor<f32>, tensor<2x3xf32>
  %2 = spectral.mul %cone, %c : tensor<3xcomplex<f32>>, tensor<3xcomplex<f32>>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xcomplex<f32>>
}

// -----

// x / 1 folds; 1 / x does not.
// CHECK-LABEL: func.func @div_one
// CHECK-SAME: (%[[X:.*]]: tensor<5xf32>, %[[I:.*]]: tensor<5xi64>)
// CHECK: %[[ONE:.*]] = spectral.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[INV:.*]] = spectral.div %[[ONE]], %[[X]] : tensor<f32>, tensor<5xf32>
// CHECK: return %[[X]], %[[I]], %[[INV]]
func.func @div_one(%x: tensor<5xf32>, %i: tensor<5xi64>) -> (tensor<5xf32>, tensor<5xi64>, tensor<5xf32>) {
  %one = spectral.constant dense<1.0> : tensor<f32>
  %ione = spectral.constant dense<1> : tensor<5xi64>
  %0 = spectral.div %x, %one : tensor<5xf32>, tensor<f32>
  %1 = spectral.div %i, %ione : tensor<5xi64>, tensor<5xi64>
  %2 = spectral.div %one, %x : tensor<f32>, tensor<5xf32>
  return %0, %1, %2 : tensor<5xf32>, tensor<5xi64>, tensor<5xf32>
}

// -----

// x * 0 is a zero of the result's shape, for reals and integers.
// CHECK-LABEL: func.func @mul_zero
// CHECK-DAG: %[[FZERO:.*]] = spectral.constant dense<0.000000e+00> : tensor<2x3xf32>
// CHECK-DAG: %[[IZERO:.*]] = spectral.constant dense<0> : tensor<4xi32>
// CHECK-NOT: spectral.mul
// CHECK: return %[[FZERO]], %[[IZERO]]
func.func @mul_zero(%x: tensor<2x3xf32>, %i: tensor<4xi32>) -> (tensor<2x3xf32>, tensor<4xi32>) {
  %zero = spectral.constant dense<0.0> : tensor<3xf32>
  %izero = spectral.constant dense<0> : tensor<i32>
  %0 = spectral.mul %x, %zero : tensor<2x3xf32>, tensor<3xf32>
  %1 = spectral.mul %izero, %i : tensor<i32>, tensor<4xi32>
  return %0, %1 : tensor<2x3xf32>, tensor<4xi32>
}

// -----

// A complex x * 0 keeps its NaN and infinity semantics: no fold.
// CHECK-LABEL: func.func @mul_zero_complex
// CHECK: %[[P:.*]] = spectral.mul
// CHECK: return %[[P]]
func.func @mul_zero_complex(%c: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  %zero = spectral.constant dense<(0.0, 0.0)> : tensor<complex<f32>>
  %0 = spectral.mul %c, %zero : tensor<4xcomplex<f32>>, tensor<complex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

// CHECK-LABEL: func.func @neg_neg
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi64>)
// CHECK-NEXT: return %[[X]], %[[I]]
func.func @neg_neg(%x: tensor<4xf32>, %i: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xi64>) {
  %0 = spectral.neg %x : tensor<4xf32>
  %1 = spectral.neg %0 : tensor<4xf32>
  %2 = spectral.neg %i : tensor<4xi64>
  %3 = spectral.neg %2 : tensor<4xi64>
  return %1, %3 : tensor<4xf32>, tensor<4xi64>
}

// -----

// Three negations leave one.
// CHECK-LABEL: func.func @neg_neg_neg
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[N:.*]] = spectral.neg %[[X]]
// CHECK-NEXT: return %[[N]]
func.func @neg_neg_neg(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = spectral.neg %x : tensor<4xf32>
  %1 = spectral.neg %0 : tensor<4xf32>
  %2 = spectral.neg %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @conj_conj
// CHECK-SAME: (%[[X:.*]]: tensor<4xcomplex<f64>>)
// CHECK-NEXT: return %[[X]]
func.func @conj_conj(%x: tensor<4xcomplex<f64>>) -> tensor<4xcomplex<f64>> {
  %0 = spectral.conj %x : tensor<4xcomplex<f64>>
  %1 = spectral.conj %0 : tensor<4xcomplex<f64>>
  return %1 : tensor<4xcomplex<f64>>
}

// -----

// CHECK-LABEL: func.func @real_imag_of_complex
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[A]], %[[B]]
func.func @real_imag_of_complex(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c = spectral.complex %a, %b : tensor<4xf32>, tensor<4xf32>
  %0 = spectral.real %c : tensor<4xcomplex<f32>>
  %1 = spectral.imag %c : tensor<4xcomplex<f32>>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// With broadcasting, the real part has the broadcast shape, not a's: only
// imag (whose operand has that shape) folds.
// CHECK-LABEL: func.func @real_imag_of_broadcast_complex
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<3x4xf32>)
// CHECK: %[[C:.*]] = spectral.complex %[[A]], %[[B]]
// CHECK: %[[RE:.*]] = spectral.real %[[C]]
// CHECK: return %[[RE]], %[[B]]
func.func @real_imag_of_broadcast_complex(%a: tensor<4xf32>, %b: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
  %c = spectral.complex %a, %b : tensor<4xf32>, tensor<3x4xf32>
  %0 = spectral.real %c : tensor<3x4xcomplex<f32>>
  %1 = spectral.imag %c : tensor<3x4xcomplex<f32>>
  return %0, %1 : tensor<3x4xf32>, tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @cast_to_same_type
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @cast_to_same_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = spectral.cast %x : tensor<4xf32> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Shape
//===----------------------------------------------------------------------===//

// perm [1, 0, 2] after [1, 2, 0] is [2, 1, 0].
// CHECK-LABEL: func.func @transpose_of_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:.*]] = spectral.transpose %[[X]] perm [2, 1, 0] : tensor<2x3x4xf32>
// CHECK-NEXT: return %[[T]]
func.func @transpose_of_transpose(%x: tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
  %0 = spectral.transpose %x perm [1, 2, 0] : tensor<2x3x4xf32>
  %1 = spectral.transpose %0 perm [1, 0, 2] : tensor<3x4x2xf32>
  return %1 : tensor<4x3x2xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_inverse
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: return %[[X]], %[[X]]
func.func @transpose_inverse(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %0 = spectral.transpose %x perm [1, 2, 0] : tensor<2x3x4xf32>
  %1 = spectral.transpose %0 perm [2, 0, 1] : tensor<3x4x2xf32>
  %2 = spectral.transpose %x perm [0, 1, 2] : tensor<2x3x4xf32>
  return %1, %2 : tensor<2x3x4xf32>, tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_splat
// CHECK-NEXT: %[[C:.*]] = spectral.constant dense<7> : tensor<3x2xi32>
// CHECK-NEXT: return %[[C]]
func.func @transpose_splat() -> tensor<3x2xi32> {
  %c = spectral.constant dense<7> : tensor<2x3xi32>
  %0 = spectral.transpose %c perm [1, 0] : tensor<2x3xi32>
  return %0 : tensor<3x2xi32>
}

// -----

// CHECK-LABEL: func.func @reshape_of_reshape
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[R:.*]] = spectral.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<4x6xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_of_reshape(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %0 = spectral.reshape %x : tensor<2x3x4xf32> -> tensor<24xf32>
  %1 = spectral.reshape %0 : tensor<24xf32> -> tensor<4x6xf32>
  return %1 : tensor<4x6xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_round_trip
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xcomplex<f32>>)
// CHECK-NEXT: return %[[X]], %[[X]]
func.func @reshape_round_trip(%x: tensor<2x3xcomplex<f32>>) -> (tensor<2x3xcomplex<f32>>, tensor<2x3xcomplex<f32>>) {
  %0 = spectral.reshape %x : tensor<2x3xcomplex<f32>> -> tensor<6xcomplex<f32>>
  %1 = spectral.reshape %0 : tensor<6xcomplex<f32>> -> tensor<2x3xcomplex<f32>>
  %2 = spectral.reshape %x : tensor<2x3xcomplex<f32>> -> tensor<2x3xcomplex<f32>>
  return %1, %2 : tensor<2x3xcomplex<f32>>, tensor<2x3xcomplex<f32>>
}

// -----

// CHECK-LABEL: func.func @reshape_constant
// CHECK-NEXT: %[[C:.*]] = spectral.constant dense<{{\[}}[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi64>
// CHECK-NEXT: return %[[C]]
func.func @reshape_constant() -> tensor<3x2xi64> {
  %c = spectral.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %0 = spectral.reshape %c : tensor<2x3xi64> -> tensor<3x2xi64>
  return %0 : tensor<3x2xi64>
}

// -----

// CHECK-LABEL: func.func @broadcast_splat
// CHECK-DAG: %[[F:.*]] = spectral.constant dense<2.500000e+00> : tensor<3x4xf32>
// CHECK-DAG: %[[B:.*]] = spectral.constant dense<true> : tensor<2x2xi1>
// CHECK-NOT: spectral.broadcast
// CHECK: return %[[F]], %[[B]]
func.func @broadcast_splat() -> (tensor<3x4xf32>, tensor<2x2xi1>) {
  %f = spectral.constant dense<2.5> : tensor<f32>
  %b = spectral.constant dense<true> : tensor<1xi1>
  %0 = spectral.broadcast %f : tensor<f32> -> tensor<3x4xf32>
  %1 = spectral.broadcast %b : tensor<1xi1> -> tensor<2x2xi1>
  return %0, %1 : tensor<3x4xf32>, tensor<2x2xi1>
}

// -----

// CHECK-LABEL: func.func @broadcast_same_type
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @broadcast_same_type(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = spectral.broadcast %x : tensor<3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// A constant that is not a splat stays a broadcast.
// CHECK-LABEL: func.func @broadcast_row
// CHECK: %[[B:.*]] = spectral.broadcast %{{.*}} : tensor<2xf32> -> tensor<3x2xf32>
// CHECK: return %[[B]]
func.func @broadcast_row() -> tensor<3x2xf32> {
  %row = spectral.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = spectral.broadcast %row : tensor<2xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Constant folding
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @fold_binary
// CHECK-DAG: %[[ADD:.*]] = spectral.constant dense<{{\[}}[1.100000e+01, 2.100000e+01], [1.300000e+01, 2.300000e+01]]> : tensor<2x2xf32>
// CHECK-DAG: %[[SUB:.*]] = spectral.constant dense<[-9, -18]> : tensor<2xi32>
// CHECK-DAG: %[[MUL:.*]] = spectral.constant dense<[(-5.000000e+00,1.000000e+01), (0.000000e+00,5.000000e+00)]> : tensor<2xcomplex<f64>>
// CHECK-DAG: %[[DIV:.*]] = spectral.constant dense<[2.500000e-01, -5.000000e-01]> : tensor<2xf64>
// CHECK-NOT: spectral.{{add|sub|mul|div}}
// CHECK: return %[[ADD]], %[[SUB]], %[[MUL]], %[[DIV]]
func.func @fold_binary() -> (tensor<2x2xf32>, tensor<2xi32>, tensor<2xcomplex<f64>>, tensor<2xf64>) {
  %col = spectral.constant dense<[[1.0], [3.0]]> : tensor<2x1xf32>
  %row = spectral.constant dense<[10.0, 20.0]> : tensor<2xf32>
  %0 = spectral.add %row, %col : tensor<2xf32>, tensor<2x1xf32>
  %i = spectral.constant dense<[1, 2]> : tensor<2xi32>
  %j = spectral.constant dense<[10, 20]> : tensor<2xi32>
  %1 = spectral.sub %i, %j : tensor<2xi32>, tensor<2xi32>
  // (1 + 2i) * (3 + 4i) = -5 + 10i; i * (5) = 5i
  %a = spectral.constant dense<[(1.0, 2.0), (0.0, 1.0)]> : tensor<2xcomplex<f64>>
  %b = spectral.constant dense<[(3.0, 4.0), (5.0, 0.0)]> : tensor<2xcomplex<f64>>
  %2 = spectral.mul %a, %b : tensor<2xcomplex<f64>>, tensor<2xcomplex<f64>>
  %n = spectral.constant dense<[1.0, -2.0]> : tensor<2xf64>
  %d = spectral.constant dense<4.0> : tensor<f64>
  %3 = spectral.div %n, %d : tensor<2xf64>, tensor<f64>
  return %0, %1, %2, %3 : tensor<2x2xf32>, tensor<2xi32>, tensor<2xcomplex<f64>>, tensor<2xf64>
}

// -----

// Integer division truncates toward zero; a division by zero is left to the
// runtime, which reports it.
// CHECK-LABEL: func.func @fold_int_div
// CHECK-DAG: %[[Q:.*]] = spectral.constant dense<[-3, 3, -3]> : tensor<3xi64>
// CHECK-DAG: %[[ZERO:.*]] = spectral.constant dense<[1, 0, 2]> : tensor<3xi64>
// CHECK-DAG: %[[BYZERO:.*]] = spectral.div %{{.*}}, %[[ZERO]] : tensor<3xi64>, tensor<3xi64>
// CHECK: return %[[Q]], %[[BYZERO]]
func.func @fold_int_div() -> (tensor<3xi64>, tensor<3xi64>) {
  %n = spectral.constant dense<[-7, 7, 7]> : tensor<3xi64>
  %d = spectral.constant dense<[2, 2, -2]> : tensor<3xi64>
  %0 = spectral.div %n, %d : tensor<3xi64>, tensor<3xi64>
  %z = spectral.constant dense<[1, 0, 2]> : tensor<3xi64>
  %1 = spectral.div %n, %z : tensor<3xi64>, tensor<3xi64>
  return %0, %1 : tensor<3xi64>, tensor<3xi64>
}

// -----

// i32 wraps like the target; an i64 product beyond 2^53 is not exact in
// double and is left to the runtime.
// CHECK-LABEL: func.func @fold_int_range
// CHECK-DAG: %[[WRAP:.*]] = spectral.constant dense<-2147483648> : tensor<2xi32>
// CHECK-DAG: %[[BIG:.*]] = spectral.constant dense<3037000499> : tensor<i64>
// CHECK-DAG: %[[SQUARE:.*]] = spectral.mul %[[BIG]], %[[BIG]] : tensor<i64>, tensor<i64>
// CHECK: return %[[WRAP]], %[[SQUARE]]
func.func @fold_int_range() -> (tensor<2xi32>, tensor<i64>) {
  %max = spectral.constant dense<2147483647> : tensor<2xi32>
  %one = spectral.constant dense<1> : tensor<i32>
  %0 = spectral.add %max, %one : tensor<2xi32>, tensor<i32>
  %big = spectral.constant dense<3037000499> : tensor<i64>
  %1 = spectral.mul %big, %big : tensor<i64>, tensor<i64>
  return %0, %1 : tensor<2xi32>, tensor<i64>
}

// -----

// CHECK-LABEL: func.func @fold_unary
// CHECK-DAG: %[[NEG:.*]] = spectral.constant dense<[-1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[EXP:.*]] = spectral.constant dense<1.000000e+00> : tensor<3xf64>
// CHECK-DAG: %[[ABS:.*]] = spectral.constant dense<[5.000000e+00, 1.300000e+01]> : tensor<2xf32>
// CHECK-DAG: %[[CONJ:.*]] = spectral.constant dense<(1.000000e+00,-2.000000e+00)> : tensor<complex<f32>>
// CHECK-DAG: %[[IABS:.*]] = spectral.constant dense<[3, 0, 4]> : tensor<3xi32>
// CHECK-NOT: spectral.{{neg|exp|abs|conj}}
// CHECK: return %[[NEG]], %[[EXP]], %[[ABS]], %[[CONJ]], %[[IABS]]
func.func @fold_unary() -> (tensor<2xf32>, tensor<3xf64>, tensor<2xf32>, tensor<complex<f32>>, tensor<3xi32>) {
  %x = spectral.constant dense<[1.0, -2.0]> : tensor<2xf32>
  %0 = spectral.neg %x : tensor<2xf32>
  %zero = spectral.constant dense<0.0> : tensor<3xf64>
  %1 = spectral.exp %zero : tensor<3xf64>
  %c = spectral.constant dense<[(3.0, 4.0), (-5.0, 12.0)]> : tensor<2xcomplex<f32>>
  %2 = spectral.abs %c : tensor<2xcomplex<f32>>
  %d = spectral.constant dense<(1.0, 2.0)> : tensor<complex<f32>>
  %3 = spectral.conj %d : tensor<complex<f32>>
  %i = spectral.constant dense<[-3, 0, 4]> : tensor<3xi32>
  %4 = spectral.abs %i : tensor<3xi32>
  return %0, %1, %2, %3, %4 : tensor<2xf32>, tensor<3xf64>, tensor<2xf32>, tensor<complex<f32>>, tensor<3xi32>
}

// -----

// CHECK-LABEL: func.func @fold_real_unary
// CHECK-DAG: %[[RELU:.*]] = spectral.constant dense<[0.000000e+00, 0.000000e+00, 2.000000e+00]> : tensor<3xf32>
// CHECK-DAG: %[[SIG:.*]] = spectral.constant dense<5.000000e-01> : tensor<f64>
// CHECK-DAG: %[[SQRT:.*]] = spectral.constant dense<[2.000000e+00, 3.000000e+00]> : tensor<2xf64>
// CHECK-DAG: %[[RE:.*]] = spectral.constant dense<[3.000000e+00, -5.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[IM:.*]] = spectral.constant dense<[4.000000e+00, 1.200000e+01]> : tensor<2xf32>
// CHECK-DAG: %[[C:.*]] = spectral.constant dense<[(1.000000e+00,3.000000e+00), (2.000000e+00,3.000000e+00)]> : tensor<2xcomplex<f32>>
// CHECK: return %[[RELU]], %[[SIG]], %[[SQRT]], %[[RE]], %[[IM]], %[[C]]
func.func @fold_real_unary() -> (tensor<3xf32>, tensor<f64>, tensor<2xf64>, tensor<2xf32>, tensor<2xf32>, tensor<2xcomplex<f32>>) {
  %x = spectral.constant dense<[-1.0, 0.0, 2.0]> : tensor<3xf32>
  %0 = spectral.relu %x : tensor<3xf32>
  %zero = spectral.constant dense<0.0> : tensor<f64>
  %1 = spectral.sigmoid %zero : tensor<f64>
  %sq = spectral.constant dense<[4.0, 9.0]> : tensor<2xf64>
  %2 = spectral.sqrt %sq : tensor<2xf64>
  %c = spectral.constant dense<[(3.0, 4.0), (-5.0, 12.0)]> : tensor<2xcomplex<f32>>
  %3 = spectral.real %c : tensor<2xcomplex<f32>>
  %4 = spectral.imag %c : tensor<2xcomplex<f32>>
  %re = spectral.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %im = spectral.constant dense<3.0> : tensor<f32>
  %5 = spectral.complex %re, %im : tensor<2xf32>, tensor<f32>
  return %0, %1, %2, %3, %4, %5 : tensor<3xf32>, tensor<f64>, tensor<2xf64>, tensor<2xf32>, tensor<2xf32>, tensor<2xcomplex<f32>>
}

// -----

// relu propagates NaN, as torch.relu and the reference evaluator do.
// CHECK-LABEL: func.func @fold_relu_nan
// CHECK: %[[R:.*]] = spectral.constant dense<[0x7FC00000, 0.000000e+00, 2.000000e+00]> : tensor<3xf32>
// CHECK: return %[[R]]
func.func @fold_relu_nan() -> tensor<3xf32> {
  %x = spectral.constant dense<[0x7FC00000, -1.0, 2.0]> : tensor<3xf32>
  %0 = spectral.relu %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Float to integer truncates toward zero; real to complex sets the imaginary
// part to 0; i1 to float is 0 or 1. (To i1 is below.)
// CHECK-LABEL: func.func @fold_cast
// CHECK-DAG: %[[INT:.*]] = spectral.constant dense<[2, -2, 0]> : tensor<3xi32>
// CHECK-DAG: %[[BOOL:.*]] = spectral.constant dense<[true, true, false]> : tensor<3xi1>
// CHECK-DAG: %[[CPLX:.*]] = spectral.constant dense<[(2.500000e+00,0.000000e+00), (-2.500000e+00,0.000000e+00), (0.000000e+00,0.000000e+00)]> : tensor<3xcomplex<f64>>
// CHECK-DAG: %[[FLT:.*]] = spectral.constant dense<[1.000000e+00, 0.000000e+00]> : tensor<2xf32>
// CHECK-NOT: spectral.cast
// CHECK: return %[[INT]], %[[BOOL]], %[[CPLX]], %[[FLT]]
func.func @fold_cast() -> (tensor<3xi32>, tensor<3xi1>, tensor<3xcomplex<f64>>, tensor<2xf32>) {
  %x = spectral.constant dense<[2.5, -2.5, 0.0]> : tensor<3xf32>
  %0 = spectral.cast %x : tensor<3xf32> to tensor<3xi32>
  %1 = spectral.cast %x : tensor<3xf32> to tensor<3xi1>
  %2 = spectral.cast %x : tensor<3xf32> to tensor<3xcomplex<f64>>
  %b = spectral.constant dense<[true, false]> : tensor<2xi1>
  %3 = spectral.cast %b : tensor<2xi1> to tensor<2xf32>
  return %0, %1, %2, %3 : tensor<3xi32>, tensor<3xi1>, tensor<3xcomplex<f64>>, tensor<2xf32>
}

// -----

// Float to i1 is "not zero" before any truncation, as numpy's astype(bool):
// 0.5 and -0.25 are true, 0 and -0 false.
// CHECK-LABEL: func.func @fold_cast_to_i1
// CHECK: %[[BOOL:.*]] = spectral.constant dense<[true, true, false, false]> : tensor<4xi1>
// CHECK-NOT: spectral.cast
// CHECK: return %[[BOOL]]
func.func @fold_cast_to_i1() -> tensor<4xi1> {
  %x = spectral.constant dense<[0.5, -0.25, 0.0, -0.0]> : tensor<4xf32>
  %0 = spectral.cast %x : tensor<4xf32> to tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// NaN is not zero: true (it has no integer value, but i1 needs none).
// CHECK-LABEL: func.func @fold_cast_nan_to_i1
// CHECK: %[[BOOL:.*]] = spectral.constant dense<true> : tensor<2xi1>
// CHECK-NOT: spectral.cast
// CHECK: return %[[BOOL]]
func.func @fold_cast_nan_to_i1() -> tensor<2xi1> {
  %x = spectral.constant dense<0x7FC00000> : tensor<2xf32>
  %0 = spectral.cast %x : tensor<2xf32> to tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

// To f32, values round to the nearest float: 0.1 and back is not 0.1.
// CHECK-LABEL: func.func @fold_cast_rounds_to_f32
// CHECK: %[[R:.*]] = spectral.constant dense<0.10000000149011612> : tensor<f64>
// CHECK: return %[[R]]
func.func @fold_cast_rounds_to_f32() -> tensor<f64> {
  %x = spectral.constant dense<0.1> : tensor<f64>
  %0 = spectral.cast %x : tensor<f64> to tensor<f32>
  %1 = spectral.cast %0 : tensor<f32> to tensor<f64>
  return %1 : tensor<f64>
}

// -----

// A NaN has no integer value: the cast is left to the runtime.
// CHECK-LABEL: func.func @fold_cast_nan
// CHECK: spectral.cast
func.func @fold_cast_nan() -> tensor<2xi64> {
  %x = spectral.constant dense<0x7FC00000> : tensor<2xf32>
  %0 = spectral.cast %x : tensor<2xf32> to tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// Large non-splat results are left to the runtime (more than 4096 elements).
// CHECK-LABEL: func.func @fold_too_large
// CHECK: spectral.add
func.func @fold_too_large() -> tensor<4097x2xf32> {
  %row = spectral.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %col = spectral.constant dense<1.0> : tensor<4097x1xf32>
  %0 = spectral.add %row, %col : tensor<2xf32>, tensor<4097x1xf32>
  return %0 : tensor<4097x2xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Inside a fusion region
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @fold_in_fusion
// CHECK: spectral.fusion %{{.*}}, %{{.*}} : (tensor<8xcomplex<f32>>, tensor<8xf32>) -> (tensor<8xcomplex<f32>>, tensor<8xf32>) {
// CHECK-NEXT: ^bb0(%[[C:.*]]: tensor<8xcomplex<f32>>, %[[R:.*]]: tensor<8xf32>):
// CHECK-NEXT:   %[[SIX:.*]] = spectral.constant dense<6.000000e+00> : tensor<8xf32>
// CHECK-NEXT:   %[[S:.*]] = spectral.mul %[[R]], %[[SIX]] : tensor<8xf32>, tensor<8xf32>
// CHECK-NEXT:   spectral.yield %[[C]], %[[S]] : tensor<8xcomplex<f32>>, tensor<8xf32>
// CHECK-NEXT: }
func.func @fold_in_fusion(%c: tensor<8xcomplex<f32>>, %r: tensor<8xf32>) -> (tensor<8xcomplex<f32>>, tensor<8xf32>) {
  %0:2 = spectral.fusion %c, %r : (tensor<8xcomplex<f32>>, tensor<8xf32>) -> (tensor<8xcomplex<f32>>, tensor<8xf32>) {
  ^bb0(%a: tensor<8xcomplex<f32>>, %b: tensor<8xf32>):
    %f = spectral.fft %a axes [0] : tensor<8xcomplex<f32>>
    %i = spectral.ifft %f axes [0] : tensor<8xcomplex<f32>>
    %two = spectral.constant dense<2.0> : tensor<8xf32>
    %three = spectral.constant dense<3.0> : tensor<8xf32>
    %six = spectral.mul %two, %three : tensor<8xf32>, tensor<8xf32>
    %zero = spectral.constant dense<0.0> : tensor<f32>
    %n = spectral.add %b, %zero : tensor<8xf32>, tensor<f32>
    %s = spectral.mul %n, %six : tensor<8xf32>, tensor<8xf32>
    spectral.yield %i, %s : tensor<8xcomplex<f32>>, tensor<8xf32>
  }
  return %0#0, %0#1 : tensor<8xcomplex<f32>>, tensor<8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// A factor constant along the reduced axes moves out of the reduction
//===----------------------------------------------------------------------===//

// PureFFT's shape: features [B,1,F] times pattern weights [1,P,F], summed
// over the patterns: the [B,P,F] product is never formed.
// CHECK-LABEL: func.func @factor_out_of_sum
// CHECK-SAME:    (%[[W:.*]]: tensor<1x8x16xf32>, %[[X:.*]]: tensor<4x1x16xf32>)
// CHECK-NEXT:    %[[S:.*]] = spectral.reduce_sum %[[W]] axes [1] : tensor<1x8x16xf32>
// CHECK-NEXT:    %[[R:.*]] = spectral.reshape %[[X]] : tensor<4x1x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT:    %[[M:.*]] = spectral.mul %[[R]], %[[S]] : tensor<4x16xf32>, tensor<1x16xf32>
// CHECK-NEXT:    return %[[M]]
func.func @factor_out_of_sum(%w: tensor<1x8x16xf32>, %x: tensor<4x1x16xf32>) -> tensor<4x16xf32> {
  %p = spectral.mul %x, %w : tensor<4x1x16xf32>, tensor<1x8x16xf32>
  %s = spectral.reduce_sum %p axes [1] : tensor<4x8x16xf32>
  return %s : tensor<4x16xf32>
}

// -----

// A sum over the last axis of rows times a matrix is a matmul: PureFFT's
// class scores (features [B,1,F] times class patterns [C,F]).
// CHECK-LABEL: func.func @contraction_as_matmul
// CHECK-SAME:    (%[[X:.*]]: tensor<4x1x16xf32>, %[[C:.*]]: tensor<10x16xf32>)
// CHECK-NEXT:    %[[R:.*]] = spectral.reshape %[[X]] : tensor<4x1x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT:    %[[T:.*]] = spectral.transpose %[[C]] perm [1, 0] : tensor<10x16xf32>
// CHECK-NEXT:    %[[M:.*]] = spectral.matmul %[[R]], %[[T]] : tensor<4x16xf32>, tensor<16x10xf32>
// CHECK-NEXT:    return %[[M]]
func.func @contraction_as_matmul(%x: tensor<4x1x16xf32>, %c: tensor<10x16xf32>) -> tensor<4x10xf32> {
  %p = spectral.mul %x, %c : tensor<4x1x16xf32>, tensor<10x16xf32>
  %s = spectral.reduce_sum %p axes [2] : tensor<4x10x16xf32>
  return %s : tensor<4x10xf32>
}

// -----

// Not for one row (a vector times a matrix stays a fused reduction), another
// axis, or a product broadcast along the rows too.
// CHECK-LABEL: func.func @contraction_not_matmul
// CHECK-NOT:     spectral.matmul
// CHECK:         return
func.func @contraction_not_matmul(%v: tensor<1x16xf32>, %c: tensor<10x16xf32>, %x: tensor<4x1x16xf32>,
                                  %b: tensor<4x10x16xf32>)
    -> (tensor<10xf32>, tensor<4x16xf32>, tensor<4x10xf32>) {
  %p = spectral.mul %v, %c : tensor<1x16xf32>, tensor<10x16xf32>
  %s = spectral.reduce_sum %p axes [1] : tensor<10x16xf32>
  %q = spectral.mul %x, %c : tensor<4x1x16xf32>, tensor<10x16xf32>
  %t = spectral.reduce_sum %q axes [1] : tensor<4x10x16xf32>
  %r = spectral.mul %b, %c : tensor<4x10x16xf32>, tensor<10x16xf32>
  %u = spectral.reduce_sum %r axes [2] : tensor<4x10x16xf32>
  return %s, %t, %u : tensor<10xf32>, tensor<4x16xf32>, tensor<4x10xf32>
}

// -----

// CHECK-LABEL: func.func @factor_out_of_mean_keepdims
// CHECK-SAME:    (%[[W:.*]]: tensor<1x8x16xcomplex<f32>>, %[[X:.*]]: tensor<4x1x16xcomplex<f32>>)
// CHECK-NEXT:    %[[S:.*]] = spectral.reduce_mean %[[W]] axes [1] keepdims
// CHECK-NEXT:    %[[M:.*]] = spectral.mul %[[S]], %[[X]] : tensor<1x1x16xcomplex<f32>>, tensor<4x1x16xcomplex<f32>>
// CHECK-NEXT:    return %[[M]]
func.func @factor_out_of_mean_keepdims(%w: tensor<1x8x16xcomplex<f32>>, %x: tensor<4x1x16xcomplex<f32>>)
    -> tensor<4x1x16xcomplex<f32>> {
  %p = spectral.mul %w, %x : tensor<1x8x16xcomplex<f32>>, tensor<4x1x16xcomplex<f32>>
  %s = spectral.reduce_mean %p axes [1] keepdims : tensor<4x8x16xcomplex<f32>>
  return %s : tensor<4x1x16xcomplex<f32>>
}

// -----

// A factor of lower rank broadcasts along the leading axes.
// CHECK-LABEL: func.func @factor_of_lower_rank
// CHECK-SAME:    (%[[A:.*]]: tensor<16xi32>, %[[B:.*]]: tensor<8x16xi32>)
// CHECK-NEXT:    %[[S:.*]] = spectral.reduce_sum %[[B]] axes [0]
// CHECK-NEXT:    %[[M:.*]] = spectral.mul %[[A]], %[[S]] : tensor<16xi32>, tensor<16xi32>
// CHECK-NEXT:    return %[[M]]
func.func @factor_of_lower_rank(%a: tensor<16xi32>, %b: tensor<8x16xi32>) -> tensor<16xi32> {
  %p = spectral.mul %a, %b : tensor<16xi32>, tensor<8x16xi32>
  %s = spectral.reduce_sum %p axes [0] : tensor<8x16xi32>
  return %s : tensor<16xi32>
}

// -----

// Not moved: both factors vary along the axis; the other factor does not
// span the axis (a sum of a broadcast); the product is used elsewhere too;
// a maximum.
// CHECK-LABEL: func.func @factor_stays
// CHECK:         spectral.mul
// CHECK-NEXT:    spectral.reduce_sum
// CHECK-NEXT:    spectral.mul
// CHECK-NEXT:    spectral.reduce_sum
// CHECK-NEXT:    spectral.mul
// CHECK-NEXT:    spectral.reduce_sum
// CHECK-NEXT:    spectral.mul
// CHECK-NEXT:    spectral.reduce_max
func.func @factor_stays(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>, %c: tensor<1x16xf32>,
                        %d: tensor<16xf32>)
    -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<8x16xf32>, tensor<16xf32>) {
  %p = spectral.mul %a, %b : tensor<8x16xf32>, tensor<8x16xf32>
  %s = spectral.reduce_sum %p axes [0] : tensor<8x16xf32>
  %q = spectral.mul %c, %d : tensor<1x16xf32>, tensor<16xf32>
  %t = spectral.reduce_sum %q axes [0] : tensor<1x16xf32>
  %u = spectral.mul %a, %d : tensor<8x16xf32>, tensor<16xf32>
  %v = spectral.reduce_sum %u axes [0] : tensor<8x16xf32>
  %w = spectral.mul %a, %d : tensor<8x16xf32>, tensor<16xf32>
  %m = spectral.reduce_max %w axes [0] : tensor<8x16xf32>
  return %s, %t, %v, %u, %m : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<8x16xf32>, tensor<16xf32>
}

// -----

// cross_entropy reads logits; log-probabilities along the classes give the
// same loss (their log-sum-exp is 0), so the log_softmax goes. Along the
// rows it does not.
// CHECK-LABEL: func.func @cross_entropy_of_log_softmax
// CHECK-SAME:    (%[[X:.*]]: tensor<4x10xf32>, %[[L:.*]]: tensor<4xi64>)
// CHECK-NEXT:    %[[E:.*]] = spectral.cross_entropy %[[X]], %[[L]]
// CHECK-NEXT:    %[[S:.*]] = spectral.log_softmax %[[X]] axis 0
// CHECK-NEXT:    %[[F:.*]] = spectral.cross_entropy %[[S]], %[[L]]
// CHECK-NEXT:    return %[[E]], %[[F]]
func.func @cross_entropy_of_log_softmax(%x: tensor<4x10xf32>, %l: tensor<4xi64>)
    -> (tensor<f32>, tensor<f32>) {
  %s = spectral.log_softmax %x axis 1 : tensor<4x10xf32>
  %e = spectral.cross_entropy %s, %l : tensor<4x10xf32>, tensor<4xi64>
  %r = spectral.log_softmax %x axis 0 : tensor<4x10xf32>
  %f = spectral.cross_entropy %r, %l : tensor<4x10xf32>, tensor<4xi64>
  return %e, %f : tensor<f32>, tensor<f32>
}

// -----

// The factor that spans the reduced axis may have a lower rank: PureFFT's
// features [B, 1, F] times weighted patterns [P, F], summed over P.
// CHECK-LABEL: func.func @factor_out_of_lower_rank_other
// CHECK-SAME:    (%[[X:.*]]: tensor<4x1x16xf32>, %[[P:.*]]: tensor<8x16xf32>)
// CHECK-NEXT:    %[[S:.*]] = spectral.reduce_sum %[[P]] axes [0] keepdims : tensor<8x16xf32>
// CHECK-NEXT:    %[[R:.*]] = spectral.mul %[[X]], %[[S]] : tensor<4x1x16xf32>, tensor<1x16xf32>
// CHECK-NEXT:    return %[[R]]
func.func @factor_out_of_lower_rank_other(%x: tensor<4x1x16xf32>, %p: tensor<8x16xf32>)
    -> tensor<4x1x16xf32> {
  %a = spectral.mul %x, %p : tensor<4x1x16xf32>, tensor<8x16xf32>
  %s = spectral.reduce_sum %a axes [1] keepdims : tensor<4x8x16xf32>
  return %s : tensor<4x1x16xf32>
}

// -----

// Not moved: the lower-rank factor does not span the reduced axis (it
// broadcasts along it, so both factors are constant there).
// CHECK-LABEL: func.func @lower_rank_other_along_the_axis
// CHECK-NEXT:    spectral.mul
// CHECK-NEXT:    spectral.reduce_sum
func.func @lower_rank_other_along_the_axis(%x: tensor<4x1x16xf32>, %p: tensor<16xf32>)
    -> tensor<4x16xf32> {
  %a = spectral.mul %x, %p : tensor<4x1x16xf32>, tensor<16xf32>
  %s = spectral.reduce_sum %a axes [1] : tensor<4x1x16xf32>
  return %s : tensor<4x16xf32>
}

// -----

// Not moved: a sum over an empty axis is 0, but the factor times 0 would be
// NaN for an infinite factor.
// CHECK-LABEL: func.func @empty_axis_stays
// CHECK-NEXT:    spectral.mul
// CHECK-NEXT:    spectral.reduce_sum
func.func @empty_axis_stays(%x: tensor<2x1xf32>, %p: tensor<0xf32>) -> tensor<2xf32> {
  %a = spectral.mul %x, %p : tensor<2x1xf32>, tensor<0xf32>
  %s = spectral.reduce_sum %a axes [1] : tensor<2x0xf32>
  return %s : tensor<2xf32>
}

// -----

// Chains of constant scalings merge into one, their constants' product
// folded; a scaling whose result is used elsewhere stays.
// CHECK-LABEL: func.func @scaling_chains
// CHECK-SAME:    (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-DAG:     %[[SIX:.*]] = spectral.constant dense<6.000000e+00> : tensor<f32>
// CHECK-DAG:     %[[ROW:.*]] = spectral.constant dense<[2.000000e+00, 4.000000e+00, 6.000000e+00, 8.000000e+00, 1.000000e+01, 1.200000e+01, 1.400000e+01, 1.600000e+01]> : tensor<8xf32>
// CHECK:         %[[A:.*]] = spectral.mul %[[X]], %[[SIX]]
// CHECK:         %[[B:.*]] = spectral.mul %[[X]], %[[ROW]]
// CHECK:         %[[C:.*]] = spectral.mul %[[X]], %{{.*}}
// CHECK:         %[[D:.*]] = spectral.mul %[[C]], %{{.*}}
// CHECK:         return %[[A]], %[[B]], %[[C]], %[[D]]
func.func @scaling_chains(%x: tensor<4x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %two = spectral.constant dense<2.0> : tensor<f32>
  %three = spectral.constant dense<3.0> : tensor<f32>
  %row = spectral.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %a1 = spectral.mul %x, %two : tensor<4x8xf32>, tensor<f32>
  %a = spectral.mul %three, %a1 : tensor<f32>, tensor<4x8xf32>
  %b1 = spectral.mul %row, %x : tensor<8xf32>, tensor<4x8xf32>
  %b = spectral.mul %b1, %two : tensor<4x8xf32>, tensor<f32>
  %c = spectral.mul %x, %three : tensor<4x8xf32>, tensor<f32>
  %d = spectral.mul %c, %two : tensor<4x8xf32>, tensor<f32>
  return %a, %b, %c, %d : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A broadcast of a broadcast is one broadcast.
// CHECK-LABEL: func.func @broadcast_chain
// CHECK-SAME:    (%[[X:.*]]: tensor<8xf32>)
// CHECK-NEXT:    %[[B:.*]] = spectral.broadcast %[[X]] : tensor<8xf32> -> tensor<3x4x8xf32>
// CHECK-NEXT:    return %[[B]]
func.func @broadcast_chain(%x: tensor<8xf32>) -> tensor<3x4x8xf32> {
  %a = spectral.broadcast %x : tensor<8xf32> -> tensor<4x8xf32>
  %b = spectral.broadcast %a : tensor<4x8xf32> -> tensor<3x4x8xf32>
  return %b : tensor<3x4x8xf32>
}

// -----

// Channel mixes of different modes, side by side along a mode axis, are one
// mix of the joined inputs and weights (an FNO layer's two corners); the
// zeros between them stay. Mixes along the channel axis, or of other
// shapes, are left alone.
// CHECK-LABEL: func.func @channel_mixes_in_a_concat
// CHECK-SAME:    (%[[A:.*]]: tensor<2x3x4x5xcomplex<f32>>, %[[B:.*]]: tensor<2x3x6x5xcomplex<f32>>, %[[WA:.*]]: tensor<3x7x4x5xcomplex<f32>>, %[[WB:.*]]: tensor<3x7x6x5xcomplex<f32>>)
// CHECK-DAG:     %[[Z:.*]] = spectral.constant
// CHECK-DAG:     %[[X:.*]] = spectral.concat %[[A]], %[[B]] axis 2
// CHECK-DAG:     %[[W:.*]] = spectral.concat %[[WA]], %[[WB]] axis 2
// CHECK:         %[[M:.*]] = spectral.channel_mix %[[X]], %[[W]] : tensor<2x3x10x5xcomplex<f32>>, tensor<3x7x10x5xcomplex<f32>>
// CHECK:         %[[LO:.*]] = spectral.slice %[[M]] start [0, 0, 0, 0] limit [2, 7, 4, 5]
// CHECK:         %[[HI:.*]] = spectral.slice %[[M]] start [0, 0, 4, 0] limit [2, 7, 10, 5]
// CHECK:         spectral.concat %[[LO]], %[[Z]], %[[HI]] axis 2
// CHECK-NOT:     spectral.channel_mix
func.func @channel_mixes_in_a_concat(%a: tensor<2x3x4x5xcomplex<f32>>, %b: tensor<2x3x6x5xcomplex<f32>>,
                                     %wa: tensor<3x7x4x5xcomplex<f32>>, %wb: tensor<3x7x6x5xcomplex<f32>>)
    -> tensor<2x7x12x5xcomplex<f32>> {
  %ma = spectral.channel_mix %a, %wa : tensor<2x3x4x5xcomplex<f32>>, tensor<3x7x4x5xcomplex<f32>>
  %mb = spectral.channel_mix %b, %wb : tensor<2x3x6x5xcomplex<f32>>, tensor<3x7x6x5xcomplex<f32>>
  %z = spectral.constant dense<(0.0, 0.0)> : tensor<2x7x2x5xcomplex<f32>>
  %c = spectral.concat %ma, %z, %mb axis 2 : tensor<2x7x4x5xcomplex<f32>>, tensor<2x7x2x5xcomplex<f32>>, tensor<2x7x6x5xcomplex<f32>>
  return %c : tensor<2x7x12x5xcomplex<f32>>
}

// CHECK-LABEL: func.func @channel_mixes_left_alone
// CHECK-COUNT-4: spectral.channel_mix
func.func @channel_mixes_left_alone(%a: tensor<2x3x4xf32>, %w: tensor<3x5x4xf32>, %v: tensor<3x5x4xf32>,
                                    %u: tensor<3x6x4xf32>)
    -> (tensor<4x5x4xf32>, tensor<2x11x4xf32>) {
  %m1 = spectral.channel_mix %a, %w : tensor<2x3x4xf32>, tensor<3x5x4xf32>
  %m2 = spectral.channel_mix %a, %v : tensor<2x3x4xf32>, tensor<3x5x4xf32>
  // Along the batch axis: not a mode axis.
  %c1 = spectral.concat %m1, %m2 axis 0 : tensor<2x5x4xf32>, tensor<2x5x4xf32>
  %m3 = spectral.channel_mix %a, %w : tensor<2x3x4xf32>, tensor<3x5x4xf32>
  %m4 = spectral.channel_mix %a, %u : tensor<2x3x4xf32>, tensor<3x6x4xf32>
  // Along the channel axis, of different output channels.
  %c2 = spectral.concat %m3, %m4 axis 1 : tensor<2x5x4xf32>, tensor<2x6x4xf32>
  return %c1, %c2 : tensor<4x5x4xf32>, tensor<2x11x4xf32>
}

// -----

// A real splat scaling next to a transform becomes the transform's norm when
// the product is another norm's factor; other scalings stay.
// CHECK-LABEL: func.func @scales_into_norms
// CHECK-SAME:    (%[[X:.*]]: tensor<4x16xcomplex<f32>>, %[[R:.*]]: tensor<4x16xf32>)
// CHECK-DAG:     %[[A:.*]] = spectral.ifft %[[X]] axes [1] norm forward : tensor<4x16xcomplex<f32>>
// CHECK-DAG:     %[[B:.*]] = spectral.rfft %[[R]] axes [0, 1] norm ortho : tensor<4x16xf32>
// CHECK-DAG:     %[[C0:.*]] = spectral.fft %[[X]] axes [1] : tensor<4x16xcomplex<f32>>
// CHECK-DAG:     %[[C:.*]] = spectral.mul %[[C0]], %{{.*}} : tensor<4x16xcomplex<f32>>, tensor<complex<f32>>
// CHECK:         return %[[A]], %[[B]], %[[C]]
func.func @scales_into_norms(%x: tensor<4x16xcomplex<f32>>, %r: tensor<4x16xf32>)
    -> (tensor<4x16xcomplex<f32>>, tensor<4x9xcomplex<f32>>, tensor<4x16xcomplex<f32>>) {
  // ifft (1/16) times 16: no scaling at all (the forward norm of an inverse).
  %sixteen = spectral.constant dense<(16.0, 0.0)> : tensor<complex<f32>>
  %i = spectral.ifft %x axes [1] : tensor<4x16xcomplex<f32>>
  %a = spectral.mul %i, %sixteen : tensor<4x16xcomplex<f32>>, tensor<complex<f32>>
  // 1/8 before an rfft over 64 points: the orthonormal norm.
  %eighth = spectral.constant dense<0.125> : tensor<f32>
  %s = spectral.mul %r, %eighth : tensor<4x16xf32>, tensor<f32>
  %b = spectral.rfft %s axes [0, 1] : tensor<4x16xf32>
  // 3 is no norm's factor.
  %three = spectral.constant dense<(3.0, 0.0)> : tensor<complex<f32>>
  %f = spectral.fft %x axes [1] : tensor<4x16xcomplex<f32>>
  %c = spectral.mul %f, %three : tensor<4x16xcomplex<f32>>, tensor<complex<f32>>
  return %a, %b, %c : tensor<4x16xcomplex<f32>>, tensor<4x9xcomplex<f32>>, tensor<4x16xcomplex<f32>>
}

// -----

// A transform between a transpose and its inverse runs on the operand's own
// axes (an rfft's real axis stays last).
// CHECK-LABEL: func.func @transform_between_transposes
// CHECK-SAME:    (%[[X:.*]]: tensor<8x6x4xf32>)
// CHECK-NEXT:    %[[F:.*]] = spectral.rfft %[[X]] axes [2, 0] : tensor<8x6x4xf32>
// CHECK-NEXT:    return %[[F]]
func.func @transform_between_transposes(%x: tensor<8x6x4xf32>) -> tensor<5x6x4xcomplex<f32>> {
  %t = spectral.transpose %x perm [2, 1, 0] : tensor<8x6x4xf32>
  %f = spectral.rfft %t axes [0, 2] : tensor<4x6x8xf32>
  %b = spectral.transpose %f perm [2, 1, 0] : tensor<4x6x5xcomplex<f32>>
  return %b : tensor<5x6x4xcomplex<f32>>
}
