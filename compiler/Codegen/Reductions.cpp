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
// The Load functors read the operand's element at its flat offset i through
// an ElementEnd, and the Stores write the result's element i through one
// (FusedReductions.h): a buffer, or a fused group of elementwise ops. The
// operand is read by exactly one launch (the first) and the result written
// by exactly one (the last), so every path, the split and whole-tensor ones
// included, takes fused ends; the passes between read and write scratch.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/CodegenUtil.h"
#include "compiler/Codegen/FusedReductions.h"

#include "dialects/spectral/IR/SpectralOps.h"

#include "llvm/ADT/StringExtras.h"

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
    std::string code = "  long long at = 0, q = 0;\n";
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
          code += std::string("  at += ") + index + term + ";\n";
        } else {
          code += std::string("  q = ") + index + " / " + lit(sizes[g]) + ";\n  at += (" +
                  index + " - q * " + lit(sizes[g]) + ")" + term + ";\n  " + index + " = q;\n";
        }
      }
    }
    return code + "  (void)q;\n  return at;\n";
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

// ---- units over ends ----------------------------------------------------------------------

using Ends = std::initializer_list<const ElementEnd *>;

/// A unit including `header` and the headers of `ends`, with the ends'
/// definitions and `functors` in an anonymous namespace, then the entry
/// `entry(params) { body }`.
KernelSource unitOf(const std::string &header, Ends ends, const std::string &functors,
                    const std::string &entry, const std::string &params, const std::string &body,
                    bool phased = false) {
  std::string text = "#include \"" + header + "\"\n";
  for (const ElementEnd *end : ends)
    if (!end->include.empty() && text.find("\"" + end->include + "\"") == std::string::npos)
      text += "#include \"" + end->include + "\"\n";
  if (phased) text += kPhasedUnit;  // the body is one phased template's call
  text += "\nnamespace {\n";
  for (const ElementEnd *end : ends) text += end->definition;
  return {text + functors + "}  // namespace\n\nextern \"C\" __global__ void " + entry + "(" +
              params + ") {\n" + body + "}\n",
          entry};
}

/// The entry's parameters: the ends', then `extra`.
std::string paramsOf(Ends ends, std::vector<std::string> extra = {}) {
  std::vector<std::string> all;
  for (const ElementEnd *end : ends) all.insert(all.end(), end->params.begin(), end->params.end());
  all.insert(all.end(), extra.begin(), extra.end());
  return llvm::join(all, ", ");
}

/// The launch's arguments: the ends', then `extra`.
std::vector<StepArg> argsOf(Ends ends, std::vector<StepArg> extra = {}) {
  std::vector<StepArg> all;
  for (const ElementEnd *end : ends) all.insert(all.end(), end->args.begin(), end->args.end());
  all.insert(all.end(), extra.begin(), extra.end());
  return all;
}

/// struct `name` reading through `end`: operator()(`args`) runs `bind`
/// (which binds the flat offset i) and returns `value` (by default the
/// end's element at i) as `type`.
std::string loadFunctor(const std::string &name, const ElementEnd &end, const std::string &type,
                        const std::string &args, const std::string &bind,
                        const std::string &value = "") {
  return "struct " + name + " {\n" + end.members + "  __device__ __forceinline__ " + type +
         " operator()(" + args + ") const {\n" + bind + "    return " +
         (value.empty() ? end.code : value) + ";\n  }\n};\n";
}

/// struct `name` writing `a` (a `type`) through `end`: operator()(`args`, a)
/// runs `bind` (which binds the flat offset i), then the end's statements.
std::string storeFunctor(const std::string &name, const ElementEnd &end, const std::string &type,
                         const std::string &args, const std::string &bind) {
  return "struct " + name + " {\n" + end.members + "  __device__ __forceinline__ void operator()(" +
         args + ", " + type + " a) const {\n" + bind + end.code + "  }\n};\n";
}

/// "spectral.abs (...), spectral.reduce_sum (...)": what a launch computes,
/// `load`'s and `store`'s fused ops (either may be null) around `op`.
std::string describeLaunch(const ElementEnd *load, Operation *op, const ElementEnd *store) {
  std::string text = load && !load->ops.empty() ? load->ops + ", " : "";
  text += CodegenContext::describe(op);
  return store && !store->ops.empty() ? text + ", " + store->ops : text;
}

/// A whole-tensor reduction's values: `load` gives them at flat i < n as the
/// partials' type; the first pass is the entry `partials` (its tag
/// appended) of a unit including `header`. `oneBlock`: a single block may
/// read `load` itself when n is small.
struct FlatInput {
  ElementEnd load;
  std::string header, partials;
  bool oneBlock = true;
};

/// The partials pass entry of a reduction: "reduce_sum_f32_partials".
std::string partialsEntry(Kind kind, DType dtype) {
  return std::string("reduce_") + kindName(partialKind(kind)) + "_" + shortName(dtype) +
         "_partials";
}

/// Reduces `input`'s n values (of `dtype`) into the one element `store`
/// writes: one block ("reduce_mean_f32_final"), or BLOCK-thread partials
/// then one block. The partials and final units take n and the count as
/// arguments, so plain ends share them across sizes.
void reduceFlat(CodegenContext &context, Operation *op, Kind kind, DType dtype, int64_t n,
                const FlatInput &input, const ElementEnd &store) {
  ProgramBuilder &builder = context.builder;
  std::string t = cppType(dtype), block = std::to_string(kGridBlock);
  ElementEnd load = input.load;
  int64_t count = n;
  if (n > kOneBlock || !input.oneBlock) {
    count = std::min<int64_t>(1024, std::max<int64_t>(1, ceilDiv(n, kGridBlock * 32)));
    int scratch = context.newScratch(op, dtype, count);
    ElementEnd partials = bufferStore(context, "partials", scratch);
    Kind first = partialKind(kind);
    std::string a = accumulator(first, dtype), where = describeLaunch(&load, op, nullptr);
    KernelSource unit = unitOf(
        input.header, {&load, &partials},
        loadFunctor("Load", load, t, "long long i", "") +
            storeFunctor("Store", partials, t, "long long i", ""),
        input.partials + load.tag, paramsOf({&load, &partials}, {"long long n"}),
        "  spectral_reduce::reduce_partials<" + block + ", " + a + ">(n, " + opType(first, a) +
            "(), Load{" + load.init + "}, Store{" + partials.init + "});\n",
      true);
    int kernel = builder.addKernel(unit, where, load.bytes, bytesOf(dtype, count));
    builder.launch(kernel, {uint32_t(count), 1, 1}, {uint32_t(kGridBlock), 1, 1}, 0,
                   argsOf({&load, &partials}, {StepArg::i64(n)}), where);
    load = bufferLoad(context, "x", scratch);
  }
  std::string a = accumulator(kind, dtype), where = describeLaunch(&load, op, &store);
  KernelSource unit = unitOf(
      "reduce.cuh", {&load, &store},
      loadFunctor("Load", load, t, "long long i", "") +
          storeFunctor("Store", store, t, "long long i", ""),
      std::string("reduce_") + kindName(kind) + "_" + shortName(dtype) + "_final" + load.tag +
          store.tag,
      paramsOf({&load, &store}, {"long long count", "long long total"}),
      "  spectral_reduce::reduce_final<" + block + ", " + a + ">(count, total, " +
          opType(kind, a) + "(), Load{" + load.init + "}, Store{" + store.init + "});\n",
      true);
  int kernel = builder.addKernel(unit, where, load.bytes, store.bytes);
  builder.launch(kernel, {1, 1, 1}, {uint32_t(kGridBlock), 1, 1}, 0,
                 argsOf({&load, &store}, {StepArg::i64(count), StepArg::i64(n)}), where);
}

void lowerReduce(CodegenContext &context, Operation *op, Kind kind, Value x,
                 llvm::ArrayRef<int64_t> axes, const ElementEnd &load, const ElementEnd &store) {
  DType dtype = dtypeOf(x.getType());
  Layout layout(shapeOf(x.getType()), axes);
  if (layout.rows == 1) {
    reduceFlat(context, op, kind, dtype, layout.n,
               {load, "reduce.cuh", partialsEntry(kind, dtype), true}, store);
    return;
  }
  std::string t = cppType(dtype), a = accumulator(kind, dtype);
  std::string prefix = std::string("reduce_") + kindName(kind) + "_" + shortName(dtype) + "_";
  ProgramBuilder &builder = context.builder;
  bool contiguous = layout.contiguous();
  int64_t rows = layout.rows, n = layout.n;
  bool split = n > chunkLength(contiguous) && (rows < kFewRows || n > maxRow(contiguous));
  std::string offset = "__device__ __forceinline__ long long offset(long long row, long long j) "
                       "{\n" + layout.offsetBody() + "}\n";
  const std::string atOffset = "    const long long i = offset(row, j);\n";
  if (!split) {
    RowBlock rb = rowBlock(n, contiguous);
    std::string where = describeLaunch(&load, op, &store);
    KernelSource unit = unitOf(
        "reduce.cuh", {&load, &store},
        offset + loadFunctor("Load", load, t, "long long row, long long j", atOffset) +
            storeFunctor("Store", store, t, "long long i", ""),
        prefix + layout.name() + load.tag + store.tag, paramsOf({&load, &store}),
        "  spectral_reduce::reduce_rows<" + std::to_string(rb.x) + ", " +
            std::to_string(rb.rows) + ", " + a + ">(" + lit(rows) + ", " + lit(n) + ", " +
            opType(kind, a) + "(), Load{" + load.init + "}, Store{" + store.init + "});\n",
      true);
    int kernel = builder.addKernel(unit, where, load.bytes, store.bytes);
    builder.launch(kernel, gridFor(rows, rb.rows), rb.block(), 0, argsOf({&load, &store}), where);
    return;
  }

  // Split rows: chunk c of row r is pass-1 row c * rows + r (adjacent
  // pass-1 rows are adjacent input rows), its partial lands at r * C + c.
  int64_t chunks = ceilDiv(n, chunkLength(contiguous)), length = ceilDiv(n, chunks);
  Kind first = partialKind(kind);
  RowBlock rb = rowBlock(length, contiguous);
  std::string where = describeLaunch(&load, op, nullptr);
  KernelSource unit = unitOf(
      "reduce.cuh", {&load},
      offset +
          loadFunctor("Load", load, a, "long long r, long long j",
                      "    const long long c = r / " + lit(rows) + ", row = r - c * " +
                          lit(rows) + ";\n    j += c * " + lit(length) + ";\n" + atOffset,
                      "j < " + lit(n) + " ? static_cast<" + a + ">(" + load.code + ") : " +
                          opType(first, a) + "().identity()") +
          "struct Store {\n  " + t + "* partials;\n"
          "  __device__ __forceinline__ void operator()(long long r, " + a + " v) const {\n"
          "    const long long c = r / " + lit(rows) + ";\n"
          "    partials[(r - c * " + lit(rows) + ") * " + lit(chunks) + " + c] = v;\n  }\n};\n",
      prefix + layout.name() + "_split" + std::to_string(chunks) + load.tag,
      paramsOf({&load}, {t + "* __restrict__ partials"}),
      "  spectral_reduce::reduce_rows<" + std::to_string(rb.x) + ", " + std::to_string(rb.rows) +
          ", " + a + ">(" + lit(rows * chunks) + ", " + lit(length) + ", " + opType(first, a) +
          "(), Load{" + load.init + "}, Store{partials});\n",
      true);
  int scratch = context.newScratch(op, dtype, rows * chunks);
  int kernel = builder.addKernel(unit, where, load.bytes, bytesOf(dtype, rows * chunks));
  builder.launch(kernel, gridFor(rows * chunks, rb.rows), rb.block(), 0,
                 argsOf({&load}, {StepArg::of_buffer(scratch)}), where);

  // The final pass: [rows, chunks], finished with the count n.
  RowBlock fb = rowBlock(chunks, true);
  std::string finalOp = opType(kind, a);
  where = describeLaunch(nullptr, op, &store);
  unit = unitOf(
      "reduce.cuh", {&store},
      "struct Op : " + finalOp + " {\n  __device__ __forceinline__ " + a + " finish(" + a +
          " acc, long long) const { return " + finalOp + "::finish(acc, " + lit(n) +
          "); }\n};\n" + storeFunctor("Store", store, t, "long long i", ""),
      prefix + layout.name() + "_final" + std::to_string(chunks) + store.tag,
      "const " + t + "* __restrict__ partials, " + paramsOf({&store}),
      "  spectral_reduce::reduce_rows<" + std::to_string(fb.x) + ", " + std::to_string(fb.rows) +
          ", " + a + ">(" + lit(rows) + ", " + lit(chunks) + ", Op(), spectral_reduce::RowLoad<" +
          t + ">{partials, " + lit(chunks) + "}, Store{" + store.init + "});\n",
      true);
  kernel = builder.addKernel(unit, where, bytesOf(dtype, rows * chunks), store.bytes);
  std::vector<StepArg> args{StepArg::of_buffer(scratch)};
  for (const StepArg &arg : store.args) args.push_back(arg);
  builder.launch(kernel, gridFor(rows, fb.rows), fb.block(), 0, std::move(args), where);
}

/// softmax / log_softmax along `axis`: the input as [outer, n, inner], row
/// = (o, i) row-major, j the position along the axis.
void lowerSoftmax(CodegenContext &context, Operation *op, Value x, int64_t axis, bool log,
                  const ElementEnd &load, const ElementEnd &store) {
  DType dtype = dtypeOf(x.getType());
  std::vector<int64_t> shape = shapeOf(x.getType());
  int64_t n = shape[axis];
  int64_t outer = elementCount(llvm::ArrayRef(shape).take_front(axis));
  int64_t inner = elementCount(llvm::ArrayRef(shape).drop_front(axis + 1));
  int64_t rows = outer * inner;
  std::string t = cppType(dtype);
  std::vector<int64_t> canonical;
  if (outer > 1) canonical.push_back(outer);
  canonical.push_back(n);
  if (inner > 1) canonical.push_back(inner);
  std::string entry = std::string(log ? "log_softmax_" : "softmax_") + shortName(dtype) + "_" +
                      shapeName(canonical) + "_axis" + std::to_string(outer > 1 ? 1 : 0) +
                      load.tag + store.tag;
  std::string offset =
      inner == 1 ? "row * " + lit(n) + " + j"
      : outer == 1
          ? "j * " + lit(inner) + " + row"
          : "(row / " + lit(inner) + ") * " + lit(n * inner) + " + j * " + lit(inner) +
                " + row % " + lit(inner);
  const std::string args = "long long row, long long j",
                    atOffset = "    const long long i = offset(row, j);\n";
  RowBlock rb = rowBlock(n, inner == 1);
  KernelSource unit = unitOf(
      "softmax.cuh", {&load, &store},
      "__device__ __forceinline__ long long offset(long long row, long long j) { return " +
          offset + "; }\n" + loadFunctor("Load", load, t, args, atOffset) +
          storeFunctor("Store", store, t, args, atOffset),
      entry, paramsOf({&load, &store}),
      "  spectral_reduce::softmax_rows<" + std::to_string(rb.x) + ", " +
          std::to_string(rb.rows) + ", " + (log ? "true" : "false") + ", " + t + ">(" +
          lit(rows) + ", " + lit(n) + ", Load{" + load.init + "}, Store{" + store.init + "});\n",
      true);
  std::string where = describeLaunch(&load, op, &store);
  int kernel = context.builder.addKernel(unit, where, load.bytes, store.bytes);
  context.builder.launch(kernel, gridFor(rows, rb.rows), rb.block(), 0,
                         argsOf({&load, &store}), where);
}

/// Per-row losses (a bad label reported through an error word naming the
/// op) from the logits `logits` reads at flat offsets, then their mean,
/// written through `store`.
void lowerCrossEntropy(CodegenContext &context, sp::CrossEntropyOp op, const ElementEnd &logits,
                       const ElementEnd &store) {
  DType dtype = dtypeOf(op.getLogits().getType()), labelType = dtypeOf(op.getLabels().getType());
  std::vector<int64_t> shape = shapeOf(op.getLogits().getType());
  int64_t rows = shape[0], classes = shape[1];
  int labels = context.bufferOf(op.getLabels());
  ProgramBuilder &builder = context.builder;
  std::string t = cppType(dtype), l = cppType(labelType);
  int losses = context.newScratch(op, dtype, std::max<int64_t>(rows, 1));
  if (rows > 0) {
    RowBlock rb = rowBlock(classes, true);
    std::string entry = std::string("cross_entropy_") + shortName(dtype) + "_" +
                        shortName(labelType) + "_" + std::to_string(rows) + "x" +
                        std::to_string(classes) + logits.tag;
    std::string lossStore =
        "/// Stores a row's loss; a label outside [0, classes) marks the row in the error word.\n"
        "struct LossStore {\n  " + t + "* loss;\n  const " + l + "* labels;\n"
        "  unsigned long long* error;\n"
        "  __device__ __forceinline__ void operator()(long long row, " + t + " v) const {\n"
        "    const long long label = (long long)labels[row];\n"
        "    if ((label < 0 || label >= " + lit(classes) + ") && error != nullptr)\n"
        "      atomicMax(error, ~(unsigned long long)row);\n"
        "    loss[row] = v;\n  }\n};\n";
    KernelSource unit = unitOf(
        "loss.cuh", {&logits},
        loadFunctor("Logits", logits, t, "long long row, long long j",
                    "    const long long i = row * " + lit(classes) + " + j;\n") +
            lossStore,
        entry,
        paramsOf({&logits}, {"const " + l + "* __restrict__ labels", t + "* __restrict__ loss",
                             "unsigned long long* error"}),
        "  spectral_reduce::cross_entropy_rows<" + std::to_string(rb.x) + ", " +
            std::to_string(rb.rows) + ", " + t + ">(" + lit(rows) + ", " + lit(classes) +
            ", Logits{" + logits.init + "}, labels, LossStore{loss, labels, error});\n",
        /*phased=*/true);
    int error = context.newScratch(op, DType::kInt64, 1);
    std::string where = describeLaunch(&logits, op, nullptr);
    int kernel = builder.addKernel(unit, where, logits.bytes + bytesOf(labelType, rows),
                                   bytesOf(dtype, rows));
    builder.launch(kernel, gridFor(rows, rb.rows), rb.block(), 0,
                   argsOf({&logits}, {StepArg::of_buffer(labels), StepArg::of_buffer(losses),
                                      StepArg::of_buffer(error)}),
                   where, error, "label out of range [0, " + std::to_string(classes) + ") in row");
  }
  reduceFlat(context, op, Kind::kMean, dtype, rows,
             {bufferLoad(context, "x", losses), "reduce.cuh", partialsEntry(Kind::kMean, dtype)},
             store);
}

/// The mean of |prediction - target|^2, written through `store`: the
/// squared error of what `prediction` and `target` read is the partials'
/// Load (real or complex inputs, a real result), always two passes.
void lowerMse(CodegenContext &context, sp::MseOp op, const ElementEnd &prediction,
              const ElementEnd &target, const ElementEnd &store) {
  DType dtype = dtypeOf(op.getPrediction().getType()), real = dtypeOf(op.getType());
  int64_t n = elementCount(op.getPrediction());
  std::string t = cppType(dtype);
  // One Load over both ends: each end's functor as a member of its own.
  ElementEnd load;
  load.include = !prediction.include.empty() ? prediction.include : target.include;
  load.definition = prediction.definition +
                    (target.definition == prediction.definition ? "" : target.definition) +
                    loadFunctor("Prediction", prediction, t, "long long i", "") +
                    loadFunctor("Target", target, t, "long long i", "");
  load.members = "  Prediction prediction;\n  Target target;\n";
  load.init = "Prediction{" + prediction.init + "}, Target{" + target.init + "}";
  for (const ElementEnd *end : {&prediction, &target}) {
    load.params.insert(load.params.end(), end->params.begin(), end->params.end());
    load.args.insert(load.args.end(), end->args.begin(), end->args.end());
    load.bytes += end->bytes;
    load.ops += (load.ops.empty() || end->ops.empty() ? "" : ", ") + end->ops;
  }
  load.tag = prediction.tag + target.tag;
  load.code = "spectral_reduce::magnitude2(prediction(i) - target(i))";
  reduceFlat(context, op, Kind::kMean, real, n,
             {load, "loss.cuh", std::string("mse_") + shortName(dtype) + "_partials", false},
             store);
}

/// reduce_sum, reduce_mean, reduce_max, softmax, log_softmax.
bool isAnchorOp(Operation *op) {
  return isa<sp::ReduceSumOp, sp::ReduceMeanOp, sp::ReduceMaxOp, sp::SoftmaxOp,
             sp::LogSoftmaxOp>(op);
}

/// The first reduced axis of length 0 of a reduce_max with a non-empty
/// result (a maximum of no elements), or -1.
int64_t maxOverNothing(Operation *op) {
  auto max = dyn_cast<sp::ReduceMaxOp>(op);
  if (!max || elementCount(max.getResult()) == 0) return -1;
  std::vector<int64_t> shape = shapeOf(max.getX().getType());
  for (int64_t axis : max.getAxes())
    if (shape[axis] == 0) return axis;
  return -1;
}

} // namespace

ElementEnd bufferLoad(const CodegenContext &context, const std::string &name, int buffer) {
  std::string t = cppType(context.builder.program().buffers[buffer].dtype);
  ElementEnd end;
  end.members = "  const " + t + "* " + name + ";\n";
  end.init = name;
  end.params = {"const " + t + "* __restrict__ " + name};
  end.args = {StepArg::of_buffer(buffer)};
  end.code = name + "[i]";
  end.bytes = bytesOf(context, buffer);
  return end;
}

ElementEnd bufferStore(const CodegenContext &context, const std::string &name, int buffer) {
  std::string t = cppType(context.builder.program().buffers[buffer].dtype);
  ElementEnd end;
  end.members = "  " + t + "* " + name + ";\n";
  end.init = name;
  end.params = {t + "* __restrict__ " + name};
  end.args = {StepArg::of_buffer(buffer)};
  end.code = "    " + name + "[i] = a;\n";
  end.bytes = bytesOf(context, buffer);
  return end;
}

bool takesElementEnds(Operation *op) {
  if (isa<sp::CrossEntropyOp, sp::MseOp>(op)) return true;
  return isAnchorOp(op) && elementCount(op->getResult(0)) > 0 && maxOverNothing(op) < 0;
}

unsigned elementLoads(Operation *op) { return isa<sp::MseOp>(op) ? 2 : 1; }

llvm::Error lowerReductionWithEnds(CodegenContext &context, Operation *op,
                                   llvm::ArrayRef<ElementEnd> loads, const ElementEnd &store) {
  if (loads.size() != elementLoads(op))
    return CodegenContext::error(op, "takes " + llvm::Twine(elementLoads(op)) + " fused loads");
  const ElementEnd &load = loads[0];
  if (auto c = dyn_cast<sp::CrossEntropyOp>(op))
    lowerCrossEntropy(context, c, load, store);
  else if (auto m = dyn_cast<sp::MseOp>(op))
    lowerMse(context, m, load, loads[1], store);
  else if (auto r = dyn_cast<sp::ReduceSumOp>(op))
    lowerReduce(context, op, Kind::kSum, r.getX(), r.getAxes(), load, store);
  else if (auto r = dyn_cast<sp::ReduceMeanOp>(op))
    lowerReduce(context, op, Kind::kMean, r.getX(), r.getAxes(), load, store);
  else if (auto r = dyn_cast<sp::ReduceMaxOp>(op))
    lowerReduce(context, op, Kind::kMax, r.getX(), r.getAxes(), load, store);
  else if (auto s = dyn_cast<sp::SoftmaxOp>(op))
    lowerSoftmax(context, op, s.getX(), int64_t(s.getAxis()), false, load, store);
  else if (auto s = dyn_cast<sp::LogSoftmaxOp>(op))
    lowerSoftmax(context, op, s.getX(), int64_t(s.getAxis()), true, load, store);
  else
    return CodegenContext::error(op, "has no reduction kernel to fuse into");
  return llvm::Error::success();
}

llvm::Expected<bool> lowerReduction(CodegenContext &context, Operation *op) {
  if (isa<sp::CrossEntropyOp, sp::MseOp>(op)) {
    std::vector<ElementEnd> loads{bufferLoad(context, "x", context.bufferOf(op->getOperand(0)))};
    if (isa<sp::MseOp>(op)) loads.push_back(bufferLoad(context, "y", context.bufferOf(op->getOperand(1))));
    return lowered(lowerReductionWithEnds(
        context, op, loads, bufferStore(context, "out", context.newResultBuffer(op->getResult(0)))));
  }
  if (isAnchorOp(op)) {
    int input = context.bufferOf(op->getOperand(0));
    int output = context.newResultBuffer(op->getResult(0));
    if (int64_t axis = maxOverNothing(op); axis >= 0)
      return CodegenContext::error(op, "reduces over axis " + llvm::Twine(axis) +
                                           " of length 0: the maximum of no elements is "
                                           "undefined");
    if (!takesElementEnds(op)) return true;  // an empty result
    bool softmax = isa<sp::SoftmaxOp, sp::LogSoftmaxOp>(op);
    return lowered(lowerReductionWithEnds(context, op, {bufferLoad(context, "x", input)},
                                          bufferStore(context, softmax ? "y" : "out", output)));
  }
  return false;
}

} // namespace spectral::codegen
