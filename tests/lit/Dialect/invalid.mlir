// Every verifier and result type inference message of the spectral dialect,
// one case each (hence the length), in the order of SpectralOps.td.
// RUN: spectral-opt %s -split-input-file -verify-diagnostics

//===----------------------------------------------------------------------===//
// Operand types
//===----------------------------------------------------------------------===//

func.func @dynamic_shape(%x: tensor<?xf32>) {
  // expected-error @+1 {{operand 'x' must be a statically shaped tensor, got tensor<?xf32>}}
  %0 = spectral.abs %x : tensor<?xf32>
  return
}

// -----

func.func @dynamic_rhs(%a: tensor<4xf32>, %b: tensor<?x4xf32>) {
  // expected-error @+1 {{operand 'rhs' must be a statically shaped tensor, got tensor<?x4xf32>}}
  %0 = spectral.add %a, %b : tensor<4xf32>, tensor<?x4xf32>
  return
}

// -----

// An unranked type does not even parse as the operand of a custom form.
func.func @unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{invalid kind of type specified}}
  %0 = spectral.reduce_sum %x axes [0] : tensor<*xf32>
  return
}

// -----

// Ops without type inference report the operand constraint.
func.func @dynamic_reshape(%x: tensor<?xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor}}
  %0 = spectral.reshape %x : tensor<?xf32> -> tensor<4xf32>
  return
}

// -----

func.func @bad_element_type(%x: tensor<4xf16>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or 64-bit float}}
  %0 = spectral.exp %x : tensor<4xf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Constants and pointwise
//===----------------------------------------------------------------------===//

// A sparse value never reaches the verifier from text: the source limits
// refuse it first (tests/lit/Dialect/source-limits.mlir).

// MLIR accepts a real literal for a complex type and stores one real per
// element; reading it back would run off the end, so it is refused.
func.func @constant_complex_without_pairs() {
  // expected-error @+1 {{'spectral.constant' op a complex literal needs (re, im) pairs, e.g. dense<(0.5, 0.0)>}}
  %0 = spectral.constant dense<0.5> : tensor<3xcomplex<f64>>
  return
}

// -----

func.func @binary_element_mismatch(%a: tensor<4xf32>, %b: tensor<4xf64>) {
  // expected-error @+1 {{operand 'rhs' has element type f64 but operand 'lhs' has f32; they must match}}
  %0 = spectral.add %a, %b : tensor<4xf32>, tensor<4xf64>
  return
}

// -----

func.func @binary_real_complex(%a: tensor<4xcomplex<f32>>, %b: tensor<4xf32>) {
  // expected-error @+1 {{operand 'rhs' has element type f32 but operand 'lhs' has complex<f32>; they must match}}
  %0 = spectral.mul %a, %b : tensor<4xcomplex<f32>>, tensor<4xf32>
  return
}

// -----

func.func @binary_not_broadcastable(%a: tensor<2x4xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{operand 'rhs' of shape [3] does not broadcast with shape [2, 4]}}
  %0 = spectral.sub %a, %b : tensor<2x4xf32>, tensor<3xf32>
  return
}

// -----

func.func @complex_element_mismatch(%a: tensor<4xf32>, %b: tensor<4xf64>) {
  // expected-error @+1 {{operand 'rhs' has element type f64 but operand 'lhs' has f32; they must match}}
  %0 = spectral.complex %a, %b : tensor<4xf32>, tensor<4xf64>
  return
}

// -----

func.func @cmp_not_broadcastable(%a: tensor<4xi32>, %b: tensor<5xi32>) {
  // expected-error @+1 {{operand 'rhs' of shape [5] does not broadcast with shape [4]}}
  %0 = spectral.cmp lt %a, %b : tensor<4xi32>, tensor<5xi32>
  return
}

// -----

func.func @select_element_mismatch(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xi32>) {
  // expected-error @+1 {{operand 'b' has element type i32 but operand 'a' has f32; they must match}}
  %0 = spectral.select %c, %a, %b : tensor<4xi1>, tensor<4xf32>, tensor<4xi32>
  return
}

// -----

func.func @select_cond_not_broadcastable(%c: tensor<3xi1>, %a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{operand 'a' of shape [4] does not broadcast with shape [3]}}
  %0 = spectral.select %c, %a, %b : tensor<3xi1>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @cast_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{'spectral.cast' op result shape [2, 2] differs from operand shape [4]}}
  %0 = spectral.cast %x : tensor<4xf32> to tensor<2x2xf64>
  return
}

// -----

func.func @cast_complex_to_real(%x: tensor<4xcomplex<f32>>) {
  // expected-error @+1 {{'spectral.cast' op cannot cast complex 'complex<f32>' to 'f32'; use spectral.real or spectral.abs}}
  %0 = spectral.cast %x : tensor<4xcomplex<f32>> to tensor<4xf32>
  return
}

// -----

func.func @cast_complex_to_int(%x: tensor<4xcomplex<f64>>) {
  // expected-error @+1 {{'spectral.cast' op cannot cast complex 'complex<f64>' to 'i64'}}
  %0 = spectral.cast %x : tensor<4xcomplex<f64>> to tensor<4xi64>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Transforms
//===----------------------------------------------------------------------===//

func.func @fft_axis_out_of_range(%x: tensor<4x8xcomplex<f32>>) {
  // expected-error @+1 {{'spectral.fft' op axes[1] = 2 is out of range for an operand of rank 2 (axes are in [0, 2))}}
  %0 = spectral.fft %x axes [0, 2] : tensor<4x8xcomplex<f32>>
  return
}

// -----

func.func @ifft_negative_axis(%x: tensor<4x8xcomplex<f32>>) {
  // expected-error @+1 {{'spectral.ifft' op axes[0] = -1 is out of range for an operand of rank 2 (axes are in [0, 2))}}
  %0 = spectral.ifft %x axes [-1] : tensor<4x8xcomplex<f32>>
  return
}

// -----

func.func @fft_duplicate_axis(%x: tensor<4x8xcomplex<f32>>) {
  // expected-error @+1 {{'spectral.fft' op axis 1 appears twice in 'axes'}}
  %0 = spectral.fft %x axes [1, 0, 1] : tensor<4x8xcomplex<f32>>
  return
}

// -----

func.func @fft_empty_axes(%x: tensor<4xcomplex<f32>>) {
  // expected-error @+1 {{'spectral.fft' op 'axes' must not be empty}}
  %0 = spectral.fft %x axes [] : tensor<4xcomplex<f32>>
  return
}

// -----

func.func @fft_zero_length(%x: tensor<4x0xcomplex<f32>>) {
  // expected-error @+1 {{'spectral.fft' op cannot transform axis 1 of length 0}}
  %0 = spectral.fft %x axes [1] : tensor<4x0xcomplex<f32>>
  return
}

// -----

func.func @fft_0d(%x: tensor<complex<f32>>) {
  // expected-error @+1 {{'spectral.fft' op axes[0] = 0 is out of range for an operand of rank 0 (axes are in [0, 0))}}
  %0 = spectral.fft %x axes [0] : tensor<complex<f32>>
  return
}

// -----

func.func @rfft_axis_out_of_range(%x: tensor<8xf32>) {
  // expected-error @+1 {{axes[0] = 1 is out of range for an operand of rank 1 (axes are in [0, 1))}}
  %0 = spectral.rfft %x axes [1] : tensor<8xf32>
  return
}

// -----

func.func @rfft_duplicate_axis(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{axis 0 appears twice in 'axes'}}
  %0 = spectral.rfft %x axes [0, 0] : tensor<4x8xf32>
  return
}

// -----

func.func @rfft_empty_axes(%x: tensor<8xf32>) {
  // expected-error @+1 {{'axes' must not be empty}}
  %0 = spectral.rfft %x axes [] : tensor<8xf32>
  return
}

// -----

func.func @rfft_zero_length(%x: tensor<0x8xf64>) {
  // expected-error @+1 {{cannot transform axis 0 of length 0}}
  %0 = spectral.rfft %x axes [0, 1] : tensor<0x8xf64>
  return
}

// -----

func.func @irfft_bins(%x: tensor<4x5xcomplex<f32>>) {
  // expected-error @+1 {{axis 1 has 5 bins but length 10 needs 6 (length / 2 + 1)}}
  %0 = spectral.irfft %x axes [1] length 10 : tensor<4x5xcomplex<f32>>
  return
}

// -----

// The last listed axis is the halved one.
func.func @irfft_bins_last_axis(%x: tensor<5x8xcomplex<f32>>) {
  // expected-error @+1 {{axis 0 has 5 bins but length 10 needs 6 (length / 2 + 1)}}
  %0 = spectral.irfft %x axes [1, 0] length 10 : tensor<5x8xcomplex<f32>>
  return
}

// -----

func.func @irfft_zero_length(%x: tensor<1xcomplex<f32>>) {
  // expected-error @+1 {{length must be positive, got 0}}
  %0 = spectral.irfft %x axes [0] length 0 : tensor<1xcomplex<f32>>
  return
}

// -----

func.func @irfft_negative_length(%x: tensor<1xcomplex<f32>>) {
  // expected-error @+1 {{length must be positive, got -2}}
  %0 = spectral.irfft %x axes [0] length -2 : tensor<1xcomplex<f32>>
  return
}

// -----

func.func @irfft_axis_out_of_range(%x: tensor<5xcomplex<f32>>) {
  // expected-error @+1 {{axes[0] = 3 is out of range for an operand of rank 1 (axes are in [0, 1))}}
  %0 = spectral.irfft %x axes [3] length 8 : tensor<5xcomplex<f32>>
  return
}

// -----

func.func @dct_type(%x: tensor<8xf32>) {
  // expected-error @+1 {{'spectral.dct' op type must be 2 or 3, got 4}}
  %0 = spectral.dct %x axes [0] type 4 : tensor<8xf32>
  return
}

// -----

func.func @idct_type(%x: tensor<8xf32>) {
  // expected-error @+1 {{'spectral.idct' op type must be 2 or 3, got 1}}
  %0 = spectral.idct %x axes [0] type 1 : tensor<8xf32>
  return
}

// -----

func.func @dct_axes(%x: tensor<8xf32>) {
  // expected-error @+1 {{'spectral.dct' op axes[0] = 1 is out of range for an operand of rank 1 (axes are in [0, 1))}}
  %0 = spectral.dct %x axes [1] : tensor<8xf32>
  return
}

// -----

func.func @idct_zero_length(%x: tensor<0xf64>) {
  // expected-error @+1 {{'spectral.idct' op cannot transform axis 0 of length 0}}
  %0 = spectral.idct %x axes [0] : tensor<0xf64>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Sparse spectral modes
//===----------------------------------------------------------------------===//

func.func @topk_0d(%x: tensor<f32>) {
  // expected-error @+1 {{operand 'x' is 0-d and has no rows; use 'flat'}}
  %0:2 = spectral.topk_modes %x k 1 : tensor<f32>
  return
}

// -----

func.func @topk_k_zero(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{k = 0 must be in [1, 4], the number of entries per row}}
  %0:2 = spectral.topk_modes %x k 0 : tensor<3x4xf32>
  return
}

// -----

func.func @topk_k_too_large(%x: tensor<3x4xcomplex<f32>>) {
  // expected-error @+1 {{k = 5 must be in [1, 4], the number of entries per row}}
  %0:2 = spectral.topk_modes %x k 5 : tensor<3x4xcomplex<f32>>
  return
}

// -----

func.func @topk_flat_k_too_large(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{k = 13 must be in [1, 12], the number of entries in x}}
  %0:2 = spectral.topk_modes %x k 13 flat : tensor<3x4xf32>
  return
}

// -----

func.func @topk_flat_overflow(%x: tensor<4611686018427387904x4xf32>) {
  // expected-error @+1 {{operand 'x' of shape [4611686018427387904, 4] has more elements than fit in 64 bits}}
  %0:2 = spectral.topk_modes %x k 3 flat : tensor<4611686018427387904x4xf32>
  return
}

// -----

func.func @gather_indices_rank(%x: tensor<2x3x8xf32>, %i: tensor<2x4xi64>) {
  // expected-error @+1 {{operand 'indices' has rank 2; it must be 1 (flat indices) or 3, the rank of 'x' (per row)}}
  %0 = spectral.gather %x[%i] : tensor<2x3x8xf32>, tensor<2x4xi64>
  return
}

// -----

func.func @gather_leading_dims(%x: tensor<2x8xf32>, %i: tensor<3x4xi64>) {
  // expected-error @+1 {{leading dims [3] of 'indices' differ from [2] of 'x'}}
  %0 = spectral.gather %x[%i] : tensor<2x8xf32>, tensor<3x4xi64>
  return
}

// -----

func.func @gather_0d_indices(%x: tensor<f32>, %i: tensor<i64>) {
  // expected-error @+1 {{operand 'indices' has rank 0; it must be 1 (flat indices) since 'x' is 0-d}}
  %0 = spectral.gather %x[%i] : tensor<f32>, tensor<i64>
  return
}

// -----

func.func @scatter_0d_values(%v: tensor<f32>, %i: tensor<i64>) {
  // expected-error @+1 {{'spectral.scatter' op operand 'values' has rank 0; it must be 1 (flat indices) since 'result' is 0-d}}
  %0 = spectral.scatter %v, %i : tensor<f32>, tensor<i64> -> tensor<f32>
  return
}

// -----

func.func @scatter_shapes(%v: tensor<2x4xf32>, %i: tensor<2x3xi64>) {
  // expected-error @+1 {{'spectral.scatter' op operand 'values' of shape [2, 4] differs from operand 'indices' of shape [2, 3]}}
  %0 = spectral.scatter %v, %i : tensor<2x4xf32>, tensor<2x3xi64> -> tensor<2x8xf32>
  return
}

// -----

func.func @scatter_element(%v: tensor<2x4xf32>, %i: tensor<2x4xi64>) {
  // expected-error @+1 {{'spectral.scatter' op result element type 'complex<f32>' differs from operand 'values' 'f32'}}
  %0 = spectral.scatter %v, %i : tensor<2x4xf32>, tensor<2x4xi64> -> tensor<2x8xcomplex<f32>>
  return
}

// -----

func.func @scatter_rank(%v: tensor<2x4xf32>, %i: tensor<2x4xi64>) {
  // expected-error @+1 {{'spectral.scatter' op operand 'values' has rank 2; it must be 1 (flat indices) or 3, the rank of 'result' (per row)}}
  %0 = spectral.scatter %v, %i : tensor<2x4xf32>, tensor<2x4xi64> -> tensor<2x3x8xf32>
  return
}

// -----

func.func @scatter_leading_dims(%v: tensor<2x4xf32>, %i: tensor<2x4xi64>) {
  // expected-error @+1 {{'spectral.scatter' op leading dims [2] of 'values' differ from [5] of 'result'}}
  %0 = spectral.scatter %v, %i : tensor<2x4xf32>, tensor<2x4xi64> -> tensor<5x8xf32>
  return
}

// -----

func.func @sparse_add_0d(%v: tensor<f32>, %i: tensor<i64>) {
  // expected-error @+1 {{operand 'lhs_values' must have rank >= 1}}
  %0:2 = spectral.sparse_add %v, %i, %v, %i : tensor<f32>, tensor<f32>
  return
}

// -----

func.func @sparse_mul_element(%a: tensor<4xf32>, %ai: tensor<4xi64>, %b: tensor<4xf64>, %bi: tensor<4xi64>) {
  // expected-error @+1 {{operand 'rhs_values' has element type f64 but operand 'lhs_values' has f32; they must match}}
  %0:2 = spectral.sparse_mul %a, %ai, %b, %bi : tensor<4xf32>, tensor<4xf64>
  return
}

// -----

func.func @sparse_add_leading_dims(%a: tensor<2x4xf32>, %ai: tensor<2x4xi64>, %b: tensor<3x4xf32>, %bi: tensor<3x4xi64>) {
  // expected-error @+1 {{leading dims of 'lhs_values' [2, 4] and 'rhs_values' [3, 4] must match}}
  %0:2 = spectral.sparse_add %a, %ai, %b, %bi : tensor<2x4xf32>, tensor<3x4xf32>
  return
}

// -----

func.func @sparse_add_ranks(%a: tensor<8xf32>, %ai: tensor<8xi64>, %b: tensor<2x4xf32>, %bi: tensor<2x4xi64>) {
  // expected-error @+1 {{leading dims of 'lhs_values' [8] and 'rhs_values' [2, 4] must match}}
  %0:2 = spectral.sparse_add %a, %ai, %b, %bi : tensor<8xf32>, tensor<2x4xf32>
  return
}

// -----

func.func @sparse_add_capacity_overflow(%v: tensor<4611686018427387904xf32>, %i: tensor<4611686018427387904xi64>) {
  // expected-error @+1 {{capacity 4611686018427387904 + 4611686018427387904 of the sum overflows}}
  %0:2 = spectral.sparse_add %v, %i, %v, %i : tensor<4611686018427387904xf32>, tensor<4611686018427387904xf32>
  return
}

// -----

// Indices must have the shape of their values. The custom form takes the
// indices' types from the values, so only the generic form can get this wrong.
func.func @sparse_indices_shape(%v: tensor<4xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{'spectral.sparse_add' op failed to verify that 'lhs_indices' is i64 with the shape of 'lhs_values'}}
  %0:2 = "spectral.sparse_add"(%v, %i, %v, %i) : (tensor<4xf32>, tensor<3xi64>, tensor<4xf32>, tensor<3xi64>) -> (tensor<8xf32>, tensor<8xi64>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

func.func @reduce_axis_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axes[1] = 5 is out of range for an operand of rank 2 (axes are in [0, 2))}}
  %0 = spectral.reduce_sum %x axes [0, 5] : tensor<2x3xf32>
  return
}

// -----

func.func @reduce_duplicate_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axis 1 appears twice in 'axes'}}
  %0 = spectral.reduce_mean %x axes [1, 1] keepdims : tensor<2x3xf32>
  return
}

// -----

func.func @reduce_empty_axes(%x: tensor<2x3xi32>) {
  // expected-error @+1 {{'axes' must not be empty}}
  %0 = spectral.reduce_max %x axes [] : tensor<2x3xi32>
  return
}

// -----

func.func @reduce_negative_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axes[0] = -1 is out of range for an operand of rank 2 (axes are in [0, 2))}}
  %0 = spectral.reduce_sum %x axes [-1] : tensor<2x3xf32>
  return
}

// -----

func.func @softmax_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'spectral.softmax' op axis 2 is out of range for an operand of rank 2 (axes are in [0, 2))}}
  %0 = spectral.softmax %x axis 2 : tensor<2x3xf32>
  return
}

// -----

func.func @log_softmax_negative_axis(%x: tensor<2x3xf64>) {
  // expected-error @+1 {{'spectral.log_softmax' op axis -1 is out of range for an operand of rank 2 (axes are in [0, 2))}}
  %0 = spectral.log_softmax %x axis -1 : tensor<2x3xf64>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Shape
//===----------------------------------------------------------------------===//

func.func @reshape_count(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'spectral.reshape' op cannot reshape [2, 3] (6 elements) to [4, 2] (8 elements)}}
  %0 = spectral.reshape %x : tensor<2x3xf32> -> tensor<4x2xf32>
  return
}

// -----

func.func @reshape_element(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'spectral.reshape' op result element type 'f64' differs from operand element type 'f32'}}
  %0 = spectral.reshape %x : tensor<2x3xf32> -> tensor<6xf64>
  return
}

// -----

func.func @reshape_overflow(%x: tensor<4611686018427387904x4xf32>) {
  // expected-error @+1 {{'spectral.reshape' op shape [4611686018427387904, 4] has more elements than fit in 64 bits}}
  %0 = spectral.reshape %x : tensor<4611686018427387904x4xf32> -> tensor<16xf32>
  return
}

// -----

func.func @reshape_overflow_result(%x: tensor<16xf32>) {
  // expected-error @+1 {{'spectral.reshape' op shape [4, 4611686018427387904] has more elements than fit in 64 bits}}
  %0 = spectral.reshape %x : tensor<16xf32> -> tensor<4x4611686018427387904xf32>
  return
}

// -----

func.func @transpose_perm_size(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'perm' has 3 entries but the operand has rank 2}}
  %0 = spectral.transpose %x perm [0, 1, 2] : tensor<2x3xf32>
  return
}

// -----

func.func @transpose_perm_duplicate(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axis 0 appears twice in 'perm'}}
  %0 = spectral.transpose %x perm [0, 0] : tensor<2x3xf32>
  return
}

// -----

func.func @transpose_perm_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{perm[1] = 2 is out of range for an operand of rank 2 (axes are in [0, 2))}}
  %0 = spectral.transpose %x perm [0, 2] : tensor<2x3xf32>
  return
}

// -----

func.func @broadcast_element(%x: tensor<3xf32>) {
  // expected-error @+1 {{'spectral.broadcast' op result element type 'i32' differs from operand element type 'f32'}}
  %0 = spectral.broadcast %x : tensor<3xf32> -> tensor<2x3xi32>
  return
}

// -----

func.func @broadcast_shape(%x: tensor<3xf32>) {
  // expected-error @+1 {{'spectral.broadcast' op operand shape [3] does not broadcast to [2, 4]}}
  %0 = spectral.broadcast %x : tensor<3xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @broadcast_to_lower_rank(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'spectral.broadcast' op operand shape [2, 3] does not broadcast to [3]}}
  %0 = spectral.broadcast %x : tensor<2x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @broadcast_shrinks(%x: tensor<4xf32>) {
  // expected-error @+1 {{'spectral.broadcast' op operand shape [4] does not broadcast to [1]}}
  %0 = spectral.broadcast %x : tensor<4xf32> -> tensor<1xf32>
  return
}

// -----

func.func @slice_start_size(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{'start' has 1 entries but the operand has rank 2}}
  %0 = spectral.slice %x start [0] limit [4, 4] : tensor<4x4xf32>
  return
}

// -----

func.func @slice_limit_size(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{'limit' has 3 entries but the operand has rank 2}}
  %0 = spectral.slice %x start [0, 0] limit [4, 4, 4] : tensor<4x4xf32>
  return
}

// -----

func.func @slice_stride_size(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{'stride' has 1 entries but the operand has rank 2}}
  %0 = spectral.slice %x start [0, 0] limit [4, 4] stride [1] : tensor<4x4xf32>
  return
}

// -----

func.func @slice_limit_past_end(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{dim 1: need 0 <= start (0) <= limit (5) <= size (4)}}
  %0 = spectral.slice %x start [0, 0] limit [4, 5] : tensor<4x4xf32>
  return
}

// -----

func.func @slice_start_after_limit(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{dim 0: need 0 <= start (3) <= limit (2) <= size (4)}}
  %0 = spectral.slice %x start [3, 0] limit [2, 4] : tensor<4x4xf32>
  return
}

// -----

func.func @slice_negative_start(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{dim 0: need 0 <= start (-1) <= limit (2) <= size (4)}}
  %0 = spectral.slice %x start [-1, 0] limit [2, 4] : tensor<4x4xf32>
  return
}

// -----

func.func @slice_stride_zero(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{dim 1: stride 0 must be positive}}
  %0 = spectral.slice %x start [0, 0] limit [4, 4] stride [1, 0] : tensor<4x4xf32>
  return
}

// -----

func.func @slice_stride_negative(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{dim 0: stride -1 must be positive}}
  %0 = spectral.slice %x start [0, 0] limit [4, 4] stride [-1, 1] : tensor<4x4xf32>
  return
}

// -----

func.func @pad_sizes(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{'low' and 'high' need 2 entries (the operand's rank), got 2 and 1}}
  %0 = spectral.pad %x low [1, 1] high [1] : tensor<4x4xf32>
  return
}

// -----

func.func @pad_negative(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{dim 1: padding 0/-1 must not be negative}}
  %0 = spectral.pad %x low [0, 0] high [0, -1] : tensor<4x4xf32>
  return
}

// -----

func.func @pad_overflow(%x: tensor<4611686018427387904xf32>) {
  // expected-error @+1 {{dim 0: padded size overflows}}
  %0 = spectral.pad %x low [4611686018427387904] high [0] : tensor<4611686018427387904xf32>
  return
}

// -----

func.func @concat_axis(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{axis 2 is out of range for inputs of rank 2}}
  %0 = spectral.concat %a, %a axis 2 : tensor<2x3xf32>, tensor<2x3xf32>
  return
}

// -----

func.func @concat_negative_axis(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{axis -1 is out of range for inputs of rank 2}}
  %0 = spectral.concat %a axis -1 : tensor<2x3xf32>
  return
}

// -----

func.func @concat_0d(%a: tensor<f32>) {
  // expected-error @+1 {{axis 0 is out of range for inputs of rank 0}}
  %0 = spectral.concat %a, %a axis 0 : tensor<f32>, tensor<f32>
  return
}

// -----

func.func @concat_dims(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) {
  // expected-error @+1 {{input #1 of type tensor<3x3xf32> does not match input #0 of type tensor<2x3xf32> outside axis 1}}
  %0 = spectral.concat %a, %b axis 1 : tensor<2x3xf32>, tensor<3x3xf32>
  return
}

// -----

func.func @concat_element(%a: tensor<2x3xf32>, %b: tensor<2x3xf64>) {
  // expected-error @+1 {{input #2 of type tensor<2x3xf64> does not match input #0 of type tensor<2x3xf32> outside axis 0}}
  %0 = spectral.concat %a, %a, %b axis 0 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf64>
  return
}

// -----

func.func @concat_rank(%a: tensor<2x3xf32>, %b: tensor<2x3x1xf32>) {
  // expected-error @+1 {{input #1 of type tensor<2x3x1xf32> does not match input #0 of type tensor<2x3xf32> outside axis 0}}
  %0 = spectral.concat %a, %b axis 0 : tensor<2x3xf32>, tensor<2x3x1xf32>
  return
}

// -----

func.func @concat_overflow(%a: tensor<2x4611686018427387904xf32>) {
  // expected-error @+1 {{size along axis 1 overflows at input #1}}
  %0 = spectral.concat %a, %a axis 1 : tensor<2x4611686018427387904xf32>, tensor<2x4611686018427387904xf32>
  return
}

// -----

func.func @concat_empty() {
  // expected-error @+2 {{needs at least one input}}
  // expected-error @+1 {{'spectral.concat' op failed to infer returned types}}
  %0 = "spectral.concat"() <{axis = 0 : i64}> : () -> tensor<4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

func.func @matmul_rank(%a: tensor<4xf32>, %b: tensor<4x2xf32>) {
  // expected-error @+1 {{operands need rank >= 2, got 'lhs' rank 1 and 'rhs' rank 2}}
  %0 = spectral.matmul %a, %b : tensor<4xf32>, tensor<4x2xf32>
  return
}

// -----

func.func @matmul_contracted(%a: tensor<3x4xf32>, %b: tensor<5x2xf32>) {
  // expected-error @+1 {{contracted dims differ: 'lhs' [3, 4] has K = 4, 'rhs' [5, 2] has K = 5}}
  %0 = spectral.matmul %a, %b : tensor<3x4xf32>, tensor<5x2xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x3x4xf32>, %b: tensor<3x4x2xf32>) {
  // expected-error @+1 {{batch dims [2] and [3] do not broadcast}}
  %0 = spectral.matmul %a, %b : tensor<2x3x4xf32>, tensor<3x4x2xf32>
  return
}

// -----

func.func @matmul_element(%a: tensor<3x4xcomplex<f32>>, %b: tensor<4x2xf32>) {
  // expected-error @+1 {{operand 'rhs' has element type f32 but operand 'lhs' has complex<f32>; they must match}}
  %0 = spectral.matmul %a, %b : tensor<3x4xcomplex<f32>>, tensor<4x2xf32>
  return
}

// -----

func.func @channel_mix_element(%x: tensor<2x3x8xcomplex<f32>>, %w: tensor<3x4x8xcomplex<f64>>) {
  // expected-error @+1 {{operand 'weights' has element type complex<f64> but operand 'x' has complex<f32>; they must match}}
  %0 = spectral.channel_mix %x, %w : tensor<2x3x8xcomplex<f32>>, tensor<3x4x8xcomplex<f64>>
  return
}

// -----

func.func @channel_mix_rank(%x: tensor<2x3x8xf32>, %w: tensor<3x4xf32>) {
  // expected-error @+1 {{'x' must be [B, I, s...] and 'weights' [I, O, s...] of the same rank >= 2, got [2, 3, 8] and [3, 4]}}
  %0 = spectral.channel_mix %x, %w : tensor<2x3x8xf32>, tensor<3x4xf32>
  return
}

// -----

func.func @channel_mix_rank_1(%x: tensor<3xf32>, %w: tensor<3xf32>) {
  // expected-error @+1 {{'x' must be [B, I, s...] and 'weights' [I, O, s...] of the same rank >= 2, got [3] and [3]}}
  %0 = spectral.channel_mix %x, %w : tensor<3xf32>, tensor<3xf32>
  return
}

// -----

func.func @channel_mix_channels(%x: tensor<2x3x8xf32>, %w: tensor<5x4x8xf32>) {
  // expected-error @+1 {{'x' has 3 input channels but 'weights' has 5}}
  %0 = spectral.channel_mix %x, %w : tensor<2x3x8xf32>, tensor<5x4x8xf32>
  return
}

// -----

func.func @channel_mix_modes(%x: tensor<2x3x8x5xf32>, %w: tensor<3x4x8x6xf32>) {
  // expected-error @+1 {{mode dims differ: 'x' [8, 5], 'weights' [8, 6]}}
  %0 = spectral.channel_mix %x, %w : tensor<2x3x8x5xf32>, tensor<3x4x8x6xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Loss and training
//===----------------------------------------------------------------------===//

func.func @cross_entropy_rows(%l: tensor<4x10xf32>, %y: tensor<5xi32>) {
  // expected-error @+1 {{'logits' must be [N, C] and 'labels' [N], got [4, 10] and [5]}}
  %0 = spectral.cross_entropy %l, %y : tensor<4x10xf32>, tensor<5xi32>
  return
}

// -----

func.func @cross_entropy_logits_rank(%l: tensor<10xf32>, %y: tensor<10xi64>) {
  // expected-error @+1 {{'logits' must be [N, C] and 'labels' [N], got [10] and [10]}}
  %0 = spectral.cross_entropy %l, %y : tensor<10xf32>, tensor<10xi64>
  return
}

// -----

func.func @cross_entropy_labels_rank(%l: tensor<4x10xf32>, %y: tensor<4x1xi64>) {
  // expected-error @+1 {{'logits' must be [N, C] and 'labels' [N], got [4, 10] and [4, 1]}}
  %0 = spectral.cross_entropy %l, %y : tensor<4x10xf32>, tensor<4x1xi64>
  return
}

// -----

// mse, sgd_step and adam_step take one type for their like operands, so the
// custom form cannot disagree; the generic form is caught by the op's traits.
func.func @mse_types(%p: tensor<4xf32>, %t: tensor<3xf32>) {
  // expected-error @+1 {{'spectral.mse' op failed to verify that all of {prediction, target} have same type}}
  %0 = "spectral.mse"(%p, %t) : (tensor<4xf32>, tensor<3xf32>) -> tensor<f32>
  return
}

// -----

func.func @sgd_types(%p: tensor<4xf32>, %g: tensor<4xf64>) {
  // expected-error @+1 {{'spectral.sgd_step' op failed to verify that all of {param, grad, velocity} have same type}}
  %0:2 = "spectral.sgd_step"(%p, %g, %p) <{lr = 1.0e-1 : f64}> : (tensor<4xf32>, tensor<4xf64>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @adam_types(%p: tensor<4xf32>, %m: tensor<2x2xf32>, %v: tensor<4xf32>, %s: tensor<i64>) {
  // expected-error @+1 {{'spectral.adam_step' op failed to verify that all of {param, grad, m} have same type}}
  %0:3 = "spectral.adam_step"(%p, %p, %m, %v, %s) <{lr = 1.0e-3 : f64}> : (tensor<4xf32>, tensor<4xf32>, tensor<2x2xf32>, tensor<4xf32>, tensor<i64>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @adam_v_shape(%p: tensor<4xf32>, %v: tensor<2x2xf32>, %s: tensor<i64>) {
  // expected-error @+1 {{operand 'v' has type tensor<2x2xf32> but must be tensor<4xf32>, the real counterpart of 'param'}}
  %0:3 = spectral.adam_step %p, %p, %p, %v, %s lr 1.0e-3 : tensor<4xf32>, tensor<2x2xf32>, tensor<i64>
  return
}

// -----

func.func @adam_v_complex_param(%p: tensor<4xcomplex<f32>>, %v: tensor<4xf64>, %s: tensor<i64>) {
  // expected-error @+1 {{operand 'v' has type tensor<4xf64> but must be tensor<4xf32>, the real counterpart of 'param'}}
  %0:3 = spectral.adam_step %p, %p, %p, %v, %s lr 1.0e-3 : tensor<4xcomplex<f32>>, tensor<4xf64>, tensor<i64>
  return
}

// -----

func.func @adam_step_rank(%p: tensor<4xf32>, %s: tensor<1xi64>) {
  // expected-error @+1 {{operand 'step' must be 0-d, got tensor<1xi64>}}
  %0:3 = spectral.adam_step %p, %p, %p, %p, %s lr 1.0e-3 : tensor<4xf32>, tensor<4xf32>, tensor<1xi64>
  return
}

// -----

// The learning rate: an attribute or a 0-d tensor, exactly one.
func.func @sgd_lr_twice(%p: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error @+1 {{give the learning rate once: 'lr' or 'lr_from', not both}}
  %0:2 = spectral.sgd_step %p, %p, %p lr 0.1 lr_from(%lr : tensor<f32>) : tensor<4xf32>
  return
}

// -----

func.func @sgd_no_lr(%p: tensor<4xf32>) {
  // expected-error @+1 {{a learning rate is needed: 'lr 0.01' or 'lr_from(%lr : tensor<f32>)'}}
  %0:2 = spectral.sgd_step %p, %p, %p : tensor<4xf32>
  return
}

// -----

func.func @adam_lr_rank(%p: tensor<4xf32>, %s: tensor<i64>, %lr: tensor<1xf32>) {
  // expected-error @+1 {{operand 'lr_from' must be 0-d, got tensor<1xf32>}}
  %0:3 = spectral.adam_step %p, %p, %p, %p, %s lr_from(%lr : tensor<1xf32>) : tensor<4xf32>, tensor<4xf32>, tensor<i64>
  return
}

// -----

// The bias corrections 1 - beta^t need beta in [0, 1); eps must not be < 0.
func.func @adam_beta1_one(%p: tensor<4xf32>, %s: tensor<i64>) {
  // expected-error @+1 {{'beta1' must be in [0, 1), got 1.000000e+00}}
  %0:3 = spectral.adam_step %p, %p, %p, %p, %s lr 1.0e-3 beta1 1.0 : tensor<4xf32>, tensor<4xf32>, tensor<i64>
  return
}

// -----

func.func @adam_beta1_negative(%p: tensor<4xf32>, %s: tensor<i64>) {
  // expected-error @+1 {{'beta1' must be in [0, 1), got -1.000000e-01}}
  %0:3 = spectral.adam_step %p, %p, %p, %p, %s lr 1.0e-3 beta1 -0.1 : tensor<4xf32>, tensor<4xf32>, tensor<i64>
  return
}

// -----

func.func @adam_beta2_above_one(%p: tensor<4xf32>, %s: tensor<i64>) {
  // expected-error @+1 {{'beta2' must be in [0, 1), got 1.500000e+00}}
  %0:3 = spectral.adam_step %p, %p, %p, %p, %s lr 1.0e-3 beta2 1.5 : tensor<4xf32>, tensor<4xf32>, tensor<i64>
  return
}

// -----

func.func @adam_beta2_nan(%p: tensor<4xf32>, %s: tensor<i64>) {
  // expected-error @+1 {{'beta2' must be in [0, 1), got nan}}
  %0:3 = spectral.adam_step %p, %p, %p, %p, %s lr 1.0e-3 beta2 0x7FF8000000000000 : tensor<4xf32>, tensor<4xf32>, tensor<i64>
  return
}

// -----

func.func @adam_eps_negative(%p: tensor<4xf32>, %s: tensor<i64>) {
  // expected-error @+1 {{'eps' must be non-negative, got -1.000000e-08}}
  %0:3 = spectral.adam_step %p, %p, %p, %p, %s lr 1.0e-3 eps -1.0e-8 : tensor<4xf32>, tensor<4xf32>, tensor<i64>
  return
}

// -----

// The generic form is checked too (and beta = 0, eps = 0 are fine).
func.func @adam_generic_beta1(%p: tensor<4xf32>, %s: tensor<i64>) {
  %ok:3 = spectral.adam_step %p, %p, %p, %p, %s lr 1.0e-3 beta1 0.0 beta2 0.0 eps 0.0 : tensor<4xf32>, tensor<4xf32>, tensor<i64>
  // expected-error @+2 {{'beta1' must be in [0, 1), got 2.000000e+00}}
  // expected-error @+1 {{'spectral.adam_step' op failed to infer returned types}}
  %0:3 = "spectral.adam_step"(%p, %p, %p, %p, %s) <{lr = 1.0e-3 : f64, beta1 = 2.0 : f64}> : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @clip_element(%a: tensor<4xf32>, %b: tensor<2xcomplex<f64>>) {
  // expected-error @+1 {{input #1 has real element type f64 but input #0 has f32; they must match}}
  %0:3 = spectral.clip_global_norm %a, %b max_norm 1.0 : tensor<4xf32>, tensor<2xcomplex<f64>>
  return
}

// -----

func.func @clip_max_norm_zero(%a: tensor<4xf32>) {
  // expected-error @+1 {{'max_norm' must be positive, got 0.000000e+00}}
  %0:2 = spectral.clip_global_norm %a max_norm 0.0 : tensor<4xf32>
  return
}

// -----

func.func @clip_max_norm_negative(%a: tensor<4xf32>) {
  // expected-error @+1 {{'max_norm' must be positive, got -1.000000e+00}}
  %0:2 = spectral.clip_global_norm %a max_norm -1.0 : tensor<4xf32>
  return
}

// -----

func.func @clip_empty() {
  // expected-error @+2 {{needs at least one input}}
  // expected-error @+1 {{'spectral.clip_global_norm' op failed to infer returned types}}
  %0 = "spectral.clip_global_norm"() <{max_norm = 1.0 : f64}> : () -> tensor<f32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

func.func @fusion_argument_count(%x: tensor<4xf32>) {
  // expected-error @+1 {{'spectral.fusion' op body has 2 arguments but there are 1 inputs}}
  %0 = spectral.fusion %x : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    spectral.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @fusion_argument_type(%x: tensor<4xf32>, %y: tensor<4xf64>) {
  // expected-error @+1 {{'spectral.fusion' op body argument #1 has type 'tensor<4xf32>' but input #1 has type 'tensor<4xf64>'}}
  %0 = spectral.fusion %x, %y : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    spectral.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @fusion_yield_count(%x: tensor<4xf32>) {
  // expected-error @+1 {{'spectral.fusion' op yields 1 values of types 'tensor<4xf32>' but the results are 'tensor<4xf32>', 'tensor<4xf32>'}}
  %0:2 = spectral.fusion %x : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    spectral.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @fusion_yield_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'spectral.fusion' op yields 1 values of types 'tensor<4xf32>' but the results are 'tensor<4xf64>'}}
  %0 = spectral.fusion %x : (tensor<4xf32>) -> tensor<4xf64> {
  ^bb0(%a: tensor<4xf32>):
    spectral.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @fusion_no_terminator(%x: tensor<4xf32>) {
  // expected-error @+1 {{'spectral.fusion' op body must end with spectral.yield}}
  %0 = spectral.fusion %x : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %n = spectral.neg %a : tensor<4xf32>
  }
  return
}

// -----

func.func @fusion_captures(%x: tensor<4xf32>) {
  // expected-note @+1 {{required by region isolation constraints}}
  %0 = spectral.fusion : () -> tensor<4xf32> {
    // expected-error @+1 {{using value defined outside the region}}
    %n = spectral.neg %x : tensor<4xf32>
    spectral.yield %n : tensor<4xf32>
  }
  return
}

// -----

func.func @yield_outside_fusion(%x: tensor<4xf32>) {
  // expected-error @+1 {{'spectral.yield' op expects parent op 'spectral.fusion'}}
  spectral.yield %x : tensor<4xf32>
}
