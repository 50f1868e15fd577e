//===- SpectralOps.td - spectral dialect operations ----------------------===//
//
// Every op works on ranked tensors with static shapes. Result types follow
// from the operands (InferTypeOpAdaptor) except where the result shape is the
// op's very point (reshape, broadcast, cast, scatter, constant).
//
//===----------------------------------------------------------------------===//
#ifndef SPECTRAL_OPS_TD
#define SPECTRAL_OPS_TD

include "dialects/spectral/IR/SpectralBase.td"
include "dialects/spectral/IR/SpectralInterfaces.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

class Spectral_Op<string mnemonic, list<Trait> traits = []>
    : Op<Spectral_Dialect, mnemonic, traits>;

/// An op with a gradient rule (SpectralGradients.cpp).
def Spectral_Differentiable : DeclareOpInterfaceMethods<Spectral_DifferentiableOpInterface>;

//===----------------------------------------------------------------------===//
// Constants and pointwise
//===----------------------------------------------------------------------===//

def Spectral_ConstantOp : Spectral_Op<"constant",
    [ConstantLike, Pure, AllTypesMatch<["value", "result"]>]> {
  let summary = "dense tensor constant";
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Spectral_AnyTensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
  let hasVerifier = 1;
}

class Spectral_SameTypeUnaryOp<string mnemonic, Type operandType,
                               list<Trait> traits = []>
    : Spectral_Op<mnemonic, !listconcat([Pure, SameOperandsAndResultType,
                                         Spectral_Differentiable], traits)> {
  let arguments = (ins operandType:$x);
  let results = (outs operandType:$result);
  let assemblyFormat = "$x attr-dict `:` type($x)";
}

def Spectral_NegOp : Spectral_SameTypeUnaryOp<"neg", Spectral_NumericTensor> {
  let summary = "-x";
  let hasFolder = 1;
}
def Spectral_ExpOp : Spectral_SameTypeUnaryOp<"exp", Spectral_FloatTensor> {
  let summary = "e^x";
  let hasFolder = 1;
}
def Spectral_LogOp : Spectral_SameTypeUnaryOp<"log", Spectral_FloatTensor> {
  let summary = "natural logarithm (principal branch for complex)";
  let hasFolder = 1;
}
def Spectral_SqrtOp : Spectral_SameTypeUnaryOp<"sqrt", Spectral_FloatTensor> {
  let summary = "square root (principal branch for complex)";
  let hasFolder = 1;
}
def Spectral_TanhOp : Spectral_SameTypeUnaryOp<"tanh", Spectral_FloatTensor> {
  let summary = "hyperbolic tangent";
  let hasFolder = 1;
}
def Spectral_ReluOp : Spectral_SameTypeUnaryOp<"relu", Spectral_RealTensor> {
  let summary = "max(x, 0); NaN stays NaN (as torch.relu)";
  let hasFolder = 1;
}
def Spectral_GeluOp : Spectral_SameTypeUnaryOp<"gelu", Spectral_RealTensor> {
  let summary = "x * Phi(x), the exact (erf) form";
  let hasFolder = 1;
}
def Spectral_SigmoidOp : Spectral_SameTypeUnaryOp<"sigmoid", Spectral_RealTensor> {
  let summary = "1 / (1 + e^-x)";
  let hasFolder = 1;
}
def Spectral_ConjOp : Spectral_SameTypeUnaryOp<"conj", Spectral_ComplexTensor> {
  let summary = "complex conjugate";
  let hasFolder = 1;
}

/// Unary ops whose result is the real counterpart of the operand's type.
class Spectral_ToRealUnaryOp<string mnemonic, Type operandType>
    : Spectral_Op<mnemonic, [Pure, InferTypeOpAdaptor, Spectral_Differentiable]> {
  let arguments = (ins operandType:$x);
  let results = (outs Spectral_RealOrIntTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x)";
  let hasFolder = 1;
}

def Spectral_AbsOp : Spectral_ToRealUnaryOp<"abs", Spectral_NumericTensor> {
  let summary = "|x| (modulus for complex; the result is real)";
}
def Spectral_RealOp : Spectral_ToRealUnaryOp<"real", Spectral_ComplexTensor> {
  let summary = "real part";
}
def Spectral_ImagOp : Spectral_ToRealUnaryOp<"imag", Spectral_ComplexTensor> {
  let summary = "imaginary part";
}

/// Binary ops with numpy broadcasting; both operands have one element type.
class Spectral_BroadcastBinaryOp<string mnemonic, Type operandType,
                                 Type resultType>
    : Spectral_Op<mnemonic, [Pure, InferTypeOpAdaptor, Spectral_Differentiable]> {
  let arguments = (ins operandType:$lhs, operandType:$rhs);
  let results = (outs resultType:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)";
  let hasFolder = 1;
}

def Spectral_AddOp : Spectral_BroadcastBinaryOp<"add", Spectral_NumericTensor,
                                                Spectral_NumericTensor> {
  let summary = "lhs + rhs (numpy broadcasting)";
}
def Spectral_SubOp : Spectral_BroadcastBinaryOp<"sub", Spectral_NumericTensor,
                                                Spectral_NumericTensor> {
  let summary = "lhs - rhs (numpy broadcasting)";
}
def Spectral_MulOp : Spectral_BroadcastBinaryOp<"mul", Spectral_NumericTensor,
                                                Spectral_NumericTensor> {
  let summary = "lhs * rhs (numpy broadcasting)";
  let hasCanonicalizer = 1;  // chains of constant scalings merge
}
def Spectral_DivOp : Spectral_BroadcastBinaryOp<"div", Spectral_NumericTensor,
                                                Spectral_NumericTensor> {
  let summary = "lhs / rhs (numpy broadcasting; integers truncate toward zero)";
}
def Spectral_ComplexOp : Spectral_BroadcastBinaryOp<"complex",
    Spectral_RealTensor, Spectral_ComplexTensor> {
  let summary = "re + i*im from two real tensors (numpy broadcasting)";
}

def Spectral_CmpOp : Spectral_Op<"cmp", [Pure, InferTypeOpAdaptor]> {
  let summary = "elementwise comparison of reals or integers -> i1";
  let arguments = (ins Spectral_CmpPredicate:$predicate,
                       Spectral_RealOrIntTensor:$lhs,
                       Spectral_RealOrIntTensor:$rhs);
  let results = (outs Spectral_BoolTensor:$result);
  let assemblyFormat =
      "$predicate $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)";
}

def Spectral_SelectOp : Spectral_Op<"select", [Spectral_Differentiable, Pure, InferTypeOpAdaptor]> {
  let summary = "cond ? a : b, elementwise with numpy broadcasting";
  let arguments = (ins Spectral_BoolTensor:$cond, Spectral_AnyTensor:$a,
                       Spectral_AnyTensor:$b);
  let results = (outs Spectral_AnyTensor:$result);
  let assemblyFormat =
      "$cond `,` $a `,` $b attr-dict `:` type($cond) `,` type($a) `,` type($b)";
}

def Spectral_CastOp : Spectral_Op<"cast", [Spectral_Differentiable, Pure]> {
  let summary = "element type conversion (real -> complex sets im = 0)";
  let description = [{
    Same shape, other element type. Complex to real is not a cast: use
    spectral.real or spectral.abs. To f32 / complex<f32> rounds to the nearest
    float. Float to integer truncates toward zero (NaN and infinities have no
    integer value: undefined, an error in the reference evaluator); to i1 is
    "not zero" without truncating (0.5 and NaN are true, as numpy's
    astype(bool)).
  }];
  let arguments = (ins Spectral_AnyTensor:$x);
  let results = (outs Spectral_AnyTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `to` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Transforms
//===----------------------------------------------------------------------===//

class Spectral_ComplexTransformOp<string mnemonic>
    : Spectral_Op<mnemonic, [Pure, SameOperandsAndResultType, Spectral_Differentiable]> {
  let arguments = (ins Spectral_ComplexTensor:$x, DenseI64ArrayAttr:$axes,
                       Spectral_NormAttr:$norm);
  let results = (outs Spectral_ComplexTensor:$result);
  let assemblyFormat =
      "$x `axes` $axes (`norm` $norm^)? attr-dict `:` type($x)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Spectral_FftOp : Spectral_ComplexTransformOp<"fft"> {
  let summary = "complex DFT over axes, exp(-2*pi*i*j*k/N)";
}
def Spectral_IfftOp : Spectral_ComplexTransformOp<"ifft"> {
  let summary = "inverse complex DFT over axes, exp(+2*pi*i*j*k/N)";
}

def Spectral_RfftOp : Spectral_Op<"rfft", [Spectral_Differentiable, Pure, InferTypeOpAdaptor]> {
  let summary = "real-to-complex DFT (numpy.fft.rfftn): last axis N -> N/2+1";
  let arguments = (ins Spectral_RealTensor:$x, DenseI64ArrayAttr:$axes,
                       Spectral_NormAttr:$norm);
  let results = (outs Spectral_ComplexTensor:$result);
  let assemblyFormat =
      "$x `axes` $axes (`norm` $norm^)? attr-dict `:` type($x)";
}

def Spectral_IrfftOp : Spectral_Op<"irfft", [Spectral_Differentiable, Pure, InferTypeOpAdaptor]> {
  let summary = "complex-to-real inverse of rfft; `length` is the real length";
  let arguments = (ins Spectral_ComplexTensor:$x, DenseI64ArrayAttr:$axes,
                       I64Attr:$length, Spectral_NormAttr:$norm);
  let results = (outs Spectral_RealTensor:$result);
  let assemblyFormat =
      "$x `axes` $axes `length` $length (`norm` $norm^)? attr-dict `:` type($x)";
  let hasFolder = 1;
}

class Spectral_DctOpBase<string mnemonic>
    : Spectral_Op<mnemonic, [Pure, SameOperandsAndResultType, Spectral_Differentiable]> {
  let arguments = (ins Spectral_RealTensor:$x, DenseI64ArrayAttr:$axes,
                       DefaultValuedAttr<I64Attr, "2">:$dct_type,
                       Spectral_NormAttr:$norm);
  let results = (outs Spectral_RealTensor:$result);
  let assemblyFormat = "$x `axes` $axes (`type` $dct_type^)? "
                       "(`norm` $norm^)? attr-dict `:` type($x)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Spectral_DctOp : Spectral_DctOpBase<"dct"> {
  let summary = "DCT of type 2 (default) or 3 over axes, scipy.fft.dct scaling";
}
def Spectral_IdctOp : Spectral_DctOpBase<"idct"> {
  let summary = "inverse of dct of the same type and norm (scipy.fft.idct)";
}

//===----------------------------------------------------------------------===//
// Sparse spectral modes
//
// A sparse tensor is a pair (values, indices) of one shape [..., k]: per row
// (indices into the last axis of the dense tensor, leading dims shared) or
// flat (rank-1, indices into the row-major dense tensor). Index -1 marks an
// empty slot (value 0); ops producing sparse pairs sort indices ascending and
// put empty slots last.
//===----------------------------------------------------------------------===//

def Spectral_TopkModesOp : Spectral_Op<"topk_modes",
    [Spectral_Differentiable, Pure, InferTypeOpAdaptor]> {
  let summary = "the k largest-magnitude entries, per row or of the whole tensor";
  let description = [{
    Magnitude is |x| (the modulus for complex); NaN ranks above every number,
    as in torch.topk. Ties (NaNs among them) are broken toward the lower
    index, so the result is deterministic.
    Values and indices come sorted by index. Without `flat`, per row along
    the last axis: [..., N] -> [..., k]; with `flat`: [k] over all elements.
  }];
  let arguments = (ins Spectral_NumericTensor:$x, I64Attr:$k,
                       UnitAttr:$flat);
  let results = (outs Spectral_NumericTensor:$values,
                      Spectral_IndexTensor:$indices);
  let assemblyFormat = "$x `k` $k (`flat` $flat^)? attr-dict `:` type($x)";
}

def Spectral_GatherOp : Spectral_Op<"gather", [Spectral_Differentiable, Pure, InferTypeOpAdaptor]> {
  let summary = "x at indices (per row when ranks match, else flat); -1 -> 0";
  let arguments = (ins Spectral_NumericTensor:$x, Spectral_IndexTensor:$indices);
  let results = (outs Spectral_NumericTensor:$result);
  let assemblyFormat =
      "$x `[` $indices `]` attr-dict `:` type($x) `,` type($indices)";
}

def Spectral_ScatterOp : Spectral_Op<"scatter", [Spectral_Differentiable, Pure]> {
  let summary = "dense zeros of the result type with values added at indices";
  let description = [{
    Per row when values have the result's rank, flat when they are rank 1.
    Repeated indices accumulate; index -1 is skipped.
  }];
  let arguments = (ins Spectral_NumericTensor:$values,
                       Spectral_IndexTensor:$indices);
  let results = (outs Spectral_NumericTensor:$result);
  let assemblyFormat = "$values `,` $indices attr-dict `:` type($values) `,` "
                       "type($indices) `->` type($result)";
  let hasVerifier = 1;
}

/// Indices have the shape of their values, with element type i64.
class Spectral_IndicesOf<string values, string indices>
    : TypesMatchWith<"'" # indices # "' is i64 with the shape of '" # values # "'",
                     values, indices,
                     "::mlir::RankedTensorType::get(::llvm::cast<::mlir::ShapedType>($_self)"
                     ".getShape(), ::mlir::IntegerType::get($_self.getContext(), 64))">;

class Spectral_SparseBinaryOp<string mnemonic>
    : Spectral_Op<mnemonic, [Pure, InferTypeOpAdaptor,
                             Spectral_IndicesOf<"lhs_values", "lhs_indices">,
                             Spectral_IndicesOf<"rhs_values", "rhs_indices">]> {
  let arguments = (ins Spectral_NumericTensor:$lhs_values,
                       Spectral_IndexTensor:$lhs_indices,
                       Spectral_NumericTensor:$rhs_values,
                       Spectral_IndexTensor:$rhs_indices);
  let results = (outs Spectral_NumericTensor:$values,
                      Spectral_IndexTensor:$indices);
  let assemblyFormat = "$lhs_values `,` $lhs_indices `,` $rhs_values `,` "
                       "$rhs_indices attr-dict `:` type($lhs_values) `,` "
                       "type($rhs_values)";
}

def Spectral_SparseAddOp : Spectral_SparseBinaryOp<"sparse_add"> {
  let summary = "sum of two sparse tensors: union of indices, capacity k1 + k2";
}
def Spectral_SparseMulOp : Spectral_SparseBinaryOp<"sparse_mul"> {
  let summary = "elementwise product: intersection of indices, capacity min(k1, k2)";
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class Spectral_ReduceOp<string mnemonic, Type operandType>
    : Spectral_Op<mnemonic, [Pure, InferTypeOpAdaptor, Spectral_Differentiable]> {
  let arguments = (ins operandType:$x, DenseI64ArrayAttr:$axes,
                       UnitAttr:$keepdims);
  let results = (outs operandType:$result);
  let assemblyFormat =
      "$x `axes` $axes (`keepdims` $keepdims^)? attr-dict `:` type($x)";
}

def Spectral_ReduceSumOp : Spectral_ReduceOp<"reduce_sum", Spectral_NumericTensor> {
  let summary = "sum over axes";
  let hasCanonicalizer = 1;  // a factor constant along the axes moves out
}
def Spectral_ReduceMeanOp : Spectral_ReduceOp<"reduce_mean", Spectral_FloatTensor> {
  let summary = "mean over axes";
  let hasCanonicalizer = 1;  // a factor constant along the axes moves out
}
def Spectral_ReduceMaxOp : Spectral_ReduceOp<"reduce_max", Spectral_RealOrIntTensor> {
  let summary = "maximum over axes; NaN wins; over an empty axis undefined";
}

class Spectral_SoftmaxOpBase<string mnemonic>
    : Spectral_Op<mnemonic, [Pure, SameOperandsAndResultType, Spectral_Differentiable]> {
  let arguments = (ins Spectral_RealTensor:$x, I64Attr:$axis);
  let results = (outs Spectral_RealTensor:$result);
  let assemblyFormat = "$x `axis` $axis attr-dict `:` type($x)";
  let hasVerifier = 1;
}

def Spectral_SoftmaxOp : Spectral_SoftmaxOpBase<"softmax"> {
  let summary = "exp(x) / sum(exp(x)) along axis";
}
def Spectral_LogSoftmaxOp : Spectral_SoftmaxOpBase<"log_softmax"> {
  let summary = "x - log(sum(exp(x))) along axis";
}

//===----------------------------------------------------------------------===//
// Shape
//===----------------------------------------------------------------------===//

def Spectral_ReshapeOp : Spectral_Op<"reshape", [Spectral_Differentiable, Pure]> {
  let summary = "same elements in row-major order, another shape";
  let arguments = (ins Spectral_AnyTensor:$x);
  let results = (outs Spectral_AnyTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Spectral_TransposeOp : Spectral_Op<"transpose", [Spectral_Differentiable, Pure, InferTypeOpAdaptor]> {
  let summary = "result dim i is operand dim perm[i]";
  let arguments = (ins Spectral_AnyTensor:$x, DenseI64ArrayAttr:$perm);
  let results = (outs Spectral_AnyTensor:$result);
  let assemblyFormat = "$x `perm` $perm attr-dict `:` type($x)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;  // a transform between a transpose and its inverse
}

def Spectral_BroadcastOp : Spectral_Op<"broadcast", [Spectral_Differentiable, Pure]> {
  let summary = "numpy broadcast to the result shape";
  let arguments = (ins Spectral_AnyTensor:$x);
  let results = (outs Spectral_AnyTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Spectral_SliceOp : Spectral_Op<"slice", [Spectral_Differentiable, Pure, InferTypeOpAdaptor]> {
  let summary = "x[start:limit:stride] per dim (stride defaults to 1)";
  let arguments = (ins Spectral_AnyTensor:$x, DenseI64ArrayAttr:$start,
                       DenseI64ArrayAttr:$limit,
                       OptionalAttr<DenseI64ArrayAttr>:$stride);
  let results = (outs Spectral_AnyTensor:$result);
  let assemblyFormat = "$x `start` $start `limit` $limit (`stride` $stride^)? "
                       "attr-dict `:` type($x)";
}

def Spectral_PadOp : Spectral_Op<"pad", [Spectral_Differentiable, Pure, InferTypeOpAdaptor]> {
  let summary = "pad each dim with low/high copies of a constant (default 0)";
  let arguments = (ins Spectral_NumericTensor:$x, DenseI64ArrayAttr:$low,
                       DenseI64ArrayAttr:$high,
                       DefaultValuedAttr<F64Attr, "0.0">:$value);
  let results = (outs Spectral_NumericTensor:$result);
  let assemblyFormat = "$x `low` $low `high` $high (`value` $value^)? "
                       "attr-dict `:` type($x)";
}

def Spectral_ConcatOp : Spectral_Op<"concat", [Spectral_Differentiable, Pure, InferTypeOpAdaptor]> {
  let summary = "join tensors along axis";
  let arguments = (ins Variadic<Spectral_AnyTensor>:$inputs, I64Attr:$axis);
  let results = (outs Spectral_AnyTensor:$result);
  let assemblyFormat = "$inputs `axis` $axis attr-dict `:` type($inputs)";
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

def Spectral_MatmulOp : Spectral_Op<"matmul", [Spectral_Differentiable, Pure, InferTypeOpAdaptor]> {
  let summary = "batched matrix product [..., M, K] x [..., K, N] -> [..., M, N]";
  let description = "Batch dims broadcast as in numpy.matmul; ranks >= 2.";
  let arguments = (ins Spectral_NumericTensor:$lhs, Spectral_NumericTensor:$rhs);
  let results = (outs Spectral_NumericTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)";
}

def Spectral_ChannelMixOp : Spectral_Op<"channel_mix", [Spectral_Differentiable, Pure, InferTypeOpAdaptor]> {
  let summary = "FNO mode-wise channel mixing: bixy,ioxy->boxy";
  let description = [{
    x: [B, I, s...], weights: [I, O, s...] -> [B, O, s...]; for each spatial
    (mode) position, a matrix-vector product over the channels.
  }];
  let arguments = (ins Spectral_FloatTensor:$x, Spectral_FloatTensor:$weights);
  let results = (outs Spectral_FloatTensor:$result);
  let assemblyFormat = "$x `,` $weights attr-dict `:` type($x) `,` type($weights)";
}

//===----------------------------------------------------------------------===//
// Loss and training
//===----------------------------------------------------------------------===//

def Spectral_CrossEntropyOp : Spectral_Op<"cross_entropy",
    [Spectral_Differentiable, Pure, InferTypeOpAdaptor]> {
  let summary = "mean over rows of -log_softmax(logits)[label] (NaN for no rows)";
  let arguments = (ins Spectral_RealTensor:$logits, Spectral_LabelTensor:$labels);
  let results = (outs Spectral_RealTensor:$result);
  let assemblyFormat =
      "$logits `,` $labels attr-dict `:` type($logits) `,` type($labels)";
  let hasFolder = 1;
}

def Spectral_MseOp : Spectral_Op<"mse",
    [Spectral_Differentiable, Pure, InferTypeOpAdaptor, AllTypesMatch<["prediction", "target"]>]> {
  let summary = "mean of |prediction - target|^2 (NaN for no elements)";
  let arguments = (ins Spectral_FloatTensor:$prediction,
                       Spectral_FloatTensor:$target);
  let results = (outs Spectral_RealTensor:$result);
  let assemblyFormat = "$prediction `,` $target attr-dict `:` type($prediction)";
}

def Spectral_SgdStepOp : Spectral_Op<"sgd_step",
    [Pure, InferTypeOpAdaptor, AllTypesMatch<["param", "grad", "velocity"]>]> {
  let summary = "SGD update with momentum (optionally Nesterov) and weight decay";
  let description = [{
    g' = g + weight_decay * p; v' = momentum * v + g';
    p' = p - lr * (nesterov ? g' + momentum * v' : v'). Returns (p', v').
    The learning rate is the attribute `lr 0.01`, or a real 0-d tensor given
    as `lr_from(%lr : tensor<f32>)` (data: a schedule changes it between runs
    without compiling again); exactly one of the two.
  }];
  let arguments = (ins Spectral_FloatTensor:$param, Spectral_FloatTensor:$grad,
                       Spectral_FloatTensor:$velocity,
                       Optional<Spectral_RealTensor>:$lr_value,
                       OptionalAttr<F64Attr>:$lr,
                       DefaultValuedAttr<F64Attr, "0.0">:$momentum,
                       DefaultValuedAttr<F64Attr, "0.0">:$weight_decay,
                       UnitAttr:$nesterov);
  let results = (outs Spectral_FloatTensor:$new_param,
                      Spectral_FloatTensor:$new_velocity);
  let assemblyFormat = "$param `,` $grad `,` $velocity (`lr` $lr^)? "
                       "(`lr_from` `(` $lr_value^ `:` type($lr_value) `)`)? "
                       "(`momentum` $momentum^)? (`weight_decay` $weight_decay^)? "
                       "(`nesterov` $nesterov^)? attr-dict `:` type($param)";
}

def Spectral_AdamStepOp : Spectral_Op<"adam_step",
    [Pure, InferTypeOpAdaptor, AllTypesMatch<["param", "grad", "m"]>]> {
  let summary = "Adam update with bias correction; `decoupled` makes it AdamW";
  let description = [{
    step is the 1-based step count t. Adam: g' = g + wd * p. AdamW: g' = g and
    p is first scaled by (1 - lr * wd). m' = b1 m + (1-b1) g';
    v' = b2 v + (1-b2) |g'|^2; p' = p - lr * (m'/(1-b1^t)) /
    (sqrt(v'/(1-b2^t)) + eps). Returns (p', m', v'); v is real. beta1 and
    beta2 must be in [0, 1) and eps >= 0. The learning rate is the attribute
    `lr 0.001` or a real 0-d tensor `lr_from(%lr : tensor<f32>)`, as for
    sgd_step.
  }];
  let arguments = (ins Spectral_FloatTensor:$param, Spectral_FloatTensor:$grad,
                       Spectral_FloatTensor:$m, Spectral_RealTensor:$v,
                       Spectral_LabelTensor:$step,
                       Optional<Spectral_RealTensor>:$lr_value,
                       OptionalAttr<F64Attr>:$lr,
                       DefaultValuedAttr<F64Attr, "0.9">:$beta1,
                       DefaultValuedAttr<F64Attr, "0.999">:$beta2,
                       DefaultValuedAttr<F64Attr, "1.0e-8">:$eps,
                       DefaultValuedAttr<F64Attr, "0.0">:$weight_decay,
                       UnitAttr:$decoupled);
  let results = (outs Spectral_FloatTensor:$new_param,
                      Spectral_FloatTensor:$new_m, Spectral_RealTensor:$new_v);
  let assemblyFormat =
      "$param `,` $grad `,` $m `,` $v `,` $step (`lr` $lr^)? "
      "(`lr_from` `(` $lr_value^ `:` type($lr_value) `)`)? "
      "(`beta1` $beta1^)? (`beta2` $beta2^)? (`eps` $eps^)? "
      "(`weight_decay` $weight_decay^)? (`decoupled` $decoupled^)? attr-dict "
      "`:` type($param) `,` type($v) `,` type($step)";
}

def Spectral_ClipGlobalNormOp : Spectral_Op<"clip_global_norm",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "scale all tensors by min(1, max_norm / global L2 norm)";
  let description = [{
    Returns the scaled tensors and the global norm before clipping (a 0-d
    tensor of the tensors' real element type).
  }];
  let arguments = (ins Variadic<Spectral_FloatTensor>:$inputs, F64Attr:$max_norm);
  let results = (outs Variadic<Spectral_FloatTensor>:$results,
                      Spectral_RealTensor:$norm);
  let assemblyFormat = "$inputs `max_norm` $max_norm attr-dict `:` type($inputs)";
}

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

def Spectral_FusionOp : Spectral_Op<"fusion",
    [IsolatedFromAbove, RecursiveMemoryEffects, SingleBlock]> {
  let summary = "a region that one generated kernel computes";
  let description = [{
    The body's block arguments take the inputs; spectral.yield gives the
    results. Isolated from above: everything the kernel reads is an input.
  }];
  let arguments = (ins Variadic<Spectral_AnyTensor>:$inputs);
  let results = (outs Variadic<Spectral_AnyTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat =
      "$inputs attr-dict `:` functional-type($inputs, $results) $body";
  let hasVerifier = 1;
}

def Spectral_YieldOp : Spectral_Op<"yield",
    [Pure, Terminator, ReturnLike, HasParent<"FusionOp">]> {
  let summary = "the results of a spectral.fusion region";
  let arguments = (ins Variadic<Spectral_AnyTensor>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

#endif // SPECTRAL_OPS_TD
