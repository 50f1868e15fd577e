//===- FusedRegion.cpp - elementwise ops around one anchor, as functors ---===//
#include "compiler/Codegen/FusedRegion.h"

#include "compiler/Codegen/Constants.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"

#include <cstdio>

using namespace mlir;
namespace sp = mlir::spectral;

namespace spectral::codegen {
/// Eight hex digits of FNV-1a over `text`.
std::string textDigest(const std::string &text) {
  uint64_t hash = 1469598103934665603ull;
  for (unsigned char c : text) hash = (hash ^ c) * 1099511628211ull;
  char out[9];
  std::snprintf(out, sizeof out, "%08x", unsigned(hash ^ (hash >> 32)));
  return out;
}

std::vector<Operation *> needed(llvm::ArrayRef<Operation *> ops, llvm::ArrayRef<Value> roots) {
  llvm::DenseSet<Operation *> candidates(ops.begin(), ops.end()), keep;
  std::vector<Value> work(roots.begin(), roots.end());
  while (!work.empty()) {
    Operation *def = work.back().getDefiningOp();
    work.pop_back();
    if (!def || !candidates.contains(def) || !keep.insert(def).second) continue;
    for (Value operand : def->getOperands()) work.push_back(operand);
  }
  std::vector<Operation *> kept;
  for (Operation *op : ops)
    if (keep.contains(op)) kept.push_back(op);
  return kept;
}

std::optional<FusedGroup> renderFusable(llvm::ArrayRef<Operation *> ops, Value inlined,
                                 llvm::ArrayRef<Value> values, const std::string &name,
                                 const std::string &index, const std::string &a) {
  llvm::Expected<FusedGroup> group = renderFusedGroup(ops, inlined, values, name, "g", index, a);
  if (!group) {
    llvm::consumeError(group.takeError());
    return std::nullopt;
  }
  if (group->reportsErrors) return std::nullopt;
  return std::move(*group);
}

std::optional<FusedRegion> analyzeFusedRegion(sp::FusionOp fusion, llvm::ArrayRef<Operation *> ops,
                                              llvm::function_ref<bool(Operation *)> isAnchor,
                                              const std::string &index) {
  FusedRegion region;
  for (Operation *op : ops) {
    if (isElementwiseOp(op)) continue;
    if (region.anchor || !isAnchor(op)) return std::nullopt;
    region.anchor = op;
  }
  if (!region.anchor) return std::nullopt;
  Value result = region.anchor->getResult(0);
  auto yield = cast<sp::YieldOp>(fusion.getRegion().front().getTerminator());
  region.yielded.assign(yield.getValues().begin(), yield.getValues().end());
  llvm::DenseSet<Operation *> inGroup(ops.begin(), ops.end());
  for (Value value : region.yielded) {
    if (shapeOf(value.getType()) != shapeOf(result.getType()))
      return std::nullopt;  // stored at the result's index
    // The store computes what it writes: a block argument or a dense
    // constant passed through is left to the op-by-op path.
    Operation *def = value.getDefiningOp();
    if (value != result && (!def || !inGroup.contains(def))) return std::nullopt;
  }
  region.prologues.resize(region.anchor->getNumOperands());
  if (region.yielded.empty()) return region;

  std::vector<Operation *> before;
  bool seen = false;
  for (Operation *op : ops) {
    if (op == region.anchor) {
      seen = true;
      continue;
    }
    if (!seen) before.push_back(op);
    region.after.push_back(op);
  }
  for (auto [operand, prologue] : llvm::zip(region.anchor->getOperands(), region.prologues)) {
    std::vector<Operation *> computing = needed(before, {operand});
    if (computing.empty()) continue;
    std::optional<FusedGroup> group = renderFusable(computing, Value(), {operand}, "Prologue", index, "");
    if (!group) return std::nullopt;
    prologue = FusedPrologue{std::move(computing), std::move(*group)};
  }
  region.after = needed(region.after, region.yielded);
  if (!(region.yielded.size() == 1 && region.yielded[0] == result)) {
    region.epilogue = renderFusable(region.after, result, region.yielded, "Epilogue", index, "a");
    if (!region.epilogue) return std::nullopt;
  }
  return region;
}

bool leavesHaveBuffers(CodegenContext &context, const FusedGroup &group) {
  return llvm::all_of(group.leaves, [&](Value leaf) { return context.hasBuffer(leaf); });
}

std::optional<StoreGroup> renderStore(CodegenContext &context, llvm::ArrayRef<Operation *> others,
                                      llvm::ArrayRef<Value> yielded, Value result,
                                      const std::string &index) {
  StoreGroup store;
  if (yielded.size() == 1 && yielded[0] == result) return store;
  store.ops = needed(others, yielded);
  for (Value value : yielded)
    if (shapeOf(value.getType()) != shapeOf(result.getType()) ||
        (value != result && !llvm::is_contained(store.ops, value.getDefiningOp())))
      return std::nullopt;
  store.group = renderFusable(store.ops, result, yielded, "Epilogue", index, "a");
  if (!store.group || !leavesHaveBuffers(context, *store.group)) return std::nullopt;
  return store;
}

bool readableAsIs(CodegenContext &context, Value value) {
  if (context.hasBuffer(value)) return true;
  Operation *def = value.getDefiningOp();
  return def && isa<sp::ConstantOp, arith::ConstantOp>(def);
}

llvm::Error giveBuffers(CodegenContext &context, llvm::ArrayRef<Value> values) {
  for (Value value : values) {
    if (context.hasBuffer(value)) continue;
    llvm::Expected<int> buffer = constantBuffer(context, value.getDefiningOp());
    if (!buffer) return buffer.takeError();
  }
  return llvm::Error::success();
}

llvm::Expected<std::optional<ComputedOperand>>
analyzeComputedOperand(CodegenContext &context, sp::FusionOp fusion,
                       llvm::ArrayRef<Operation *> ops,
                       llvm::function_ref<bool(Operation *)> isAnchor, unsigned operand) {
  // Elementwise ops, then the anchor last.
  Operation *anchor = ops.empty() ? nullptr : ops.back();
  if (!anchor || !isAnchor(anchor)) return std::nullopt;
  std::vector<Operation *> before(ops.begin(), ops.end() - 1);
  if (!llvm::all_of(before, isElementwiseOp)) return std::nullopt;
  auto yield = cast<sp::YieldOp>(fusion.getRegion().front().getTerminator());
  for (Value value : yield.getValues())
    if (value.getDefiningOp() != anchor) return std::nullopt;  // results stored as they are
  Value computed = anchor->getOperand(operand);
  std::vector<Value> asIs;
  for (Value other : anchor->getOperands()) {
    if (other == computed) continue;
    if (!readableAsIs(context, other)) return std::nullopt;
    asIs.push_back(other);
  }
  ComputedOperand result;
  result.anchor = anchor;
  result.ops = needed(before, {computed});
  if (result.ops.empty()) return std::nullopt;
  std::optional<FusedGroup> group = renderFusable(result.ops, Value(), {computed}, "Prologue", "i", "");
  if (!group) return std::nullopt;
  result.group = std::move(*group);
  if (llvm::Error error = giveBuffers(context, asIs)) return error;
  return result;
}

void bindYieldedBuffers(CodegenContext &context, sp::FusionOp fusion) {
  auto yield = cast<sp::YieldOp>(fusion.getRegion().front().getTerminator());
  for (auto [result, value] : llvm::zip(fusion.getResults(), yield.getValues()))
    context.setBuffer(result, context.bufferOf(value));
}

std::vector<int> fusionOutputs(CodegenContext &context, sp::FusionOp fusion) {
  std::vector<int> outputs;
  for (Value output : fusion.getResults())
    outputs.push_back(context.hasBuffer(output) ? context.bufferOf(output)
                                                : context.newResultBuffer(output));
  return outputs;
}

std::string nameAfterText(FusedGroup &group, const std::string &placeholder) {
  std::string tag = textDigest(group.definition + llvm::join(group.calls, ";"));
  const std::string keyword = "struct ";
  size_t at = group.definition.find(keyword + placeholder + " {") + keyword.size();
  group.definition.replace(at, placeholder.size(), placeholder + "_" + tag);
  return tag;
}

std::string describeFusedOps(llvm::ArrayRef<Operation *> ops) {
  std::string text;
  for (Operation *op : ops)
    if (!isa<sp::ConstantOp, arith::ConstantOp>(op))
      text += (text.empty() ? "" : ", ") + CodegenContext::describe(op);
  return text;
}

} // namespace spectral::codegen
