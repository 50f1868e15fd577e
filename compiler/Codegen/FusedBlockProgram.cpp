//===- FusedBlockProgram.cpp - small work in sequence, one block -----------===//
//
// A spectral.fusion region of small work (fusion::blockProgramWork: sums,
// means and maxima over any axes, softmax and log_softmax on any axis,
// cross_entropy, mse, and the elementwise ops around them) runs as one
// kernel of one block: each op that would be a kernel of its own is a stage
// computed by the block's threads, a barrier between stages. A launch costs
// microseconds; the whole PureFFT forward pass (pattern selection of four
// layers, class scores, the loss) is a few microseconds of one block's work.
//
// Each stage reads its operands through elementwise groups (Elementwise.h)
// rendered at the operand's flat index, so elementwise ops are computed where
// they are read and never stored; a stage's result goes to a scratch array
// (or to the region's output when it is yielded) that later stages read.
// Reductions and softmax give each output (line) to one thread, in a fixed
// order; the losses reduce over the block (reduce.cuh's block_sum), so a
// run is reproducible. A label out of range marks the error word with its
// row, as the cross_entropy kernel does. Every stage runs through
// reduce.cuh's block_threads and block_barrier: the unit is phased, so the
// host device runs the block as one call, each stage a loop over its threads.
//
// What does not fit (an op the block cannot run, a second op that can fail,
// fewer than two stages) returns false before the Program changes.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/CodegenUtil.h"
#include "compiler/Codegen/FusedReductions.h"
#include "compiler/Codegen/FusedRegion.h"
#include "compiler/Fusion/OpKinds.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
namespace sp = mlir::spectral;

namespace spectral::codegen {
namespace {

constexpr int64_t kBlock = 256;

std::vector<int64_t> shapeOf(Value v) {
  llvm::ArrayRef<int64_t> s = cast<ShapedType>(v.getType()).getShape();
  return {s.begin(), s.end()};
}

/// Statements adding to `offset` the coordinates of the flat index `flat`
/// over `axes` of `shape` (last axis fastest), each times its row-major
/// stride; `flat` is consumed (a variable).
std::string addCoordinates(const std::vector<int64_t> &shape, llvm::ArrayRef<int64_t> axes,
                           const std::string &flat, const std::string &offset,
                           const std::string &indent) {
  std::vector<int64_t> strides = rowMajorStrides(shape);
  std::string code;
  for (int64_t k = int64_t(axes.size()) - 1; k >= 0; --k) {
    int64_t d = axes[k];
    code += indent + offset + " += (" + flat + " % " + str(shape[d]) + "LL) * " + str(strides[d]) +
            "LL; " + flat + " /= " + str(shape[d]) + "LL;\n";
  }
  return code;
}

/// A stage's operand: an expression of i through the group object `g<k>`.
struct Operand {
  Value value;
  std::string expr;
};

class BlockProgram {
public:
  /// `ops` computing `yielded` into the buffers `outputBuffers` gives (asked
  /// for only once the kernel is sure to be made); `stagesWanted`: the
  /// fewest stages worth a block program.
  BlockProgram(CodegenContext &context, llvm::ArrayRef<Operation *> ops,
               llvm::ArrayRef<Value> yielded, llvm::function_ref<std::vector<int>()> outputBuffers,
               size_t stagesWanted)
      : context_(context), ops_(ops.begin(), ops.end()), yielded_(yielded.begin(), yielded.end()),
        outputBuffers_(outputBuffers), stagesWanted_(stagesWanted) {}

  llvm::Expected<bool> lower() {
    int64_t work = 0;
    for (Operation *op : ops_) {
      int64_t more = fusion::blockProgramWork(op);
      // An elementwise value is computed where a stage reads it (that
      // stage's work), and once per element when it is yielded.
      if (more >= 0 && isElementwiseOp(op) && llvm::is_contained(yielded_, op->getResult(0)))
        more = elementCount(op->getResult(0));
      if (more < 0 || (work += more) > fusion::kMaxBlockProgramWork) return false;
      (isElementwiseOp(op) ? elementwise_ : stages_).push_back(op);
    }
    if (stages_.empty() || stages_.size() < stagesWanted_) return false;
    int failing = llvm::count_if(stages_, fusion::reportsFromABlockProgram);
    if (failing > 1) return false;  // one error word per launch
    llvm::DenseSet<Operation *> inRegion(ops_.begin(), ops_.end());
    for (Value value : yielded_)
      if (!value.getDefiningOp() || !inRegion.contains(value.getDefiningOp()) ||
          llvm::count(yielded_, value) > 1)
        return false;

    // Render every stage before the Program changes.
    std::string code;
    for (Operation *stage : stages_) {
      std::optional<std::string> text = renderStage(stage);
      if (!text) return false;
      code += *text + "  spectral_reduce::block_barrier();"
                      "  // the next stages read what this one wrote\n";
    }
    std::optional<std::string> tail = renderYields();
    if (!tail) return false;
    code += *tail;

    // Buffers: stage results yielded go to the outputs, others to scratch.
    std::vector<int> outputs = outputBuffers_();
    for (Operation *stage : stages_) {
      Value result = stage->getResult(0);
      auto found = llvm::find(yielded_, result);
      int buffer = found != yielded_.end() ? outputs[found - yielded_.begin()]
                                           : context_.newScratch(stage, dtypeOf(result.getType()),
                                                                 std::max<int64_t>(1, elementCount(result)));
      context_.setBuffer(result, buffer);
    }
    for (size_t k = 0; k < yielded_.size(); ++k)
      if (!context_.hasBuffer(yielded_[k])) context_.setBuffer(yielded_[k], outputs[k]);
    std::vector<std::string> params;
    std::vector<StepArg> args;
    int64_t bytesRead = 0, bytesWritten = 0;
    for (auto &[value, name] : names_) {
      if (!context_.hasBuffer(value))
        return CodegenContext::error(stages_.front(), "block program: " + name + " has no buffer");
      int buffer = context_.bufferOf(value);
      bool written = written_.contains(value);
      params.push_back(std::string(written ? "" : "const ") + cppType(dtypeOf(value.getType())) +
                       "* __restrict__ " + name);
      args.push_back(StepArg::of_buffer(buffer));
      (written ? bytesWritten : bytesRead) += bytesOf(context_, buffer);
    }
    int errorWord = -1;
    std::string errorMessage;
    params.push_back("unsigned long long* error");
    if (failingOp_) {
      errorWord = context_.newScratch(failingOp_, DType::kInt64, 1);
      args.push_back(StepArg::of_buffer(errorWord));
      errorMessage = "label out of range [0, " +
                     str(shapeOf(failingOp_->getOperand(0)).back()) + ") in row";
    } else {
      args.push_back(StepArg::i64(0));
    }
    // Named after everything the kernel computes, not one stage.
    std::string entry =
        "block_" + std::string(shortName(dtypeOf(stages_.front()->getOperand(0).getType()))) + "_" +
        str(int64_t(stages_.size())) + "stages_" + textDigest(definitions_ + code);
    // One block in all: every register is its (a long program spilled at the
    // 128 that two blocks per SM leave, tests/lit/tools/kernel-gate.mlir).
    KernelSource unit = boundedUnit("loss.cuh", entry, int(kBlock), llvm::join(params, ", "), code,
                                    // Every stage runs through block_threads.
                                    "#include \"softmax.cuh\"\n#include \"elementwise.cuh\"\n" +
                                        kPhasedUnit + "\nnamespace {\n" + definitions_ + "}  // namespace\n\n",
                                    /*blocksPerSm=*/1);
    std::vector<Operation *> computed(ops_.begin(), ops_.end());
    std::string where = describeFusedOps(computed);
    int kernel = context_.builder.addKernel(unit, where, bytesRead, bytesWritten);
    context_.builder.launch(kernel, {1, 1, 1}, {uint32_t(kBlock), 1, 1}, 0, std::move(args),
                            failingOp_ ? CodegenContext::describe(failingOp_) : where, errorWord,
                            errorMessage);
    return true;
  }

private:
  /// The pointer parameter reading or writing `value`'s buffer.
  std::string nameOf(Value value) {
    auto [it, added] = names_.try_emplace(value, "b" + str(int64_t(names_.size())));
    return it->second;
  }

  /// Renders the group computing `values` (at the index variable i) as
  /// object `object`; returns its declaration and fills `exprs`.
  std::optional<std::string> group(llvm::ArrayRef<Value> values, const std::string &object,
                                   std::vector<std::string> *exprs) {
    llvm::Expected<FusedGroup> rendered =
        renderFusedGroup(needed(elementwise_, values), Value(), values, "Stage", object, "i", "");
    if (!rendered) {
      llvm::consumeError(rendered.takeError());
      return std::nullopt;
    }
    FusedGroup g = std::move(*rendered);
    if (g.reportsErrors) return std::nullopt;
    std::string tag = nameAfterText(g, "Stage"), fields;
    for (Value leaf : g.leaves) fields += nameOf(leaf) + ", ";
    exprs->insert(exprs->end(), g.calls.begin(), g.calls.end());
    if (!llvm::is_contained(tags_, tag)) definitions_ += g.definition;  // same text, same tag
    tags_.push_back(tag);
    return "    const Stage_" + tag + " " + object + "{" + fields + "nullptr};\n";
  }

  std::optional<std::string> renderStage(Operation *op) {
    Value result = op->getResult(0);
    std::string out = nameOf(result);
    written_.insert(result);
    std::string type = cppType(dtypeOf(result.getType()));
    std::vector<int64_t> in = shapeOf(op->getOperand(0));
    std::string code = "  {  // " + CodegenContext::describe(op) + "\n";
    if (isa<sp::ReduceSumOp, sp::ReduceMeanOp, sp::ReduceMaxOp>(op)) {
      std::vector<std::string> exprs;
      std::optional<std::string> g = group({op->getOperand(0)}, "g", &exprs);
      if (!g) return std::nullopt;
      llvm::ArrayRef<int64_t> axes = op->getAttrOfType<DenseI64ArrayAttr>("axes").asArrayRef();
      std::vector<int64_t> kept, reduced(axes.begin(), axes.end());
      llvm::sort(reduced);
      int64_t count = 1, outputs = 1;
      for (int64_t d = 0; d < int64_t(in.size()); ++d)
        (llvm::is_contained(reduced, d) ? count : outputs) *= in[d];
      for (int64_t d = 0; d < int64_t(in.size()); ++d)
        if (!llvm::is_contained(reduced, d)) kept.push_back(d);
      const char *name = isa<sp::ReduceSumOp>(op) ? "Sum" : isa<sp::ReduceMeanOp>(op) ? "Mean" : "Max";
      code += *g + "    const spectral_reduce::" + name + "<" + type + "> op;\n" + eachThread() +
              "    for (long long o = t; o < " + str(outputs) + "LL; o += " + str(kBlock) +
              ") {\n      long long base = 0, rest = o;\n" +
              addCoordinates(in, kept, "rest", "base", "      ") + "      " + type +
              " acc = op.identity();\n      for (long long r = 0; r < " + str(count) +
              "LL; ++r) {\n        long long i = base, q = r;\n" +
              addCoordinates(in, reduced, "q", "i", "        ") + "        acc = op(acc, (" + type +
              ")(" + exprs[0] + "));\n      }\n      " + out + "[o] = op.finish(acc, " + str(count) +
              "LL);\n    }\n" + endEachThread();
    } else if (isa<sp::SoftmaxOp, sp::LogSoftmaxOp>(op)) {
      std::vector<std::string> exprs;
      std::optional<std::string> g = group({op->getOperand(0)}, "g", &exprs);
      if (!g) return std::nullopt;
      int64_t axis = op->getAttrOfType<IntegerAttr>("axis").getInt();
      int64_t n = in[axis], inner = 1, outer = 1;
      for (int64_t d = axis + 1; d < int64_t(in.size()); ++d) inner *= in[d];
      for (int64_t d = 0; d < axis; ++d) outer *= in[d];
      bool log = isa<sp::LogSoftmaxOp>(op);
      code += *g + "    const spectral_reduce::MaxSumOp<" + type + "> op;\n" + eachThread() +
              "    for (long long line = t; line < " + str(outer * inner) + "LL; line += " +
              str(kBlock) + ") {\n      const long long base = (line / " + str(inner) + "LL) * " +
              str(n * inner) + "LL + line % " + str(inner) + "LL;\n"
              "      spectral_reduce::MaxSum<" + type + "> ms = op.identity();\n"
              "      for (long long k = 0; k < " + str(n) + "LL; ++k) {\n        const long long i = base + k * " +
              str(inner) + "LL;\n        ms = op.push(ms, (" + type + ")(" + exprs[0] + "));\n      }\n"
              "      const " + type + " log_sum = log(ms.sum), scale = " + type + "(1) / ms.sum;\n"
              "      for (long long k = 0; k < " + str(n) + "LL; ++k) {\n        const long long i = base + k * " +
              str(inner) + "LL;\n        const " + type + " shifted = (" + type + ")(" + exprs[0] +
              ") - ms.max;\n        " + out + "[i] = " +
              (log ? "shifted - log_sum" : "exp(shifted) * scale") + ";\n      }\n    }\n" +
              endEachThread();
    } else if (isa<sp::CrossEntropyOp>(op)) {
      std::vector<std::string> exprs, labelExprs;
      std::optional<std::string> g = group({op->getOperand(0)}, "g", &exprs);
      std::optional<std::string> l = group({op->getOperand(1)}, "l", &labelExprs);
      if (!g || !l) return std::nullopt;
      failingOp_ = op;
      int64_t rows = in[0], classes = in[1];
      code += *g + *l + "    const spectral_reduce::MaxSumOp<" + type + "> op;\n" +
              threadTotal(type) + "    for (long long row = t; row < " + str(rows) +
              "LL; row += " + str(kBlock) +
              ") {\n      spectral_reduce::MaxSum<" + type + "> ms = op.identity();\n"
              "      for (long long k = 0; k < " + str(classes) + "LL; ++k) {\n        const long long i = row * " +
              str(classes) + "LL + k;\n        ms = op.push(ms, (" + type + ")(" + exprs[0] + "));\n      }\n"
              "      long long label;\n      {\n        const long long i = row;\n        label = (long long)(" +
              labelExprs[0] + ");\n      }\n"
              "      if (label < 0 || label >= " + str(classes) + "LL) {\n"
              "        if (error != nullptr) atomicMax(error, ~(unsigned long long)row);\n"
              "        total += spectral_reduce::Limits<" + type + ">::nan();\n        continue;\n      }\n"
              "      const long long i = row * " + str(classes) + "LL + label;\n"
              "      total += (ms.max - (" + type + ")(" + exprs[0] + ")) + log(ms.sum);\n    }\n" +
              reduceTotal(type, out, rows);
    } else if (isa<sp::MseOp>(op)) {
      std::vector<std::string> exprs;
      std::optional<std::string> g = group({op->getOperand(0), op->getOperand(1)}, "g", &exprs);
      if (!g) return std::nullopt;
      int64_t n = elementCount(op->getOperand(0));
      code += *g + threadTotal(type) + "    for (long long i = t; i < " + str(n) +
              "LL; i += " + str(kBlock) + ") {\n      const " + type + " d = (" + type + ")(" +
              exprs[0] + ") - (" + type + ")(" + exprs[1] + ");\n      total += d * d;\n    }\n" +
              reduceTotal(type, out, n);
    } else {
      return std::nullopt;
    }
    return code + "  }\n";
  }

  /// Opens the loop or call giving each of the block's threads t its part
  /// of a stage (reduce.cuh's block_threads); endEachThread() closes it.
  static std::string eachThread() {
    return "    spectral_reduce::block_threads<" + str(kBlock) + ">([&](int t) {\n";
  }
  static std::string endEachThread() { return "    });\n"; }

  /// Opens the sum over the block's threads t of their `total`s, each
  /// starting at 0 (reduce.cuh's block_sum); reduceTotal closes it.
  static std::string threadTotal(const std::string &type) {
    return "    const " + type + " sum = spectral_reduce::block_sum<" + str(kBlock) + ", " + type +
           ">([&](int t) {\n    " + type + " total = 0;\n";
  }

  /// Closes threadTotal and writes the mean of the threads' `total`s over
  /// `count` elements into out[0].
  static std::string reduceTotal(const std::string &type, const std::string &out, int64_t count) {
    return "    return total;\n    });\n" + eachThread() + "    if (t == 0) " + out +
           "[0] = spectral_reduce::Mean<" + type + ">{}.finish(sum, " + str(count) + "LL);\n" +
           endEachThread();
  }

  /// The yields no stage writes, computed at each of their elements.
  std::optional<std::string> renderYields() {
    std::string code;
    for (size_t k = 0; k < yielded_.size(); ++k) {
      Value value = yielded_[k];
      if (llvm::is_contained(stages_, value.getDefiningOp())) continue;
      std::vector<std::string> exprs;
      std::optional<std::string> g = group({value}, "g", &exprs);
      if (!g) return std::nullopt;
      std::string out = nameOf(value);
      written_.insert(value);
      // Not unrolled: a long expression unrolled four times spilled (the
      // PureFFT training step's gradients, tests/lit/tools/kernel-gate.mlir).
      code += "  {\n" + *g + eachThread() + "#pragma unroll 1\n    for (long long i = t; i < " +
              str(elementCount(value)) + "LL; i += " + str(kBlock) + ") " + out + "[i] = " +
              exprs[0] + ";\n" + endEachThread() + "  }\n";
    }
    return code;
  }

  CodegenContext &context_;

  std::vector<Operation *> ops_, elementwise_, stages_;
  std::vector<Value> yielded_;
  llvm::function_ref<std::vector<int>()> outputBuffers_;
  size_t stagesWanted_;
  llvm::MapVector<Value, std::string> names_;  // the buffers the kernel reads or writes
  llvm::DenseSet<Value> written_;
  std::string definitions_;
  std::vector<std::string> tags_;
  Operation *failingOp_ = nullptr;
};

} // namespace

llvm::Expected<bool> lowerFusedBlockProgram(CodegenContext &context, sp::FusionOp fusion,
                                            llvm::ArrayRef<Operation *> ops) {
  auto yield = cast<sp::YieldOp>(fusion.getRegion().front().getTerminator());
  std::vector<Value> yielded(yield.getValues().begin(), yield.getValues().end());
  // One loss alone too: it is one launch here, two in its own kernels.
  bool oneLoss = llvm::count_if(ops, [](Operation *op) { return !isElementwiseOp(op); }) == 1 &&
                 llvm::any_of(ops, [](Operation *op) { return isa<sp::CrossEntropyOp, sp::MseOp>(op); });
  return BlockProgram(context, ops, yielded, [&] { return fusionOutputs(context, fusion); },
                      oneLoss ? 1 : 2)
      .lower();
}

llvm::Expected<bool> lowerLossInOneBlock(CodegenContext &context, Operation *op) {
  if (!isa<sp::CrossEntropyOp, sp::MseOp>(op)) return false;
  Value result = op->getResult(0);
  return BlockProgram(context, {op}, {result},
                      [&] { return std::vector<int>{context.newResultBuffer(result)}; }, 1)
      .lower();
}

} // namespace spectral::codegen
