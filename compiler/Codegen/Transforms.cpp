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
#include "compiler/Codegen/CodegenContext.h"
#include "compiler/Planning/FftPlanner.h"
#include "dialects/spectral/IR/SpectralOps.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
namespace sp = mlir::spectral;

namespace spectral::codegen {
namespace {

using planning::FftAxis;
using planning::FftKind;

/// [outer, n, inner] around `axis` of `shape`.
void around(llvm::ArrayRef<int64_t> shape, int64_t axis, int64_t &outer, int64_t &inner) {
  outer = inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
}

int64_t elements(llvm::ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  return count;
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

/// Plans one axis, turning the planner's error into one located at `op`.
llvm::Error plan(CodegenContext &context, Operation *op, FftAxis axis) {
  axis.op = CodegenContext::describe(op);
  if (llvm::Error error = planning::planFftAxis(context.builder, axis))
    return CodegenContext::error(op, llvm::toString(std::move(error)));
  return llvm::Error::success();
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
  int64_t bytes = lines * dtype_size(dtype);
  int kernel = context.builder.addKernel({unit, entry}, CodegenContext::describe(op), bytes, bytes);
  context.builder.launch(kernel, gridFor(lines, 256), {256, 1, 1}, 0,
                         {StepArg::of_buffer(buffer), StepArg::i64(lines), StepArg::i64(n),
                          StepArg::i64(inner), StepArg::f64(factor)},
                         CodegenContext::describe(op));
}

/// fft / ifft over `axes`: lengths of 1 are skipped (their DFT is the identity).
llvm::Error complexTransform(CodegenContext &context, Operation *op, Value x,
                             llvm::ArrayRef<int64_t> axes, sp::Norm norm, bool inverse) {
  Value result = op->getResult(0);
  int out = context.newResultBuffer(result);
  std::vector<int64_t> shape = shapeOf(result.getType());
  if (elements(shape) == 0) return llvm::Error::success();
  double n = 1;
  std::vector<int64_t> passes;
  for (int64_t axis : axes) {
    n *= double(shape[axis]);
    if (shape[axis] > 1) passes.push_back(axis);
  }
  int source = context.bufferOf(x);
  if (passes.empty()) {
    context.builder.copy(source, out, CodegenContext::describe(op));
    return llvm::Error::success();
  }
  for (size_t p = 0; p < passes.size(); ++p) {
    FftAxis axis;
    axis.kind = inverse ? FftKind::kInverse : FftKind::kForward;
    axis.n = shape[passes[p]];
    around(shape, passes[p], axis.outer, axis.inner);
    axis.doublePrecision = dtypeOf(result.getType()) == DType::kComplex128;
    axis.factor = p + 1 == passes.size() ? dftFactor(norm, n, inverse) : 1.0;
    axis.input = p == 0 ? source : out;
    axis.output = out;
    if (llvm::Error error = plan(context, op, axis)) return error;
  }
  return llvm::Error::success();
}

llvm::Error realForward(CodegenContext &context, sp::RfftOp op) {
  int out = context.newResultBuffer(op.getResult());
  std::vector<int64_t> in = shapeOf(op.getX().getType()), shape = shapeOf(op.getType());
  if (elements(shape) == 0 || elements(in) == 0) {
    if (elements(shape) != 0) context.builder.zero(out, CodegenContext::describe(op));
    return llvm::Error::success();
  }
  llvm::ArrayRef<int64_t> axes = op.getAxes();
  double n = 1;
  for (int64_t axis : axes) n *= double(in[axis]);
  double factor = dftFactor(op.getNorm(), n, false);
  bool wide = dtypeOf(op.getType()) == DType::kComplex128;
  int64_t last = axes.back();
  std::vector<int64_t> others;
  for (int64_t axis : axes.drop_back())
    if (shape[axis] > 1) others.push_back(axis);

  FftAxis r2c;
  r2c.kind = FftKind::kRealForward;
  r2c.n = in[last];
  around(in, last, r2c.outer, r2c.inner);
  r2c.doublePrecision = wide;
  r2c.factor = others.empty() ? factor : 1.0;
  r2c.input = context.bufferOf(op.getX());
  r2c.output = out;
  if (llvm::Error error = plan(context, op, r2c)) return error;
  for (size_t p = 0; p < others.size(); ++p) {
    FftAxis axis;
    axis.kind = FftKind::kForward;
    axis.n = shape[others[p]];
    around(shape, others[p], axis.outer, axis.inner);
    axis.doublePrecision = wide;
    axis.factor = p + 1 == others.size() ? factor : 1.0;
    axis.input = axis.output = out;
    if (llvm::Error error = plan(context, op, axis)) return error;
  }
  return llvm::Error::success();
}

llvm::Error realInverse(CodegenContext &context, sp::IrfftOp op) {
  int out = context.newResultBuffer(op.getResult());
  std::vector<int64_t> in = shapeOf(op.getX().getType()), shape = shapeOf(op.getType());
  if (elements(shape) == 0) return llvm::Error::success();
  llvm::ArrayRef<int64_t> axes = op.getAxes();
  int64_t last = axes.back();
  double n = 1;
  for (int64_t axis : axes) n *= double(shape[axis]);
  double factor = dftFactor(op.getNorm(), n, true);
  bool wide = dtypeOf(op.getType()) == DType::kFloat64;
  std::vector<int64_t> others;
  for (int64_t axis : axes.drop_back())
    if (in[axis] > 1) others.push_back(axis);

  int spectrum = context.bufferOf(op.getX());
  if (!others.empty()) {
    int scratch = context.newScratch(op, dtypeOf(op.getX().getType()), elements(in));
    for (size_t p = 0; p < others.size(); ++p) {
      FftAxis axis;
      axis.kind = FftKind::kInverse;
      axis.n = in[others[p]];
      around(in, others[p], axis.outer, axis.inner);
      axis.doublePrecision = wide;
      axis.input = p == 0 ? spectrum : scratch;
      axis.output = scratch;
      if (llvm::Error error = plan(context, op, axis)) return error;
    }
    spectrum = scratch;
  }
  FftAxis c2r;
  c2r.kind = FftKind::kRealInverse;
  c2r.n = shape[last];
  around(shape, last, c2r.outer, c2r.inner);
  c2r.doublePrecision = wide;
  c2r.factor = factor;
  c2r.input = spectrum;
  c2r.output = out;
  return plan(context, op, c2r);
}

/// dct / idct: per axis a DCT-II or DCT-III with its own scale, as the
/// reference's dct() (idct of type 2 is a DCT-III, of type 3 a DCT-II).
llvm::Error cosineTransform(CodegenContext &context, Operation *op, Value x,
                            llvm::ArrayRef<int64_t> axes, int type, sp::Norm norm,
                            bool inverse) {
  Value result = op->getResult(0);
  int out = context.newResultBuffer(result);
  std::vector<int64_t> shape = shapeOf(result.getType());
  if (elements(shape) == 0) return llvm::Error::success();
  bool typeTwoKernel = (type == 2) != inverse;
  bool wide = dtypeOf(result.getType()) == DType::kFloat64;
  int source = context.bufferOf(x);
  for (size_t p = 0; p < axes.size(); ++p) {
    FftAxis axis;
    axis.kind = typeTwoKernel ? FftKind::kDct2 : FftKind::kDct3;
    axis.n = shape[axes[p]];
    around(shape, axes[p], axis.outer, axis.inner);
    axis.doublePrecision = wide;
    double twoN = 2.0 * double(axis.n);
    if ((norm == sp::Norm::backward && inverse) || (norm == sp::Norm::forward && !inverse))
      axis.factor = 1.0 / twoN;
    if (norm == sp::Norm::ortho) axis.factor = std::sqrt(1.0 / twoN);
    axis.input = p == 0 ? source : out;
    axis.output = out;
    bool orthoInput = norm == sp::Norm::ortho && !typeTwoKernel;
    if (orthoInput) {
      // sqrt(1/n) x_0 + sqrt(1/2n) (2 sum ...) = sqrt(1/2n) DCT-III(x with x_0 * sqrt 2).
      if (p == 0) context.builder.copy(source, out, CodegenContext::describe(op));
      scaleFirst(context, op, out, axis.outer, axis.n, axis.inner, std::sqrt(2.0));
      axis.input = out;
    }
    if (llvm::Error error = plan(context, op, axis)) return error;
    if (norm == sp::Norm::ortho && typeTwoKernel)
      scaleFirst(context, op, out, axis.outer, axis.n, axis.inner, std::sqrt(0.5));
  }
  return llvm::Error::success();
}

} // namespace

llvm::Expected<bool> lowerTransform(CodegenContext &context, Operation *op) {
  std::optional<llvm::Error> lowered =
      llvm::TypeSwitch<Operation *, std::optional<llvm::Error>>(op)
          .Case([&](sp::FftOp f) {
            return complexTransform(context, op, f.getX(), f.getAxes(), f.getNorm(), false);
          })
          .Case([&](sp::IfftOp f) {
            return complexTransform(context, op, f.getX(), f.getAxes(), f.getNorm(), true);
          })
          .Case([&](sp::RfftOp f) { return realForward(context, f); })
          .Case([&](sp::IrfftOp f) { return realInverse(context, f); })
          .Case([&](sp::DctOp d) {
            return cosineTransform(context, op, d.getX(), d.getAxes(), int(d.getDctType()),
                                   d.getNorm(), false);
          })
          .Case([&](sp::IdctOp d) {
            return cosineTransform(context, op, d.getX(), d.getAxes(), int(d.getDctType()),
                                   d.getNorm(), true);
          })
          .Default([](Operation *) { return std::nullopt; });
  if (!lowered) return false;
  if (*lowered) return std::move(*lowered);
  return true;
}

} // namespace spectral::codegen
