//===- Transforms.cpp - fft, ifft, rfft, irfft, dct, idct -> planned passes ===//
//
// An N-D transform is one pass per axis, each planned by the FFT planner
// (compiler/Planning/FftPlanner.h): the first pass reads the operand, later
// passes work in place on the result (or, for irfft, on a complex scratch
// array before the last, complex-to-real, pass). The norm's factor rides on
// the last pass's store. The orthonormal DCT scales the first coefficient
// of each line apart from the rest; one small kernel per axis does that.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/Transforms.h"

#include "compiler/Codegen/CodegenUtil.h"
#include "compiler/Planning/FftPlanner.h"
#include "dialects/spectral/IR/SpectralOps.h"

#include <cmath>

using namespace mlir;
namespace sp = mlir::spectral;

namespace spectral::codegen {

using planning::FftAxis;
using planning::FftKind;

llvm::Error planAxis(CodegenContext &context, Operation *op, const FftAxis &axis,
                     const planning::AxisEnds &ends) {
  if (Status status = planning::planFftAxisWith(context.builder, axis, ends); !status)
    return CodegenContext::error(op, status.message());
  return llvm::Error::success();
}

namespace {

/// [outer, n, inner] around `axis` of `shape`.
void around(llvm::ArrayRef<int64_t> shape, int64_t axis, int64_t &outer, int64_t &inner) {
  outer = elementCount(shape.take_front(axis));
  inner = elementCount(shape.drop_front(axis + 1));
}

/// The whole transform's scale for a complex or real DFT over lengths with
/// product n: numpy's backward / forward / ortho conventions.
double dftFactor(sp::Norm norm, double n, bool inverse) {
  switch (norm) {
  case sp::Norm::backward: return inverse ? 1.0 / n : 1.0;
  case sp::Norm::forward: return inverse ? 1.0 : 1.0 / n;
  case sp::Norm::ortho: break;
  }
  return 1.0 / std::sqrt(n);
}

/// Plans one axis of the ortho DCT (plain functors).
llvm::Error plan(CodegenContext &context, Operation *op, FftAxis axis) {
  axis.op = CodegenContext::describe(op);
  return planAxis(context, op, axis, planning::plainEnds(axis));
}

/// Multiplies entry 0 along an axis ([outer, n, inner]) of `buffer` by `factor`.
void scaleFirst(CodegenContext &context, Operation *op, int buffer, int64_t outer, int64_t n,
                int64_t inner, double factor) {
  DType dtype = context.builder.program().buffers[buffer].dtype;
  std::string type = cppType(dtype), entry = std::string("scale_first_") + shortName(dtype);
  std::string unit = "#include \"pointwise.cuh\"\n\n"
                     "extern \"C\" __global__ void " + entry + "(" + type +
                     "* data, long long lines, long long n, long long inner, double factor) {\n"
                     "  spectral_pointwise::for_each_index<1, long long>(lines, [&](long long i) {\n"
                     "    long long outer = i / inner, in = i - outer * inner;\n"
                     "    data[outer * n * inner + in] *= (" + type + ")factor;\n"
                     "  });\n}\n";
  int64_t lines = outer * inner;
  int64_t bytes = bytesOf(dtype, lines);
  int kernel = context.builder.addKernel({unit, entry}, CodegenContext::describe(op), bytes, bytes);
  context.builder.launch(kernel, gridFor(lines, 256), {256, 1, 1}, 0,
                         {StepArg::of_buffer(buffer), StepArg::i64(lines), StepArg::i64(n),
                          StepArg::i64(inner), StepArg::f64(factor)},
                         CodegenContext::describe(op));
}

/// dct / idct with norm ortho: per axis a DCT-II or DCT-III with its own
/// scale, and the first entry of each line scaled apart (one small kernel).
llvm::Error orthoCosineTransform(CodegenContext &context, Operation *op, Value x,
                                 llvm::ArrayRef<int64_t> axes, bool typeTwoKernel) {
  Value result = op->getResult(0);
  int out = context.newResultBuffer(result);
  std::vector<int64_t> shape = shapeOf(result.getType());
  if (elementCount(shape) == 0) return llvm::Error::success();
  bool wide = dtypeOf(result.getType()) == DType::kFloat64;
  int source = context.bufferOf(x);
  for (size_t p = 0; p < axes.size(); ++p) {
    FftAxis axis;
    axis.kind = typeTwoKernel ? FftKind::kDct2 : FftKind::kDct3;
    axis.n = shape[axes[p]];
    around(shape, axes[p], axis.outer, axis.inner);
    axis.doublePrecision = wide;
    axis.factor = std::sqrt(1.0 / (2.0 * double(axis.n)));
    axis.input = p == 0 ? source : out;
    axis.output = out;
    if (!typeTwoKernel) {
      // sqrt(1/n) x_0 + sqrt(1/2n) (2 sum ...) = sqrt(1/2n) DCT-III(x with x_0 * sqrt 2).
      if (p == 0) context.builder.copy(source, out, CodegenContext::describe(op));
      scaleFirst(context, op, out, axis.outer, axis.n, axis.inner, std::sqrt(2.0));
      axis.input = out;
    }
    if (llvm::Error error = plan(context, op, axis)) return error;
    if (typeTwoKernel)
      scaleFirst(context, op, out, axis.outer, axis.n, axis.inner, std::sqrt(0.5));
  }
  return llvm::Error::success();
}

} // namespace

bool isTransformOp(Operation *op) {
  return isa<sp::FftOp, sp::IfftOp, sp::RfftOp, sp::IrfftOp, sp::DctOp, sp::IdctOp>(op);
}

llvm::Expected<TransformPasses> transformPasses(CodegenContext &context, Operation *op,
                                                int input, int output,
                                                llvm::function_ref<int()> intermediate) {
  TransformPasses plan;
  Value x = op->getOperand(0), result = op->getResult(0);
  std::vector<int64_t> in = shapeOf(x.getType()), shape = shapeOf(result.getType());
  DType dtype = dtypeOf(result.getType());
  bool wide = dtype_is_wide(dtype);
  if (elementCount(shape) == 0) {
    plan.special = TransformPasses::kNothing;
    return plan;
  }
  if (elementCount(in) == 0) {
    plan.special = TransformPasses::kZero;
    return plan;
  }
  // (kind, axis, length, shape the pass sees) in order, then the factor.
  struct Pass {
    FftKind kind;
    int64_t axis, n;
    std::vector<int64_t> shape;
    double factor = 1;
  };
  std::vector<Pass> passes;
  bool perAxisFactor = false;
  double factor = 1;
  if (isa<sp::FftOp, sp::IfftOp>(op)) {
    bool inverse = isa<sp::IfftOp>(op);
    auto axes = isa<sp::FftOp>(op) ? cast<sp::FftOp>(op).getAxes() : cast<sp::IfftOp>(op).getAxes();
    sp::Norm norm = isa<sp::FftOp>(op) ? cast<sp::FftOp>(op).getNorm() : cast<sp::IfftOp>(op).getNorm();
    double n = 1;
    for (int64_t axis : axes) {
      n *= double(shape[axis]);
      if (shape[axis] > 1)  // a DFT of length 1 is the identity
        passes.push_back({inverse ? FftKind::kInverse : FftKind::kForward, axis, shape[axis], shape});
    }
    factor = dftFactor(norm, n, inverse);
    if (passes.empty()) plan.special = TransformPasses::kCopy;
  } else if (auto rfft = dyn_cast<sp::RfftOp>(op)) {
    llvm::ArrayRef<int64_t> axes = rfft.getAxes();
    double n = 1;
    for (int64_t axis : axes) n *= double(in[axis]);
    factor = dftFactor(rfft.getNorm(), n, false);
    passes.push_back({FftKind::kRealForward, axes.back(), in[axes.back()], in});
    for (int64_t axis : axes.drop_back())
      if (shape[axis] > 1) passes.push_back({FftKind::kForward, axis, shape[axis], shape});
  } else if (auto irfft = dyn_cast<sp::IrfftOp>(op)) {
    llvm::ArrayRef<int64_t> axes = irfft.getAxes();
    double n = 1;
    for (int64_t axis : axes) n *= double(shape[axis]);
    factor = dftFactor(irfft.getNorm(), n, true);
    for (int64_t axis : axes.drop_back())
      if (in[axis] > 1) passes.push_back({FftKind::kInverse, axis, in[axis], in});
    passes.push_back({FftKind::kRealInverse, axes.back(), shape[axes.back()], shape});
  } else {
    bool inverse = isa<sp::IdctOp>(op);
    auto axes = inverse ? cast<sp::IdctOp>(op).getAxes() : cast<sp::DctOp>(op).getAxes();
    sp::Norm norm = inverse ? cast<sp::IdctOp>(op).getNorm() : cast<sp::DctOp>(op).getNorm();
    int type = int(inverse ? cast<sp::IdctOp>(op).getDctType() : cast<sp::DctOp>(op).getDctType());
    bool typeTwoKernel = (type == 2) != inverse;
    if (norm == sp::Norm::ortho) {
      plan.special = TransformPasses::kOrthoDct;
      return plan;
    }
    perAxisFactor = true;
    for (int64_t axis : axes) {
      double scale = (norm == sp::Norm::backward) == inverse ? 1.0 / (2.0 * double(shape[axis])) : 1.0;
      passes.push_back({typeTwoKernel ? FftKind::kDct2 : FftKind::kDct3, axis, shape[axis], shape,
                        scale});
    }
  }
  if (plan.special != TransformPasses::kNone) return plan;

  int middle = passes.size() > 1 ? intermediate() : -1;
  for (size_t p = 0; p < passes.size(); ++p) {
    FftAxis axis;
    axis.kind = passes[p].kind;
    axis.n = passes[p].n;
    around(passes[p].shape, passes[p].axis, axis.outer, axis.inner);
    axis.doublePrecision = wide;
    axis.factor = perAxisFactor ? passes[p].factor : p + 1 == passes.size() ? factor : 1.0;
    axis.input = p == 0 ? input : middle;
    axis.output = p + 1 == passes.size() ? output : middle;
    axis.op = CodegenContext::describe(op);
    plan.passes.push_back(axis);
  }
  return plan;
}

llvm::Expected<bool> lowerTransform(CodegenContext &context, Operation *op) {
  if (!isTransformOp(op)) return false;
  Value x = op->getOperand(0), result = op->getResult(0);
  if (auto d = dyn_cast<sp::DctOp>(op); d && d.getNorm() == sp::Norm::ortho)
    return lowered(orthoCosineTransform(context, op, x, d.getAxes(), d.getDctType() == 2));
  if (auto d = dyn_cast<sp::IdctOp>(op); d && d.getNorm() == sp::Norm::ortho)
    return lowered(orthoCosineTransform(context, op, x, d.getAxes(), d.getDctType() != 2));
  int out = context.newResultBuffer(result);
  // Between passes the result holds the data, except before irfft's last
  // pass, which needs the complex input's shape.
  auto intermediate = [&]() -> int {
    if (!isa<sp::IrfftOp>(op)) return out;
    return context.newScratch(op, dtypeOf(x.getType()), elementCount(x));
  };
  llvm::Expected<TransformPasses> plan =
      transformPasses(context, op, context.bufferOf(x), out, intermediate);
  if (!plan) return plan.takeError();
  if (plan->special == TransformPasses::kCopy)
    context.builder.copy(context.bufferOf(x), out, CodegenContext::describe(op));
  if (plan->special == TransformPasses::kZero)
    context.builder.zero(out, CodegenContext::describe(op));
  for (const FftAxis &axis : plan->passes)
    if (llvm::Error error = planAxis(context, op, axis, planning::plainEnds(axis)))
      return error;
  return true;
}

std::optional<double> plainNormFactor(CodegenContext &context, Operation *op) {
  llvm::Expected<TransformPasses> plan = transformPasses(context, op, -1, -1, [] { return -1; });
  if (!plan) {
    llvm::consumeError(plan.takeError());
    return std::nullopt;
  }
  if (plan->special != TransformPasses::kNone) return std::nullopt;
  double factor = 1;
  for (const planning::FftAxis &pass : plan->passes) factor *= pass.factor;
  return factor;
}

} // namespace spectral::codegen
