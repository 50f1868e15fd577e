//===- Sparse.cpp - top-k modes, gather, scatter, sparse add and multiply -===//
//
// Sparse pairs (values, indices) have one shape [..., k]: per row (indices
// into the last axis of the dense side) or flat (rank 1, indices into the
// row-major dense tensor, one row over all of it). Each op becomes one unit
// over its whole tensor, sizes baked in, named after the op, dtype and
// shapes ("topk_rows_c64_16x1024_k32", "gather_f32_8x64_8x16"), so ops of
// the same types share a kernel.
//
// - topk_modes (topk.cuh): ranked by the dialect's |x| exactly (sparse_ops.cuh's
//   ByMagnitude keys, the reference's ties and NaN order), sorted by index.
//   One block per row when a row's keys fit shared memory; else the grid
//   form (one unit, its phases chosen by an argument: the digit histograms
//   into a zeroed buffer, the counts, the write); rows too many for the
//   grid's y dimension take one block each without cached keys.
// - gather, scatter (sparse.cuh): an index outside [-1, row length) fails the
//   run through the launch's error word, naming the op and its location.
// - sparse_add, sparse_mul (sparse_ops.cuh): one block per row, workspace in
//   shared memory when it fits, else a global scratch slice per block.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/CodegenUtil.h"
#include "compiler/Codegen/Elementwise.h"
#include "compiler/Codegen/FusedReductions.h"
#include "compiler/Codegen/FusedRegion.h"
#include "compiler/Codegen/FusedTraining.h"
#include "dialects/spectral/IR/SpectralOps.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>

using namespace mlir;
namespace sp = mlir::spectral;

namespace spectral::codegen {
namespace {

/// Dynamic shared memory a unit may ask for without the opt-in attribute.
constexpr int64_t kSharedBudget = 40 * 1024;
/// Threads per block of every sparse unit but the merge.
constexpr int kThreads = 256;

/// `text` with every "$V" replaced by `v` (the element's C++ type).
std::string withType(std::string text, const std::string &v) {
  for (size_t at = text.find("$V"); at != std::string::npos; at = text.find("$V", at + v.size()))
    text.replace(at, 2, v);
  return text;
}

std::string typeName(Value value) {
  return std::string(shortName(dtypeOf(value.getType()))) + "_" +
         shapeName(shapeOf(value.getType()));
}

/// A sparse unit of one entry, bounded to `threads` per block; `prelude`
/// (a fused load's definitions) comes before the entry.
KernelSource unitOf(const std::string &entry, int threads, const std::string &params,
                    const std::string &body, const std::string &prelude = "") {
  return boundedUnit("sparse_ops.cuh", entry, threads, params, body,
                     "using namespace spectral_sparse;\n\n" + prelude);
}

/// How an op reads its dense (or values) operand of [rows, length] at
/// (row, j): from its buffer `x` (RowsLoad), or through a fused prologue
/// (`end`) computing each element at the flat offset row * length + j.
struct DenseSource {
  const ElementEnd *end = nullptr;
  std::string v, param, prelude, functor, tag, ops;
  std::vector<StepArg> args;
  int64_t bytes = 0;

  DenseSource(CodegenContext &context, Value x, int64_t length, const ElementEnd *fused)
      : end(fused), v(cppType(dtypeOf(x.getType()))) {
    if (!end) {
      param = "const " + v + "* __restrict__ x";
      args = {StepArg::of_buffer(context.bufferOf(x))};
      bytes = bytesOf(context, context.bufferOf(x));
      functor = "RowsLoad<" + v + " >{x, " + lit(length) + "}";
      return;
    }
    param = llvm::join(end->params, ", ");
    args = end->args;
    bytes = end->bytes;
    prelude = "#include \"" + end->include + "\"\n\nnamespace {\n" + end->definition +
              "struct Dense {\n" + end->members +
              "  __device__ __forceinline__ " + v +
              " operator()(long long row, long long j) const {\n    const long long i = row * " +
              lit(length) + " + j;\n    return " + end->code + ";\n  }\n};\n"
              "/// Dense's elements ranked by magnitude (topk's keys).\n"
              "struct DenseKeys {\n  Dense dense;\n"
              "  __device__ __forceinline__ spectral_sparse::ByMagnitude<" + v +
              " > operator()(long long row, long long j) const {\n"
              "    return spectral_sparse::ByMagnitude<" + v + " >{dense(row, j)};\n  }\n};\n"
              "}  // namespace\n\n";
    functor = "Dense{" + end->init + "}";
    tag = end->tag;
    ops = end->ops;
  }
  /// The entry's parameters: this source's (none when a fused operand reads
  /// no buffer), then `rest`.
  std::string paramsWith(const std::string &rest) const {
    return param.empty() ? rest : param + ", " + rest;
  }
  /// topk's keys: ByMagnitude of the elements.
  std::string keys(int64_t length) const {
    return end ? "DenseKeys{" + functor + "}" : "ByMagnitudeLoad<" + v + " >{x, " + lit(length) + "}";
  }
  std::string describe(Operation *op) const {
    return (ops.empty() ? "" : ops + ", ") + CodegenContext::describe(op);
  }
};

/// The rows and row length a sparse [..., k] side addresses in `dense`: per
/// row, or one row over all of it when the sparse side is flat.
struct Layout {
  int64_t rows, k, rowLength;
};

Layout layoutOf(Value dense, Value sparse) {
  std::vector<int64_t> denseShape = shapeOf(dense.getType());
  std::vector<int64_t> sparseShape = shapeOf(sparse.getType());
  bool flat = sparseShape.size() == 1 && denseShape.size() != 1;
  int64_t k = sparseShape.back();
  int64_t rowLength = flat ? elementCount(dense) : denseShape.back();
  int64_t rows = elementCount(llvm::ArrayRef(sparseShape).drop_back());
  return {rows, k, rowLength};
}

std::string outOfRange(int64_t rowLength) {
  return "index out of range [0, " + std::to_string(rowLength) + ") (-1 marks an empty slot)";
}

// ---- topk_modes ----------------------------------------------------------------------

llvm::Error lowerTopk(CodegenContext &context, sp::TopkModesOp op, const ElementEnd *fused) {
  ProgramBuilder &builder = context.builder;
  Value x = op.getX();
  DType dtype = dtypeOf(x.getType());
  std::string v = cppType(dtype);
  std::string element = "ByMagnitude<" + v + " >";
  int keyBytes = dtype == DType::kFloat32 || dtype == DType::kInt32 ? 4 : 8;
  int64_t k = int64_t(op.getK());
  int64_t n = op.getFlat() ? elementCount(x) : shapeOf(x.getType()).back();
  int64_t rows = elementCount(x) / n;
  std::string sizes = shortName(dtype) + std::string("_") + std::to_string(rows) + "x" +
                      std::to_string(n) + "_k" + std::to_string(k);

  DenseSource source(context, x, n, fused);
  int values = context.newResultBuffer(op.getValues());
  int indices = context.newResultBuffer(op.getIndices());
  if (rows == 0) return llvm::Error::success();
  int64_t inBytes = source.bytes;
  int64_t outBytes = bytesOf(context, values) + bytesOf(context, indices);
  std::string description = source.describe(op);
  std::string load = source.keys(n);
  sizes += source.tag;
  std::string store = "ByMagnitudeStore<" + v + " >{values, indices, " + lit(k) + "}";
  std::string outputs = v + "* __restrict__ values, long long* __restrict__ indices";

  bool cached = n * keyBytes <= kSharedBudget;
  if (cached || rows > 65535) {
    // One block per row; a row's keys cached in shared memory when they fit.
    std::string entry = std::string(cached ? "topk_rows_" : "topk_rows_uncached_") + sizes;
    std::string body = "  topk_rows<" + std::to_string(kThreads) + ", " +
                       (cached ? "true" : "false") + ", " + element + ">(" + lit(rows) + ", " +
                       lit(n) + ", " + lit(k) + ", " + load + ", " + store + ");\n";
    int kernel = builder.addKernel(
        unitOf(entry, kThreads, source.paramsWith(outputs), body, kPhasedUnit + source.prelude),
        description,
        cached ? inBytes : inBytes * keyBytes, outBytes);
    std::vector<StepArg> args = source.args;
    args.push_back(StepArg::of_buffer(values));
    args.push_back(StepArg::of_buffer(indices));
    builder.launch(kernel, {uint32_t(std::min<int64_t>(rows, 65535)), 1, 1}, {kThreads, 1, 1},
                   cached ? uint32_t(n * keyBytes) : 0, std::move(args), description);
    return llvm::Error::success();
  }

  // The grid form: blocks of `tile` entries, a row per grid row. Phases
  // 0..passes-1 add the digit histograms of the threshold (a phase after the
  // digits settled returns at once), `passes` counts each block's entries,
  // `passes` + 1 writes them.
  int64_t tile = n <= (int64_t(1) << 20) ? 4096 : 16384;
  int64_t tiles = ceilDiv(n, tile);
  int passes = keyBytes;
  int histograms = context.newScratch(op, DType::kInt64, rows * passes * 256);
  int counts = context.newScratch(op, DType::kInt64, rows * tiles * 2);
  std::string entry = "topk_grid_" + sizes;
  std::string call = "<" + std::to_string(kThreads) + ", " + element + ">(";
  std::string sizeArgs = lit(n) + ", " + lit(k) + ", " + lit(tile);
  std::string p = std::to_string(passes);
  std::string body = "  const auto load = " + load + ";\n";
  body += "  if (phase < " + p + ")\n    topk_grid_histogram" + call + "phase, " + sizeArgs +
          ", histograms, load);\n";
  body += "  else if (phase == " + p + ")\n    topk_grid_count" + call + sizeArgs +
          ", histograms, counts, load);\n";
  body += "  else\n    topk_grid_write" + call + sizeArgs + ", histograms, counts, load, " + store +
          ");\n";
  std::string params = source.paramsWith("unsigned long long* __restrict__ histograms, "
                                         "unsigned long long* __restrict__ counts, " +
                                         outputs + ", int phase");
  // Per launch: x read once; the result written once over all launches.
  int launches = passes + 2;
  int kernel = builder.addKernel(unitOf(entry, kThreads, params, body, kPhasedUnit + source.prelude),
                                 description, inBytes, ceilDiv(outBytes, launches));
  builder.zero(histograms, description);
  for (int phase = 0; phase < launches; ++phase) {
    std::vector<StepArg> args = source.args;
    for (int buffer : {histograms, counts, values, indices}) args.push_back(StepArg::of_buffer(buffer));
    args.push_back(StepArg::i32(phase));
    builder.launch(kernel, {uint32_t(tiles), uint32_t(rows), 1}, {kThreads, 1, 1}, 0,
                   std::move(args), description);
  }
  return llvm::Error::success();
}

// ---- gather and scatter --------------------------------------------------------------

llvm::Error lowerGather(CodegenContext &context, sp::GatherOp op, const ElementEnd *fused) {
  ProgramBuilder &builder = context.builder;
  Layout layout = layoutOf(op.getX(), op.getIndices());
  std::string v = cppType(dtypeOf(op.getType()));
  DenseSource source(context, op.getX(), layout.rowLength, fused);
  int indices = context.bufferOf(op.getIndices());
  int out = context.newResultBuffer(op.getResult());
  if (layout.rows * layout.k == 0) return llvm::Error::success();
  int error = context.newScratch(op, DType::kInt64, 1);
  std::string entry =
      "gather_" + typeName(op.getX()) + "_" + typeName(op.getIndices()) + source.tag;
  std::string body = "  gather<" + v + " >(indices, " + lit(layout.rows) + ", " + lit(layout.k) +
                     ", " + lit(layout.rowLength) + ", " + source.functor + ", RowsStore<" + v +
                     " >{out, " + lit(layout.k) + "}, error);\n";
  std::string params = source.paramsWith("const long long* __restrict__ indices, " + v +
                                         "* __restrict__ out, unsigned long long* error");
  // Reads: the indices, and one element of x (or of each leaf) per slot.
  int64_t read = bytesOf(context, indices) +
                 (fused ? int64_t(std::max<size_t>(1, fused->args.size())) : 1) *
                     bytesOf(context, out);
  std::string description = source.describe(op);
  int kernel = builder.addKernel(unitOf(entry, kThreads, params, body, source.prelude),
                                 description, read, bytesOf(context, out));
  std::vector<StepArg> args = source.args;
  for (int buffer : {indices, out, error}) args.push_back(StepArg::of_buffer(buffer));
  builder.launch(kernel, gridFor(layout.rows * layout.k, kThreads), {kThreads, 1, 1}, 0,
                 std::move(args), description, error, outOfRange(layout.rowLength));
  return llvm::Error::success();
}

llvm::Error lowerScatter(CodegenContext &context, sp::ScatterOp op, const ElementEnd *fused) {
  ProgramBuilder &builder = context.builder;
  Layout layout = layoutOf(op.getResult(), op.getValues());
  DType dtype = dtypeOf(op.getType());
  std::string v = cppType(dtype);
  DenseSource source(context, op.getValues(), layout.k, fused);
  int indices = context.bufferOf(op.getIndices());
  int out = context.newResultBuffer(op.getResult());
  if (layout.rows * layout.rowLength == 0) return llvm::Error::success();
  int error = context.newScratch(op, DType::kInt64, 1);
  // A block owns TILE dense elements of a row and reads all k slots of it.
  int64_t tile = layout.rowLength <= kThreads ? kThreads : 1024;
  int64_t tiles = ceilDiv(layout.rowLength, tile);
  std::string entry = "scatter_" + typeName(op.getValues()) + "_to_" + typeName(op.getResult()) +
                      source.tag;
  std::string body = "  scatter<" + std::to_string(kThreads) + ", " + std::to_string(tile) + ", " +
                     v + " >(indices, " + lit(layout.rows) + ", " + lit(layout.k) + ", " +
                     lit(layout.rowLength) + ", " + source.functor + ", RowsStore<" + v +
                     " >{out, " + lit(layout.rowLength) + "}, error);\n";
  std::string params = source.paramsWith(withType(
      "const long long* __restrict__ indices, $V* __restrict__ out, unsigned long long* error", v));
  std::string description = source.describe(op);
  int kernel = builder.addKernel(unitOf(entry, kThreads, params, body, kPhasedUnit + source.prelude),
                                 description,
                                 tiles * (source.bytes + bytesOf(context, indices)),
                                 bytesOf(context, out));
  std::vector<StepArg> args = source.args;
  for (int buffer : {indices, out, error}) args.push_back(StepArg::of_buffer(buffer));
  builder.launch(kernel, {uint32_t(std::min<int64_t>(layout.rows * tiles, int64_t(1) << 20)), 1, 1},
                 {kThreads, 1, 1}, 0, std::move(args), description, error,
                 outOfRange(layout.rowLength));
  return llvm::Error::success();
}

// ---- sparse_add and sparse_mul -------------------------------------------------------

int64_t powerOfTwoAtLeast(int64_t n) {
  int64_t p = 2;
  while (p < n) p *= 2;
  return p;
}

llvm::Error lowerSparseBinary(CodegenContext &context, Operation *op, bool isUnion) {
  ProgramBuilder &builder = context.builder;
  Value lhsValues = op->getOperand(0), rhsValues = op->getOperand(2);
  std::vector<int64_t> lhsShape = shapeOf(lhsValues.getType());
  int64_t k1 = lhsShape.back(), k2 = shapeOf(rhsValues.getType()).back();
  int64_t capacity = shapeOf(op->getResult(0).getType()).back();
  int64_t rows = elementCount(llvm::ArrayRef(lhsShape).drop_back());
  if (std::max(k1, k2) > (int64_t(1) << 30))
    return CodegenContext::error(op, "more than 2^30 slots per row are not supported");

  int outValues = context.newResultBuffer(op->getResult(0));
  int outIndices = context.newResultBuffer(op->getResult(1));
  if (rows == 0) return llvm::Error::success();
  int error = context.newScratch(op, DType::kInt64, 1);

  int64_t pa = powerOfTwoAtLeast(k1), pb = powerOfTwoAtLeast(k2);
  int threads = int(std::clamp<int64_t>(std::max(pa, pb) / 2, 32, 256));
  int64_t workspace = 20 * (pa + pb); // merge_workspace_bytes(pa, pb)
  bool shared = workspace <= kSharedBudget;
  int64_t blocks = std::min<int64_t>(rows, shared ? 65535 : 256);
  std::string v = cppType(dtypeOf(lhsValues.getType()));
  std::string name = op->getName().stripDialect().str();
  std::string entry = name + "_" + typeName(lhsValues) + "_" + typeName(rhsValues);
  std::string body = (shared ? std::string("  SPECTRAL_DYNAMIC_SHARED(unsigned char, workspace);\n")
                             : "  unsigned char* workspace = scratch + (long long)blockIdx.x * " +
                                   lit(workspace) + ";\n") +
                     "  sparse_merge_rows<" + std::to_string(threads) + ", " + std::to_string(pa) +
                     ", " + std::to_string(pb) + ", " + (isUnion ? "true" : "false") + ", " + v +
                     " >(lhs_values, lhs_indices, " + lit(k1) + ", rhs_values, rhs_indices, " +
                     lit(k2) + ", " + lit(rows) + ", values, indices, " + lit(capacity) +
                     ", workspace, error);\n";
  std::string params =
      withType("const $V* __restrict__ lhs_values, const long long* __restrict__ lhs_indices, "
               "const $V* __restrict__ rhs_values, const long long* __restrict__ rhs_indices, "
               "$V* __restrict__ values, long long* __restrict__ indices, unsigned char* scratch, "
               "unsigned long long* error",
               v);
  std::vector<StepArg> args;
  for (Value operand : op->getOperands())
    args.push_back(StepArg::of_buffer(context.bufferOf(operand)));
  args.push_back(StepArg::of_buffer(outValues));
  args.push_back(StepArg::of_buffer(outIndices));
  if (shared) {
    args.push_back(StepArg::i64(0)); // no scratch
  } else {
    args.push_back(
        StepArg::of_buffer(context.newScratch(op, DType::kInt64, blocks * workspace / 8)));
  }
  args.push_back(StepArg::of_buffer(error));
  int64_t read = 0;
  for (Value operand : op->getOperands()) read += bytesOf(context, context.bufferOf(operand));
  std::string description = CodegenContext::describe(op);
  int kernel = builder.addKernel(unitOf(entry, threads, params, body, kPhasedUnit), description, read,
                                 bytesOf(context, outValues) + bytesOf(context, outIndices));
  builder.launch(kernel, {uint32_t(blocks), 1, 1}, {uint32_t(threads), 1, 1},
                 shared ? uint32_t(workspace) : 0, std::move(args), description, error,
                 "index below -1 (-1 marks an empty slot; positions count lhs_indices, then "
                 "rhs_indices)");
  return llvm::Error::success();
}

} // namespace

llvm::Expected<bool> lowerSparse(CodegenContext &context, Operation *op) {
  if (auto topk = dyn_cast<sp::TopkModesOp>(op)) return lowered(lowerTopk(context, topk, nullptr));
  if (auto gather = dyn_cast<sp::GatherOp>(op))
    return lowered(lowerGather(context, gather, nullptr));
  if (auto scatter = dyn_cast<sp::ScatterOp>(op))
    return lowered(lowerScatter(context, scatter, nullptr));
  if (isa<sp::SparseAddOp, sp::SparseMulOp>(op))
    return lowered(lowerSparseBinary(context, op, isa<sp::SparseAddOp>(op)));
  return false;
}

llvm::Expected<bool> lowerFusedSparse(CodegenContext &context, sp::FusionOp fusion,
                                      llvm::ArrayRef<Operation *> ops) {
  // The dense (or values) operand computed on the fly; indices read as they are.
  auto isSparse = [](Operation *op) { return isa<sp::TopkModesOp, sp::GatherOp, sp::ScatterOp>(op); };
  llvm::Expected<std::optional<ComputedOperand>> region =
      analyzeComputedOperand(context, fusion, ops, isSparse, 0);
  if (!region) return region.takeError();
  if (!*region) return false;
  Operation *anchor = (*region)->anchor;
  ElementEnd load = fusedLoad(context, (*region)->group, (*region)->ops);
  llvm::Error error = llvm::Error::success();
  if (auto topk = dyn_cast<sp::TopkModesOp>(anchor)) error = lowerTopk(context, topk, &load);
  else if (auto gather = dyn_cast<sp::GatherOp>(anchor)) error = lowerGather(context, gather, &load);
  else error = lowerScatter(context, cast<sp::ScatterOp>(anchor), &load);
  if (error) return error;
  bindYieldedBuffers(context, fusion);
  return true;
}

} // namespace spectral::codegen
