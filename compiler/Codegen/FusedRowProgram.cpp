//===- FusedRowProgram.cpp - row reductions in sequence, one kernel per row ===//
//
// A spectral.fusion region of row reductions (fusion::isRowReduction: sum,
// mean or max over the last axis, keepdims) of one row shape [..., C], with
// pointwise ops on rows and on one value per row between and after them
// (layer norm: mean, centring, variance, normalisation), runs as one kernel:
// a warp per row (eight rows per block) up to 1024 columns, a block per row
// beyond, computes the reductions in order, each from the values before it,
// and then the region's yields.
//
// Each stage is an elementwise group (Elementwise.h) rendered at the flat
// index i = row * C + c: the reductions already computed are leaves read
// through RowScalar (their value for this row, in shared memory), and the
// region's inputs of the row shape read only by pointwise ops are copied
// into shared memory once and read through RowInShared, so a row is read
// from global memory once however many stages use it. Other inputs (a
// per-column scale, a constant) are read through their pointers.
//
// What does not fit that shape (fewer than two reductions, an index-map op
// reading a reduction's value, a yield that is neither a row nor one value
// per row, an op that can fail) returns false before the Program changes.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/CodegenUtil.h"
#include "compiler/Codegen/Constants.h"
#include "compiler/Codegen/FusedReductions.h"
#include "compiler/Codegen/FusedRegion.h"
#include "compiler/Fusion/OpKinds.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
namespace sp = mlir::spectral;

namespace spectral::codegen {
namespace {

/// The most shared memory (bytes) the cached rows take; inputs beyond it are
/// read from global memory at each stage.
constexpr int64_t kMaxCachedRowBytes = 32 * 1024;
constexpr int64_t kMaxRowThreads = 256;

std::string reduceOp(Operation *op, const std::string &type) {
  const char *name = isa<sp::ReduceSumOp>(op) ? "Sum" : isa<sp::ReduceMeanOp>(op) ? "Mean" : "Max";
  return std::string("spectral_reduce::") + name + "<" + type + ">{}";
}

/// A value each stage's group may read.
struct RowLeaf {
  std::string accessor;  // the member's type, or empty: a pointer parameter
  std::string init;      // its initializer in the kernel
};

} // namespace

llvm::Expected<bool> lowerFusedRowProgram(CodegenContext &context, sp::FusionOp fusion,
                                          llvm::ArrayRef<Operation *> ops) {
  std::vector<Operation *> reductions, elementwise;
  for (Operation *op : ops) {
    if (fusion::isRowReduction(op)) reductions.push_back(op);
    else if (isElementwiseOp(op) && fusion::failureOf(op).empty()) elementwise.push_back(op);
    else return false;
  }
  if (reductions.size() < 2) return false;
  auto shapeOf = [](Value v) { return cast<ShapedType>(v.getType()).getShape(); };
  llvm::ArrayRef<int64_t> rowShape = shapeOf(reductions[0]->getOperand(0));
  std::vector<int64_t> scalarShape(rowShape.begin(), rowShape.end());
  scalarShape.back() = 1;
  auto perRow = [&](Value v) {
    return shapeOf(v) == rowShape || shapeOf(v) == llvm::ArrayRef<int64_t>(scalarShape);
  };
  // Values computed from a reduction stay per row: rows or one value per row,
  // from pointwise ops only.
  llvm::DenseSet<Value> fromReductions;
  for (Operation *op : ops) {
    bool dependent = fusion::isRowReduction(op) ||
                     llvm::any_of(op->getOperands(), [&](Value v) { return fromReductions.contains(v); });
    if (!dependent) continue;
    if (fusion::isRowReduction(op) && shapeOf(op->getOperand(0)) != rowShape) return false;
    if (!fusion::isRowReduction(op) && (fusion::kindOf(op) != fusion::OpKind::kPointwise ||
                                        !perRow(op->getResult(0))))
      return false;
    fromReductions.insert(op->getResult(0));
  }
  auto yield = cast<sp::YieldOp>(fusion.getRegion().front().getTerminator());
  std::vector<Value> yielded(yield.getValues().begin(), yield.getValues().end());
  llvm::DenseSet<Operation *> inRegion(ops.begin(), ops.end());
  for (Value value : yielded)
    if (!perRow(value) || !value.getDefiningOp() || !inRegion.contains(value.getDefiningOp()))
      return false;

  const int64_t columns = rowShape.back();
  int64_t rows = 1;
  for (int64_t d : rowShape.drop_back()) rows *= d;
  if (rows < 1 || rows > INT32_MAX) return false;
  // A warp per row and eight rows per block up to 1024 columns (no barrier
  // inside a reduction), a block of 256 per row beyond.
  const int64_t blockX = columns <= 1024 ? 32 : kMaxRowThreads, rowsPerBlock = kMaxRowThreads / blockX;

  // The leaves: reductions (RowScalar), row-shaped inputs read only by
  // pointwise ops (RowInShared, while they fit), the rest as pointers.
  llvm::MapVector<Value, RowLeaf> leaves;
  std::vector<std::pair<Value, std::string>> accessors;
  std::string shared = "  SPECTRAL_DYNAMIC_SHARED(unsigned char, smem);\n", copies;
  int64_t cachedBytes = 0, sharedBytes = 0;
  for (size_t k = 0; k < reductions.size(); ++k) {
    Value r = reductions[k]->getResult(0);
    std::string type = cppType(dtypeOf(r.getType()));
    // Dynamic shared memory: a pointer fetched once (a static __shared__
    // is a thread-local variable on the host, looked up at every access).
    shared += "  " + type + "* reduced" + str(int64_t(k)) + " = reinterpret_cast<" + type +
              "*>(smem + " + str(sharedBytes) + ");\n";
    sharedBytes += (rowsPerBlock * 8 + 15) / 16 * 16;
    leaves[r] = {"RowScalar<" + type + ">",
                 "RowScalar<" + type + ">{reduced" + str(int64_t(k)) + " + y}"};
    accessors.push_back({r, leaves[r].accessor});
  }
  std::vector<std::string> params;
  std::vector<StepArg> args;
  int64_t bytesRead = 0;
  for (Operation *op : ops) {
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if ((def && inRegion.contains(def)) || leaves.count(operand) ||
          (def && splatLiteral(def)))
        continue;
      if (!context.hasBuffer(operand)) return false;
      int buffer = context.bufferOf(operand);
      std::string type = cppType(dtypeOf(operand.getType()));
      std::string name = "in" + str(int64_t(params.size()));
      params.push_back("const " + type + "* __restrict__ " + name);
      args.push_back(StepArg::of_buffer(buffer));
      bytesRead += bytesOf(context, buffer);
      // Cached only when every op of the region computed from it reads at
      // the element it computes (pointwise ops, the reductions' loads): an
      // index map downstream would read other columns of the row, or other
      // rows, which the cache of this row does not hold (and another
      // thread's copy of a column is not ordered before the read).
      bool pointwiseReaders = true;
      llvm::DenseSet<Value> downstream{operand};
      for (Operation *op : ops) {
        if (llvm::none_of(op->getOperands(), [&](Value v) { return downstream.contains(v); }))
          continue;
        if (fusion::kindOf(op) != fusion::OpKind::kPointwise && !fusion::isRowReduction(op))
          pointwiseReaders = false;
        if (!fusion::isRowReduction(op)) downstream.insert(op->getResult(0));
      }
      int64_t bytes = bytesOf(dtypeOf(operand.getType()), columns * rowsPerBlock);
      if (shapeOf(operand) == rowShape && pointwiseReaders &&
          cachedBytes + bytes <= kMaxCachedRowBytes) {
        std::string cache = "row" + str(int64_t(leaves.size()));
        shared += "  " + type + "* " + cache + " = reinterpret_cast<" + type + "*>(smem + " +
                  str(sharedBytes) + ");\n";
        sharedBytes += (bytes + 15) / 16 * 16;
        copies += "        " + cache + "[y * " + str(columns) + " + c] = " + name + "[row * " +
                  str(columns) + " + c];\n";
        cachedBytes += bytes;
        leaves[operand] = {"RowInShared<" + type + ">",
                           "RowInShared<" + type + ">{" + cache + " + y * " + str(columns) + "}"};
        accessors.push_back({operand, leaves[operand].accessor});
      } else {
        leaves[operand] = {"", name};
      }
    }
  }

  // One group per stage: each reduction's operand, then the yields.
  std::string definitions, stages;
  std::vector<std::string> tags;
  auto render = [&](llvm::ArrayRef<Value> values, const std::string &name,
                    std::string *init) -> std::optional<FusedGroup> {
    llvm::Expected<FusedGroup> group = renderFusedGroup(needed(elementwise, values), Value(),
                                                        values, name, "g", "i", "", accessors);
    if (!group) {
      llvm::consumeError(group.takeError());
      return std::nullopt;
    }
    if (group->reportsErrors) return std::nullopt;
    std::string tag = nameAfterText(*group, name), fields;
    for (Value leaf : group->leaves) fields += leaves.lookup(leaf).init + ", ";
    *init = name + "_" + tag + "{" + fields + "nullptr}";
    if (!llvm::is_contained(tags, tag)) definitions += group->definition;  // same text, same tag
    tags.push_back(tag);
    return std::move(*group);
  };
  const std::string c = str(columns), t = str(blockX), rowsText = str(rowsPerBlock);
  for (size_t k = 0; k < reductions.size(); ++k) {
    Operation *reduction = reductions[k];
    std::string init, type = cppType(dtypeOf(reduction->getResult(0).getType()));
    std::optional<FusedGroup> group = render({reduction->getOperand(0)}, "Stage", &init);
    if (!group) return false;
    stages += "    {  // " + CodegenContext::describe(reduction) + "\n      const auto g = " +
              init + ";\n      const auto op = " + reduceOp(reduction, type) +
              ";\n      const " + type + " acc = spectral_reduce::block_row_reduce<" + t + ", " +
              rowsText + ", " + type + ">(op, [&](int x) {\n        " + type +
              " part = op.identity();\n"
              "        if (active)\n          part = spectral_reduce::fold_strided("
              "part, (long long)(unsigned)x, " + c + "LL, " + t + "LL, op, [&](long long c) {\n"
              "            const long long i = row * " + c + " + c;\n            return (" + type +
              ")(" + group->calls[0] + ");\n          });\n        return part;\n      });\n"
              "      if (active && threadIdx.x == 0) reduced" + str(int64_t(k)) +
              "[y] = op.finish(acc, " + c + ");  // a phased call's too\n"
              "      spectral_reduce::block_barrier();  // the row's other threads read it next\n"
              "    }\n";
  }
  std::string init;
  std::optional<FusedGroup> out = render(yielded, "Rows", &init);
  if (!out) return false;
  std::vector<int> outputs = fusionOutputs(context, fusion);
  std::string rowWrites, scalarWrites;
  int64_t bytesWritten = 0;
  for (size_t k = 0; k < outputs.size(); ++k) {
    std::string name = "out" + str(int64_t(k));
    params.push_back(std::string(cppType(dtypeOf(yielded[k].getType()))) + "* __restrict__ " + name);
    args.push_back(StepArg::of_buffer(outputs[k]));
    bytesWritten += bytesOf(context, outputs[k]);
    (shapeOf(yielded[k]) == rowShape ? rowWrites : scalarWrites) +=
        "      " + name + "[i] = " + out->calls[k] + ";\n";
  }
  stages += "    if (active) {\n      const auto g = " + init + ";\n";
  if (!rowWrites.empty())
    stages += "      spectral_reduce::block_threads<" + t + ">([&](int x) {\n"
              "        for (long long c = (unsigned)x; c < " + c + "; c += " + t + ") {\n"
              "          const long long i = row * " + c + " + c;\n" + rowWrites + "        }\n"
              "      });\n";
  if (!scalarWrites.empty())
    stages += "      if (threadIdx.x == 0) {  // a phased call's too\n"
              "        const long long i = row;\n" + scalarWrites + "      }\n";
  stages += "    }\n";

  // Each block row's stages, in turn in a phased host call (reduce.cuh's
  // block_rows, block_row_reduce, block_threads and block_barrier). The
  // thread index as unsigned: widened from int, nvcc would not know it is
  // small and would unroll and duplicate the strided loops (twice the PTX).
  std::string body = shared + "  spectral_reduce::block_rows<" + rowsText + ">([&](int y) {\n"
                     "    const long long row = (long long)blockIdx.x * " + rowsText + " + y;\n"
                     "    const bool active = row < " + str(rows) + ";\n";
  // No barrier after the copy: every stage reads a cached row at the column
  // it computes, in the same strided loop, so each thread reads back only
  // what it copied itself.
  if (!copies.empty())
    body += "    spectral_reduce::block_threads<" + t + ">([&](int x) {\n      if (active)\n"
            "        for (long long c = (unsigned)x; c < " + c + "; c += " + t + ") {\n" + copies +
            "        }\n    });\n";
  body += stages + "  });\n";
  DType dtype = dtypeOf(reductions[0]->getOperand(0).getType());
  // Named after everything the kernel computes, not one stage.
  std::string entry = "rows_" + std::string(shortName(dtype)) + "_" + str(rows) + "x" + c + "_" +
                      textDigest(definitions + body);
  std::string prelude =
      "#include \"elementwise.cuh\"\n" + kPhasedUnit + "\nnamespace {\n"
      "/// One value per row: this block row's, in shared memory (any index of its row).\n"
      "template <typename T>\nstruct RowScalar {\n  const T* value;\n"
      "  __device__ __forceinline__ T operator[](long long) const { return *value; }\n};\n"
      "/// A row-shaped input: this block row's row, copied into shared memory.\n"
      "template <typename T>\nstruct RowInShared {\n  const T* row;\n"
      "  __device__ __forceinline__ T operator[](long long j) const { return row[j % " + c +
      "]; }\n};\n" + definitions + "}  // namespace\n\n";
  KernelSource unit = boundedUnit("reduce.cuh", entry, int(kMaxRowThreads),
                                  llvm::join(params, ", "), body, prelude);
  std::vector<Operation *> computed(ops.begin(), ops.end());
  std::string where = describeFusedOps(computed);
  int kernel = context.builder.addKernel(unit, where, bytesRead, bytesWritten);
  context.builder.launch(kernel, {uint32_t((rows + rowsPerBlock - 1) / rowsPerBlock), 1, 1},
                         {uint32_t(blockX), uint32_t(rowsPerBlock), 1}, uint32_t(sharedBytes),
                         std::move(args), where);
  return true;
}

} // namespace spectral::codegen
