//===- SpectralFolds.cpp - folds of the spectral dialect ------------------===//
//
// Algebraic identities (x + 0, neg(neg x), ifft(fft x), ...) and constant
// folding of pointwise ops. Constant folding computes in double / complex
// double and rounds to the result's element type; it runs when every operand
// is a splat, or when the result has at most kMaxFoldedElements elements.
//
//===----------------------------------------------------------------------===//
#include "dialects/spectral/IR/SpectralOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <complex>
#include <optional>

using namespace mlir;
using namespace mlir::spectral;

namespace {

using Num = std::complex<double>;

/// Constant folding beyond this many result elements is left to the runtime.
constexpr int64_t kMaxFoldedElements = 4096;

/// Integers are folded only while double holds them exactly.
constexpr double kMaxExactInteger = 9007199254740992.0; // 2^53

/// The elements of a dense constant as complex doubles (one when splat).
std::optional<SmallVector<Num>> readElements(Attribute attr) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense)
    return std::nullopt;
  Type element = dense.getElementType();
  int64_t count = dense.isSplat() ? 1 : dense.getNumElements();
  SmallVector<Num> out;
  out.reserve(count);
  if (isa<FloatType>(element)) {
    auto values = dense.getValues<APFloat>();
    for (int64_t i = 0; i < count; ++i)
      out.emplace_back(values[i].convertToDouble(), 0.0);
  } else if (isa<ComplexType>(element)) {
    auto values = dense.getValues<std::complex<APFloat>>();
    for (int64_t i = 0; i < count; ++i) {
      std::complex<APFloat> v = values[i];
      out.emplace_back(v.real().convertToDouble(), v.imag().convertToDouble());
    }
  } else if (auto integer = dyn_cast<IntegerType>(element)) {
    auto values = dense.getValues<APInt>();
    for (int64_t i = 0; i < count; ++i) {
      double v = integer.getWidth() == 1
                     ? (double)values[i].getZExtValue()
                     : (double)values[i].getSExtValue();
      if (std::abs(v) >= kMaxExactInteger)
        return std::nullopt;
      out.emplace_back(v, 0.0);
    }
  } else {
    return std::nullopt;
  }
  return out;
}

APFloat toFloat(double value, Type type) {
  APFloat result(value);
  bool lost = false;
  result.convert(cast<FloatType>(type).getFloatSemantics(),
                 APFloat::rmNearestTiesToEven, &lost);
  return result;
}

/// A dense attribute of `type` from complex doubles (one value = splat), or
/// nothing when an integer result is not exact in double (or not a number).
/// Integers truncate toward zero and wrap to their width; i1 is "not zero"
/// before any truncation (0.5 and NaN are true), as numpy's astype(bool).
Attribute writeElements(RankedTensorType type, ArrayRef<Num> values) {
  Type element = type.getElementType();
  if (auto complex = dyn_cast<ComplexType>(element)) {
    SmallVector<std::complex<APFloat>> out;
    for (Num v : values)
      out.emplace_back(toFloat(v.real(), complex.getElementType()),
                       toFloat(v.imag(), complex.getElementType()));
    return DenseElementsAttr::get(type, out);
  }
  if (isa<FloatType>(element)) {
    SmallVector<APFloat> out;
    for (Num v : values)
      out.push_back(toFloat(v.real(), element));
    return DenseElementsAttr::get(type, out);
  }
  auto integer = cast<IntegerType>(element);
  SmallVector<APInt> out;
  for (Num v : values) {
    if (integer.getWidth() == 1) {
      out.emplace_back(1, v.real() != 0.0);
      continue;
    }
    double real = std::trunc(v.real());
    if (!(std::abs(real) < kMaxExactInteger))
      return {};
    out.emplace_back(integer.getWidth(), (int64_t)real, /*isSigned=*/true);
  }
  return DenseElementsAttr::get(type, out);
}

/// The element function of a pointwise op; `element` is the result's element
/// type. Returns nothing to refuse (for instance an integer division by 0).
using ElementFn = function_ref<std::optional<Num>(ArrayRef<Num>, Type element)>;

/// Folds a pointwise op whose operands are all constants.
Attribute foldPointwise(ArrayRef<Attribute> operands, Type resultType,
                        ElementFn fn) {
  auto type = dyn_cast<RankedTensorType>(resultType);
  if (!type || !type.hasStaticShape())
    return {};
  SmallVector<SmallVector<Num>> inputs;
  SmallVector<ArrayRef<int64_t>> shapes;
  bool allSplat = true;
  for (Attribute attr : operands) {
    std::optional<SmallVector<Num>> values = readElements(attr);
    if (!values)
      return {};
    auto dense = cast<DenseElementsAttr>(attr);
    allSplat &= dense.isSplat();
    shapes.push_back(dense.getType().getShape());
    inputs.push_back(std::move(*values));
  }
  std::optional<int64_t> count =
      allSplat ? 1 : checkedElementCount(type.getShape());
  if (!count || *count > kMaxFoldedElements)
    return {};
  SmallVector<Num> out, args(inputs.size());
  for (int64_t i = 0; i < *count; ++i) {
    for (size_t k = 0; k < inputs.size(); ++k)
      args[k] = inputs[k].size() == 1
                    ? inputs[k][0]
                    : inputs[k][broadcastSourceIndex(type.getShape(), shapes[k], i)];
    std::optional<Num> value = fn(args, type.getElementType());
    if (!value)
      return {};
    out.push_back(*value);
  }
  return writeElements(type, out);
}

/// True when `attr` is a constant whose every element equals `value`.
bool isSplatOf(Attribute attr, double value) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense || !dense.isSplat())
    return false;
  std::optional<SmallVector<Num>> values = readElements(dense);
  return values && (*values)[0] == Num(value, 0.0);
}

bool isIntegerElement(Type element) { return isa<IntegerType>(element); }

/// Same axes, in any order.
bool sameAxes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  SmallVector<int64_t> x(a), y(b);
  llvm::sort(x);
  llvm::sort(y);
  return x == y;
}

/// A unary element function that ignores the result element type.
template <typename F>
Attribute foldUnary(Attribute operand, Type resultType, F f) {
  return foldPointwise({operand}, resultType,
                       [&](ArrayRef<Num> a, Type) -> std::optional<Num> {
                         return f(a[0]);
                       });
}

} // namespace

Attribute mlir::spectral::constantElements(RankedTensorType type,
                                           ArrayRef<std::complex<double>> values) {
  return writeElements(type, values);
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

//===----------------------------------------------------------------------===//
// Unary pointwise
//===----------------------------------------------------------------------===//

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  if (auto inner = getX().getDefiningOp<NegOp>())
    return inner.getX();
  return foldUnary(adaptor.getX(), getType(), [](Num x) { return -x; });
}

OpFoldResult ConjOp::fold(FoldAdaptor adaptor) {
  if (auto inner = getX().getDefiningOp<ConjOp>())
    return inner.getX();
  return foldUnary(adaptor.getX(), getType(), [](Num x) { return std::conj(x); });
}

OpFoldResult ExpOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getX(), getType(), [](Num x) { return std::exp(x); });
}

OpFoldResult LogOp::fold(FoldAdaptor adaptor) {
  bool real = !isa<ComplexType>(getElementTypeOrSelf(getType()));
  return foldUnary(adaptor.getX(), getType(), [&](Num x) {
    return real ? Num(std::log(x.real())) : std::log(x);
  });
}

OpFoldResult SqrtOp::fold(FoldAdaptor adaptor) {
  bool real = !isa<ComplexType>(getElementTypeOrSelf(getType()));
  return foldUnary(adaptor.getX(), getType(), [&](Num x) {
    return real ? Num(std::sqrt(x.real())) : std::sqrt(x);
  });
}

OpFoldResult TanhOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getX(), getType(), [](Num x) { return std::tanh(x); });
}

OpFoldResult ReluOp::fold(FoldAdaptor adaptor) {
  // NaN propagates, as in torch.relu and the reference evaluator.
  return foldUnary(adaptor.getX(), getType(), [](Num x) {
    return Num(std::isnan(x.real()) || x.real() > 0 ? x.real() : 0.0);
  });
}

OpFoldResult GeluOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getX(), getType(), [](Num x) {
    return Num(0.5 * x.real() * (1.0 + std::erf(x.real() / std::sqrt(2.0))));
  });
}

OpFoldResult SigmoidOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getX(), getType(),
                   [](Num x) { return Num(1.0 / (1.0 + std::exp(-x.real()))); });
}

OpFoldResult AbsOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getX(), getType(), [](Num x) { return Num(std::abs(x)); });
}

OpFoldResult RealOp::fold(FoldAdaptor adaptor) {
  if (auto complex = getX().getDefiningOp<ComplexOp>())
    if (complex.getLhs().getType() == getType())
      return complex.getLhs();
  return foldUnary(adaptor.getX(), getType(), [](Num x) { return Num(x.real()); });
}

OpFoldResult ImagOp::fold(FoldAdaptor adaptor) {
  if (auto complex = getX().getDefiningOp<ComplexOp>())
    if (complex.getRhs().getType() == getType())
      return complex.getRhs();
  return foldUnary(adaptor.getX(), getType(), [](Num x) { return Num(x.imag()); });
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getX().getType() == getType())
    return getX();
  return foldUnary(adaptor.getX(), getType(), [](Num x) { return x; });
}

//===----------------------------------------------------------------------===//
// Binary pointwise
//===----------------------------------------------------------------------===//

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 0) && getLhs().getType() == getType())
    return getLhs();
  if (isSplatOf(adaptor.getLhs(), 0) && getRhs().getType() == getType())
    return getRhs();
  return foldPointwise(adaptor.getOperands(), getType(),
                       [](ArrayRef<Num> a, Type) -> std::optional<Num> {
                         return a[0] + a[1];
                       });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 0) && getLhs().getType() == getType())
    return getLhs();
  return foldPointwise(adaptor.getOperands(), getType(),
                       [](ArrayRef<Num> a, Type) -> std::optional<Num> {
                         return a[0] - a[1];
                       });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 1) && getLhs().getType() == getType())
    return getLhs();
  if (isSplatOf(adaptor.getLhs(), 1) && getRhs().getType() == getType())
    return getRhs();
  // x * 0 = 0 for reals and integers (the NaN, infinity and -0 cases of IEEE
  // are given up, as in fast-math); complex products are left alone.
  if (!isa<ComplexType>(getElementTypeOrSelf(getType())))
    for (Attribute operand : adaptor.getOperands())
      if (isSplatOf(operand, 0))
        return DenseElementsAttr::get(
            cast<ShapedType>(getType()),
            cast<DenseElementsAttr>(operand).getSplatValue<Attribute>());
  return foldPointwise(adaptor.getOperands(), getType(),
                       [](ArrayRef<Num> a, Type) -> std::optional<Num> {
                         return a[0] * a[1];
                       });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 1) && getLhs().getType() == getType())
    return getLhs();
  return foldPointwise(adaptor.getOperands(), getType(),
                       [](ArrayRef<Num> a, Type element) -> std::optional<Num> {
                         if (!isIntegerElement(element))
                           return a[0] / a[1];
                         if (a[1] == Num(0))
                           return std::nullopt;
                         return Num(std::trunc(a[0].real() / a[1].real()));
                       });
}

OpFoldResult ComplexOp::fold(FoldAdaptor adaptor) {
  return foldPointwise(adaptor.getOperands(), getType(),
                       [](ArrayRef<Num> a, Type) -> std::optional<Num> {
                         return Num(a[0].real(), a[1].real());
                       });
}

//===----------------------------------------------------------------------===//
// Transforms: a transform followed by its inverse is the identity
//===----------------------------------------------------------------------===//

template <typename Inner, typename Outer>
static Value foldInversePair(Outer outer) {
  auto inner = outer.getX().template getDefiningOp<Inner>();
  if (!inner || !sameAxes(inner.getAxes(), outer.getAxes()) ||
      inner.getNorm() != outer.getNorm() ||
      inner.getX().getType() != outer.getType())
    return {};
  return inner.getX();
}

OpFoldResult FftOp::fold(FoldAdaptor) { return foldInversePair<IfftOp>(*this); }
OpFoldResult IfftOp::fold(FoldAdaptor) { return foldInversePair<FftOp>(*this); }

OpFoldResult IrfftOp::fold(FoldAdaptor) {
  // Same axes with the real length equal to the original one: the result type
  // check inside foldInversePair covers the length.
  return foldInversePair<RfftOp>(*this);
}

OpFoldResult DctOp::fold(FoldAdaptor) {
  if (auto inner = getX().getDefiningOp<IdctOp>())
    if (inner.getDctType() == getDctType())
      return foldInversePair<IdctOp>(*this);
  return {};
}

OpFoldResult IdctOp::fold(FoldAdaptor) {
  if (auto inner = getX().getDefiningOp<DctOp>())
    if (inner.getDctType() == getDctType())
      return foldInversePair<DctOp>(*this);
  return {};
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

/// cross_entropy(log_softmax(x) along the classes) = cross_entropy(x): the
/// log-sum-exp of log-probabilities is 0, so the loss of each row is
/// lse(x) - x[label] either way. Folded in place: the softmax kernel goes.
OpFoldResult CrossEntropyOp::fold(FoldAdaptor) {
  auto logSoftmax = getLogits().getDefiningOp<LogSoftmaxOp>();
  if (!logSoftmax || logSoftmax.getAxis() != 1) return {};
  getLogitsMutable().assign(logSoftmax.getX());
  return getResult();
}

//===----------------------------------------------------------------------===//
// Shape
//===----------------------------------------------------------------------===//

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getX().getType() == getType())
    return getX();
  if (auto inner = getX().getDefiningOp<ReshapeOp>()) {
    getXMutable().assign(inner.getX());
    return getResult();
  }
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getX()))
    return dense.reshape(getType());
  return {};
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> perm = getPerm();
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return getX();
  if (auto inner = getX().getDefiningOp<TransposeOp>()) {
    // result dim i = inner dim perm[i] = source dim innerPerm[perm[i]].
    SmallVector<int64_t> composed;
    for (int64_t p : perm)
      composed.push_back(inner.getPerm()[p]);
    setPerm(composed);
    getXMutable().assign(inner.getX());
    return getResult();
  }
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getX()))
    if (dense.isSplat())
      return DenseElementsAttr::get(cast<ShapedType>(getType()),
                                    dense.getSplatValue<Attribute>());
  return {};
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getX().getType() == getType())
    return getX();
  // A broadcast of a broadcast is one broadcast (numpy broadcasting composes).
  if (auto inner = getX().getDefiningOp<BroadcastOp>()) {
    getXMutable().assign(inner.getX());
    return getResult();
  }
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getX()))
    if (dense.isSplat())
      return DenseElementsAttr::get(cast<ShapedType>(getType()),
                                    dense.getSplatValue<Attribute>());
  return {};
}

//===----------------------------------------------------------------------===//
// Canonicalization patterns
//===----------------------------------------------------------------------===//

namespace {

/// `shape` with leading 1s up to `rank`.
SmallVector<int64_t> alignedTo(ArrayRef<int64_t> shape, int64_t rank) {
  SmallVector<int64_t> aligned(rank - int64_t(shape.size()), 1);
  llvm::append_range(aligned, shape);
  return aligned;
}

/// numpy broadcasting of two shapes; nothing when they do not broadcast.
std::optional<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  int64_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> x = alignedTo(a, rank), y = alignedTo(b, rank), out;
  for (int64_t d = 0; d < rank; ++d) {
    if (x[d] != y[d] && x[d] != 1 && y[d] != 1)
      return std::nullopt;
    out.push_back(x[d] == 1 ? y[d] : x[d]);
  }
  return out;
}

/// A mul of a product's tree and the factors under it: factors[begin, end).
struct Subproduct {
  Value value;
  size_t begin, end;
};

/// The factors of the product `v`: the operands of its tree of muls of one
/// element type, in operand order, at most kMaxFactors of them (a mul past
/// that is one factor), and the tree's muls. Inner muls may have other uses:
/// they stay for those.
constexpr int kMaxFactors = 8;
void flattenProduct(Value v, Type element, SmallVectorImpl<Value> &factors,
                    SmallVectorImpl<Subproduct> &muls, int &budget) {
  auto mul = v.getDefiningOp<MulOp>();
  if (mul && budget > 0 && getElementTypeOrSelf(mul.getLhs().getType()) == element &&
      getElementTypeOrSelf(mul.getRhs().getType()) == element) {
    --budget;
    size_t begin = factors.size();
    flattenProduct(mul.getLhs(), element, factors, muls, budget);
    flattenProduct(mul.getRhs(), element, factors, muls, budget);
    muls.push_back({v, begin, factors.size()});
    return;
  }
  factors.push_back(v);
}

/// A mul of the tree that is the product of exactly `part` (the factors at
/// `positions`), if any: reused rather than formed again in another order.
Value existingProduct(ArrayRef<Subproduct> muls, ArrayRef<size_t> positions) {
  for (const Subproduct &mul : muls)
    if (mul.end - mul.begin == positions.size() && positions.front() == mul.begin &&
        positions.back() == mul.end - 1)
      return mul.value;
  return {};
}

/// The numpy broadcast of the shapes of `values` (they broadcast: they are
/// factors of one product).
SmallVector<int64_t> broadcastShapeOf(ArrayRef<Value> values) {
  SmallVector<int64_t> shape;
  for (Value v : values)
    shape = *broadcastShapes(shape, cast<RankedTensorType>(v.getType()).getShape());
  return shape;
}

/// The product of `factors`, ordered by definition (arguments first) when
/// they share a block, so that equal products read alike and CSE merges them.
Value buildProduct(PatternRewriter &rewriter, Location loc, SmallVector<Value> factors) {
  Block *block = factors.front().getParentBlock();
  if (llvm::all_of(factors, [&](Value v) { return v.getParentBlock() == block; }))
    llvm::stable_sort(factors, [](Value a, Value b) {
      auto argA = dyn_cast<BlockArgument>(a), argB = dyn_cast<BlockArgument>(b);
      if (argA || argB)
        return argA && (!argB || argA.getArgNumber() < argB.getArgNumber());
      if (a.getDefiningOp() != b.getDefiningOp())
        return a.getDefiningOp()->isBeforeInBlock(b.getDefiningOp());
      return cast<OpResult>(a).getResultNumber() < cast<OpResult>(b).getResultNumber();
    });
  Value product = factors.front();
  for (Value factor : ArrayRef<Value>(factors).drop_front()) {
    auto type = cast<RankedTensorType>(product.getType());
    std::optional<SmallVector<int64_t>> shape =
        broadcastShapes(type.getShape(), cast<RankedTensorType>(factor.getType()).getShape());
    product = rewriter.create<MulOp>(loc, RankedTensorType::get(*shape, type.getElementType()),
                                     product, factor);
  }
  return product;
}

/// sum_P a * b = a' * sum_P b (and the same for the mean) when the factors a
/// are constant along the reduced axes P (a size-1 or missing dim at each)
/// and the factors b span them (the product's size at each; b may have a
/// lower rank): the reduction reads b instead of the broadcast product,
/// which is never formed (PureFFT's pattern weights times the features
/// become one scale per layer). The factors are those of the product's tree
/// of muls, so in a gradient sum_b (dy * s3 * s2) * (x * s0 * s1) becomes
/// (s0 * s1 * s2 * s3) * sum_b (dy * x), one reduction every layer shares.
/// a' is reshaped to the result's rank when the reduced dims are dropped.
/// Floats reassociate, as in the folds above; integers wrap, and the
/// identity holds modulo 2^n.
template <typename ReduceOp>
struct FactorOutOfReduction : OpRewritePattern<ReduceOp> {
  using OpRewritePattern<ReduceOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(ReduceOp op, PatternRewriter &rewriter) const override {
    auto product = op.getX().template getDefiningOp<MulOp>();
    if (!product || !product->hasOneUse())
      return failure();
    auto full = cast<RankedTensorType>(product.getType());
    int64_t rank = full.getRank();
    ArrayRef<int64_t> axes = op.getAxes();
    if (llvm::all_of(axes, [&](int64_t p) { return full.getDimSize(p) == 1; }))
      return failure(); // nothing is summed
    if (llvm::any_of(axes, [&](int64_t p) { return full.getDimSize(p) == 0; }))
      return failure(); // a sum of nothing is 0, but a * 0 is NaN for an infinite a

    SmallVector<Value> factors, constant, spanning;
    SmallVector<Subproduct> muls;
    SmallVector<size_t> constantAt, spanningAt;
    int budget = kMaxFactors - 1;
    flattenProduct(product, full.getElementType(), factors, muls, budget);
    for (auto [at, factor] : llvm::enumerate(factors)) {
      SmallVector<int64_t> aligned =
          alignedTo(cast<RankedTensorType>(factor.getType()).getShape(), rank);
      bool flat = llvm::all_of(axes, [&](int64_t p) { return aligned[p] == 1; });
      (flat ? constant : spanning).push_back(factor);
      (flat ? constantAt : spanningAt).push_back(at);
    }
    if (constant.empty() || spanning.empty())
      return failure();
    SmallVector<int64_t> factorShape = broadcastShapeOf(constant);
    SmallVector<int64_t> otherShape = broadcastShapeOf(spanning);
    SmallVector<int64_t> aligned = alignedTo(factorShape, rank);
    // The spanning factors may have a lower rank (they broadcast along the
    // leading axes), but together they span every reduced axis; a reduced
    // axis of size 1 before their rank is simply dropped.
    const int64_t offset = rank - int64_t(otherShape.size());
    SmallVector<int64_t> otherAxes;
    for (int64_t p : axes) {
      if (p < offset ? full.getDimSize(p) != 1 : otherShape[p - offset] != full.getDimSize(p))
        return failure();
      if (p >= offset) otherAxes.push_back(p - offset);
    }

    SmallVector<int64_t> scaleShape(factorShape);
    if (!op.getKeepdims()) {
      scaleShape.clear();
      for (int64_t d = 0; d < rank; ++d)
        if (!llvm::is_contained(axes, d))
          scaleShape.push_back(aligned[d]);
    }
    SmallVector<int64_t> reducedShape;
    for (int64_t d = 0; d < int64_t(otherShape.size()); ++d) {
      bool summed = llvm::is_contained(otherAxes, d);
      if (!summed || op.getKeepdims())
        reducedShape.push_back(summed ? 1 : otherShape[d]);
    }
    auto resultType = cast<RankedTensorType>(op.getType());
    std::optional<SmallVector<int64_t>> shape = broadcastShapes(scaleShape, reducedShape);
    if (!shape || ArrayRef<int64_t>(*shape) != resultType.getShape())
      return failure();

    Location loc = op.getLoc();
    Value other = existingProduct(muls, spanningAt);
    if (!other) other = buildProduct(rewriter, loc, spanning);
    Value reduced = rewriter.create<ReduceOp>(loc, other, rewriter.getDenseI64ArrayAttr(otherAxes),
                                              op.getKeepdimsAttr());
    Value scale = existingProduct(muls, constantAt);
    if (!scale) scale = buildProduct(rewriter, loc, constant);
    if (ArrayRef<int64_t>(scaleShape) != ArrayRef<int64_t>(factorShape))
      scale = rewriter.create<ReshapeOp>(
          loc, RankedTensorType::get(scaleShape, full.getElementType()), scale);
    // The operands keep the order of the product's first factor.
    bool scaleFirst = factors.front() == constant.front();
    Value lhs = scaleFirst ? scale : reduced, rhs = scaleFirst ? reduced : scale;
    rewriter.replaceOpWithNewOp<MulOp>(op, resultType, lhs, rhs);
    return success();
  }
};

/// sum_k x[..., 0, k] * w[n, k] over the last axis = matmul(x as [M, K],
/// w^T) as [..., n]: a contraction with a matrix written as a broadcast
/// product and a sum (PureFFT's class scores, B x 1 x F times 10 x F) runs as
/// a matmul, and its gradient (autodiff) is two matmuls instead of a
/// B x 10 x F broadcast. One factor is a matrix [N, K] (rank 2, N > 1); the
/// other has a 1 at the product's second-last axis and K at its last, and
/// more than one row (M > 1); the product has no other broadcasting. Floats reassociate, as in the folds above.
struct ContractionAsMatmul : OpRewritePattern<ReduceSumOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReduceSumOp op, PatternRewriter &rewriter) const override {
    auto product = op.getX().getDefiningOp<MulOp>();
    if (!product || !product->hasOneUse())
      return failure();
    auto full = cast<RankedTensorType>(product.getType());
    const int64_t rank = full.getRank();
    if (rank < 2 || op.getAxes().size() != 1 || op.getAxes()[0] != rank - 1)
      return failure();
    const int64_t k = full.getDimSize(rank - 1), n = full.getDimSize(rank - 2);
    if (k < 2 || n < 2)
      return failure();
    for (int side = 0; side < 2; ++side) {
      Value matrix = side == 0 ? product.getLhs() : product.getRhs();
      Value row = side == 0 ? product.getRhs() : product.getLhs();
      auto matrixType = cast<RankedTensorType>(matrix.getType());
      auto rowType = cast<RankedTensorType>(row.getType());
      if (matrixType.getShape() != ArrayRef<int64_t>{n, k})
        continue;
      SmallVector<int64_t> aligned = alignedTo(rowType.getShape(), rank);
      if (aligned[rank - 2] != 1 || aligned[rank - 1] != k ||
          ArrayRef<int64_t>(aligned).drop_back(2) != full.getShape().drop_back(2))
        continue;
      int64_t m = 1;
      for (int64_t d : rowType.getShape().drop_back())
        m *= d;
      if (m < 2)
        continue; // a vector times a matrix: the fused reduction reads it as well
      Location loc = op.getLoc();
      Type element = full.getElementType();
      Value flat = rewriter.create<ReshapeOp>(loc, RankedTensorType::get({m, k}, element), row);
      Value transposed = rewriter.create<TransposeOp>(loc, matrix, rewriter.getDenseI64ArrayAttr({1, 0}));
      Value scores = rewriter.create<MatmulOp>(loc, flat, transposed);
      rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), scores);
      return success();
    }
    return failure();
  }
};

/// (x * c1) * c2 = x * (c1 * c2) for constants c1 and c2 (either operand
/// order): a chain of scalings becomes one, the constants' product folding
/// at compile time. Floats reassociate, as in the folds above.
struct MergeConstantScalings : OpRewritePattern<MulOp> {
  using OpRewritePattern<MulOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(MulOp op, PatternRewriter &rewriter) const override {
    auto isConstant = [](Value v) { return matchPattern(v, m_Constant()); };
    for (int side = 0; side < 2; ++side) {
      Value outerConstant = side ? op.getLhs() : op.getRhs();
      auto inner = (side ? op.getRhs() : op.getLhs()).getDefiningOp<MulOp>();
      if (!isConstant(outerConstant) || !inner || !inner->hasOneUse()) continue;
      for (int innerSide = 0; innerSide < 2; ++innerSide) {
        Value innerConstant = innerSide ? inner.getLhs() : inner.getRhs();
        Value x = innerSide ? inner.getRhs() : inner.getLhs();
        if (!isConstant(innerConstant) || isConstant(x)) continue;
        auto c1 = cast<RankedTensorType>(innerConstant.getType());
        auto c2 = cast<RankedTensorType>(outerConstant.getType());
        std::optional<SmallVector<int64_t>> scale = broadcastShapes(c1.getShape(), c2.getShape());
        if (!scale) continue;
        std::optional<SmallVector<int64_t>> shape =
            broadcastShapes(cast<RankedTensorType>(x.getType()).getShape(), *scale);
        if (!shape || ArrayRef<int64_t>(*shape) != op.getType().getShape()) continue;
        Value product = rewriter.create<MulOp>(
            op.getLoc(), RankedTensorType::get(*scale, c1.getElementType()), innerConstant,
            outerConstant);
        rewriter.replaceOpWithNewOp<MulOp>(op, op.getType(), x, product);
        return success();
      }
    }
    return failure();
  }
};

/// concat(..., channel_mix(x1, w1), ..., channel_mix(x2, w2), ...) along a
/// mode axis = the same concat of slices of channel_mix(concat(x1, x2),
/// concat(w1, w2)): channel_mix mixes each mode position apart, so mixes of
/// different modes side by side are one mix (an FNO layer's two corners in
/// one launch instead of two). The mixes must agree on every dim but the
/// axis and feed only the concat.
struct MergeChannelMixesInConcat : OpRewritePattern<ConcatOp> {
  using OpRewritePattern<ConcatOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(ConcatOp op, PatternRewriter &rewriter) const override {
    const int64_t axis = op.getAxis();
    if (axis < 2) return failure(); // batch or channel: not a mode axis
    auto sameBut = [&](ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
      if (a.size() != b.size()) return false;
      for (size_t d = 0; d < a.size(); ++d)
        if (int64_t(d) != axis && a[d] != b[d]) return false;
      return true;
    };
    auto shape = [](Value v) { return cast<RankedTensorType>(v.getType()).getShape(); };
    SmallVector<ChannelMixOp> mixes;
    for (Value input : op.getInputs()) {
      auto mix = input.getDefiningOp<ChannelMixOp>();
      if (!mix || !mix->hasOneUse() || llvm::is_contained(mixes, mix)) continue;
      if (!mixes.empty() && (!sameBut(shape(mix.getX()), shape(mixes[0].getX())) ||
                             !sameBut(shape(mix.getWeights()), shape(mixes[0].getWeights()))))
        continue;
      mixes.push_back(mix);
    }
    if (mixes.size() < 2) return failure();
    SmallVector<Value> xs, ws;
    SmallVector<Location> locations;
    for (ChannelMixOp mix : mixes) {
      xs.push_back(mix.getX());
      ws.push_back(mix.getWeights());
      locations.push_back(mix.getLoc());
    }
    Location loc = rewriter.getFusedLoc(locations);
    IntegerAttr axisAttr = op.getAxisAttr();
    Value x = rewriter.create<ConcatOp>(loc, xs, axisAttr);
    Value w = rewriter.create<ConcatOp>(loc, ws, axisAttr);
    Value mixed = rewriter.create<ChannelMixOp>(loc, x, w);
    SmallVector<int64_t> start(shape(mixed).size(), 0), limit(shape(mixed));
    for (ChannelMixOp mix : mixes) {
      limit[axis] = start[axis] + shape(mix.getResult())[axis];
      Value part = rewriter.create<SliceOp>(mix.getLoc(), mixed, start, limit, nullptr);
      rewriter.replaceOp(mix, part);
      start[axis] = limit[axis];
    }
    return success();
  }
};

/// An fft, ifft, rfft or irfft as its norm factor sees it: the product N of
/// its lengths (the real ones for rfft and irfft), and whether it is an
/// inverse (whose backward norm divides by N).
struct NormedTransform {
  Operation *op = nullptr;
  double n = 1;
  bool inverse = false;
  Norm norm = Norm::backward;
};

std::optional<NormedTransform> normedTransform(Operation *op) {
  NormedTransform t;
  t.op = op;
  ArrayRef<int64_t> axes;
  RankedTensorType real;
  if (auto fft = dyn_cast_or_null<FftOp>(op)) {
    axes = fft.getAxes();
    real = cast<RankedTensorType>(fft.getType());
    t.norm = fft.getNorm();
  } else if (auto ifft = dyn_cast_or_null<IfftOp>(op)) {
    axes = ifft.getAxes();
    real = cast<RankedTensorType>(ifft.getType());
    t.norm = ifft.getNorm();
    t.inverse = true;
  } else if (auto rfft = dyn_cast_or_null<RfftOp>(op)) {
    axes = rfft.getAxes();
    real = cast<RankedTensorType>(rfft.getX().getType());
    t.norm = rfft.getNorm();
  } else if (auto irfft = dyn_cast_or_null<IrfftOp>(op)) {
    axes = irfft.getAxes();
    real = cast<RankedTensorType>(irfft.getType());
    t.norm = irfft.getNorm();
    t.inverse = true;
  } else {
    return std::nullopt;
  }
  for (int64_t axis : axes) t.n *= double(real.getDimSize(axis));
  if (t.n < 1) return std::nullopt;  // an empty transform: nothing to scale
  return t;
}

/// What `norm` multiplies every output of the transform by.
double normFactor(const NormedTransform &t, Norm norm) {
  if (norm == Norm::ortho) return 1 / std::sqrt(t.n);
  bool divides = t.inverse ? norm == Norm::backward : norm == Norm::forward;
  return divides ? 1 / t.n : 1;
}

/// A splat constant's value when it is real (a float, or a complex with a
/// zero imaginary part); its tolerance is its element type's precision.
std::optional<std::pair<double, double>> realSplat(Value value) {
  DenseElementsAttr dense;
  if (!matchPattern(value, m_Constant(&dense)) || !dense.isSplat()) return std::nullopt;
  std::optional<SmallVector<Num>> values = readElements(dense);
  Type element = dense.getElementType();
  if (auto complex = dyn_cast<ComplexType>(element)) element = complex.getElementType();
  if (!values || (*values)[0].imag() != 0 || !isa<FloatType>(element)) return std::nullopt;
  return std::pair{(*values)[0].real(), element.isF64() ? 1e-12 : 1e-6};
}

/// x * c next to a transform (c a real splat constant, before or after it)
/// is the transform with another norm when c times the norm's factor is
/// another norm's factor: `irfft(rfft(x) * w) * (1/N)` is irfft with the
/// forward norm (`norm forward` on the inverse, no scaling kernel), and a
/// scaling by N or sqrt(N) after a normalised transform comes off it.
struct MergeScaleIntoNorm : OpRewritePattern<MulOp> {
  using OpRewritePattern<MulOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(MulOp op, PatternRewriter &rewriter) const override {
    for (int side = 0; side < 2; ++side) {
      Value other = side ? op.getLhs() : op.getRhs();
      std::optional<std::pair<double, double>> c = realSplat(side ? op.getRhs() : op.getLhs());
      if (!c || other.getType() != op.getType()) continue;
      // After: mul(T(x), c). Before: T(mul(x, c)), the mul read only by T.
      Operation *transform = other.getDefiningOp();
      bool after = true;
      if (!normedTransform(transform) || !other.hasOneUse()) {
        after = false;
        transform = op->hasOneUse() ? *op->getUsers().begin() : nullptr;
        if (!normedTransform(transform) || transform->getOperand(0) != op.getResult()) continue;
      }
      NormedTransform t = *normedTransform(transform);
      double wanted = c->first * normFactor(t, t.norm);
      for (Norm norm : {Norm::backward, Norm::ortho, Norm::forward}) {
        double factor = normFactor(t, norm);
        if (norm == t.norm || std::abs(wanted - factor) > c->second * factor) continue;
        rewriter.modifyOpInPlace(transform, [&] {
          transform->setAttr("norm", NormAttr::get(rewriter.getContext(), norm));
          if (!after) transform->setOperand(0, other);
        });
        if (after) rewriter.replaceOp(op, transform->getResults());
        else rewriter.eraseOp(op);
        return success();
      }
    }
    return failure();
  }
};

/// transpose(T(transpose(x, P)), P^-1) = T(x) over the axes P maps to: a
/// transform between a transpose and its inverse runs on x's own axes (the
/// last of an rfft's or irfft's axes stays last: it is the real one).
struct TransformBetweenTransposes : OpRewritePattern<TransposeOp> {
  using OpRewritePattern<TransposeOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(TransposeOp op, PatternRewriter &rewriter) const override {
    Operation *transform = op.getX().getDefiningOp();
    if (!transform || !normedTransform(transform) || !op.getX().hasOneUse()) return failure();
    auto inner = transform->getOperand(0).getDefiningOp<TransposeOp>();
    if (!inner) return failure();
    ArrayRef<int64_t> outer = op.getPerm(), perm = inner.getPerm();
    for (size_t i = 0; i < perm.size(); ++i)
      if (outer[perm[i]] != int64_t(i)) return failure();  // not each other's inverse
    auto axes = transform->getAttrOfType<DenseI64ArrayAttr>("axes");
    SmallVector<int64_t> mapped;
    for (int64_t axis : axes.asArrayRef()) mapped.push_back(perm[axis]);
    OperationState state(transform->getLoc(), transform->getName(), ValueRange{inner.getX()},
                         TypeRange{op.getType()}, transform->getAttrs());
    state.attributes.set("axes", rewriter.getDenseI64ArrayAttr(mapped));
    Operation *moved = rewriter.create(state);
    rewriter.replaceOp(op, moved->getResults());
    return success();
  }
};

/// transpose(matmul(a, b)) = matmul(b^T, a^T) for matrices, when that
/// transposes fewer elements: a transpose of an operand that is itself a
/// transpose cancels, the others fold into the matmul's loads (a weight
/// gradient, x^T dy, transposed into the weight's layout is dy^T x).
struct TransposeOfMatmul : OpRewritePattern<TransposeOp> {
  using OpRewritePattern<TransposeOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(TransposeOp op, PatternRewriter &rewriter) const override {
    auto matmul = op.getX().getDefiningOp<MatmulOp>();
    if (!matmul || !matmul->hasOneUse() || op.getPerm() != ArrayRef<int64_t>{1, 0})
      return failure();
    auto moved = [](Value v) -> int64_t {  // elements a transpose of v copies
      return v.getDefiningOp<TransposeOp>() ? 0 : cast<RankedTensorType>(v.getType()).getNumElements();
    };
    auto lhsType = cast<RankedTensorType>(matmul.getLhs().getType());
    auto rhsType = cast<RankedTensorType>(matmul.getRhs().getType());
    if (lhsType.getRank() != 2 || rhsType.getRank() != 2 ||
        moved(matmul.getLhs()) + moved(matmul.getRhs()) >= op.getType().getNumElements())
      return failure();
    DenseI64ArrayAttr swap = rewriter.getDenseI64ArrayAttr({1, 0});
    Location loc = op.getLoc();
    Value lhs = rewriter.create<TransposeOp>(loc, matmul.getRhs(), swap);
    Value rhs = rewriter.create<TransposeOp>(loc, matmul.getLhs(), swap);
    rewriter.replaceOpWithNewOp<MatmulOp>(op, op.getType(), lhs, rhs);
    return success();
  }
};

} // namespace

void MulOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  results.add<MergeConstantScalings, MergeScaleIntoNorm>(context);
}

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  results.add<TransformBetweenTransposes, TransposeOfMatmul>(context);
}

void ReduceSumOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  results.add<FactorOutOfReduction<ReduceSumOp>, ContractionAsMatmul>(context);
}

void ReduceMeanOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  results.add<FactorOutOfReduction<ReduceMeanOp>>(context);
}

void ConcatOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  results.add<MergeChannelMixesInConcat>(context);
}
