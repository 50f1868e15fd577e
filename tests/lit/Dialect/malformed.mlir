// Malformed input: spectral-opt reports an error at file:line:col, exits
// non-zero and never crashes. Each case is its own file (split-file keeps the
// line numbers of this file, so [[@LINE]] names the offending line). `not`
// fails on a crash as well as on success.
//
// RUN: rm -rf %t && split-file --leading-lines %s %t
// DEFINE: %{check} = FileCheck %s --implicit-check-not="Stack dump" --implicit-check-not="PLEASE submit" --check-prefix
//
// RUN: not spectral-opt %t/truncated-type.mlir 2>&1 | %{check} TRUNCATED-TYPE
// RUN: not spectral-opt %t/truncated-body.mlir 2>&1 | %{check} TRUNCATED-BODY
// RUN: not spectral-opt %t/stray-brace.mlir 2>&1 | %{check} STRAY-BRACE
// RUN: not spectral-opt %t/unknown-op.mlir 2>&1 | %{check} UNKNOWN-OP
// RUN: not spectral-opt %t/unknown-generic-op.mlir 2>&1 | %{check} UNKNOWN-GENERIC-OP
// RUN: not spectral-opt %t/wrong-operand-type.mlir 2>&1 | %{check} WRONG-OPERAND-TYPE
// RUN: not spectral-opt %t/wrong-element-type.mlir 2>&1 | %{check} WRONG-ELEMENT-TYPE
// RUN: not spectral-opt %t/wrong-result-type.mlir 2>&1 | %{check} WRONG-RESULT-TYPE
// RUN: not spectral-opt %t/huge-dim.mlir 2>&1 | %{check} HUGE-DIM
// RUN: not spectral-opt %t/negative-dim.mlir 2>&1 | %{check} NEGATIVE-DIM
// RUN: not spectral-opt %t/huge-attribute.mlir 2>&1 | %{check} HUGE-ATTRIBUTE
// RUN: not spectral-opt %t/giant-reshape.mlir 2>&1 | %{check} GIANT-RESHAPE
// RUN: not spectral-opt %t/giant-pad.mlir 2>&1 | %{check} GIANT-PAD
// RUN: not spectral-opt %t/giant-concat.mlir 2>&1 | %{check} GIANT-CONCAT
// RUN: not spectral-opt %t/giant-sparse-add.mlir 2>&1 | %{check} GIANT-SPARSE-ADD
// RUN: not spectral-opt %t/giant-topk.mlir 2>&1 | %{check} GIANT-TOPK
// RUN: not spectral-opt %t/negative-fft-axis.mlir 2>&1 | %{check} NEGATIVE-FFT-AXIS
// RUN: not spectral-opt %t/negative-perm.mlir 2>&1 | %{check} NEGATIVE-PERM
// RUN: not spectral-opt %t/negative-concat-axis.mlir 2>&1 | %{check} NEGATIVE-CONCAT-AXIS
// RUN: not spectral-opt %t/generic-fft-no-axes.mlir 2>&1 | %{check} GENERIC-FFT-NO-AXES
// RUN: not spectral-opt %t/generic-rfft-no-axes.mlir 2>&1 | %{check} GENERIC-RFFT-NO-AXES
// RUN: not spectral-opt %t/generic-irfft-no-length.mlir 2>&1 | %{check} GENERIC-IRFFT-NO-LENGTH
// RUN: not spectral-opt %t/generic-dct-no-axes.mlir 2>&1 | %{check} GENERIC-DCT-NO-AXES
// RUN: not spectral-opt %t/generic-topk-no-k.mlir 2>&1 | %{check} GENERIC-TOPK-NO-K
// RUN: not spectral-opt %t/generic-reduce-no-axes.mlir 2>&1 | %{check} GENERIC-REDUCE-NO-AXES
// RUN: not spectral-opt %t/generic-softmax-no-axis.mlir 2>&1 | %{check} GENERIC-SOFTMAX-NO-AXIS
// RUN: not spectral-opt %t/generic-transpose-no-perm.mlir 2>&1 | %{check} GENERIC-TRANSPOSE-NO-PERM
// RUN: not spectral-opt %t/generic-slice-no-limit.mlir 2>&1 | %{check} GENERIC-SLICE-NO-LIMIT
// RUN: not spectral-opt %t/generic-pad-no-high.mlir 2>&1 | %{check} GENERIC-PAD-NO-HIGH
// RUN: not spectral-opt %t/generic-concat-no-axis.mlir 2>&1 | %{check} GENERIC-CONCAT-NO-AXIS
// RUN: not spectral-opt %t/generic-cmp-no-predicate.mlir 2>&1 | %{check} GENERIC-CMP-NO-PREDICATE
// RUN: not spectral-opt %t/generic-sgd-no-lr.mlir 2>&1 | %{check} GENERIC-SGD-NO-LR
// RUN: not spectral-opt %t/generic-adam-no-lr.mlir 2>&1 | %{check} GENERIC-ADAM-NO-LR
// RUN: not spectral-opt %t/generic-clip-no-max-norm.mlir 2>&1 | %{check} GENERIC-CLIP-NO-MAX-NORM
// RUN: not spectral-opt %t/generic-constant-no-value.mlir 2>&1 | %{check} GENERIC-CONSTANT-NO-VALUE
// RUN: not spectral-opt %t/generic-fusion-no-region.mlir 2>&1 | %{check} GENERIC-FUSION-NO-REGION
// RUN: not spectral-opt %t/generic-wrong-attribute-kind.mlir 2>&1 | %{check} GENERIC-WRONG-ATTRIBUTE-KIND
// RUN: not spectral-opt %t/generic-bad-norm.mlir 2>&1 | %{check} GENERIC-BAD-NORM
// RUN: not spectral-opt %t/generic-missing-operand.mlir 2>&1 | %{check} GENERIC-MISSING-OPERAND
//
// Giant but valid shapes are fine: they verify, fold without computing their
// elements, and print something that parses again.
// RUN: spectral-opt %t/giant-valid.mlir -canonicalize | spectral-opt | %{check} GIANT-VALID

//--- truncated-type.mlir
func.func @truncated_type(%x: tensor<4xf32>) -> tensor<4xf32> {
// TRUNCATED-TYPE: truncated-type.mlir:[[@LINE+1]]:35: error: expected non-function type
  %0 = spectral.neg %x : tensor<4x
//--- truncated-body.mlir
func.func @truncated_body(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = spectral.neg %x : tensor<4xf32>
// The error is at the end of the file, after the last line.
// TRUNCATED-BODY: truncated-body.mlir:[[@LINE+1]]:28: error: expected operation name in quotes
  return %0 : tensor<4xf32>
//--- stray-brace.mlir
// STRAY-BRACE: stray-brace.mlir:[[@LINE+1]]:1: error: expected operation name in quotes
}
//--- unknown-op.mlir
func.func @unknown_op(%x: tensor<4xf32>) {
// UNKNOWN-OP: unknown-op.mlir:[[@LINE+1]]:8: error: custom op 'spectral.frobnicate' is unknown
  %0 = spectral.frobnicate %x : tensor<4xf32>
  return
}
//--- unknown-generic-op.mlir
func.func @unknown_generic_op(%x: tensor<4xf32>) {
// UNKNOWN-GENERIC-OP: unknown-generic-op.mlir:[[@LINE+1]]:8: error: unregistered operation 'spectral.frobnicate' found in dialect ('spectral') that does not allow unknown operations
  %0 = "spectral.frobnicate"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}
//--- wrong-operand-type.mlir
func.func @wrong_operand_type(%x: tensor<4xf32>) {
// WRONG-OPERAND-TYPE: wrong-operand-type.mlir:[[@LINE+1]]:21: error: use of value '%x' expects different type than prior uses: 'tensor<4xf64>' vs 'tensor<4xf32>'
  %0 = spectral.neg %x : tensor<4xf64>
  return
}
//--- wrong-element-type.mlir
func.func @wrong_element_type(%x: tensor<4xf32>) {
// WRONG-ELEMENT-TYPE: wrong-element-type.mlir:[[@LINE+1]]:8: error: 'spectral.fft' op operand #0 must be statically shaped tensor of complex type
  %0 = spectral.fft %x axes [0] : tensor<4xf32>
  return
}
//--- wrong-result-type.mlir
func.func @wrong_result_type(%x: tensor<4xf32>) {
// WRONG-RESULT-TYPE: wrong-result-type.mlir:[[@LINE+1]]:8: error: 'spectral.rfft' op inferred type(s) 'tensor<3xcomplex<f32>>' are incompatible with return type(s) of operation 'tensor<4xcomplex<f32>>'
  %0 = "spectral.rfft"(%x) <{axes = array<i64: 0>}> : (tensor<4xf32>) -> tensor<4xcomplex<f32>>
  return
}
//--- huge-dim.mlir
// HUGE-DIM: huge-dim.mlir:[[@LINE+1]]:32: error: invalid dimension
func.func @huge_dim(%x: tensor<99999999999999999999xf32>) {
  return
}
//--- negative-dim.mlir
// NEGATIVE-DIM: negative-dim.mlir:[[@LINE+1]]:36: error: expected non-function type
func.func @negative_dim(%x: tensor<-4xf32>) {
  return
}
//--- huge-attribute.mlir
func.func @huge_attribute(%x: tensor<5xcomplex<f32>>) {
// HUGE-ATTRIBUTE: huge-attribute.mlir:[[@LINE+1]]:42: error: integer constant out of range for attribute
  %0 = spectral.irfft %x axes [0] length 99999999999999999999 : tensor<5xcomplex<f32>>
  return
}
//--- giant-reshape.mlir
func.func @giant_reshape(%x: tensor<4611686018427387904x4xf32>) {
// GIANT-RESHAPE: giant-reshape.mlir:[[@LINE+1]]:8: error: 'spectral.reshape' op shape [4611686018427387904, 4] has more elements than fit in 64 bits
  %0 = spectral.reshape %x : tensor<4611686018427387904x4xf32> -> tensor<16xf32>
  return
}
//--- giant-pad.mlir
func.func @giant_pad(%x: tensor<4611686018427387904x4xf32>) {
// GIANT-PAD: giant-pad.mlir:[[@LINE+1]]:8: error: dim 0: padded size overflows
  %0 = spectral.pad %x low [4611686018427387904, 0] high [0, 0] : tensor<4611686018427387904x4xf32>
  return
}
//--- giant-concat.mlir
func.func @giant_concat(%x: tensor<4611686018427387904xf32>) {
// GIANT-CONCAT: giant-concat.mlir:[[@LINE+1]]:8: error: size along axis 0 overflows at input #1
  %0 = spectral.concat %x, %x axis 0 : tensor<4611686018427387904xf32>, tensor<4611686018427387904xf32>
  return
}
//--- giant-sparse-add.mlir
func.func @giant_sparse_add(%v: tensor<4611686018427387904xf32>, %i: tensor<4611686018427387904xi64>) {
// GIANT-SPARSE-ADD: giant-sparse-add.mlir:[[@LINE+1]]:10: error: capacity 4611686018427387904 + 4611686018427387904 of the sum overflows
  %0:2 = spectral.sparse_add %v, %i, %v, %i : tensor<4611686018427387904xf32>, tensor<4611686018427387904xf32>
  return
}
//--- giant-topk.mlir
func.func @giant_topk(%x: tensor<4611686018427387904x4xf32>) {
// GIANT-TOPK: giant-topk.mlir:[[@LINE+1]]:10: error: operand 'x' of shape [4611686018427387904, 4] has more elements than fit in 64 bits
  %0:2 = spectral.topk_modes %x k 3 flat : tensor<4611686018427387904x4xf32>
  return
}
//--- negative-fft-axis.mlir
func.func @negative_fft_axis(%x: tensor<4xcomplex<f32>>) {
// NEGATIVE-FFT-AXIS: negative-fft-axis.mlir:[[@LINE+1]]:8: error: 'spectral.fft' op axes[0] = -1 is out of range for an operand of rank 1 (axes are in [0, 1))
  %0 = spectral.fft %x axes [-1] : tensor<4xcomplex<f32>>
  return
}
//--- negative-perm.mlir
func.func @negative_perm(%x: tensor<2x3xf32>) {
// NEGATIVE-PERM: negative-perm.mlir:[[@LINE+1]]:8: error: perm[0] = -1 is out of range for an operand of rank 2 (axes are in [0, 2))
  %0 = spectral.transpose %x perm [-1, 0] : tensor<2x3xf32>
  return
}
//--- negative-concat-axis.mlir
func.func @negative_concat_axis(%x: tensor<2x3xf32>) {
// NEGATIVE-CONCAT-AXIS: negative-concat-axis.mlir:[[@LINE+1]]:8: error: axis -2 is out of range for inputs of rank 2
  %0 = spectral.concat %x, %x axis -2 : tensor<2x3xf32>, tensor<2x3xf32>
  return
}
//--- generic-fft-no-axes.mlir
func.func @generic_fft_no_axes(%x: tensor<4xcomplex<f32>>) {
// GENERIC-FFT-NO-AXES: generic-fft-no-axes.mlir:[[@LINE+1]]:8: error: 'spectral.fft' op requires attribute 'axes'
  %0 = "spectral.fft"(%x) : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  return
}
//--- generic-rfft-no-axes.mlir
func.func @generic_rfft_no_axes(%x: tensor<4xf32>) {
// GENERIC-RFFT-NO-AXES: generic-rfft-no-axes.mlir:[[@LINE+1]]:8: error: 'spectral.rfft' op requires attribute 'axes'
  %0 = "spectral.rfft"(%x) : (tensor<4xf32>) -> tensor<3xcomplex<f32>>
  return
}
//--- generic-irfft-no-length.mlir
func.func @generic_irfft_no_length(%x: tensor<3xcomplex<f32>>) {
// GENERIC-IRFFT-NO-LENGTH: generic-irfft-no-length.mlir:[[@LINE+1]]:8: error: 'spectral.irfft' op requires attribute 'length'
  %0 = "spectral.irfft"(%x) <{axes = array<i64: 0>}> : (tensor<3xcomplex<f32>>) -> tensor<4xf32>
  return
}
//--- generic-dct-no-axes.mlir
func.func @generic_dct_no_axes(%x: tensor<4xf32>) {
// GENERIC-DCT-NO-AXES: generic-dct-no-axes.mlir:[[@LINE+1]]:8: error: 'spectral.dct' op requires attribute 'axes'
  %0 = "spectral.dct"(%x) <{dct_type = 3 : i64}> : (tensor<4xf32>) -> tensor<4xf32>
  return
}
//--- generic-topk-no-k.mlir
func.func @generic_topk_no_k(%x: tensor<4xf32>) {
// GENERIC-TOPK-NO-K: generic-topk-no-k.mlir:[[@LINE+1]]:10: error: 'spectral.topk_modes' op requires attribute 'k'
  %0:2 = "spectral.topk_modes"(%x) : (tensor<4xf32>) -> (tensor<2xf32>, tensor<2xi64>)
  return
}
//--- generic-reduce-no-axes.mlir
func.func @generic_reduce_no_axes(%x: tensor<4xf32>) {
// GENERIC-REDUCE-NO-AXES: generic-reduce-no-axes.mlir:[[@LINE+1]]:8: error: 'spectral.reduce_sum' op requires attribute 'axes'
  %0 = "spectral.reduce_sum"(%x) : (tensor<4xf32>) -> tensor<f32>
  return
}
//--- generic-softmax-no-axis.mlir
func.func @generic_softmax_no_axis(%x: tensor<4xf32>) {
// GENERIC-SOFTMAX-NO-AXIS: generic-softmax-no-axis.mlir:[[@LINE+1]]:8: error: 'spectral.softmax' op requires attribute 'axis'
  %0 = "spectral.softmax"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}
//--- generic-transpose-no-perm.mlir
func.func @generic_transpose_no_perm(%x: tensor<2x3xf32>) {
// GENERIC-TRANSPOSE-NO-PERM: generic-transpose-no-perm.mlir:[[@LINE+1]]:8: error: 'spectral.transpose' op requires attribute 'perm'
  %0 = "spectral.transpose"(%x) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}
//--- generic-slice-no-limit.mlir
func.func @generic_slice_no_limit(%x: tensor<4xf32>) {
// GENERIC-SLICE-NO-LIMIT: generic-slice-no-limit.mlir:[[@LINE+1]]:8: error: 'spectral.slice' op requires attribute 'limit'
  %0 = "spectral.slice"(%x) <{start = array<i64: 1>}> : (tensor<4xf32>) -> tensor<3xf32>
  return
}
//--- generic-pad-no-high.mlir
func.func @generic_pad_no_high(%x: tensor<4xf32>) {
// GENERIC-PAD-NO-HIGH: generic-pad-no-high.mlir:[[@LINE+1]]:8: error: 'spectral.pad' op requires attribute 'high'
  %0 = "spectral.pad"(%x) <{low = array<i64: 1>}> : (tensor<4xf32>) -> tensor<5xf32>
  return
}
//--- generic-concat-no-axis.mlir
func.func @generic_concat_no_axis(%x: tensor<4xf32>) {
// GENERIC-CONCAT-NO-AXIS: generic-concat-no-axis.mlir:[[@LINE+1]]:8: error: 'spectral.concat' op requires attribute 'axis'
  %0 = "spectral.concat"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
  return
}
//--- generic-cmp-no-predicate.mlir
func.func @generic_cmp_no_predicate(%x: tensor<4xf32>) {
// GENERIC-CMP-NO-PREDICATE: generic-cmp-no-predicate.mlir:[[@LINE+1]]:8: error: 'spectral.cmp' op requires attribute 'predicate'
  %0 = "spectral.cmp"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return
}
//--- generic-sgd-no-lr.mlir
func.func @generic_sgd_no_lr(%p: tensor<4xf32>) {
// GENERIC-SGD-NO-LR: generic-sgd-no-lr.mlir:[[@LINE+1]]:10: error: a learning rate is needed: 'lr 0.01' or 'lr_from(%lr : tensor<f32>)'
  %0:2 = "spectral.sgd_step"(%p, %p, %p) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}
//--- generic-adam-no-lr.mlir
func.func @generic_adam_no_lr(%p: tensor<4xf32>, %s: tensor<i64>) {
// GENERIC-ADAM-NO-LR: generic-adam-no-lr.mlir:[[@LINE+1]]:10: error: a learning rate is needed: 'lr 0.01' or 'lr_from(%lr : tensor<f32>)'
  %0:3 = "spectral.adam_step"(%p, %p, %p, %p, %s) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}
//--- generic-clip-no-max-norm.mlir
func.func @generic_clip_no_max_norm(%x: tensor<4xf32>) {
// GENERIC-CLIP-NO-MAX-NORM: generic-clip-no-max-norm.mlir:[[@LINE+1]]:10: error: 'spectral.clip_global_norm' op requires attribute 'max_norm'
  %0:2 = "spectral.clip_global_norm"(%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<f32>)
  return
}
//--- generic-constant-no-value.mlir
func.func @generic_constant_no_value() {
// GENERIC-CONSTANT-NO-VALUE: generic-constant-no-value.mlir:[[@LINE+1]]:8: error: 'spectral.constant' op requires attribute 'value'
  %0 = "spectral.constant"() : () -> tensor<4xf32>
  return
}
//--- generic-fusion-no-region.mlir
func.func @generic_fusion_no_region(%x: tensor<4xf32>) {
// GENERIC-FUSION-NO-REGION: generic-fusion-no-region.mlir:[[@LINE+1]]:8: error: 'spectral.fusion' op requires one region
  %0 = "spectral.fusion"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}
//--- generic-wrong-attribute-kind.mlir
func.func @generic_wrong_attribute_kind(%x: tensor<4xcomplex<f32>>) {
// GENERIC-WRONG-ATTRIBUTE-KIND: generic-wrong-attribute-kind.mlir:[[@LINE+1]]:8: error: invalid properties {axes = 0 : i64} for op spectral.fft: Invalid attribute `axes` in property conversion: 0 : i64
  %0 = "spectral.fft"(%x) <{axes = 0 : i64}> : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  return
}
//--- generic-bad-norm.mlir
func.func @generic_bad_norm(%x: tensor<4xcomplex<f32>>) {
// GENERIC-BAD-NORM: generic-bad-norm.mlir:[[@LINE+1]]:8: error: invalid properties {axes = array<i64: 0>, norm = 7 : i32} for op spectral.fft: Invalid attribute `norm` in property conversion: 7 : i32
  %0 = "spectral.fft"(%x) <{axes = array<i64: 0>, norm = 7 : i32}> : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  return
}
//--- generic-missing-operand.mlir
func.func @generic_missing_operand(%x: tensor<4xf32>) {
// GENERIC-MISSING-OPERAND: generic-missing-operand.mlir:[[@LINE+1]]:8: error: 'spectral.add' op expected 2 operands, but found 1
  %0 = "spectral.add"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}
//--- giant-valid.mlir
// Canonicalization moves the constants to the top.
// GIANT-VALID-LABEL: func.func @giant_valid
// A splat folds to a splat of any size; a row broadcast over 2^64 elements is
// left to the runtime.
// GIANT-VALID-DAG: %[[SPLAT:.*]] = spectral.constant dense<3.000000e+00> : tensor<4611686018427387904x4xf32>
// GIANT-VALID-DAG: %[[ROW:.*]] = spectral.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// GIANT-VALID-DAG: %[[ONE:.*]] = spectral.constant dense<1.000000e+00> : tensor<4611686018427387904x4xf32>
// GIANT-VALID: %[[RFFT:.*]] = spectral.rfft %{{.*}} axes [1] : tensor<4611686018427387904x4xf32>
// GIANT-VALID: %[[PAD:.*]] = spectral.pad %{{.*}} low [1, 0] high [1, 0] : tensor<4611686018427387904x4xf32>
// GIANT-VALID: %[[ADD:.*]] = spectral.add %[[ONE]], %[[ROW]] : tensor<4611686018427387904x4xf32>, tensor<4xf32>
// GIANT-VALID: return %[[RFFT]], %[[PAD]], %[[SPLAT]], %[[ADD]]
func.func @giant_valid(%x: tensor<4611686018427387904x4xf32>)
    -> (tensor<4611686018427387904x3xcomplex<f32>>, tensor<4611686018427387906x4xf32>,
        tensor<4611686018427387904x4xf32>, tensor<4611686018427387904x4xf32>) {
  %0 = spectral.rfft %x axes [1] : tensor<4611686018427387904x4xf32>
  %1 = spectral.pad %x low [1, 0] high [1, 0] : tensor<4611686018427387904x4xf32>
  %one = spectral.constant dense<1.0> : tensor<4611686018427387904x4xf32>
  %two = spectral.constant dense<2.0> : tensor<f32>
  %2 = spectral.add %one, %two : tensor<4611686018427387904x4xf32>, tensor<f32>
  %row = spectral.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %3 = spectral.add %one, %row : tensor<4611686018427387904x4xf32>, tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4611686018427387904x3xcomplex<f32>>, tensor<4611686018427387906x4xf32>,
      tensor<4611686018427387904x4xf32>, tensor<4611686018427387904x4xf32>
}
