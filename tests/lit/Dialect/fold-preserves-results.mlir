// Folding must not change what a graph computes: each function below is run
// through the reference evaluator as written and after --canonicalize, on
// the same random inputs, and the printouts (%.6g) must be identical. The
// FOLDED checks make sure each fold really fired, so no diff is vacuous.
//
// RUN: spectral-opt %s --canonicalize > %t
// RUN: FileCheck %s --check-prefix=FOLDED --input-file=%t
// RUN: spectral-run %s --function=cast_to_i1 --random-inputs --seed=5 > %t.cast_to_i1
// RUN: spectral-run %t --function=cast_to_i1 --random-inputs --seed=5 | diff %t.cast_to_i1 -
// RUN: spectral-run %s --function=cast_nan_to_i1 --random-inputs --seed=5 > %t.cast_nan_to_i1
// RUN: spectral-run %t --function=cast_nan_to_i1 --random-inputs --seed=5 | diff %t.cast_nan_to_i1 -
// RUN: spectral-run %s --function=cast_through_f32 --random-inputs --seed=5 > %t.cast_through_f32
// RUN: spectral-run %t --function=cast_through_f32 --random-inputs --seed=5 | diff %t.cast_through_f32 -
// RUN: spectral-run %s --function=relu_of_nan --random-inputs --seed=5 > %t.relu_of_nan
// RUN: spectral-run %t --function=relu_of_nan --random-inputs --seed=5 | diff %t.relu_of_nan -
// RUN: spectral-run %s --function=add_zero --random-inputs --seed=5 > %t.add_zero
// RUN: spectral-run %t --function=add_zero --random-inputs --seed=5 | diff %t.add_zero -
// RUN: spectral-run %s --function=mul_one --random-inputs --seed=5 > %t.mul_one
// RUN: spectral-run %t --function=mul_one --random-inputs --seed=5 | diff %t.mul_one -
// RUN: spectral-run %s --function=mul_zero --random-inputs --seed=5 > %t.mul_zero
// RUN: spectral-run %t --function=mul_zero --random-inputs --seed=5 | diff %t.mul_zero -
// RUN: spectral-run %s --function=neg_neg --random-inputs --seed=5 > %t.neg_neg
// RUN: spectral-run %t --function=neg_neg --random-inputs --seed=5 | diff %t.neg_neg -
// RUN: spectral-run %s --function=conj_conj --random-inputs --seed=5 > %t.conj_conj
// RUN: spectral-run %t --function=conj_conj --random-inputs --seed=5 | diff %t.conj_conj -
// RUN: spectral-run %s --function=real_of_complex --random-inputs --seed=5 > %t.real_of_complex
// RUN: spectral-run %t --function=real_of_complex --random-inputs --seed=5 | diff %t.real_of_complex -
// RUN: spectral-run %s --function=transpose_transpose --random-inputs --seed=5 > %t.transpose_transpose
// RUN: spectral-run %t --function=transpose_transpose --random-inputs --seed=5 | diff %t.transpose_transpose -
// RUN: spectral-run %s --function=reshape_reshape --random-inputs --seed=5 > %t.reshape_reshape
// RUN: spectral-run %t --function=reshape_reshape --random-inputs --seed=5 | diff %t.reshape_reshape -
// RUN: spectral-run %s --function=broadcast_splat --random-inputs --seed=5 > %t.broadcast_splat
// RUN: spectral-run %t --function=broadcast_splat --random-inputs --seed=5 | diff %t.broadcast_splat -
// RUN: spectral-run %s --function=ifft_of_fft --random-inputs --seed=5 > %t.ifft_of_fft
// RUN: spectral-run %t --function=ifft_of_fft --random-inputs --seed=5 | diff %t.ifft_of_fft -
// RUN: spectral-run %s --function=irfft_of_rfft --random-inputs --seed=5 > %t.irfft_of_rfft
// RUN: spectral-run %t --function=irfft_of_rfft --random-inputs --seed=5 | diff %t.irfft_of_rfft -
// RUN: spectral-run %s --function=fold_add_mul_div --random-inputs --seed=5 > %t.fold_add_mul_div
// RUN: spectral-run %t --function=fold_add_mul_div --random-inputs --seed=5 | diff %t.fold_add_mul_div -
// RUN: spectral-run %s --function=factor_out_of_reduction --random-inputs --seed=5 > %t.factor_out_of_reduction
// RUN: spectral-run %t --function=factor_out_of_reduction --random-inputs --seed=5 | diff %t.factor_out_of_reduction -
// RUN: spectral-run %s --function=contraction_as_matmul --random-inputs --seed=5 > %t.contraction
// RUN: spectral-run %t --function=contraction_as_matmul --random-inputs --seed=5 | diff %t.contraction -
// RUN: spectral-run %s --function=factor_out_of_lower_rank --random-inputs --seed=5 > %t.lower
// RUN: spectral-run %t --function=factor_out_of_lower_rank --random-inputs --seed=5 | diff %t.lower -
// RUN: spectral-run %s --function=scaling_chain --random-inputs --seed=5 > %t.scaling
// RUN: spectral-run %t --function=scaling_chain --random-inputs --seed=5 | diff %t.scaling -
// RUN: spectral-run %s --function=cross_entropy_of_log_softmax --random-inputs --seed=5 > %t.ce
// RUN: spectral-run %t --function=cross_entropy_of_log_softmax --random-inputs --seed=5 | diff %t.ce -
// RUN: spectral-run %s --function=channel_mixes_of_corners --random-inputs --seed=5 > %t.mix
// RUN: spectral-run %t --function=channel_mixes_of_corners --random-inputs --seed=5 | diff %t.mix -
// RUN: spectral-run %s --function=scale_into_norm --random-inputs --seed=5 > %t.norm
// RUN: spectral-run %t --function=scale_into_norm --random-inputs --seed=5 | diff %t.norm -
// RUN: spectral-run %s --function=transform_between_transposes --random-inputs --seed=5 > %t.tr
// RUN: spectral-run %t --function=transform_between_transposes --random-inputs --seed=5 | diff %t.tr -
// RUN: spectral-run %s --function=factors_of_a_product_tree --random-inputs --seed=5 > %t.tree
// RUN: spectral-run %t --function=factors_of_a_product_tree --random-inputs --seed=5 | diff %t.tree -
// RUN: spectral-run %s --function=transpose_of_matmul --random-inputs --seed=5 > %t.tm
// RUN: spectral-run %t --function=transpose_of_matmul --random-inputs --seed=5 | diff %t.tm -
// RUN: spectral-run %s --function=factors_with_a_unit_axis --random-inputs --seed=5 > %t.unit
// RUN: spectral-run %t --function=factors_with_a_unit_axis --random-inputs --seed=5 | diff %t.unit -
// RUN: spectral-run %s --function=factors_of_a_product_used_elsewhere --random-inputs --seed=5 > %t.used
// RUN: spectral-run %t --function=factors_of_a_product_used_elsewhere --random-inputs --seed=5 | diff %t.used -

// 0.5 and -0.25 are not zero: true, as numpy's astype(bool).
// FOLDED-LABEL: func.func @cast_to_i1
// FOLDED-NOT: spectral.cast
func.func @cast_to_i1() -> tensor<4xi1> {
  %x = spectral.constant dense<[0.5, -0.25, 0.0, 2.0]> : tensor<4xf32>
  %0 = spectral.cast %x : tensor<4xf32> to tensor<4xi1>
  return %0 : tensor<4xi1>
}

// NaN is not zero either.
// FOLDED-LABEL: func.func @cast_nan_to_i1
// FOLDED-NOT: spectral.cast
func.func @cast_nan_to_i1() -> tensor<2xi1> {
  %x = spectral.constant dense<[0x7FF8000000000000, 0.0]> : tensor<2xf64>
  %0 = spectral.cast %x : tensor<2xf64> to tensor<2xi1>
  return %0 : tensor<2xi1>
}

// Rounding to f32 shows after subtracting the original: 0.1f - 0.1 is about
// 1.49e-9, not 0; and 1e300 overflows f32 to inf.
// FOLDED-LABEL: func.func @cast_through_f32
// FOLDED-NOT: spectral.cast
// FOLDED-NOT: spectral.sub
func.func @cast_through_f32() -> tensor<2xf64> {
  %x = spectral.constant dense<[0.1, 1.0e300]> : tensor<2xf64>
  %f = spectral.cast %x : tensor<2xf64> to tensor<2xf32>
  %d = spectral.cast %f : tensor<2xf32> to tensor<2xf64>
  %e = spectral.sub %d, %x : tensor<2xf64>, tensor<2xf64>
  return %e : tensor<2xf64>
}

// FOLDED-LABEL: func.func @relu_of_nan
// FOLDED-NOT: spectral.relu
func.func @relu_of_nan() -> tensor<3xf32> {
  %x = spectral.constant dense<[0x7FC00000, -1.0, 2.0]> : tensor<3xf32>
  %0 = spectral.relu %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// FOLDED-LABEL: func.func @add_zero
// FOLDED-NOT: spectral.add
func.func @add_zero(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %z = spectral.constant dense<0.0> : tensor<4xf32>
  %0 = spectral.add %x, %z : tensor<3x4xf32>, tensor<4xf32>
  return %0 : tensor<3x4xf32>
}

// FOLDED-LABEL: func.func @mul_one
// FOLDED-NOT: spectral.mul
func.func @mul_one(%x: tensor<3xcomplex<f64>>) -> tensor<3xcomplex<f64>> {
  %one = spectral.constant dense<(1.0, 0.0)> : tensor<complex<f64>>
  %0 = spectral.mul %one, %x : tensor<complex<f64>>, tensor<3xcomplex<f64>>
  return %0 : tensor<3xcomplex<f64>>
}

// On integers: for floats the fold gives +0 where x * 0 is -0 for x < 0.
// FOLDED-LABEL: func.func @mul_zero
// FOLDED-NOT: spectral.mul
func.func @mul_zero(%x: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %z = spectral.constant dense<0> : tensor<2x3xi32>
  %0 = spectral.mul %x, %z : tensor<2x3xi32>, tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// FOLDED-LABEL: func.func @neg_neg
// FOLDED-NOT: spectral.neg
func.func @neg_neg(%x: tensor<5xf64>) -> tensor<5xf64> {
  %0 = spectral.neg %x : tensor<5xf64>
  %1 = spectral.neg %0 : tensor<5xf64>
  return %1 : tensor<5xf64>
}

// FOLDED-LABEL: func.func @conj_conj
// FOLDED-NOT: spectral.conj
func.func @conj_conj(%x: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  %0 = spectral.conj %x : tensor<4xcomplex<f32>>
  %1 = spectral.conj %0 : tensor<4xcomplex<f32>>
  return %1 : tensor<4xcomplex<f32>>
}

// FOLDED-LABEL: func.func @real_of_complex
// FOLDED-NOT: spectral.real
func.func @real_of_complex(%a: tensor<4xf64>, %b: tensor<4xf64>) -> tensor<4xf64> {
  %c = spectral.complex %a, %b : tensor<4xf64>, tensor<4xf64>
  %0 = spectral.real %c : tensor<4xcomplex<f64>>
  return %0 : tensor<4xf64>
}

// Two transposes compose into one, [1, 2, 0].
// FOLDED-LABEL: func.func @transpose_transpose
// FOLDED: spectral.transpose %{{.*}} perm [1, 2, 0]
// FOLDED-NOT: spectral.transpose
func.func @transpose_transpose(%x: tensor<2x3x4xf32>) -> tensor<3x4x2xf32> {
  %0 = spectral.transpose %x perm [1, 0, 2] : tensor<2x3x4xf32>
  %1 = spectral.transpose %0 perm [0, 2, 1] : tensor<3x2x4xf32>
  return %1 : tensor<3x4x2xf32>
}

// FOLDED-LABEL: func.func @reshape_reshape
// FOLDED: spectral.reshape %arg0
// FOLDED-NOT: spectral.reshape
func.func @reshape_reshape(%x: tensor<2x6xf32>) -> tensor<4x3xf32> {
  %0 = spectral.reshape %x : tensor<2x6xf32> -> tensor<3x4xf32>
  %1 = spectral.reshape %0 : tensor<3x4xf32> -> tensor<4x3xf32>
  return %1 : tensor<4x3xf32>
}

// FOLDED-LABEL: func.func @broadcast_splat
// FOLDED-NOT: spectral.broadcast
func.func @broadcast_splat(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %c = spectral.constant dense<2.5> : tensor<1xf32>
  %b = spectral.broadcast %c : tensor<1xf32> -> tensor<3x4xf32>
  %0 = spectral.mul %x, %b : tensor<3x4xf32>, tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// FOLDED-LABEL: func.func @ifft_of_fft
// FOLDED-NOT: fft
func.func @ifft_of_fft(%x: tensor<4x8xcomplex<f64>>) -> tensor<4x8xcomplex<f64>> {
  %0 = spectral.fft %x axes [0, 1] norm ortho : tensor<4x8xcomplex<f64>>
  %1 = spectral.ifft %0 axes [1, 0] norm ortho : tensor<4x8xcomplex<f64>>
  return %1 : tensor<4x8xcomplex<f64>>
}

// FOLDED-LABEL: func.func @irfft_of_rfft
// FOLDED-NOT: fft
func.func @irfft_of_rfft(%x: tensor<3x10xf64>) -> tensor<3x10xf64> {
  %0 = spectral.rfft %x axes [1] : tensor<3x10xf64>
  %1 = spectral.irfft %0 axes [1] length 10 : tensor<3x6xcomplex<f64>>
  return %1 : tensor<3x10xf64>
}

// Constant folding computes in double and rounds to the element type; the
// evaluator keeps double: equal to the printed digits.
// FOLDED-LABEL: func.func @fold_add_mul_div
// FOLDED-NOT: spectral.add
// FOLDED-NOT: spectral.mul
// FOLDED-NOT: spectral.div
func.func @fold_add_mul_div() -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xi64>, tensor<2xcomplex<f64>>) {
  %a = spectral.constant dense<[[1.5, -2.0, 0.1], [3.0, 7.0, -1.0]]> : tensor<2x3xf32>
  %b = spectral.constant dense<[3.0, 0.25, -3.0]> : tensor<3xf32>
  %s = spectral.add %a, %b : tensor<2x3xf32>, tensor<3xf32>
  %p = spectral.mul %s, %b : tensor<2x3xf32>, tensor<3xf32>
  %q = spectral.div %p, %b : tensor<2x3xf32>, tensor<3xf32>
  %r = spectral.div %s, %a : tensor<2x3xf32>, tensor<2x3xf32>
  %i = spectral.constant dense<[7, -7, 9]> : tensor<3xi64>
  %j = spectral.constant dense<[2, 2, -4]> : tensor<3xi64>
  %k = spectral.div %i, %j : tensor<3xi64>, tensor<3xi64>
  %c = spectral.constant dense<[(1.0, 2.0), (0.0, -1.0)]> : tensor<2xcomplex<f64>>
  %d = spectral.constant dense<(3.0, -1.0)> : tensor<complex<f64>>
  %e = spectral.mul %c, %d : tensor<2xcomplex<f64>>, tensor<complex<f64>>
  %f = spectral.div %e, %d : tensor<2xcomplex<f64>>, tensor<complex<f64>>
  return %q, %r, %k, %f : tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xi64>, tensor<2xcomplex<f64>>
}

// FOLDED-LABEL: func.func @factor_out_of_reduction
// FOLDED-NOT:     tensor<3x5x4x
// FOLDED:         return
func.func @factor_out_of_reduction(%x: tensor<3x1x4xf64>, %w: tensor<1x5x4xf64>,
                                   %c: tensor<1x5x4xcomplex<f64>>, %z: tensor<3x1x4xcomplex<f64>>)
    -> (tensor<3x4xf64>, tensor<3x1x4xcomplex<f64>>) {
  %p = spectral.mul %x, %w : tensor<3x1x4xf64>, tensor<1x5x4xf64>
  %s = spectral.reduce_sum %p axes [1] : tensor<3x5x4xf64>
  %q = spectral.mul %c, %z : tensor<1x5x4xcomplex<f64>>, tensor<3x1x4xcomplex<f64>>
  %m = spectral.reduce_mean %q axes [1] keepdims : tensor<3x5x4xcomplex<f64>>
  return %s, %m : tensor<3x4xf64>, tensor<3x1x4xcomplex<f64>>
}

// FOLDED-LABEL: func.func @cross_entropy_of_log_softmax
// FOLDED-NOT: spectral.log_softmax
// FOLDED: spectral.cross_entropy %arg0, %arg1
func.func @cross_entropy_of_log_softmax(%x: tensor<6x10xf64>, %l: tensor<6xi32>) -> tensor<f64> {
  %s = spectral.log_softmax %x axis 1 : tensor<6x10xf64>
  %e = spectral.cross_entropy %s, %l : tensor<6x10xf64>, tensor<6xi32>
  return %e : tensor<f64>
}

// FOLDED-LABEL: func.func @contraction_as_matmul
// FOLDED: spectral.matmul
// FOLDED-NOT: tensor<3x5x7xcomplex<f64>>
func.func @contraction_as_matmul(%x: tensor<3x1x7xcomplex<f64>>, %c: tensor<5x7xcomplex<f64>>)
    -> tensor<3x5xcomplex<f64>> {
  %p = spectral.mul %x, %c : tensor<3x1x7xcomplex<f64>>, tensor<5x7xcomplex<f64>>
  %s = spectral.reduce_sum %p axes [2] : tensor<3x5x7xcomplex<f64>>
  return %s : tensor<3x5xcomplex<f64>>
}

// FOLDED-LABEL: func.func @factor_out_of_lower_rank
// FOLDED-NOT: tensor<3x5x7xf64>
func.func @factor_out_of_lower_rank(%x: tensor<3x1x7xf64>, %p: tensor<5x7xf64>) -> tensor<3x7xf64> {
  %a = spectral.mul %x, %p : tensor<3x1x7xf64>, tensor<5x7xf64>
  %s = spectral.reduce_sum %a axes [1] : tensor<3x5x7xf64>
  return %s : tensor<3x7xf64>
}

// FOLDED-LABEL: func.func @scaling_chain
// FOLDED: spectral.mul
// FOLDED-NOT: spectral.mul
// FOLDED: return
func.func @scaling_chain(%x: tensor<3x4xcomplex<f64>>) -> tensor<3x4xcomplex<f64>> {
  %c = spectral.constant dense<[(1.0, 2.0), (0.5, -1.0), (2.0, 0.0), (0.0, 1.0)]> : tensor<4xcomplex<f64>>
  %d = spectral.constant dense<(0.25, 0.0)> : tensor<1x4xcomplex<f64>>
  %a = spectral.mul %x, %c : tensor<3x4xcomplex<f64>>, tensor<4xcomplex<f64>>
  %b = spectral.mul %a, %d : tensor<3x4xcomplex<f64>>, tensor<1x4xcomplex<f64>>
  return %b : tensor<3x4xcomplex<f64>>
}

// FOLDED-LABEL: func.func @channel_mixes_of_corners
// FOLDED: spectral.channel_mix
// FOLDED-NOT: spectral.channel_mix
// FOLDED: return
func.func @channel_mixes_of_corners(%s: tensor<2x3x8x5xcomplex<f64>>, %wa: tensor<3x4x2x3xcomplex<f64>>,
                                    %wb: tensor<3x4x2x3xcomplex<f64>>) -> tensor<2x4x8x3xcomplex<f64>> {
  %lo = spectral.slice %s start [0, 0, 0, 0] limit [2, 3, 2, 3] : tensor<2x3x8x5xcomplex<f64>>
  %hi = spectral.slice %s start [0, 0, 6, 0] limit [2, 3, 8, 3] : tensor<2x3x8x5xcomplex<f64>>
  %ma = spectral.channel_mix %lo, %wa : tensor<2x3x2x3xcomplex<f64>>, tensor<3x4x2x3xcomplex<f64>>
  %mb = spectral.channel_mix %hi, %wb : tensor<2x3x2x3xcomplex<f64>>, tensor<3x4x2x3xcomplex<f64>>
  %z = spectral.constant dense<(0.0, 0.0)> : tensor<2x4x4x3xcomplex<f64>>
  %c = spectral.concat %ma, %z, %mb axis 2 : tensor<2x4x2x3xcomplex<f64>>, tensor<2x4x4x3xcomplex<f64>>, tensor<2x4x2x3xcomplex<f64>>
  return %c : tensor<2x4x8x3xcomplex<f64>>
}

// FOLDED-LABEL: func.func @scale_into_norm
// FOLDED-NOT: spectral.mul
// FOLDED: return
func.func @scale_into_norm(%x: tensor<3x8xf64>) -> tensor<3x8xf64> {
  %f = spectral.rfft %x axes [1] : tensor<3x8xf64>
  %y = spectral.irfft %f axes [1] length 8 norm forward : tensor<3x5xcomplex<f64>>
  %k = spectral.constant dense<0.125> : tensor<f64>
  %z = spectral.mul %y, %k : tensor<3x8xf64>, tensor<f64>
  return %z : tensor<3x8xf64>
}

// FOLDED-LABEL: func.func @transform_between_transposes
// FOLDED-NOT: spectral.transpose
// FOLDED: return
func.func @transform_between_transposes(%x: tensor<2x3x4xcomplex<f64>>) -> tensor<2x3x4xcomplex<f64>> {
  %t = spectral.transpose %x perm [1, 2, 0] : tensor<2x3x4xcomplex<f64>>
  %f = spectral.fft %t axes [0, 1] norm ortho : tensor<3x4x2xcomplex<f64>>
  %b = spectral.transpose %f perm [2, 0, 1] : tensor<3x4x2xcomplex<f64>>
  return %b : tensor<2x3x4xcomplex<f64>>
}

// A gradient's shape: (dy * s1) * (x * s0) summed over the rows, with x * s0
// also used elsewhere; s0 and s1 move out of the sum.
// FOLDED-LABEL: func.func @factors_of_a_product_tree
// FOLDED:         %[[P:.*]] = spectral.mul %arg0, %arg1 : tensor<3x4xf64>, tensor<3x4xf64>
// FOLDED-NEXT:    %[[S:.*]] = spectral.reduce_sum %[[P]] axes [0] : tensor<3x4xf64>
// FOLDED-NEXT:    %[[F:.*]] = spectral.mul %arg2, %arg3 : tensor<1x4xf64>, tensor<4xf64>
// FOLDED:         spectral.mul %[[S]], %{{.*}} : tensor<4xf64>, tensor<4xf64>
func.func @factors_of_a_product_tree(%x: tensor<3x4xf64>, %dy: tensor<3x4xf64>, %s0: tensor<1x4xf64>,
                                     %s1: tensor<4xf64>) -> (tensor<4xf64>, tensor<3x4xf64>) {
  %h = spectral.mul %x, %s0 : tensor<3x4xf64>, tensor<1x4xf64>
  %g = spectral.mul %dy, %s1 : tensor<3x4xf64>, tensor<4xf64>
  %p = spectral.mul %g, %h : tensor<3x4xf64>, tensor<3x4xf64>
  %s = spectral.reduce_sum %p axes [0] : tensor<3x4xf64>
  return %s, %h : tensor<4xf64>, tensor<3x4xf64>
}

// FOLDED-LABEL: func.func @transpose_of_matmul
// FOLDED-NEXT:    %[[T:.*]] = spectral.transpose %arg1 perm [1, 0] : tensor<5x2xcomplex<f64>>
// FOLDED-NEXT:    %[[M:.*]] = spectral.matmul %[[T]], %arg0 : tensor<2x5xcomplex<f64>>, tensor<5x7xcomplex<f64>>
// FOLDED-NEXT:    return %[[M]]
func.func @transpose_of_matmul(%a: tensor<5x7xcomplex<f64>>, %b: tensor<5x2xcomplex<f64>>)
    -> tensor<2x7xcomplex<f64>> {
  %t = spectral.transpose %a perm [1, 0] : tensor<5x7xcomplex<f64>>
  %m = spectral.matmul %t, %b : tensor<7x5xcomplex<f64>>, tensor<5x2xcomplex<f64>>
  %r = spectral.transpose %m perm [1, 0] : tensor<7x2xcomplex<f64>>
  return %r : tensor<2x7xcomplex<f64>>
}

// A reduced axis of size 1 before the rank of the factor that spans the
// others: dropped, the constant factors still move out.
// FOLDED-LABEL: func.func @factors_with_a_unit_axis
// FOLDED-NEXT:    spectral.reduce_sum %arg1 axes [0] : tensor<8xf64>
func.func @factors_with_a_unit_axis(%c: tensor<1x1xf64>, %x: tensor<8xf64>, %d: tensor<1x1xf64>)
    -> tensor<f64> {
  %m = spectral.mul %x, %d : tensor<8xf64>, tensor<1x1xf64>
  %p = spectral.mul %c, %m : tensor<1x1xf64>, tensor<1x8xf64>
  %s = spectral.reduce_sum %p axes [0, 1] : tensor<1x8xf64>
  return %s : tensor<f64>
}

// The spanning factors are a product used elsewhere too: that product is
// summed, not a copy of it with its operands in another order.
// FOLDED-LABEL: func.func @factors_of_a_product_used_elsewhere
// FOLDED-NEXT:    %[[H:.*]] = spectral.mul %arg1, %arg0
// FOLDED-NEXT:    spectral.reduce_sum %[[H]] axes [0]
// FOLDED-NOT:     spectral.mul %arg0, %arg1
func.func @factors_of_a_product_used_elsewhere(%x: tensor<4x8xf64>, %a: tensor<4x8xf64>,
                                               %c: tensor<1x8xf64>)
    -> (tensor<8xf64>, tensor<4x8xf64>) {
  %h = spectral.mul %a, %x : tensor<4x8xf64>, tensor<4x8xf64>
  %p = spectral.mul %h, %c : tensor<4x8xf64>, tensor<1x8xf64>
  %s = spectral.reduce_sum %p axes [0] : tensor<4x8xf64>
  return %s, %h : tensor<8xf64>, tensor<4x8xf64>
}
