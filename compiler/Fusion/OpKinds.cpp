//===- OpKinds.cpp - what fusion may do with an op ------------------------===//
#include "compiler/Fusion/OpKinds.h"

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

bool isSplatConstant(Operation *op) {
  if (kindOf(op) != OpKind::kConstant || op->getNumResults() != 1) return false;
  DenseElementsAttr dense;
  return matchPattern(op->getResult(0), m_Constant(&dense)) && dense.isSplat();
}

} // namespace spectral::fusion
