//===- Cost.cpp - nominal floating-point operations of an op --------------===//
#include "compiler/Codegen/Cost.h"

#include "dialects/spectral/IR/SpectralOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
namespace sp = mlir::spectral;

namespace spectral::codegen {
namespace {

int64_t elements(Value value) {
  return cast<ShapedType>(value.getType()).getNumElements();
}

bool isComplex(Value value) {
  return isa<ComplexType>(cast<ShapedType>(value.getType()).getElementType());
}

int64_t length(Value value, int64_t axis) {
  return cast<ShapedType>(value.getType()).getDimSize(axis);
}

/// `count` elements through a transform of length `n` along one axis, at
/// `perPoint` * log2(n) FLOPs per element (5 complex, 2.5 real).
double transformFlops(int64_t count, int64_t n, double perPoint) {
  return n > 1 ? double(count) * perPoint * std::log2(double(n)) : 0.0;
}

/// rfft / irfft: the last listed axis is a real transform over the real
/// shape; the other axes are complex transforms over the half spectrum.
double realTransformFlops(Value real, Value half, llvm::ArrayRef<int64_t> axes) {
  double total = 0;
  for (size_t k = 0; k < axes.size(); ++k)
    total += k + 1 == axes.size() ? transformFlops(elements(real), length(real, axes[k]), 2.5)
                                  : transformFlops(elements(half), length(half, axes[k]), 5.0);
  return total;
}

double axesFlops(Value x, llvm::ArrayRef<int64_t> axes, double perPoint) {
  double total = 0;
  for (int64_t axis : axes) total += transformFlops(elements(x), length(x, axis), perPoint);
  return total;
}

/// FLOPs per result element of a pointwise op: reals count one per op;
/// complex values count their real arithmetic.
double pointwiseFlops(Operation *op) {
  bool complex = llvm::any_of(op->getOperands(), isComplex);
  return llvm::TypeSwitch<Operation *, double>(op)
      .Case<sp::AddOp, sp::SubOp, sp::NegOp>([&](auto) { return complex ? 2.0 : 1.0; })
      .Case<sp::MulOp>([&](auto) { return complex ? 6.0 : 1.0; })
      .Case<sp::DivOp>([&](auto) { return complex ? 11.0 : 1.0; })
      .Case<sp::AbsOp>([&](auto) { return complex ? 4.0 : 1.0; })
      .Case<sp::ExpOp, sp::LogOp, sp::SqrtOp, sp::TanhOp>(
          [&](auto) { return complex ? 8.0 : 1.0; })
      .Case<sp::ReluOp, sp::GeluOp, sp::SigmoidOp, sp::CmpOp>([](auto) { return 1.0; })
      .Default([](Operation *) { return 0.0; });  // moves or reinterprets elements
}

} // namespace

int64_t nominalFlops(Operation *op) {
  double flops =
      llvm::TypeSwitch<Operation *, double>(op)
          .Case<sp::FusionOp>([](sp::FusionOp fusion) {
            double total = 0;
            for (Operation &inner : fusion.getRegion().front().without_terminator())
              total += double(nominalFlops(&inner));
            return total;
          })
          .Case<sp::FftOp, sp::IfftOp>(
              [](auto t) { return axesFlops(t.getX(), t.getAxes(), 5.0); })
          .Case<sp::DctOp, sp::IdctOp>(
              [](auto t) { return axesFlops(t.getX(), t.getAxes(), 2.5); })
          .Case<sp::RfftOp>([](sp::RfftOp t) {
            return realTransformFlops(t.getX(), t.getResult(), t.getAxes());
          })
          .Case<sp::IrfftOp>([](sp::IrfftOp t) {
            return realTransformFlops(t.getResult(), t.getX(), t.getAxes());
          })
          .Case<sp::ReduceSumOp, sp::ReduceMeanOp, sp::ReduceMaxOp>([](Operation *r) {
            Value x = r->getOperand(0);
            return double(elements(x)) * (isComplex(x) ? 2.0 : 1.0);
          })
          .Case<sp::SoftmaxOp, sp::LogSoftmaxOp>(
              [](Operation *s) { return 4.0 * double(elements(s->getOperand(0))); })
          .Case<sp::MatmulOp>([](sp::MatmulOp m) {
            auto lhs = cast<ShapedType>(m.getLhs().getType());
            return double(elements(m.getResult())) * double(lhs.getDimSize(lhs.getRank() - 1)) *
                   (isComplex(m.getLhs()) ? 8.0 : 2.0);
          })
          .Case<sp::ChannelMixOp>([](sp::ChannelMixOp c) {
            return double(elements(c.getResult())) * double(length(c.getX(), 1)) *
                   (isComplex(c.getX()) ? 8.0 : 2.0);
          })
          .Case<sp::TopkModesOp>([](sp::TopkModesOp t) {
            Value x = t->getOperand(0);
            return double(elements(x)) * (isComplex(x) ? 3.0 : 1.0);
          })
          .Case<sp::SparseMulOp>([](sp::SparseMulOp s) {
            Value values = s->getResult(0);
            return double(elements(values)) * (isComplex(values) ? 6.0 : 1.0);
          })
          .Case<sp::SparseAddOp>([](sp::SparseAddOp s) {
            Value values = s->getResult(0);
            return double(elements(values)) * (isComplex(values) ? 2.0 : 1.0);
          })
          .Case<sp::CrossEntropyOp>(
              [](sp::CrossEntropyOp c) { return 4.0 * double(elements(c.getLogits())); })
          .Case<sp::MseOp>([](sp::MseOp m) {
            return double(elements(m.getPrediction())) * (isComplex(m.getPrediction()) ? 6.0 : 3.0);
          })
          .Case<sp::SgdStepOp>([](sp::SgdStepOp s) {
            return double(elements(s.getParam())) * (isComplex(s.getParam()) ? 12.0 : 6.0);
          })
          .Case<sp::AdamStepOp>([](sp::AdamStepOp a) {
            return double(elements(a.getParam())) * (isComplex(a.getParam()) ? 24.0 : 14.0);
          })
          .Case<sp::ClipGlobalNormOp>([](sp::ClipGlobalNormOp c) {
            double total = 0;
            for (Value input : c.getInputs())
              total += double(elements(input)) * (isComplex(input) ? 6.0 : 3.0);
            return total;
          })
          .Default([](Operation *other) {
            if (other->getNumResults() != 1 || !isa<ShapedType>(other->getResult(0).getType()))
              return 0.0;
            return pointwiseFlops(other) * double(elements(other->getResult(0)));
          });
  return int64_t(std::llround(flops));
}

} // namespace spectral::codegen
