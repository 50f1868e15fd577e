//===- OpKinds.cpp - what fusion may do with an op ------------------------===//
#include "compiler/Fusion/OpKinds.h"

#include "compiler/Planning/FftTables.h"
#include "compiler/Planning/FftUnits.h"
#include "dialects/spectral/IR/SpectralOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
namespace sp = mlir::spectral;

namespace spectral::fusion {
namespace {

/// i32 or i64 elements (i1 is a boolean: it neither divides nor overflows).
bool isIntegerTensor(Type type) {
  auto tensor = dyn_cast<TensorType>(type);
  return tensor && tensor.getElementType().isInteger() &&
         tensor.getElementType().getIntOrFloatBitWidth() > 1;
}

bool isBoolTensor(Type type) {
  auto tensor = dyn_cast<TensorType>(type);
  return tensor && tensor.getElementType().isInteger(1);
}

} // namespace

OpKind kindOf(Operation *op) {
  if (isa<sp::ConstantOp, arith::ConstantOp>(op)) return OpKind::kConstant;
  if (isa<sp::AddOp, sp::SubOp, sp::MulOp, sp::DivOp, sp::NegOp, sp::ExpOp, sp::LogOp, sp::SqrtOp,
          sp::TanhOp, sp::ReluOp, sp::GeluOp, sp::SigmoidOp, sp::ConjOp, sp::AbsOp, sp::RealOp,
          sp::ImagOp, sp::ComplexOp, sp::CastOp, sp::CmpOp, sp::SelectOp>(op))
    return OpKind::kPointwise;
  if (isa<sp::BroadcastOp, sp::TransposeOp, sp::SliceOp, sp::PadOp, sp::ConcatOp, sp::ReshapeOp>(op))
    return OpKind::kIndexMap;
  if (isa<sp::FftOp, sp::IfftOp, sp::RfftOp, sp::IrfftOp, sp::DctOp, sp::IdctOp, sp::ReduceSumOp,
          sp::ReduceMeanOp, sp::ReduceMaxOp, sp::SoftmaxOp, sp::LogSoftmaxOp, sp::MatmulOp,
          sp::ChannelMixOp, sp::CrossEntropyOp, sp::MseOp, sp::SgdStepOp, sp::AdamStepOp,
          sp::TopkModesOp, sp::GatherOp, sp::ScatterOp>(op))
    return OpKind::kAnchor;
  return OpKind::kOpaque;
}

bool readsThroughLoad(Operation *anchor, unsigned operand) {
  if (isa<sp::CrossEntropyOp>(anchor)) return operand != 1;        // the labels
  if (isa<sp::SgdStepOp, sp::AdamStepOp>(anchor)) return operand == 1;  // the gradient
  if (isa<sp::TopkModesOp, sp::GatherOp, sp::ScatterOp>(anchor)) return operand == 0;
  return true;
}

bool takesFusedStore(Operation *anchor) {
  return !isa<sp::SgdStepOp, sp::AdamStepOp, sp::TopkModesOp, sp::GatherOp, sp::ScatterOp>(anchor);
}

bool isElementwise(Operation *op) {
  OpKind kind = kindOf(op);
  return kind == OpKind::kPointwise || kind == OpKind::kIndexMap;
}

std::string failureOf(Operation *op) {
  if (isa<sp::DivOp>(op) && isIntegerTensor(op->getResult(0).getType()))
    return "integer division by zero";
  Type from = op->getNumOperands() ? op->getOperand(0).getType() : Type();
  if (isa<sp::CastOp>(op) && isIntegerTensor(op->getResult(0).getType()) &&
      !isIntegerTensor(from) && !isBoolTensor(from))
    return "a NaN or infinity cast to an integer";
  return "";
}

std::string roundTripRefusal(Operation *transform, Operation *inverse) {
  llvm::ArrayRef<int64_t> axes, inverseAxes;
  planning::FftKind kind;
  if (auto fft = dyn_cast<sp::FftOp>(transform); fft && isa<sp::IfftOp>(inverse)) {
    axes = fft.getAxes();
    inverseAxes = cast<sp::IfftOp>(inverse).getAxes();
    kind = planning::FftKind::kForward;
  } else if (auto rfft = dyn_cast<sp::RfftOp>(transform); rfft && isa<sp::IrfftOp>(inverse)) {
    axes = rfft.getAxes();
    inverseAxes = cast<sp::IrfftOp>(inverse).getAxes();
    kind = planning::FftKind::kRealForward;
  } else {
    return "only fft -> ifft and rfft -> irfft run as one kernel";
  }
  if (axes.size() != 1 || inverseAxes != axes)
    return "a transform and its inverse run as one kernel along one and the same axis";
  Value x = transform->getOperand(0);
  auto shape = [](Value v) { return cast<ShapedType>(v.getType()); };
  if (shape(inverse->getOperand(0)) != shape(transform->getResult(0)) ||
      shape(inverse->getResult(0)) != shape(x))
    return "the inverse's operand and result types differ from the transform's result and "
           "operand";
  int64_t n = shape(x).getDimSize(axes[0]);
  if (!planning::roundTripFits(kind, n))
    return "a length of " + std::to_string(n) +
           " does not fit one round-trip kernel (complex lengths up to " +
           std::to_string(planning::kMaxRoundTripThreads * 8) +
           " with factors 2, 3, 5, 7; real lengths twice that)";
  return "";
}

bool shareAnOptimizerLaunch(Operation *a, Operation *b) {
  if (!isa<sp::SgdStepOp, sp::AdamStepOp>(a) || a->getName() != b->getName() ||
      a->getAttrDictionary() != b->getAttrDictionary())
    return false;
  auto element = [](Operation *op) {
    return cast<ShapedType>(op->getOperand(0).getType()).getElementType();
  };
  if (element(a) != element(b)) return false;
  // The same learning rate and step data (the attributes compared above).
  auto data = [](Operation *op) -> std::pair<Value, Value> {
    if (auto adam = dyn_cast<sp::AdamStepOp>(op)) return {adam.getLrValue(), adam.getStep()};
    return {cast<sp::SgdStepOp>(op).getLrValue(), Value()};
  };
  return data(a) == data(b);
}

namespace {

/// The only user of `value`, or null.
Operation *onlyUser(Value value) {
  return value.hasOneUse() ? *value.getUsers().begin() : nullptr;
}

bool allZero(llvm::ArrayRef<int64_t> values) {
  return llvm::all_of(values, [](int64_t v) { return v == 0; });
}

} // namespace

std::string spectralConvRefusal(Operation *rfftOp, SpectralConv *conv) {
  auto rfft = dyn_cast<sp::RfftOp>(rfftOp);
  if (!rfft) return "not an rfft";
  auto x = cast<ShapedType>(rfft.getX().getType());
  if (x.getRank() != 3 || rfft.getAxes() != llvm::ArrayRef<int64_t>{2})
    return "a spectral convolution transforms the last axis of [batch, channels, length]";
  auto slice = dyn_cast_or_null<sp::SliceOp>(onlyUser(rfft.getResult()));
  if (!slice) return "the spectrum has other uses than one slice of low modes";
  auto mix = dyn_cast_or_null<sp::ChannelMixOp>(onlyUser(slice.getResult()));
  auto pad = mix ? dyn_cast_or_null<sp::PadOp>(onlyUser(mix.getResult())) : nullptr;
  auto irfft = pad ? dyn_cast_or_null<sp::IrfftOp>(onlyUser(pad.getResult())) : nullptr;
  if (!mix || mix.getX() != slice.getResult() || !pad || !irfft)
    return "the low modes do not go through one channel_mix, a zero padding and an irfft";
  auto spectrum = cast<ShapedType>(rfft.getResult().getType());
  auto kept = cast<ShapedType>(slice.getResult().getType());
  auto mixed = cast<ShapedType>(mix.getResult().getType());
  const int64_t n = x.getDimSize(2), bins = spectrum.getDimSize(2), modes = kept.getDimSize(2);
  bool unitStride = !slice.getStride() || llvm::all_of(*slice.getStride(), [](int64_t s) {
    return s == 1;
  });
  if (!allZero(slice.getStart()) || !unitStride || kept.getDimSize(0) != x.getDimSize(0) ||
      kept.getDimSize(1) != x.getDimSize(1) || modes < 1)
    return "the slice does not keep the first modes of every channel";
  if (!allZero(pad.getLow()) || pad.getHigh()[0] != 0 || pad.getHigh()[1] != 0 ||
      pad.getHigh()[2] != bins - modes || pad.getValue().convertToDouble() != 0.0)
    return "the padding does not restore the spectrum with zeros above the modes";
  if (irfft.getAxes() != llvm::ArrayRef<int64_t>{2} || int64_t(irfft.getLength()) != n ||
      cast<ShapedType>(irfft.getResult().getType()).getElementType() != x.getElementType())
    return "the irfft is not the rfft's inverse along the same axis and length";
  if (!planning::roundTripFits(planning::FftKind::kRealForward, n))
    return "a length of " + std::to_string(n) + " does not fit one spectral-convolution kernel "
           "(even lengths up to " + std::to_string(planning::kMaxRoundTripThreads * 16) + ")";
  SpectralConv c;
  c.rfft = rfft;
  c.slice = slice;
  c.mix = mix;
  c.pad = pad;
  c.irfft = irfft;
  c.batch = x.getDimSize(0);
  c.cin = x.getDimSize(1);
  c.cout = mixed.getDimSize(1);
  c.n = n;
  c.modes = modes;
  c.threads = planning::stockhamThreads(n / 2);
  const int64_t rows = std::max(c.cin, c.cout);
  const int64_t complexBytes = x.getElementType().isF64() ? 16 : 8;
  if (rows * c.threads > kMaxSpectralConvThreads ||
      (rows * (n / 2) + (c.cin + c.cout) * modes) * complexBytes > kMaxSpectralConvShared)
    return "one batch element's " + std::to_string(rows) + " channels of " + std::to_string(n) +
           " points do not fit one block";
  if (conv) *conv = c;
  return "";
}

int64_t RealTransform2D::sharedBytes(int64_t kw) const {
  return (kw * h + rowsAtOnce * (w / 2)) * (wide ? 16 : 8);
}

std::string realTransform2DRefusal(Operation *op, RealTransform2D *shape) {
  llvm::ArrayRef<int64_t> axes;
  ShapedType real;
  if (auto rfft = dyn_cast<sp::RfftOp>(op)) {
    axes = rfft.getAxes();
    real = cast<ShapedType>(rfft.getX().getType());
  } else if (auto irfft = dyn_cast<sp::IrfftOp>(op)) {
    axes = irfft.getAxes();
    real = cast<ShapedType>(irfft.getResult().getType());
  } else {
    return "not an rfft or irfft";
  }
  const int64_t rank = real.getRank();
  if (rank < 2 || axes != llvm::ArrayRef<int64_t>{rank - 2, rank - 1})
    return "a 2-D transform in one block runs over the last two axes";
  RealTransform2D s;
  s.h = real.getDimSize(rank - 2);
  s.w = real.getDimSize(rank - 1);
  s.wide = real.getElementType().isF64();
  s.images = 1;
  for (int64_t d = 0; d + 2 < rank; ++d) s.images *= real.getDimSize(d);
  if (s.w % 2 != 0 || s.w < 2 || s.h < 1)
    return "a 2-D transform in one block needs an even row length";
  if (s.images < 1 || s.images > INT32_MAX) return "one block per image: 1 to 2^31 - 1 images";
  if (!planning::hasStockhamPlan(s.h) || !planning::hasStockhamPlan(s.w / 2))
    return "the lengths " + std::to_string(s.h) + " and " + std::to_string(s.w / 2) +
           " need factors 2, 3, 5 and 7 only";
  s.rowThreads = planning::stockhamThreads(s.w / 2);
  s.colThreads = planning::stockhamThreads(s.h);
  const int64_t wanted = std::max(s.rowThreads * s.h, s.colThreads * (s.w / 2 + 1));
  s.threads = std::min(kMaxRealTransform2DThreads, (wanted + 31) / 32 * 32);
  if (std::max(s.rowThreads, s.colThreads) > s.threads)
    return "one row's or column's FFT takes more than " +
           std::to_string(kMaxRealTransform2DThreads) + " threads";
  s.rowsAtOnce = std::min(s.h, s.threads / s.rowThreads);
  if (s.sharedBytes(s.w / 2 + 1) > kMaxRealTransform2DShared)
    return "an image of " + std::to_string(s.h) + " x " + std::to_string(s.w) +
           " does not fit one block's shared memory (" +
           std::to_string(kMaxRealTransform2DShared / 1024) + " KiB)";
  if (shape) *shape = s;
  return "";
}

std::string imageStoreRefusal(Operation *op, llvm::ArrayRef<int64_t> spectrumShape,
                              llvm::function_ref<bool(Value)> fromImages) {
  const int64_t rank = spectrumShape.size();
  auto type = dyn_cast<ShapedType>(op->getResult(0).getType());
  if (op->getNumResults() != 1 || !type || type.getRank() != rank ||
      type.getShape().drop_back(2) != spectrumShape.drop_back(2))
    return "its result does not keep the spectrum's images (every axis but the last two)";
  auto leadingZero = [&](llvm::ArrayRef<int64_t> values) {
    return llvm::all_of(values.drop_back(2), [](int64_t v) { return v == 0; });
  };
  if (auto slice = dyn_cast<sp::SliceOp>(op)) {
    bool unitStride = !slice.getStride() ||
                      llvm::all_of(slice.getStride()->drop_back(2), [](int64_t s) { return s == 1; });
    if (leadingZero(slice.getStart()) && unitStride) return "";
  } else if (isa<sp::PadOp>(op)) {
    return "it pads what the store keeps: the consumer's load pads it without writing the zeros";
  } else if (auto concat = dyn_cast<sp::ConcatOp>(op)) {
    if (llvm::any_of(concat.getInputs(), [&](Value v) { return !fromImages(v); }))
      return "it joins what the store keeps with values from elsewhere: the consumer's load "
             "joins them without writing them";
    if (int64_t(concat.getAxis()) >= rank - 2) return "";
  } else if (kindOf(op) == OpKind::kPointwise) {
    for (Value operand : op->getOperands())
      if (fromImages(operand) && cast<ShapedType>(operand.getType()).getShape() != type.getShape())
        return "it broadcasts a value the store computes";
    return "";
  }
  return "it moves elements across the images of the transform";
}

int64_t ComplexTransform2D::sharedBytes(bool scatter) const {
  const int64_t value = wide ? 16 : 8;
  return h * w * value + std::max(rowsAtOnce * w * value, scatter ? h * w * 8 : 0);
}

namespace {

/// Why `op` (fft or ifft) is not a transform of one image per block, or
/// empty, `shape` filled; `scatter` counts the stamps of a scatter load.
std::string complexTransform2DRefusal(Operation *op, bool scatter, ComplexTransform2D *shape) {
  auto type = cast<ShapedType>(op->getResult(0).getType());
  auto axes = op->getAttrOfType<DenseI64ArrayAttr>("axes");
  const int64_t rank = type.getRank();
  if (!axes || rank < 1 ||
      (axes.asArrayRef() != llvm::ArrayRef<int64_t>{rank - 1} &&
       axes.asArrayRef() != llvm::ArrayRef<int64_t>{rank - 2, rank - 1}))
    return "a transform in one block runs over the last axis or the last two";
  ComplexTransform2D s;
  const bool twoAxes = axes.size() == 2;
  s.h = twoAxes ? type.getDimSize(rank - 2) : 1;
  s.w = type.getDimSize(rank - 1);
  s.wide = cast<ComplexType>(type.getElementType()).getElementType().isF64();
  s.images = 1;
  for (int64_t d = 0; d + (twoAxes ? 2 : 1) < rank; ++d) s.images *= type.getDimSize(d);
  if (s.w < 2 || s.h < 1) return "an image needs rows of two points or more";
  if (s.images < 1 || s.images > INT32_MAX) return "one block per image: 1 to 2^31 - 1 images";
  if (!planning::hasStockhamPlan(s.h) || !planning::hasStockhamPlan(s.w))
    return "the lengths " + std::to_string(s.h) + " and " + std::to_string(s.w) +
           " need factors 2, 3, 5 and 7 only";
  const int64_t rowThreads = planning::stockhamThreads(s.w);
  const int64_t colThreads = planning::stockhamThreads(s.h);
  const int64_t wanted = std::max(rowThreads * s.h, colThreads * s.w);
  s.threads = std::min(kMaxComplexTransform2DThreads, std::max<int64_t>(32, (wanted + 31) / 32 * 32));
  if (std::max(rowThreads, colThreads) > s.threads)
    return "one row's or column's FFT takes more than " +
           std::to_string(kMaxComplexTransform2DThreads) + " threads";
  s.rowsAtOnce = std::min(s.h, s.threads / rowThreads);
  if (s.sharedBytes(scatter) > kMaxComplexTransform2DShared)
    return "an image of " + std::to_string(s.h) + " x " + std::to_string(s.w) +
           " does not fit one block's shared memory (" +
           std::to_string(kMaxComplexTransform2DShared / 1024) + " KiB)";
  if (shape) *shape = s;
  return "";
}

/// Elements per row of a sparse op's dense side: all of them when its
/// sparse side is flat (rank 1 against a higher rank), else the last axis.
int64_t denseRowLength(ShapedType dense, ShapedType sparse) {
  if (sparse.getRank() == 1 && dense.getRank() != 1) return dense.getNumElements();
  return dense.getDimSize(dense.getRank() - 1);
}

/// The user of `value` when it has one, past one reshape (noted in `chain`).
Operation *throughReshape(Value value, SparseImageTransform &chain) {
  Operation *user = onlyUser(value);
  if (user && isa<sp::ReshapeOp>(user)) {
    chain.reshape = user;
    user = onlyUser(user->getResult(0));
  }
  return user;
}

/// What both chains ask once their ops are found: the transform fits one
/// block (with a scatter's stamps when `scatter`), and the rows of the
/// sparse op's dense side are its images; fills the chain's shape and k.
std::string imagesRefusal(SparseImageTransform &chain, bool scatter, Value dense, Value sparse,
                          const char *whose) {
  if (std::string why = complexTransform2DRefusal(chain.transform, scatter, &chain.shape);
      !why.empty())
    return why;
  auto sparseType = cast<ShapedType>(sparse.getType());
  const int64_t n = denseRowLength(cast<ShapedType>(dense.getType()), sparseType);
  if (n != chain.shape.h * chain.shape.w)
    return "its rows (" + std::to_string(n) + " modes) are not " + whose + " images (" +
           std::to_string(chain.shape.h) + " x " + std::to_string(chain.shape.w) + ")";
  chain.k = sparseType.getDimSize(sparseType.getRank() - 1);
  return "";
}

} // namespace

std::string sparseStoreRefusal(Operation *fft, SparseImageTransform *chain) {
  SparseImageTransform c;
  if (!isa<sp::FftOp>(fft)) return "not an fft";
  c.transform = fft;
  Operation *user = throughReshape(fft->getResult(0), c);
  if (!isa_and_nonnull<sp::TopkModesOp, sp::GatherOp>(user))
    return "the spectrum is not read by one topk_modes or gather alone";
  c.sparse = user;
  // The dense side against the values (top-k) or the gathered (gather).
  std::string why = imagesRefusal(c, false, user->getOperand(0), user->getResult(0),
                                  "the transform's");
  if (chain) *chain = c;
  return why;
}

std::string scatterLoadRefusal(Operation *scatter, SparseImageTransform *chain) {
  SparseImageTransform c;
  auto op = dyn_cast<sp::ScatterOp>(scatter);
  if (!op) return "not a scatter";
  c.sparse = scatter;
  Operation *user = throughReshape(op.getResult(), c);
  if (!isa_and_nonnull<sp::IfftOp>(user)) return "its result is not read by one ifft alone";
  c.transform = user;
  std::string why = imagesRefusal(c, true, op.getResult(), op.getValues(), "the inverse's");
  if (chain) *chain = c;
  return why;
}

bool isRowReduction(Operation *op) {
  if (!isa<sp::ReduceSumOp, sp::ReduceMeanOp, sp::ReduceMaxOp>(op)) return false;
  auto x = cast<ShapedType>(op->getOperand(0).getType());
  auto axes = op->getAttrOfType<DenseI64ArrayAttr>("axes");
  return x.getRank() >= 1 && op->hasAttr("keepdims") && axes &&
         axes.asArrayRef() == llvm::ArrayRef<int64_t>{x.getRank() - 1} &&
         isa<FloatType>(x.getElementType()) && x.getDimSize(x.getRank() - 1) > 0;
}

std::string rowOpRefusal(Operation *op, llvm::ArrayRef<int64_t> rowShape) {
  if (isRowReduction(op)) {
    if (cast<ShapedType>(op->getOperand(0).getType()).getShape() == rowShape) return "";
    return "it reduces rows of another shape";
  }
  if (kindOf(op) != OpKind::kPointwise)
    return "a row program computes pointwise ops and row reductions only";
  if (std::string failure = failureOf(op); !failure.empty())
    return "it can fail at run time (" + failure + "), which a row program cannot report";
  llvm::ArrayRef<int64_t> shape = cast<ShapedType>(op->getResult(0).getType()).getShape();
  if (shape == rowShape ||
      (shape.size() == rowShape.size() && shape.drop_back() == rowShape.drop_back() &&
       shape.back() == 1))
    return "";
  return "its result is neither a row nor one value per row";
}

bool reportsFromABlockProgram(Operation *op) { return isa<sp::CrossEntropyOp>(op); }

int64_t blockProgramWork(Operation *op) {
  auto elements = [](Value v) { return cast<ShapedType>(v.getType()).getNumElements(); };
  auto isRealFloat = [](Value v) {
    return isa<FloatType>(cast<ShapedType>(v.getType()).getElementType());
  };
  OpKind kind = kindOf(op);
  if (kind == OpKind::kConstant) return 0;
  if (kind == OpKind::kPointwise || kind == OpKind::kIndexMap)
    return failureOf(op).empty() ? 0 : -1;
  if (elements(op->getOperand(0)) == 0) return -1;  // their own kernels say what that means
  if (isa<sp::ReduceSumOp, sp::ReduceMeanOp, sp::ReduceMaxOp>(op) && isRealFloat(op->getOperand(0)))
    return elements(op->getOperand(0));
  if (isa<sp::SoftmaxOp, sp::LogSoftmaxOp, sp::CrossEntropyOp>(op) && isRealFloat(op->getOperand(0)))
    return 3 * elements(op->getOperand(0));
  if (isa<sp::MseOp>(op) && isRealFloat(op->getOperand(0))) return 2 * elements(op->getOperand(0));
  return -1;
}

bool isSplatConstant(Operation *op) {
  if (kindOf(op) != OpKind::kConstant || op->getNumResults() != 1) return false;
  DenseElementsAttr dense;
  return matchPattern(op->getResult(0), m_Constant(&dense)) && dense.isSplat();
}

} // namespace spectral::fusion
