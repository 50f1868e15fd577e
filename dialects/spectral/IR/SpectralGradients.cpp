//===- SpectralGradients.cpp - vector-Jacobian rules of spectral ops ------===//
//
// DifferentiableOpInterface::buildGradients for every op that has one: given
// the gradients of an op's results, the gradients of its operands, built as
// more spectral ops (compiler/Autodiff assembles them into a backward graph).
//
// Convention (SpectralInterfaces.td): for a real loss L and a complex value
// z = x + iy the gradient is dL/dx + i dL/dy. A holomorphic f then passes
// g * conj(f'(z)) back, a product a * b gives g * conj(b) to a, and a linear
// map passes g through its adjoint: fft's is the unscaled inverse (norm
// backward <-> forward, ortho stays), rfft's is irfft of the half spectrum
// with its interior bins halved (each stands for itself and its mirror), and
// irfft's is rfft with its interior bins doubled. Operands that broadcast get
// the gradient summed over the broadcast axes.
//
//===----------------------------------------------------------------------===//
#include "dialects/spectral/IR/SpectralOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <cmath>
#include <complex>
#include <numeric>

namespace mlir::spectral {
namespace {

/// Builds the ops of one rule at the builder's insertion point and the op's location.
class Rule {
public:
  Rule(OpBuilder &builder, Operation *op) : b(builder), loc(op->getLoc()) {}

  static RankedTensorType type(Value v) { return cast<RankedTensorType>(v.getType()); }
  static bool isComplex(Value v) { return isa<ComplexType>(type(v).getElementType()); }
  static RankedTensorType withShape(Value v, ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, type(v).getElementType());
  }

  /// A constant of `t` from `values` (one value: a splat).
  Value constant(RankedTensorType t, ArrayRef<std::complex<double>> values) {
    return b.create<ConstantOp>(loc, t, cast<ElementsAttr>(constantElements(t, values)));
  }
  /// `value` in every element of `like`'s type.
  Value splat(Value like, double value) { return constant(type(like), {value}); }
  Value zeros(Value like) { return splat(like, 0.0); }

  Value neg(Value x) { return b.create<NegOp>(loc, x.getType(), x); }
  Value add(Value x, Value y) { return b.create<AddOp>(loc, x, y); }
  Value sub(Value x, Value y) { return b.create<SubOp>(loc, x, y); }
  Value mul(Value x, Value y) { return b.create<MulOp>(loc, x, y); }
  Value div(Value x, Value y) { return b.create<DivOp>(loc, x, y); }
  Value exp(Value x) { return b.create<ExpOp>(loc, x.getType(), x); }
  Value conj(Value x) { return isComplex(x) ? b.create<ConjOp>(loc, x.getType(), x) : x; }
  Value real(Value x) { return b.create<RealOp>(loc, x); }
  Value imag(Value x) { return b.create<ImagOp>(loc, x); }
  Value complex(Value re, Value im) { return b.create<ComplexOp>(loc, re, im); }
  Value cmp(CmpPredicate predicate, Value x, Value y) {
    return b.create<CmpOp>(loc, predicate, x, y);
  }
  Value select(Value cond, Value x, Value y) { return b.create<SelectOp>(loc, cond, x, y); }
  /// x with element type `element` (same shape).
  Value castTo(Value x, Type element) {
    if (type(x).getElementType() == element) return x;
    return b.create<CastOp>(loc, RankedTensorType::get(type(x).getShape(), element), x);
  }
  /// x times a real `scale` tensor that broadcasts to it (cast to x's element type).
  Value scaled(Value x, Value scale) { return mul(x, castTo(scale, type(x).getElementType())); }
  Value reshape(Value x, ArrayRef<int64_t> shape) {
    if (type(x).getShape() == shape) return x;
    return b.create<ReshapeOp>(loc, withShape(x, shape), x);
  }
  Value broadcastTo(Value x, ArrayRef<int64_t> shape) {
    if (type(x).getShape() == shape) return x;
    return b.create<BroadcastOp>(loc, withShape(x, shape), x);
  }
  Value sum(Value x, ArrayRef<int64_t> axes, bool keepdims) {
    return b.create<ReduceSumOp>(loc, x, b.getDenseI64ArrayAttr(axes),
                                 keepdims ? b.getUnitAttr() : UnitAttr());
  }
  Value transpose(Value x, ArrayRef<int64_t> perm) {
    return b.create<TransposeOp>(loc, x, b.getDenseI64ArrayAttr(perm));
  }
  Value slice(Value x, ArrayRef<int64_t> start, ArrayRef<int64_t> limit) {
    return b.create<SliceOp>(loc, x, b.getDenseI64ArrayAttr(start), b.getDenseI64ArrayAttr(limit),
                             DenseI64ArrayAttr());
  }
  Value pad(Value x, ArrayRef<int64_t> low, ArrayRef<int64_t> high) {
    return b.create<PadOp>(loc, x, b.getDenseI64ArrayAttr(low), b.getDenseI64ArrayAttr(high),
                           b.getF64FloatAttr(0.0));
  }

  /// The gradient `g` of a value that numpy-broadcast `target` to g's shape,
  /// summed back to `target`'s shape.
  Value unbroadcast(Value g, Value target) {
    ArrayRef<int64_t> from = type(g).getShape(), to = type(target).getShape();
    if (from == to) return g;
    const int64_t lead = int64_t(from.size()) - int64_t(to.size());
    SmallVector<int64_t> axes;
    for (int64_t i = 0; i < int64_t(from.size()); ++i)
      if (i < lead || (to[i - lead] == 1 && from[i] != 1)) axes.push_back(i);
    Value summed = axes.empty() ? g : sum(g, axes, /*keepdims=*/true);
    return reshape(summed, to);
  }

  /// The gradient `g` of a reduction of x over `axes` (without keepdims when
  /// `dropped`), spread over x's shape.
  Value spread(Value g, Value x, ArrayRef<int64_t> axes) {
    SmallVector<int64_t> kept(type(x).getShape());
    for (int64_t axis : axes) kept[axis] = 1;
    return broadcastTo(reshape(g, kept), type(x).getShape());
  }

  /// The transform `T` of x over `axes` with the adjoint's normalization.
  template <typename T> Value transform(Value x, ArrayRef<int64_t> axes, Norm norm) {
    return b.create<T>(loc, x.getType(), x, b.getDenseI64ArrayAttr(axes), adjoint(norm));
  }
  /// The normalization of a transform's adjoint: backward and forward swap.
  NormAttr adjoint(Norm norm) {
    return NormAttr::get(b.getContext(), norm == Norm::backward  ? Norm::forward
                                         : norm == Norm::forward ? Norm::backward
                                                                 : norm);
  }

  /// x times a weight per bin of a half spectrum of a real length n along
  /// `axis`: `edge` at bin 0 (and bin n/2 for even n), `interior` elsewhere.
  Value halfSpectrumWeighted(Value x, int64_t axis, int64_t n, double edge, double interior) {
    const int64_t bins = type(x).getDimSize(axis);
    SmallVector<int64_t> shape(type(x).getRank(), 1);
    shape[axis] = bins;
    std::vector<std::complex<double>> weights(bins, interior);
    weights[0] = edge;
    if (n % 2 == 0) weights[bins - 1] = edge;
    return mul(x, constant(withShape(x, shape), weights));
  }

  OpBuilder &b;
  Location loc;
};

/// The permutation of `rank` axes that swaps axes `a` and `b`.
SmallVector<int64_t> swapAxes(int64_t rank, int64_t a, int64_t b) {
  SmallVector<int64_t> perm(rank);
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[a], perm[b]);
  return perm;
}

} // namespace

//===----------------------------------------------------------------------===//
// Pointwise
//===----------------------------------------------------------------------===//

LogicalResult NegOp::buildGradients(OpBuilder &b, ValueRange g, SmallVectorImpl<Value> &out) {
  out.push_back(Rule(b, *this).neg(g[0]));
  return success();
}

LogicalResult ExpOp::buildGradients(OpBuilder &b, ValueRange g, SmallVectorImpl<Value> &out) {
  Rule r(b, *this);
  out.push_back(r.mul(g[0], r.conj(getResult())));
  return success();
}

LogicalResult LogOp::buildGradients(OpBuilder &b, ValueRange g, SmallVectorImpl<Value> &out) {
  Rule r(b, *this);
  out.push_back(r.div(g[0], r.conj(getX())));
  return success();
}

LogicalResult SqrtOp::buildGradients(OpBuilder &b, ValueRange g, SmallVectorImpl<Value> &out) {
  Rule r(b, *this);
  Value y = getResult();
  out.push_back(r.div(g[0], r.mul(r.conj(y), r.splat(y, 2.0))));
  return success();
}

LogicalResult TanhOp::buildGradients(OpBuilder &b, ValueRange g, SmallVectorImpl<Value> &out) {
  Rule r(b, *this);
  Value y = getResult();
  out.push_back(r.mul(g[0], r.conj(r.sub(r.splat(y, 1.0), r.mul(y, y)))));
  return success();
}

LogicalResult ReluOp::buildGradients(OpBuilder &b, ValueRange g, SmallVectorImpl<Value> &out) {
  Rule r(b, *this);
  Value x = getX();
  out.push_back(r.select(r.cmp(CmpPredicate::gt, x, r.zeros(x)), g[0], r.zeros(x)));
  return success();
}

LogicalResult GeluOp::buildGradients(OpBuilder &b, ValueRange g, SmallVectorImpl<Value> &out) {
  // gelu(x) = x Phi(x): gelu'(x) = Phi(x) + x phi(x), Phi(x) = gelu(x) / x
  // (1/2 at 0), phi(x) = exp(-x^2 / 2) / sqrt(2 pi).
  Rule r(b, *this);
  Value x = getX(), y = getResult();
  Value cdf = r.select(r.cmp(CmpPredicate::ne, x, r.zeros(x)), r.div(y, x), r.splat(x, 0.5));
  Value pdf = r.mul(r.exp(r.mul(r.mul(x, x), r.splat(x, -0.5))),
                    r.splat(x, 1.0 / std::sqrt(2.0 * M_PI)));
  out.push_back(r.mul(g[0], r.add(cdf, r.mul(x, pdf))));
  return success();
}

LogicalResult SigmoidOp::buildGradients(OpBuilder &b, ValueRange g,
                                        SmallVectorImpl<Value> &out) {
  Rule r(b, *this);
  Value y = getResult();
  out.push_back(r.mul(g[0], r.mul(y, r.sub(r.splat(y, 1.0), y))));
  return success();
}

LogicalResult ConjOp::buildGradients(OpBuilder &b, ValueRange g, SmallVectorImpl<Value> &out) {
  out.push_back(Rule(b, *this).conj(g[0]));
  return success();
}

LogicalResult AbsOp::buildGradients(OpBuilder &b, ValueRange g, SmallVectorImpl<Value> &out) {
  Rule r(b, *this);
  Value x = getX(), y = getResult();
  if (!Rule::isComplex(x)) {
    // sign(x) * g, 0 at 0.
    Value negative = r.select(r.cmp(CmpPredicate::lt, x, r.zeros(x)), r.neg(g[0]), r.zeros(x));
    out.push_back(r.select(r.cmp(CmpPredicate::gt, x, r.zeros(x)), g[0], negative));
    return success();
  }
  // z / |z| * g, 0 at z = 0.
  Value nonzero = r.cmp(CmpPredicate::gt, y, r.zeros(y));
  Value modulus = r.complex(r.select(nonzero, y, r.splat(y, 1.0)), r.zeros(y));
  Value unit = r.div(x, modulus);
  out.push_back(r.select(nonzero, r.mul(unit, r.complex(g[0], r.zeros(y))), r.zeros(x)));
  return success();
}

LogicalResult RealOp::buildGradients(OpBuilder &b, ValueRange g, SmallVectorImpl<Value> &out) {
  Rule r(b, *this);
  out.push_back(r.complex(g[0], r.zeros(g[0])));
  return success();
}

LogicalResult ImagOp::buildGradients(OpBuilder &b, ValueRange g, SmallVectorImpl<Value> &out) {
  Rule r(b, *this);
  out.push_back(r.complex(r.zeros(g[0]), g[0]));
  return success();
}

LogicalResult AddOp::buildGradients(OpBuilder &b, ValueRange g, SmallVectorImpl<Value> &out) {
  Rule r(b, *this);
  out.push_back(r.unbroadcast(g[0], getLhs()));
  out.push_back(r.unbroadcast(g[0], getRhs()));
  return success();
}

LogicalResult SubOp::buildGradients(OpBuilder &b, ValueRange g, SmallVectorImpl<Value> &out) {
  Rule r(b, *this);
  out.push_back(r.unbroadcast(g[0], getLhs()));
  out.push_back(r.unbroadcast(r.neg(g[0]), getRhs()));
  return success();
}

LogicalResult MulOp::buildGradients(OpBuilder &b, ValueRange g, SmallVectorImpl<Value> &out) {
  Rule r(b, *this);
  out.push_back(r.unbroadcast(r.mul(g[0], r.conj(getRhs())), getLhs()));
  out.push_back(r.unbroadcast(r.mul(g[0], r.conj(getLhs())), getRhs()));
  return success();
}

LogicalResult DivOp::buildGradients(OpBuilder &b, ValueRange g, SmallVectorImpl<Value> &out) {
  // d(a / b) = da / b - (a / b^2) db.
  Rule r(b, *this);
  Value rhs = getRhs();
  out.push_back(r.unbroadcast(r.div(g[0], r.conj(rhs)), getLhs()));
  out.push_back(r.unbroadcast(r.neg(r.mul(g[0], r.conj(r.div(getResult(), rhs)))), rhs));
  return success();
}

LogicalResult ComplexOp::buildGradients(OpBuilder &b, ValueRange g,
                                        SmallVectorImpl<Value> &out) {
  Rule r(b, *this);
  out.push_back(r.unbroadcast(r.real(g[0]), getLhs()));
  out.push_back(r.unbroadcast(r.imag(g[0]), getRhs()));
  return success();
}

LogicalResult SelectOp::buildGradients(OpBuilder &b, ValueRange g,
                                       SmallVectorImpl<Value> &out) {
  Rule r(b, *this);
  Value cond = getCond();
  out.push_back(Value()); // a condition has no gradient
  out.push_back(r.unbroadcast(r.select(cond, g[0], r.zeros(g[0])), getA()));
  out.push_back(r.unbroadcast(r.select(cond, r.zeros(g[0]), g[0]), getB()));
  return success();
}

LogicalResult CastOp::buildGradients(OpBuilder &b, ValueRange g, SmallVectorImpl<Value> &out) {
  Rule r(b, *this);
  Type from = Rule::type(getX()).getElementType(), to = Rule::type(getResult()).getElementType();
  if (isa<IntegerType>(from) || isa<IntegerType>(to)) {
    out.push_back(Value()); // through integers nothing is differentiable
    return success();
  }
  // Real to complex: only the real part came from x.
  Value grad = isa<ComplexType>(to) && !isa<ComplexType>(from) ? r.real(g[0]) : g[0];
  out.push_back(r.castTo(grad, from));
  return success();
}

//===----------------------------------------------------------------------===//
// Transforms
//===----------------------------------------------------------------------===//

LogicalResult FftOp::buildGradients(OpBuilder &b, ValueRange g, SmallVectorImpl<Value> &out) {
  out.push_back(Rule(b, *this).transform<IfftOp>(g[0], getAxes(), getNorm()));
  return success();
}

LogicalResult IfftOp::buildGradients(OpBuilder &b, ValueRange g, SmallVectorImpl<Value> &out) {
  out.push_back(Rule(b, *this).transform<FftOp>(g[0], getAxes(), getNorm()));
  return success();
}

LogicalResult RfftOp::buildGradients(OpBuilder &b, ValueRange g, SmallVectorImpl<Value> &out) {
  // The adjoint of the half spectrum: interior bins count for their mirror
  // too, so irfft (which doubles them) gets them halved.
  Rule r(b, *this);
  const int64_t axis = getAxes().back(), n = Rule::type(getX()).getDimSize(axis);
  Value weighted = r.halfSpectrumWeighted(g[0], axis, n, 1.0, 0.5);
  out.push_back(b.create<IrfftOp>(getLoc(), weighted, b.getDenseI64ArrayAttr(getAxes()),
                                  b.getI64IntegerAttr(n), r.adjoint(getNorm())));
  return success();
}

LogicalResult IrfftOp::buildGradients(OpBuilder &b, ValueRange g, SmallVectorImpl<Value> &out) {
  // irfft reads each interior bin twice (for itself and its mirror) and only
  // the real part of bin 0 and of bin n/2.
  Rule r(b, *this);
  Value spectrum = b.create<RfftOp>(getLoc(), g[0], b.getDenseI64ArrayAttr(getAxes()),
                                    r.adjoint(getNorm()));
  const int64_t axis = getAxes().back(), n = int64_t(getLength());
  out.push_back(r.halfSpectrumWeighted(spectrum, axis, n, 1.0, 2.0));
  return success();
}

namespace {

/// The DCT family's adjoints. With C2 and C3 the unscaled DCT-II and DCT-III
/// matrices (scipy's), C2^T = C3 D and C3^T = H C2, where D doubles and H
/// halves bin 0: a type-2 dct (or type-3 idct) takes the gradient doubled at
/// bin 0 (along each axis) into the other type's transform, a type-3 dct (or
/// type-2 idct) halves bin 0 of its result. Orthonormal DCTs are orthogonal:
/// their adjoint is their inverse.
template <typename Adjoint, typename Op>
Value dctAdjoint(OpBuilder &b, Op op, Value g, bool doubleBefore) {
  Rule r(b, op);
  const Norm norm = op.getNorm();
  auto transform = [&](Value x) {
    return b.create<Adjoint>(op.getLoc(), x.getType(), x, b.getDenseI64ArrayAttr(op.getAxes()),
                             b.getI64IntegerAttr(op.getDctType()), r.adjoint(norm));
  };
  if (norm == Norm::ortho) return transform(g);
  // The weight of each element: the product over the axes of (factor at 0, else 1).
  RankedTensorType type = Rule::type(g);
  SmallVector<int64_t> shape(type.getRank(), 1);
  for (int64_t axis : op.getAxes()) shape[axis] = type.getDimSize(axis);
  const double factor = doubleBefore ? 2.0 : 0.5;
  std::vector<std::complex<double>> weights(RankedTensorType::get(shape, b.getF64Type()).getNumElements(), 1.0);
  for (size_t e = 0; e < weights.size(); ++e) {
    int64_t rest = int64_t(e);
    for (int64_t d = type.getRank() - 1; d >= 0; rest /= shape[d], --d)
      if (rest % shape[d] == 0 && llvm::is_contained(op.getAxes(), d)) weights[e] *= factor;
  }
  Value weight = r.constant(Rule::withShape(g, shape), weights);
  return doubleBefore ? transform(r.mul(g, weight)) : r.mul(transform(g), weight);
}

} // namespace

LogicalResult DctOp::buildGradients(OpBuilder &b, ValueRange g, SmallVectorImpl<Value> &out) {
  out.push_back(dctAdjoint<IdctOp>(b, *this, g[0], /*doubleBefore=*/getDctType() == 2));
  return success();
}

LogicalResult IdctOp::buildGradients(OpBuilder &b, ValueRange g, SmallVectorImpl<Value> &out) {
  out.push_back(dctAdjoint<DctOp>(b, *this, g[0], /*doubleBefore=*/getDctType() == 3));
  return success();
}

//===----------------------------------------------------------------------===//
// Sparse modes
//===----------------------------------------------------------------------===//

LogicalResult TopkModesOp::buildGradients(OpBuilder &b, ValueRange g,
                                          SmallVectorImpl<Value> &out) {
  // The values' gradient goes back to the positions they were taken from.
  out.push_back(b.create<ScatterOp>(getLoc(), getX().getType(), g[0], getIndices()));
  return success();
}

LogicalResult GatherOp::buildGradients(OpBuilder &b, ValueRange g, SmallVectorImpl<Value> &out) {
  // Added up where an index repeats (scatter accumulates); -1 takes nothing.
  out.push_back(b.create<ScatterOp>(getLoc(), getX().getType(), g[0], getIndices()));
  out.push_back(Value()); // indices
  return success();
}

LogicalResult ScatterOp::buildGradients(OpBuilder &b, ValueRange g,
                                        SmallVectorImpl<Value> &out) {
  out.push_back(b.create<GatherOp>(getLoc(), g[0], getIndices()));
  out.push_back(Value()); // indices
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

LogicalResult ReduceSumOp::buildGradients(OpBuilder &b, ValueRange g,
                                          SmallVectorImpl<Value> &out) {
  out.push_back(Rule(b, *this).spread(g[0], getX(), getAxes()));
  return success();
}

LogicalResult ReduceMeanOp::buildGradients(OpBuilder &b, ValueRange g,
                                           SmallVectorImpl<Value> &out) {
  Rule r(b, *this);
  double count = 1;
  for (int64_t axis : getAxes()) count *= double(Rule::type(getX()).getDimSize(axis));
  Value spread = r.spread(g[0], getX(), getAxes());
  out.push_back(r.mul(spread, r.splat(spread, 1.0 / count)));
  return success();
}

LogicalResult ReduceMaxOp::buildGradients(OpBuilder &b, ValueRange g,
                                          SmallVectorImpl<Value> &out) {
  // Shared evenly by the elements equal to the maximum (as torch.amax).
  Rule r(b, *this);
  Value x = getX();
  Value atMax = r.castTo(r.cmp(CmpPredicate::eq, x, r.spread(getResult(), x, getAxes())),
                       Rule::type(x).getElementType());
  Value count = r.spread(r.sum(atMax, getAxes(), /*keepdims=*/true), x, getAxes());
  out.push_back(r.div(r.mul(r.spread(g[0], x, getAxes()), atMax), count));
  return success();
}

LogicalResult SoftmaxOp::buildGradients(OpBuilder &b, ValueRange g,
                                        SmallVectorImpl<Value> &out) {
  // y (g - sum(g y)).
  Rule r(b, *this);
  Value y = getResult();
  int64_t axis = int64_t(getAxis());
  Value dot = r.spread(r.sum(r.mul(g[0], y), {axis}, true), y, {axis});
  out.push_back(r.mul(y, r.sub(g[0], dot)));
  return success();
}

LogicalResult LogSoftmaxOp::buildGradients(OpBuilder &b, ValueRange g,
                                           SmallVectorImpl<Value> &out) {
  // g - softmax(x) sum(g), softmax(x) = exp(y).
  Rule r(b, *this);
  int64_t axis = int64_t(getAxis());
  Value total = r.spread(r.sum(g[0], {axis}, true), getResult(), {axis});
  out.push_back(r.sub(g[0], r.mul(r.exp(getResult()), total)));
  return success();
}

//===----------------------------------------------------------------------===//
// Shape
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::buildGradients(OpBuilder &b, ValueRange g,
                                        SmallVectorImpl<Value> &out) {
  out.push_back(Rule(b, *this).reshape(g[0], Rule::type(getX()).getShape()));
  return success();
}

LogicalResult TransposeOp::buildGradients(OpBuilder &b, ValueRange g,
                                          SmallVectorImpl<Value> &out) {
  ArrayRef<int64_t> perm = getPerm();
  SmallVector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = int64_t(i);
  out.push_back(Rule(b, *this).transpose(g[0], inverse));
  return success();
}

LogicalResult BroadcastOp::buildGradients(OpBuilder &b, ValueRange g,
                                          SmallVectorImpl<Value> &out) {
  out.push_back(Rule(b, *this).unbroadcast(g[0], getX()));
  return success();
}

LogicalResult SliceOp::buildGradients(OpBuilder &b, ValueRange g, SmallVectorImpl<Value> &out) {
  // Zeros around the slice, and between its elements along a strided axis:
  // there [n] becomes [n, 1], padded to [n, stride], flattened to
  // [n * stride] and cut where the operand ends.
  Rule r(b, *this);
  ArrayRef<int64_t> shape = Rule::type(getX()).getShape(), start = getStart();
  std::optional<ArrayRef<int64_t>> stride = getStride();
  Value grad = g[0];
  for (int64_t d = 0; stride && d < int64_t(shape.size()); ++d) {
    const int64_t step = (*stride)[d];
    if (step == 1) continue;
    SmallVector<int64_t> sliced(Rule::type(grad).getShape());
    const int64_t n = sliced[d];
    SmallVector<int64_t> spread(sliced);
    spread.insert(spread.begin() + d + 1, 1);
    SmallVector<int64_t> none(spread.size(), 0), gaps(spread.size(), 0);
    gaps[d + 1] = step - 1;
    Value padded = r.pad(r.reshape(grad, spread), none, gaps);
    sliced[d] = n * step;
    grad = r.reshape(padded, sliced);
    if (n * step > shape[d] - start[d]) {  // the gap after the last element runs past the end
      SmallVector<int64_t> from(sliced.size(), 0), to(sliced);
      to[d] = shape[d] - start[d];
      grad = r.slice(grad, from, to);
    }
  }
  SmallVector<int64_t> high;
  for (size_t d = 0; d < shape.size(); ++d)
    high.push_back(shape[d] - start[d] - Rule::type(grad).getDimSize(d));
  out.push_back(r.pad(grad, start, high));
  return success();
}

LogicalResult PadOp::buildGradients(OpBuilder &b, ValueRange g, SmallVectorImpl<Value> &out) {
  ArrayRef<int64_t> shape = Rule::type(getX()).getShape(), low = getLow();
  SmallVector<int64_t> limit;
  for (size_t d = 0; d < shape.size(); ++d) limit.push_back(low[d] + shape[d]);
  out.push_back(Rule(b, *this).slice(g[0], low, limit));
  return success();
}

LogicalResult ConcatOp::buildGradients(OpBuilder &b, ValueRange g, SmallVectorImpl<Value> &out) {
  Rule r(b, *this);
  const int64_t axis = int64_t(getAxis());
  SmallVector<int64_t> start(Rule::type(g[0]).getRank(), 0);
  SmallVector<int64_t> limit(Rule::type(g[0]).getShape());
  for (Value input : getInputs()) {
    limit[axis] = start[axis] + Rule::type(input).getDimSize(axis);
    out.push_back(r.slice(g[0], start, limit));
    start[axis] = limit[axis];
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Contractions and losses
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::buildGradients(OpBuilder &b, ValueRange g,
                                       SmallVectorImpl<Value> &out) {
  // dA = g B^H, dB = A^H g, each summed over the batch dims it broadcast along.
  Rule r(b, *this);
  Value lhs = getLhs(), rhs = getRhs();
  const int64_t rl = Rule::type(lhs).getRank(), rr = Rule::type(rhs).getRank();
  Value rhsH = r.conj(r.transpose(rhs, swapAxes(rr, rr - 1, rr - 2)));
  Value lhsH = r.conj(r.transpose(lhs, swapAxes(rl, rl - 1, rl - 2)));
  out.push_back(r.unbroadcast(b.create<MatmulOp>(getLoc(), g[0], rhsH), lhs));
  out.push_back(r.unbroadcast(b.create<MatmulOp>(getLoc(), lhsH, g[0]), rhs));
  return success();
}

LogicalResult ChannelMixOp::buildGradients(OpBuilder &b, ValueRange g,
                                           SmallVectorImpl<Value> &out) {
  // y[b,o,s] = sum_i x[b,i,s] w[i,o,s]: dx = mix(g, w^H over (i, o)),
  // dw[i,o,s] = sum_b conj(x[b,i,s]) g[b,o,s] = mix(x^H over (b, i), g).
  Rule r(b, *this);
  Value x = getX(), w = getWeights();
  Value wH = r.conj(r.transpose(w, swapAxes(Rule::type(w).getRank(), 0, 1)));
  Value xH = r.conj(r.transpose(x, swapAxes(Rule::type(x).getRank(), 0, 1)));
  out.push_back(b.create<ChannelMixOp>(getLoc(), g[0], wH));
  out.push_back(b.create<ChannelMixOp>(getLoc(), xH, g[0]));
  return success();
}

LogicalResult CrossEntropyOp::buildGradients(OpBuilder &b, ValueRange g,
                                             SmallVectorImpl<Value> &out) {
  // (softmax(logits) - onehot(labels)) * g / rows.
  Rule r(b, *this);
  Value logits = getLogits(), labels = getLabels();
  const int64_t rows = Rule::type(logits).getDimSize(0), classes = Rule::type(logits).getDimSize(1);
  std::vector<std::complex<double>> classIndex(classes);
  for (int64_t c = 0; c < classes; ++c) classIndex[c] = double(c);
  Value column = r.reshape(labels, {rows, 1});
  Value onehot = r.castTo(r.cmp(CmpPredicate::eq, column,
                              r.constant(Rule::withShape(labels, {1, classes}), classIndex)),
                        Rule::type(logits).getElementType());
  Value probabilities = b.create<SoftmaxOp>(getLoc(), logits.getType(), logits,
                                            b.getI64IntegerAttr(1));
  Value perRow = r.mul(g[0], r.constant(Rule::type(g[0]), {1.0 / double(rows)}));
  out.push_back(r.mul(r.sub(probabilities, onehot), perRow));
  out.push_back(Value()); // labels
  return success();
}

LogicalResult MseOp::buildGradients(OpBuilder &b, ValueRange g, SmallVectorImpl<Value> &out) {
  // mean |p - t|^2: 2 (p - t) g / count to p, its negative to t.
  Rule r(b, *this);
  Value p = getPrediction(), t = getTarget();
  const double count = double(Rule::type(p).getNumElements());
  Value factor = r.mul(g[0], r.constant(Rule::type(g[0]), {2.0 / count}));
  Value gp = r.scaled(r.sub(p, t), factor);
  out.push_back(gp);
  out.push_back(r.neg(gp));
  return success();
}

} // namespace mlir::spectral
