//===- FusedTransforms.cpp - elementwise ops in a transform's loads and stores ===//
//
// A spectral.fusion region of elementwise ops around one transform runs as
// the transform's own kernels (the Load/Store hooks of fft_io.cuh): the ops before
// it become the first pass's Load functor, so the transform reads its
// operand computed on the fly, and the ops after it become the last pass's
// Store functor, so each result element is computed from the transformed
// value as it is stored. Passes in between stay plain. The functors reach
// the planner through its seam (planFftAxisWith); their text is the
// elementwise group's struct (Elementwise.h) wrapped in a call of the
// planner's shape, (batch, i) over the axis' [outer, n, inner] layout.
//
// What does not fit that shape (two anchors, an op after the transform that
// reads its result at another element, ops that can fail, the orthonormal
// DCT's extra scalings) is left to the op-by-op path: lowerFusedTransform
// returns false before it adds anything to the Program.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/FusedTransforms.h"

#include "compiler/Codegen/CodegenUtil.h"
#include "compiler/Codegen/FusedRegion.h"
#include "compiler/Codegen/Transforms.h"
#include "compiler/Fusion/OpKinds.h"
#include "dialects/spectral/IR/SpectralOps.h"



using namespace mlir;
namespace sp = mlir::spectral;

namespace spectral::codegen {
namespace {

using planning::FftAxis;
using planning::FftKind;
using planning::units::Functor;
using planning::units::Param;

bool complexKind(FftKind kind) {
  return kind == FftKind::kForward || kind == FftKind::kInverse || kind == FftKind::kRealInverse;
}

/// The leaves' pointers as entry parameters named `prefix`0, 1, ...
std::vector<Param> leafParams(CodegenContext &context, const FusedGroup &group,
                              const std::string &prefix, std::string *names) {
  std::vector<Param> params;
  for (size_t k = 0; k < group.leaves.size(); ++k) {
    std::string name = prefix + std::to_string(k);
    params.push_back({"const " + std::string(cppType(dtypeOf(group.leaves[k].getType()))) +
                          "* __restrict__ " + name,
                      StepArg::of_buffer(context.bufferOf(group.leaves[k]))});
    *names += name + ", ";
  }
  return params;
}

/// The first pass's Load: `value` computed by `ops` at the element the
/// transform reads.
Functor prologue(CodegenContext &context, FusedGroup group, const FftAxis &axis) {
  planning::units::Real real{axis.doublePrecision};
  std::string value = complexKind(axis.kind) ? real.complex() : real.cpp();
  int64_t length = axis.kind == FftKind::kRealInverse ? axis.n / 2 + 1 : axis.n;
  std::string names;
  std::vector<Param> params = leafParams(context, group, "pro_in", &names);
  std::string tag = nameAfterText(group, "Prologue");
  std::string prologue = "Prologue_" + tag, load = "FusedLoad_" + tag;
  Functor f;
  f.type = load;
  f.expr = load + "{" + prologue + "{" + names + "nullptr}, AxisLayout{" + std::to_string(length) +
           ", inner}}";
  f.params = std::move(params);
  f.tag = "pro" + tag;
  f.definition = "#include \"elementwise.cuh\"\n" +
                 std::string("namespace {\n") + // the group's struct, renamed per functor
                 group.definition + "struct " + load + " {\n  " + prologue +
                 " g;\n  AxisLayout layout;\n  __device__ __forceinline__ " + value +
                 " operator()(int batch, int i) const {\n    const long long j = "
                 "layout.offset(batch, i);\n    return " +
                 group.calls[0] + ";\n  }\n};\n}  // namespace\n";
  return f;
}

/// The last pass's Store: every output of the region at the element being
/// stored, from the transformed value (times the pass' factor) as `a`.
Functor epilogue(CodegenContext &context, FusedGroup group, const FftAxis &axis,
                 llvm::ArrayRef<int> outputs, llvm::ArrayRef<DType> outputTypes) {
  planning::units::Real real{axis.doublePrecision};
  bool complex = axis.kind == FftKind::kForward || axis.kind == FftKind::kInverse ||
                 axis.kind == FftKind::kRealForward;
  std::string value = complex ? real.complex() : real.cpp();
  int64_t length = axis.kind == FftKind::kRealForward ? axis.n / 2 + 1 : axis.n;
  std::string names;
  std::vector<Param> params = leafParams(context, group, "epi_in", &names);
  std::string tag = nameAfterText(group, "Epilogue");
  std::string epilogue = "Epilogue_" + tag, store = "FusedStore_" + tag;
  std::string members, writes, outs;
  for (size_t k = 0; k < outputs.size(); ++k) {
    std::string name = "epi_out" + std::to_string(k), type = cppType(outputTypes[k]);
    params.push_back({type + "* __restrict__ " + name, StepArg::of_buffer(outputs[k])});
    members += "  " + type + "* out" + std::to_string(k) + ";\n";
    writes += "    out" + std::to_string(k) + "[j] = " + group.calls[k] + ";\n";
    outs += name + ", ";
  }
  params.push_back({"double epi_factor", StepArg::f64(axis.factor)});
  std::string scaled = complex ? "spectral_fft::scale(value, (" + std::string(real.cpp()) +
                                     ")factor)"
                               : "value * (" + std::string(real.cpp()) + ")factor";
  Functor f;
  f.type = store;
  f.expr = store + "{" + epilogue + "{" + names + "nullptr}, " + outs + "AxisLayout{" +
           std::to_string(length) + ", inner}, epi_factor}";
  f.params = std::move(params);
  f.tag = "epi" + tag;
  f.definition = "#include \"elementwise.cuh\"\nnamespace {\n" + group.definition + "struct " +
                 store + " {\n  " + epilogue + " g;\n" + members +
                 "  AxisLayout layout;\n  double factor;\n  __device__ __forceinline__ void "
                 "operator()(int batch, int i, " +
                 value + " value) const {\n    const long long j = layout.offset(batch, i);\n"
                 "    const " + value + " a = " + scaled + ";\n" + writes + "  }\n};\n}  // namespace\n";
  return f;
}

/// The round trip's filter: the bin the inverse reads, computed by `group`
/// from the forward transform's bin (times the forward's factor) as `a`.
Functor filter(CodegenContext &context, FusedGroup group, const FftAxis &forward) {
  planning::units::Real real{forward.doublePrecision};
  int64_t bins = forward.kind == FftKind::kRealForward ? forward.n / 2 + 1 : forward.n;
  std::string names;
  std::vector<Param> params = leafParams(context, group, "filter_in", &names);
  params.push_back({"double filter_factor", StepArg::f64(forward.factor)});
  std::string tag = nameAfterText(group, "Filter");
  std::string inner = "Filter_" + tag, outer = "FusedFilter_" + tag;
  Functor f;
  f.type = outer;
  f.expr = outer + "{" + inner + "{" + names + "nullptr}, AxisLayout{" + std::to_string(bins) +
           ", inner}, filter_factor}";
  f.params = std::move(params);
  f.tag = tag;
  f.definition = "#include \"elementwise.cuh\"\nnamespace {\n" + group.definition + "struct " +
                 outer + " {\n  " + inner +
                 " g;\n  AxisLayout layout;\n  double factor;\n  __device__ __forceinline__ " +
                 real.complex() + " operator()(int batch, int k, " + real.complex() +
                 " value) const {\n    const long long j = layout.offset(batch, k);\n    const " +
                 real.complex() + " a = spectral_fft::scale(value, (" + real.cpp() +
                 ")factor);\n    return " + group.calls[0] + ";\n  }\n};\n}  // namespace\n";
  return f;
}

/// The single pass of a one-axis transform, or nothing.
std::optional<FftAxis> singlePass(CodegenContext &context, Operation *op, int input, int output) {
  llvm::Expected<TransformPasses> plan =
      transformPasses(context, op, input, output, [] { return -1; });
  if (!plan) {
    llvm::consumeError(plan.takeError());
    return std::nullopt;
  }
  if (plan->special != TransformPasses::kNone || plan->passes.size() != 1) return std::nullopt;
  return plan->passes[0];
}

} // namespace

llvm::Expected<bool> lowerFusedRoundTrip(CodegenContext &context, sp::FusionOp fusion,
                                         llvm::ArrayRef<Operation *> ops) {
  Operation *forward = nullptr, *inverse = nullptr;
  std::vector<Operation *> before, between, after;
  for (Operation *op : ops) {
    if (!isElementwiseOp(op)) {
      if (!forward) forward = op;
      else if (!inverse) inverse = op;
      else return false;
      continue;
    }
    (inverse ? after : forward ? between : before).push_back(op);
  }
  if (!inverse || !fusion::roundTripRefusal(forward, inverse).empty()) return false;
  Value x = forward->getOperand(0), spectrum = forward->getResult(0);
  Value filtered = inverse->getOperand(0), result = inverse->getResult(0);
  auto yield = cast<sp::YieldOp>(fusion.getRegion().front().getTerminator());
  std::vector<Value> yielded(yield.getValues().begin(), yield.getValues().end());
  const bool plainStore = yielded.size() == 1 && yielded[0] == result;

  // The three functors, rendered before anything is added to the Program.
  std::vector<Operation *> loading = needed(before, {x});
  std::optional<FusedGroup> pre;
  if (!loading.empty()) {
    pre = renderFusable(loading, Value(), {x}, "Prologue", "j", "");
    if (!pre || !leavesHaveBuffers(context, *pre)) return false;
  }
  std::vector<Operation *> middle(before);
  middle.insert(middle.end(), between.begin(), between.end());
  std::vector<Operation *> filtering = needed(middle, {filtered});
  if (filtered != spectrum && llvm::none_of(filtering, [&](Operation *op) {
        return llvm::is_contained(op->getOperands(), spectrum);
      }))
    return false;  // the inverse does not read a filtered spectrum
  std::optional<FusedGroup> mid = renderFusable(filtering, spectrum, {filtered}, "Filter", "j", "a");
  if (!mid || !leavesHaveBuffers(context, *mid)) return false;
  // The store computes from the inverse's result and whatever else it needs
  // at the same element (a constant, a value of the input's shape).
  std::vector<Operation *> others(middle);
  others.insert(others.end(), after.begin(), after.end());
  std::optional<StoreGroup> stored = renderStore(context, others, yielded, result, "j");
  if (!stored) return false;
  const std::vector<Operation *> &storing = stored->ops;
  const std::optional<FusedGroup> &post = stored->group;

  std::optional<FftAxis> there = singlePass(context, forward, pre ? -1 : context.bufferOf(x), -1);
  std::optional<FftAxis> back = singlePass(context, inverse, -1, -1);
  if (!there || !back) return false;
  std::vector<int> outputs = fusionOutputs(context, fusion);
  std::vector<DType> outputTypes;
  for (Value output : fusion.getResults()) outputTypes.push_back(dtypeOf(output.getType()));
  if (plainStore) back->output = outputs[0];
  auto joined = [](const std::string &a, const std::string &b) {
    return a.empty() ? b : b.empty() ? a : a + ", " + b;
  };
  there->op = joined(joined(pre ? describeFusedOps(loading) : "", there->op),
                     joined(describeFusedOps(filtering), back->op));
  if (post) there->op = joined(there->op, describeFusedOps(storing));
  planning::AxisEnds ends;
  ends.load = pre ? prologue(context, *pre, *there) : planning::plainEnds(*there).load;
  ends.store = post ? epilogue(context, *post, *back, outputs, outputTypes)
                    : planning::plainEnds(*back).store;
  Functor bins = filter(context, *mid, *there);
  if (Status status = planning::planFftRoundTrip(context.builder, *there, ends, bins); !status)
    return CodegenContext::error(forward, status.message());
  return true;
}

llvm::Expected<bool> lowerFusedTransform(CodegenContext &context, sp::FusionOp fusion,
                                         llvm::ArrayRef<Operation *> ops) {
  std::optional<FusedRegion> region = analyzeFusedRegion(fusion, ops, isTransformOp, "j");
  if (!region) return false;
  if (region->yielded.empty()) return true;  // nothing is used: no kernel
  Operation *anchor = region->anchor;
  Value x = anchor->getOperand(0), result = anchor->getResult(0);
  const std::optional<FusedPrologue> &pre = region->prologues[0];
  const std::optional<FusedGroup> &post = region->epilogue;
  bool fuseLoad = pre.has_value(), fuseStore = post.has_value();

  // Between passes the data lives in the region's result when the last store
  // is plain, in a scratch array when it is fused (no value is bound to
  // partly transformed data), and for irfft in a complex operand-shaped array.
  int intermediateBuffer = -1;
  auto intermediate = [&]() -> int {
    if (intermediateBuffer >= 0) return intermediateBuffer;
    if (isa<sp::IrfftOp>(anchor))
      intermediateBuffer = context.newScratch(anchor, dtypeOf(x.getType()), elementCount(x));
    else if (!fuseStore)
      intermediateBuffer = context.newResultBuffer(fusion.getResult(0));
    else
      intermediateBuffer = context.newScratch(anchor, dtypeOf(result.getType()), elementCount(result));
    return intermediateBuffer;
  };
  // transformPasses asks for the intermediate buffer only when it plans passes.
  llvm::Expected<TransformPasses> plan = transformPasses(
      context, anchor, fuseLoad ? -1 : context.bufferOf(x), -1, intermediate);
  if (!plan) return plan.takeError();
  if (plan->special != TransformPasses::kNone) return false;

  std::vector<int> outputs;
  std::vector<DType> outputTypes;
  for (Value output : fusion.getResults()) {
    outputs.push_back(context.hasBuffer(output) ? context.bufferOf(output)
                                                : context.newResultBuffer(output));
    outputTypes.push_back(dtypeOf(output.getType()));
  }
  std::vector<FftAxis> passes = plan->passes;
  FftAxis &first = passes.front(), &last = passes.back();
  if (!fuseStore) last.output = outputs[0];
  auto joined = [](const std::string &a, const std::string &b) {
    return a.empty() ? b : b.empty() ? a : a + ", " + b;
  };
  if (pre) first.op = joined(describeFusedOps(pre->ops), first.op);
  if (post) last.op = joined(last.op, describeFusedOps(region->after));
  for (size_t p = 0; p < passes.size(); ++p) {
    planning::AxisEnds ends = planning::plainEnds(passes[p]);
    if (p == 0 && pre) ends.load = prologue(context, pre->group, passes[p]);
    if (p + 1 == passes.size() && post)
      ends.store = epilogue(context, *post, passes[p], outputs, outputTypes);
    if (llvm::Error error = planAxis(context, anchor, passes[p], ends)) return error;
  }
  return true;
}

} // namespace spectral::codegen
