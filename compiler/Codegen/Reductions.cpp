//===- Reductions.cpp - reduce_*, softmax, log_softmax, cross_entropy, mse --===//
//
// Every reduction is a row reduction of reduce.cuh: the input is seen as
// [rows, n] through a generated Load functor that maps (row, j) to the
// input offset, row-major over the kept dims and over the reduced dims, so
// any set of axes (leading, middle, trailing, several) is read in place,
// with no transpose kernel. Size-1 dims are dropped and neighbouring dims of
// one kind merged first, so equivalent shapes share one unit and its name
// ("reduce_sum_f32_4x128_axes1"). The launch shape follows the layout:
// threads along j when the reduced dims are innermost (many rows per block
// for short rows, one block per long row), along rows otherwise (the warp
// reads adjacent rows). Long rows are split into chunks (partials, then a
// final row reduction) so each thread folds a short, accurate share and few
// rows still fill the device; a whole-tensor reduction takes reduce.cuh's
// partials/final passes. Softmax and log_softmax along any axis are the same
// (row, j) map as Load and Store functors; cross_entropy checks its labels
// through an error word; mse is a squared-error Load of the whole-tensor
// passes.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/CodegenUtil.h"

#include "dialects/spectral/IR/SpectralOps.h"

#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>

using namespace mlir;
namespace sp = mlir::spectral;

namespace spectral::codegen {
namespace {

/// Block shape (BLOCK_X, ROWS) of reduce.cuh.
struct RowBlock {
  int x, rows;
  Dim3 block() const { return {uint32_t(x), uint32_t(rows), 1}; }
};

/// Threads along j when `contiguous` (short rows: a power of two <= 16 lanes
/// per row and many rows per block; up to 1024: a warp per row; longer: a
/// block per row), else along rows (a warp reads adjacent rows; up to 32
/// lanes per row keep each thread's share <= 64). Every thread folds at most
/// n / BLOCK_X elements in order: the callers keep that small.
RowBlock rowBlock(int64_t n, bool contiguous) {
  if (!contiguous) {
    int x = 1;
    while (x < 32 && ceilDiv(n, x) > 64) x *= 2;
    return {x, 256 / x};
  }
  if (n <= 16) {
    int x = 1;
    while (x < n) x *= 2;
    return {x, 256 / x};
  }
  if (n <= 1024) return {32, 8};
  if (n <= 16384) return {256, 1};
  return {512, 1};
}

/// Rows longer than this (with few rows, or any rows past maxRow) are split
/// into chunks of at most this many: at most 64 elements per thread at 256
/// lanes (32 lanes when strided), and enough blocks for few rows.
int64_t chunkLength(bool contiguous) { return contiguous ? 16384 : 2048; }
int64_t maxRow(bool contiguous) { return contiguous ? 512 * 256 : 32 * 256; }
constexpr int64_t kFewRows = 256;
/// Whole-tensor reductions of at most this many elements take one block.
constexpr int64_t kOneBlock = 4096;
constexpr int kGridBlock = 256;

/// The input as alternating groups of kept and reduced dims (size-1 dims
/// dropped, neighbours of one kind merged): [4, 1, 128] over axis 2 is
/// [4 | 128]. (row, j) are row-major over the kept and the reduced groups.
struct Layout {
  std::vector<int64_t> sizes;
  std::vector<bool> reduced;
  int64_t rows = 1, n = 1;

  Layout(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> axes) {
    for (size_t d = 0; d < shape.size(); ++d) {
      bool r = llvm::is_contained(axes, int64_t(d));
      (r ? n : rows) *= shape[d];
      if (shape[d] == 1) continue;
      if (!sizes.empty() && reduced.back() == r) {
        sizes.back() *= shape[d];
      } else {
        sizes.push_back(shape[d]);
        reduced.push_back(r);
      }
    }
  }
  /// Whether j is the fast index (the innermost group is reduced).
  bool contiguous() const { return !sizes.empty() && reduced.back(); }
  /// "4x128_axes1"; "12_axesnone" when only size-1 dims are reduced.
  std::string name() const {
    std::string axes;
    for (size_t g = 0; g < sizes.size(); ++g)
      if (reduced[g]) axes += (axes.empty() ? "" : "_") + std::to_string(g);
    return shapeName(sizes) + "_axes" + (axes.empty() ? "none" : axes);
  }
  /// Statements of a function body returning the input offset of (row, j).
  std::string offsetBody() const {
    std::string code = "    long long at = 0, q = 0;\n";
    std::vector<int64_t> strides = rowMajorStrides(sizes);
    for (bool r : {false, true}) {
      const char *index = r ? "j" : "row";
      int first = -1;
      for (size_t g = 0; g < sizes.size(); ++g)
        if (reduced[g] == r && first < 0) first = int(g);
      for (int g = int(sizes.size()) - 1; g >= 0; --g) {
        if (reduced[g] != r) continue;
        std::string term = strides[g] == 1 ? "" : " * " + lit(strides[g]);
        if (g == first) {
          code += std::string("    at += ") + index + term + ";\n";
        } else {
          code += std::string("    q = ") + index + " / " + lit(sizes[g]) + ";\n    at += (" +
                  index + " - q * " + lit(sizes[g]) + ")" + term + ";\n    " + index + " = q;\n";
        }
      }
    }
    return code + "    (void)q;\n    return at;\n";
  }
};

enum class Kind { kSum, kMean, kMax };

const char *kindName(Kind kind) {
  return kind == Kind::kSum ? "sum" : kind == Kind::kMean ? "mean" : "max";
}

/// The accumulator: integer sums wrap in unsigned (as the dialect's
/// integers), everything else accumulates in its own type.
std::string accumulator(Kind kind, DType dtype) {
  if (kind != Kind::kMax && dtype == DType::kInt32) return "unsigned int";
  if (kind != Kind::kMax && dtype == DType::kInt64) return "unsigned long long";
  return cppType(dtype);
}

std::string opType(Kind kind, const std::string &a) {
  return std::string("spectral_reduce::") +
         (kind == Kind::kSum ? "Sum" : kind == Kind::kMean ? "Mean" : "Max") + "<" + a + ">";
}

/// The op of the passes before the last: partials are never finished.
Kind partialKind(Kind kind) { return kind == Kind::kMax ? Kind::kMax : Kind::kSum; }

/// "reduce_sum_f32_partials": BLOCK-thread partials of a flat tensor of n
/// (an argument) elements.
KernelSource partialsUnit(Kind kind, DType dtype) {
  std::string t = cppType(dtype), a = accumulator(kind, dtype);
  std::string entry = std::string("reduce_") + kindName(partialKind(kind)) + "_" +
                      shortName(dtype) + "_partials";
  return {"#include \"reduce.cuh\"\n\n"
          "extern \"C\" __global__ void " + entry + "(const " + t + "* __restrict__ x, " + t +
              "* __restrict__ partials, long long n) {\n"
              "  spectral_reduce::reduce_partials<" + std::to_string(kGridBlock) + ", " + a +
              ">(n, " + opType(partialKind(kind), a) + "(), spectral_reduce::FlatLoad<" + t +
              ">{x}, spectral_reduce::FlatStore<" + t + ">{partials});\n}\n",
          entry};
}

/// "reduce_mean_f32_final": one block reduces `count` values, finishing
/// with `total` (both arguments).
KernelSource finalUnit(Kind kind, DType dtype) {
  std::string t = cppType(dtype), a = accumulator(kind, dtype);
  std::string entry = std::string("reduce_") + kindName(kind) + "_" + shortName(dtype) + "_final";
  return {"#include \"reduce.cuh\"\n\n"
          "extern \"C\" __global__ void " + entry + "(const " + t + "* __restrict__ x, " + t +
              "* __restrict__ out, long long count, long long total) {\n"
              "  spectral_reduce::reduce_final<" + std::to_string(kGridBlock) + ", " + a +
              ">(count, total, " + opType(kind, a) + "(), spectral_reduce::FlatLoad<" + t +
              ">{x}, spectral_reduce::FlatStore<" + t + ">{out});\n}\n",
          entry};
}

/// Reduces the flat `input` (n elements of `dtype`) into the one element of
/// `output`: one block, or partials then one block. `partials` is a unit
/// that writes the per-block partials (the caller's prologue, e.g. mse's
/// squared error), reading `inputs`.
void reduceFlat(CodegenContext &context, Operation *op, Kind kind, DType dtype, int64_t n,
                const KernelSource &partials, std::vector<int> inputs, int64_t inputBytes,
                int output) {
  ProgramBuilder &builder = context.builder;
  std::string where = CodegenContext::describe(op);
  KernelSource final = finalUnit(kind, dtype);
  int source = inputs.front();
  int64_t count = n;
  if (n > kOneBlock || inputs.size() > 1) {
    count = std::min<int64_t>(1024, std::max<int64_t>(1, ceilDiv(n, kGridBlock * 32)));
    int scratch = context.newScratch(op, dtype, count);
    int kernel = builder.addKernel(partials, where, inputBytes, bytesOf(dtype, count));
    std::vector<StepArg> args;
    for (int input : inputs) args.push_back(StepArg::of_buffer(input));
    args.push_back(StepArg::of_buffer(scratch));
    args.push_back(StepArg::i64(n));
    builder.launch(kernel, {uint32_t(count), 1, 1}, {uint32_t(kGridBlock), 1, 1}, 0,
                   std::move(args), where);
    source = scratch;
  }
  int kernel = builder.addKernel(final, where, bytesOf(dtype, count), bytesOf(dtype, 1));
  builder.launch(kernel, {1, 1, 1}, {uint32_t(kGridBlock), 1, 1}, 0,
                 {StepArg::of_buffer(source), StepArg::of_buffer(output), StepArg::i64(count),
                  StepArg::i64(n)},
                 where);
}

llvm::Error lowerReduce(CodegenContext &context, Operation *op, Kind kind, Value x,
                        llvm::ArrayRef<int64_t> axes) {
  Value result = op->getResult(0);
  DType dtype = dtypeOf(x.getType());
  std::vector<int64_t> shape = shapeOf(x.getType());
  Layout layout(shape, axes);
  int input = context.bufferOf(x), output = context.newResultBuffer(result);
  if (layout.rows == 0) return llvm::Error::success();  // an empty result
  if (kind == Kind::kMax && layout.n == 0)
    for (int64_t axis : axes)
      if (shape[axis] == 0)
        return CodegenContext::error(op, "reduces over axis " + llvm::Twine(axis) +
                                             " of length 0: the maximum of no elements is "
                                             "undefined");
  std::string t = cppType(dtype), a = accumulator(kind, dtype);
  std::string prefix = std::string("reduce_") + kindName(kind) + "_" + shortName(dtype) + "_";
  ProgramBuilder &builder = context.builder;
  std::string where = CodegenContext::describe(op);
  int64_t inBytes = bytesOf(dtype, layout.rows * layout.n);

  if (layout.rows == 1) {
    reduceFlat(context, op, kind, dtype, layout.n, partialsUnit(kind, dtype), {input}, inBytes,
               output);
    return llvm::Error::success();
  }

  bool contiguous = layout.contiguous();
  int64_t rows = layout.rows, n = layout.n;
  bool split = n > chunkLength(contiguous) && (rows < kFewRows || n > maxRow(contiguous));
  std::string offset = "  __device__ __forceinline__ long long offset(long long row, long long j) "
                       "const {\n" + layout.offsetBody() + "  }\n";
  if (!split) {
    RowBlock rb = rowBlock(n, contiguous);
    std::string entry = prefix + layout.name();
    std::string unit =
        "#include \"reduce.cuh\"\n\nnamespace {\nstruct Load {\n  const " + t + "* x;\n" + offset +
        "  __device__ __forceinline__ " + t +
        " operator()(long long row, long long j) const { return x[offset(row, j)]; }\n};\n"
        "}  // namespace\n\nextern \"C\" __global__ void " + entry + "(const " + t +
        "* __restrict__ x, " + t + "* __restrict__ out) {\n  spectral_reduce::reduce_rows<" +
        std::to_string(rb.x) + ", " + std::to_string(rb.rows) + ", " + a + ">(" + lit(rows) +
        ", " + lit(n) + ", " + opType(kind, a) + "(), Load{x}, spectral_reduce::FlatStore<" + t +
        ">{out});\n}\n";
    int kernel = builder.addKernel({unit, entry}, where, inBytes, bytesOf(dtype, rows));
    builder.launch(kernel, gridFor(rows, rb.rows), rb.block(), 0,
                   {StepArg::of_buffer(input), StepArg::of_buffer(output)}, where);
    return llvm::Error::success();
  }

  // Split rows: chunk c of row r is pass-1 row c * rows + r (adjacent
  // pass-1 rows are adjacent input rows), its partial lands at r * C + c.
  int64_t chunks = ceilDiv(n, chunkLength(contiguous)), length = ceilDiv(n, chunks);
  Kind first = partialKind(kind);
  RowBlock rb = rowBlock(length, contiguous);
  std::string entry = prefix + layout.name() + "_split" + std::to_string(chunks);
  std::string unit =
      "#include \"reduce.cuh\"\n\nnamespace {\nstruct Load {\n  const " + t + "* x;\n" + offset +
      "  __device__ __forceinline__ " + a + " operator()(long long r, long long j) const {\n"
      "    const long long c = r / " + lit(rows) + ", row = r - c * " + lit(rows) + ";\n"
      "    j += c * " + lit(length) + ";\n"
      "    return j < " + lit(n) + " ? static_cast<" + a + ">(x[offset(row, j)]) : " +
      opType(first, a) +
      "().identity();\n  }\n};\n"
      "struct Store {\n  " + t + "* partials;\n"
      "  __device__ __forceinline__ void operator()(long long r, " + a + " v) const {\n"
      "    const long long c = r / " + lit(rows) + ";\n"
      "    partials[(r - c * " + lit(rows) + ") * " + lit(chunks) + " + c] = v;\n  }\n};\n"
      "}  // namespace\n\nextern \"C\" __global__ void " + entry + "(const " + t +
      "* __restrict__ x, " + t + "* __restrict__ partials) {\n  spectral_reduce::reduce_rows<" +
      std::to_string(rb.x) + ", " + std::to_string(rb.rows) + ", " + a + ">(" +
      lit(rows * chunks) + ", " + lit(length) + ", " + opType(first, a) +
      "(), Load{x}, Store{partials});\n}\n";
  int scratch = context.newScratch(op, dtype, rows * chunks);
  int kernel = builder.addKernel({unit, entry}, where, inBytes, bytesOf(dtype, rows * chunks));
  builder.launch(kernel, gridFor(rows * chunks, rb.rows), rb.block(), 0,
                 {StepArg::of_buffer(input), StepArg::of_buffer(scratch)}, where);

  // The final pass: [rows, chunks], finished with the count n.
  RowBlock fb = rowBlock(chunks, true);
  std::string finalEntry = prefix + layout.name() + "_final" + std::to_string(chunks);
  std::string finalOp = opType(kind, a);
  std::string finalUnitText = "#include \"reduce.cuh\"\n\nnamespace {\nstruct Op : " + finalOp +
                              " {\n  __device__ __forceinline__ " + a + " finish(" + a +
                              " acc, long long) const { return " + finalOp +
                              "::finish(acc, " + lit(n) + "); }\n};\n}  // namespace\n\n"
                              "extern \"C\" __global__ void " + finalEntry + "(const " + t +
                              "* __restrict__ partials, " + t +
                              "* __restrict__ out) {\n  spectral_reduce::reduce_rows<" +
                              std::to_string(fb.x) + ", " + std::to_string(fb.rows) + ", " + a +
                              ">(" + lit(rows) + ", " + lit(chunks) +
                              ", Op(), spectral_reduce::RowLoad<" + t + ">{partials, " +
                              lit(chunks) + "}, spectral_reduce::FlatStore<" + t + ">{out});\n}\n";
  kernel = builder.addKernel({finalUnitText, finalEntry}, where, bytesOf(dtype, rows * chunks),
                             bytesOf(dtype, rows));
  builder.launch(kernel, gridFor(rows, fb.rows), fb.block(), 0,
                 {StepArg::of_buffer(scratch), StepArg::of_buffer(output)}, where);
  return llvm::Error::success();
}

/// softmax / log_softmax along `axis`: the input as [outer, n, inner], row
/// = (o, i) row-major, j the position along the axis.
llvm::Error lowerSoftmax(CodegenContext &context, Operation *op, Value x, int64_t axis,
                         bool log) {
  DType dtype = dtypeOf(x.getType());
  std::vector<int64_t> shape = shapeOf(x.getType());
  int64_t n = shape[axis];
  int64_t outer = elementCount(llvm::ArrayRef(shape).take_front(axis));
  int64_t inner = elementCount(llvm::ArrayRef(shape).drop_front(axis + 1));
  int input = context.bufferOf(x), output = context.newResultBuffer(op->getResult(0));
  int64_t rows = outer * inner;
  if (rows * n == 0) return llvm::Error::success();
  std::string t = cppType(dtype);
  std::vector<int64_t> canonical;
  if (outer > 1) canonical.push_back(outer);
  canonical.push_back(n);
  if (inner > 1) canonical.push_back(inner);
  std::string entry = std::string(log ? "log_softmax_" : "softmax_") + shortName(dtype) + "_" +
                      shapeName(canonical) + "_axis" + std::to_string(outer > 1 ? 1 : 0);
  std::string offset =
      inner == 1 ? "row * " + lit(n) + " + j"
      : outer == 1
          ? "j * " + lit(inner) + " + row"
          : "(row / " + lit(inner) + ") * " + lit(n * inner) + " + j * " + lit(inner) +
                " + row % " + lit(inner);
  RowBlock rb = rowBlock(n, inner == 1);
  std::string unit =
      "#include \"softmax.cuh\"\n\nnamespace {\n"
      "__device__ __forceinline__ long long offset(long long row, long long j) { return " +
      offset + "; }\n"
      "struct Load {\n  const " + t + "* x;\n  __device__ __forceinline__ " + t +
      " operator()(long long row, long long j) const { return x[offset(row, j)]; }\n};\n"
      "struct Store {\n  " + t + "* y;\n  __device__ __forceinline__ void operator()(long long "
      "row, long long j, " + t + " v) const { y[offset(row, j)] = v; }\n};\n"
      "}  // namespace\n\nextern \"C\" __global__ void " + entry + "(const " + t +
      "* __restrict__ x, " + t + "* __restrict__ y) {\n  spectral_reduce::softmax_rows<" +
      std::to_string(rb.x) + ", " + std::to_string(rb.rows) + ", " + (log ? "true" : "false") +
      ", " + t + ">(" + lit(rows) + ", " + lit(n) + ", Load{x}, Store{y});\n}\n";
  std::string where = CodegenContext::describe(op);
  int64_t bytes = bytesOf(dtype, rows * n);
  int kernel = context.builder.addKernel({unit, entry}, where, bytes, bytes);
  context.builder.launch(kernel, gridFor(rows, rb.rows), rb.block(), 0,
                         {StepArg::of_buffer(input), StepArg::of_buffer(output)}, where);
  return llvm::Error::success();
}

/// Per-row losses (a bad label reported through an error word naming the
/// op), then their mean.
llvm::Error lowerCrossEntropy(CodegenContext &context, sp::CrossEntropyOp op) {
  DType dtype = dtypeOf(op.getLogits().getType()), labelType = dtypeOf(op.getLabels().getType());
  std::vector<int64_t> shape = shapeOf(op.getLogits().getType());
  int64_t rows = shape[0], classes = shape[1];
  int logits = context.bufferOf(op.getLogits()), labels = context.bufferOf(op.getLabels());
  int output = context.newResultBuffer(op.getResult());
  ProgramBuilder &builder = context.builder;
  std::string where = CodegenContext::describe(op);
  std::string t = cppType(dtype), l = cppType(labelType);
  int losses = context.newScratch(op, dtype, std::max<int64_t>(rows, 1));
  if (rows > 0) {
    RowBlock rb = rowBlock(classes, true);
    std::string entry = std::string("cross_entropy_") + shortName(dtype) + "_" +
                        shortName(labelType) + "_" + std::to_string(rows) + "x" +
                        std::to_string(classes);
    std::string unit =
        "#include \"loss.cuh\"\n\nnamespace {\n"
        "/// Stores a row's loss; a label outside [0, classes) marks the row in the error word.\n"
        "struct LossStore {\n  " + t + "* loss;\n  const " + l + "* labels;\n"
        "  unsigned long long* error;\n"
        "  __device__ __forceinline__ void operator()(long long row, " + t + " v) const {\n"
        "    const long long label = (long long)labels[row];\n"
        "    if ((label < 0 || label >= " + lit(classes) + ") && error != nullptr)\n"
        "      atomicMax(error, ~(unsigned long long)row);\n"
        "    loss[row] = v;\n  }\n};\n}  // namespace\n\n"
        "extern \"C\" __global__ void " + entry + "(const " + t + "* __restrict__ logits, const " +
        l + "* __restrict__ labels, " + t + "* __restrict__ loss, unsigned long long* error) {\n"
        "  spectral_reduce::cross_entropy_rows<" + std::to_string(rb.x) + ", " +
        std::to_string(rb.rows) + ", " + t + ">(" + lit(rows) + ", " + lit(classes) +
        ", spectral_reduce::RowLoad<" + t + ">{logits, " + lit(classes) +
        "}, labels, LossStore{loss, labels, error});\n}\n";
    int error = context.newScratch(op, DType::kInt64, 1);
    int kernel = builder.addKernel(
        {unit, entry}, where,
        bytesOf(dtype, rows * classes) + bytesOf(labelType, rows), bytesOf(dtype, rows));
    builder.launch(kernel, gridFor(rows, rb.rows), rb.block(), 0,
                   {StepArg::of_buffer(logits), StepArg::of_buffer(labels),
                    StepArg::of_buffer(losses), StepArg::of_buffer(error)},
                   where, error, "label out of range [0, " + std::to_string(classes) + ") in row");
  }
  reduceFlat(context, op, Kind::kMean, dtype, rows, partialsUnit(Kind::kMean, dtype), {losses},
             bytesOf(dtype, rows), output);
  return llvm::Error::success();
}

/// The mean of |prediction - target|^2: the squared error is the partials'
/// Load (real or complex inputs, a real result).
llvm::Error lowerMse(CodegenContext &context, sp::MseOp op) {
  DType dtype = dtypeOf(op.getPrediction().getType()), real = dtypeOf(op.getType());
  int64_t n = elementCount(op.getPrediction());
  int a = context.bufferOf(op.getPrediction()), b = context.bufferOf(op.getTarget());
  int output = context.newResultBuffer(op.getResult());
  std::string t = cppType(dtype), r = cppType(real);
  std::string entry = std::string("mse_") + shortName(dtype) + "_partials";
  KernelSource partials{
      "#include \"loss.cuh\"\n\nextern \"C\" __global__ void " + entry + "(const " + t +
          "* __restrict__ a, const " + t + "* __restrict__ b, " + r +
          "* __restrict__ partials, long long n) {\n  spectral_reduce::reduce_partials<" +
          std::to_string(kGridBlock) + ", " + r + ">(n, spectral_reduce::Sum<" + r +
          ">(), spectral_reduce::SquaredErrorLoad<" + t + ">{a, b}, spectral_reduce::FlatStore<" +
          r + ">{partials});\n}\n",
      entry};
  reduceFlat(context, op, Kind::kMean, real, n, partials, {a, b}, 2 * bytesOf(dtype, n), output);
  return llvm::Error::success();
}

} // namespace

llvm::Expected<bool> lowerReduction(CodegenContext &context, Operation *op) {
  if (auto r = dyn_cast<sp::ReduceSumOp>(op))
    return lowered(lowerReduce(context, op, Kind::kSum, r.getX(), r.getAxes()));
  if (auto r = dyn_cast<sp::ReduceMeanOp>(op))
    return lowered(lowerReduce(context, op, Kind::kMean, r.getX(), r.getAxes()));
  if (auto r = dyn_cast<sp::ReduceMaxOp>(op))
    return lowered(lowerReduce(context, op, Kind::kMax, r.getX(), r.getAxes()));
  if (auto s = dyn_cast<sp::SoftmaxOp>(op))
    return lowered(lowerSoftmax(context, op, s.getX(), int64_t(s.getAxis()), false));
  if (auto s = dyn_cast<sp::LogSoftmaxOp>(op))
    return lowered(lowerSoftmax(context, op, s.getX(), int64_t(s.getAxis()), true));
  if (auto c = dyn_cast<sp::CrossEntropyOp>(op)) return lowered(lowerCrossEntropy(context, c));
  if (auto m = dyn_cast<sp::MseOp>(op)) return lowered(lowerMse(context, m));
  return false;
}

} // namespace spectral::codegen
