//===- FusedReductions.cpp - elementwise ops in a reduction's loads and stores ===//
//
// A spectral.fusion region of elementwise ops around one reduce_sum,
// reduce_mean, reduce_max, softmax or log_softmax runs as that op's own
// kernels (Reductions.cpp), through its ends (FusedReductions.h): the ops
// before it become the Load, so the reduction reads its operand computed
// on the fly at each flat input offset, and the ops after it become the
// Store, so each yielded element is computed from the reduced value as it
// is stored. Paths of several launches (long rows split into chunks, the
// whole-tensor partials) take the prologue in the first launch, the only
// one that reads the operand, and the epilogue in the last, the only one
// that writes the result. The functors' text is the elementwise group's
// struct (Elementwise.h) at the flat index i.
//
// What does not fit that shape (two anchors or another op, a yielded value
// of another shape or not computed by the region, an op after the anchor
// that reads its result at another element, ops that can fail) is left to
// the op-by-op path: lowerFusedReduction returns false before it adds
// anything to the Program.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/FusedReductions.h"

#include "compiler/Codegen/CodegenUtil.h"
#include "compiler/Codegen/FusedRegion.h"


using namespace mlir;
namespace sp = mlir::spectral;

namespace spectral::codegen {
namespace {

/// The group's struct and its leaves' pointers, as entry parameters named
/// `prefix`0, 1, ..., into `end`, tagged `kind`<digest>; returns the
/// struct's initializer.
std::string addGroup(CodegenContext &context, FusedGroup &group, const std::string &placeholder,
                     const std::string &prefix, const std::string &kind, ElementEnd &end) {
  std::string tag = nameAfterText(group, placeholder), pointers;
  for (size_t k = 0; k < group.leaves.size(); ++k) {
    std::string name = prefix + std::to_string(k);
    int buffer = context.bufferOf(group.leaves[k]);
    end.params.push_back("const " + std::string(cppType(dtypeOf(group.leaves[k].getType()))) +
                         "* __restrict__ " + name);
    end.args.push_back(StepArg::of_buffer(buffer));
    end.bytes += bytesOf(context, buffer);
    pointers += name + ", ";
  }
  end.include = "elementwise.cuh";
  end.definition = group.definition;
  end.members = "  " + placeholder + "_" + tag + " g;\n";
  end.tag = kind + tag;
  return placeholder + "_" + tag + "{" + pointers + "nullptr}";
}

} // namespace

ElementEnd fusedLoad(CodegenContext &context, FusedGroup group, llvm::ArrayRef<Operation *> ops,
                     const std::string &operand) {
  ElementEnd end;
  end.init = addGroup(context, group, "Prologue", "pro" + operand + "_in", "_Lpro" + operand, end);
  end.code = group.calls[0];
  end.ops = describeFusedOps(ops);
  return end;
}

std::optional<ElementEnd> operandEnd(CodegenContext &context, llvm::ArrayRef<Operation *> before,
                                     Value value, const std::string &name,
                                     const std::string &operand) {
  std::vector<Operation *> computing = needed(before, {value});
  if (computing.empty()) return bufferLoad(context, name, context.bufferOf(value));
  std::optional<FusedGroup> group = renderFusable(computing, Value(), {value}, "Prologue", "i", "");
  if (!group || !leavesHaveBuffers(context, *group)) return std::nullopt;
  return fusedLoad(context, *group, computing, operand);
}

std::string offsetLoadFunctor(const std::string &name, const ElementEnd &end,
                              const std::string &type, const std::string &args,
                              const std::string &offset) {
  return "struct " + name + " {\n" + end.members + "  __device__ __forceinline__ " + type +
         " operator()(" + args + ") const {\n    const long long i = " + offset +
         ";\n    return " + end.code + ";\n  }\n};\n";
}

ElementEnd fusedStore(CodegenContext &context, FusedGroup group, llvm::ArrayRef<Operation *> ops,
                      llvm::ArrayRef<int> outputs) {
  ElementEnd end;
  end.init = addGroup(context, group, "Epilogue", "epi_in", "_Sepi", end);
  for (size_t k = 0; k < outputs.size(); ++k) {
    std::string name = "epi_out" + std::to_string(k), member = "out" + std::to_string(k);
    std::string type = cppType(context.builder.program().buffers[outputs[k]].dtype);
    end.params.push_back(type + "* __restrict__ " + name);
    end.args.push_back(StepArg::of_buffer(outputs[k]));
    end.bytes += bytesOf(context, outputs[k]);
    end.members += "  " + type + "* " + member + ";\n";
    end.init += ", " + name;
    end.code += "    " + member + "[i] = " + group.calls[k] + ";\n";
  }
  end.ops = describeFusedOps(ops);
  return end;
}

llvm::Expected<bool> lowerFusedReduction(CodegenContext &context, sp::FusionOp fusion,
                                         llvm::ArrayRef<Operation *> ops) {
  // Also refused: an empty result or a maximum of nothing (its error).
  std::optional<FusedRegion> region = analyzeFusedRegion(fusion, ops, takesElementEnds, "i");
  if (!region) return false;
  if (region->yielded.empty()) return true;  // nothing is used: no kernel
  Operation *anchor = region->anchor;
  const unsigned loaded = elementLoads(anchor);
  // cross_entropy's labels are read as they are: constant ones get a buffer,
  // computed ones go op by op.
  std::vector<Value> asIs;
  for (unsigned k = loaded; k < anchor->getNumOperands(); ++k) {
    if (!readableAsIs(context, anchor->getOperand(k))) return false;
    asIs.push_back(anchor->getOperand(k));
  }
  if (llvm::Error error = giveBuffers(context, asIs)) return error;
  std::vector<int> outputs = fusionOutputs(context, fusion);
  bool softmax = isa<sp::SoftmaxOp, sp::LogSoftmaxOp>(anchor);
  std::vector<ElementEnd> loads;
  for (unsigned k = 0; k < loaded; ++k) {
    const std::optional<FusedPrologue> &pro = region->prologues[k];
    std::string operand = loaded == 1 ? "" : std::string(1, char('A' + k));
    loads.push_back(pro ? fusedLoad(context, pro->group, pro->ops, operand)
                        : bufferLoad(context, k ? "y" : "x",
                                     context.bufferOf(anchor->getOperand(k))));
  }
  ElementEnd store = region->epilogue
                         ? fusedStore(context, *region->epilogue, region->after, outputs)
                         : bufferStore(context, softmax ? "y" : "out", outputs[0]);
  if (llvm::Error error = lowerReductionWithEnds(context, anchor, loads, store)) return error;
  return true;
}

} // namespace spectral::codegen
