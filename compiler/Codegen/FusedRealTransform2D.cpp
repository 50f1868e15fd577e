//===- FusedRealTransform2D.cpp - a 2-D rfft or irfft of one image per block ===//
//
// A spectral.fusion region around an rfft or irfft over the last two axes of
// small images (fusion::realTransform2DRefusal) runs as one fft_real2d.cuh
// kernel, a block per image, instead of one launch per axis with the
// spectrum going through global memory in between.
//
// rfft: the ops before it compute the image in the Load, at (image, r, c).
// The spectrum's columns stay in shared memory, and the Store computes every
// value the region yields from them: the group of elementwise ops reads the
// spectrum through a view of shared memory (an accessor leaf, Elementwise.h)
// rather than a pointer, so it may keep only some modes (slices, corners,
// their concat: fusion::imageStoreRefusal) and only those are written. When
// the spectrum is read only through slices, only the columns below their
// largest limit are transformed.
//
// irfft: the ops before it compute the spectrum in the Load, at (image, r,
// k); a zero padding of the last axis (an FNO layer's modes) means only the
// columns below it are loaded and transformed back. The Store computes the
// region's yields from each real output (the epilogue), as the other fused
// transforms do.
//
// Anything else returns false before the Program changes.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/CodegenUtil.h"
#include "compiler/Codegen/FusedReductions.h"
#include "compiler/Codegen/FusedRegion.h"
#include "compiler/Codegen/FusedTransforms.h"
#include "compiler/Codegen/Transforms.h"
#include "compiler/Fusion/OpKinds.h"
#include "compiler/Planning/FftTables.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
namespace sp = mlir::spectral;

namespace spectral::codegen {
namespace {

/// The kept columns of a forward transform: below the largest limit of the
/// slices when the spectrum is read only through slices, else all of them.
int64_t keptColumns(Value spectrum, llvm::ArrayRef<Operation *> ops, int64_t bins) {
  int64_t kept = 0;
  for (Operation *user : spectrum.getUsers()) {
    auto slice = dyn_cast<sp::SliceOp>(user);
    if (!slice || !llvm::is_contained(ops, user)) return bins;
    kept = std::max(kept, slice.getLimit().back());
  }
  return std::clamp<int64_t>(kept, 1, bins);
}

/// The columns an inverse transform loads: those below a zero padding of
/// the last axis that computes its operand in the region, else all.
int64_t loadedColumns(Value operand, llvm::ArrayRef<Operation *> ops, int64_t bins) {
  auto pad = operand.getDefiningOp<sp::PadOp>();
  if (!pad || !llvm::is_contained(ops, pad.getOperation()) || pad.getLow().back() != 0 ||
      pad.getValue().convertToDouble() != 0.0)
    return bins;
  return std::clamp<int64_t>(bins - pad.getHigh().back(), 1, bins);
}

/// What rfft2_block's store computes: each yield, over one image's elements
/// of it, read from the spectrum in shared memory (the leaf `spectrum`).
struct ImageStore {
  ElementEnd end;        // members, init, params, args and ops; no `code`
  std::string functor;   // struct ImageStore with ELEMENTS and operator()(image, e)
  std::string accessor;  // struct SpectrumInShared
};

std::optional<ImageStore> imageStore(CodegenContext &context, llvm::ArrayRef<Value> yielded,
                                     llvm::ArrayRef<Operation *> others, Value spectrum,
                                     const fusion::RealTransform2D &shape,
                                     llvm::ArrayRef<int> outputs) {
  std::vector<Operation *> storing = needed(others, yielded);
  llvm::ArrayRef<int64_t> spectrumShape = cast<ShapedType>(spectrum.getType()).getShape();
  // Every value read from the spectrum stays in its image.
  llvm::DenseSet<Value> fromImages{spectrum};
  for (Operation *op : storing) {
    if (llvm::none_of(op->getOperands(), [&](Value v) { return fromImages.contains(v); }))
      continue;
    if (!fusion::imageStoreRefusal(op, spectrumShape, [&](Value v) {
           return fromImages.contains(v);
         }).empty())
      return std::nullopt;
    fromImages.insert(op->getResult(0));
  }
  std::vector<int64_t> perImage;
  for (Value value : yielded) {
    llvm::ArrayRef<int64_t> dims = cast<ShapedType>(value.getType()).getShape();
    if (dims.size() != spectrumShape.size() || dims.drop_back(2) != spectrumShape.drop_back(2))
      return std::nullopt;
    perImage.push_back(dims[dims.size() - 2] * dims.back());
  }
  const std::string c = cppType(shape.wide ? DType::kComplex128 : DType::kComplex64);
  const std::string t = shape.wide ? "double" : "float";
  llvm::Expected<FusedGroup> rendered =
      renderFusedGroup(storing, Value(), yielded, "Epilogue", "g", "i", "",
                       {{spectrum, "SpectrumInShared"}});
  if (!rendered) {
    llvm::consumeError(rendered.takeError());
    return std::nullopt;
  }
  FusedGroup group = std::move(*rendered);
  if (group.reportsErrors) return std::nullopt;
  ImageStore store;
  ElementEnd &end = store.end;
  std::string tag = nameAfterText(group, "Epilogue"), fields;
  for (size_t k = 0; k < group.leaves.size(); ++k) {
    if (group.leaves[k] == spectrum) {
      fields += "SpectrumInShared{shared, (" + t + ")factor}, ";
      continue;
    }
    if (!context.hasBuffer(group.leaves[k])) return std::nullopt;
    int buffer = context.bufferOf(group.leaves[k]);
    std::string name = "epi_in" + str(int64_t(k));
    end.params.push_back("const " + std::string(cppType(dtypeOf(group.leaves[k].getType()))) +
                         "* __restrict__ " + name);
    end.args.push_back(StepArg::of_buffer(buffer));
    end.bytes += bytesOf(context, buffer);
    fields += name + ", ";
  }
  end.definition = group.definition;
  end.tag = "_Sepi" + tag;
  end.ops = describeFusedOps(storing);
  end.init = "Epilogue_" + tag + "{" + fields + "nullptr}";
  std::string members = "  Epilogue_" + tag + " g;\n", writes;
  int64_t most = 0;
  for (size_t k = 0; k < outputs.size(); ++k) {
    std::string name = "epi_out" + str(int64_t(k)), member = "out" + str(int64_t(k));
    std::string type = cppType(context.builder.program().buffers[outputs[k]].dtype);
    end.params.push_back(type + "* __restrict__ " + name);
    end.args.push_back(StepArg::of_buffer(outputs[k]));
    end.bytes += bytesOf(context, outputs[k]);
    end.init += ", " + name;
    members += "  " + type + "* " + member + ";\n";
    writes += "    if (e < " + str(perImage[k]) + ") {\n      const long long i = (long long)image * " +
              str(perImage[k]) + " + e;\n      " + member + "[i] = " + group.calls[k] + ";\n    }\n";
    most = std::max(most, perImage[k]);
  }
  const int64_t bins = shape.w / 2 + 1;
  store.accessor =
      "/// Bin j of the spectrum (its flat index in the whole tensor), read from\n"
      "/// the kept columns of this block's image in shared memory, scaled.\n"
      "struct SpectrumInShared {\n  const " + c + "* columns;\n  " + t + " factor;\n"
      "  __device__ __forceinline__ " + c + " operator[](long long j) const {\n"
      "    const int k = int(j % " + str(bins) + "), r = int((j / " + str(bins) + ") % " +
      str(shape.h) + ");\n    return spectral_fft::scale(columns[k * " + str(shape.h) +
      " + r], factor);\n  }\n};\n";
  store.functor = "struct ImageStore {\n  static constexpr int ELEMENTS = " + str(most) + ";\n" +
                  members + "  __device__ __forceinline__ void operator()(int image, int e) const {\n" +
                  writes + "  }\n};\n";
  return store;
}

/// The tables both templates take: w_(W/2), w_W (W/2 + 1 entries), w_H.
std::vector<int> twiddleTables(ProgramBuilder &builder, const fusion::RealTransform2D &shape) {
  const int64_t half = shape.w / 2;
  const std::string suffix = shape.wide ? "_f64" : "_f32";
  return {builder.addComplexTable("fft_twiddles_" + str(half) + suffix,
                                  planning::fftTwiddles(half, half), shape.wide),
          builder.addComplexTable("fft_twiddles_n_" + str(shape.w) + suffix,
                                  planning::fftTwiddles(shape.w, half + 1), shape.wide),
          builder.addComplexTable("fft_twiddles_" + str(shape.h) + suffix,
                                  planning::fftTwiddles(shape.h, shape.h), shape.wide)};
}

/// The kernel of `ops` (elementwise ops around one 2-D real transform)
/// computing `yielded` into the buffers `outputBuffers` gives (asked for
/// only once the kernel is sure to be made).
llvm::Expected<bool> lowerRealTransform2D(CodegenContext &context, llvm::ArrayRef<Operation *> ops,
                                          llvm::ArrayRef<Value> yielded,
                                          llvm::function_ref<std::vector<int>()> outputBuffers) {
  Operation *anchor = nullptr;
  std::vector<Operation *> before, after;
  for (Operation *op : ops) {
    if (!isElementwiseOp(op)) {
      if (anchor) return false;
      anchor = op;
      continue;
    }
    (anchor ? after : before).push_back(op);
  }
  fusion::RealTransform2D shape;
  if (!anchor || !fusion::realTransform2DRefusal(anchor, &shape).empty()) return false;
  std::optional<double> factor = plainNormFactor(context, anchor);
  if (!factor) return false;
  const bool forward = isa<sp::RfftOp>(anchor);
  Value operand = anchor->getOperand(0), result = anchor->getResult(0);
  const int64_t bins = shape.w / 2 + 1;
  const int64_t kw = forward ? keptColumns(result, ops, bins) : loadedColumns(operand, ops, bins);
  std::vector<Operation *> others(before);
  others.insert(others.end(), after.begin(), after.end());
  const DType realType = shape.wide ? DType::kFloat64 : DType::kFloat32;
  const std::string t = cppType(realType);
  const std::string c = cppType(shape.wide ? DType::kComplex128 : DType::kComplex64);
  const std::string h = str(shape.h), w = str(shape.w);

  // The ends, rendered before anything is added to the Program (the outputs'
  // buffers aside, which a fallback would make as well).
  std::optional<ElementEnd> load = operandEnd(context, before, operand, "x", "X");
  if (!load) return false;
  std::vector<int> outputs = outputBuffers();
  std::string functors, storeInit, definitions = load->definition;
  ElementEnd store;
  if (forward) {
    std::optional<ImageStore> kept = imageStore(context, yielded, others, result, shape, outputs);
    if (!kept) return false;
    store = kept->end;
    // The view of shared memory comes before the group that holds one.
    definitions += kept->accessor;
    functors = offsetLoadFunctor("XLoad", *load, t, "int image, int r, int c",
                                 "((long long)image * " + h + " + r) * " + w + " + c") +
               kept->functor;
    storeInit = "ImageStore{" + store.init + "}";
  } else {
    std::optional<StoreGroup> stored = renderStore(context, others, yielded, result, "i");
    if (!stored) return false;
    store = stored->group ? fusedStore(context, *stored->group, stored->ops, outputs)
                          : bufferStore(context, "out", outputs[0]);
    functors = offsetLoadFunctor("XLoad", *load, c, "int image, int r, int k",
                                 "((long long)image * " + h + " + r) * " + str(bins) + " + k") +
               "struct YStore {\n" + store.members + "  double factor;\n"
               "  __device__ __forceinline__ void operator()(int image, int r, int c, " + t +
               " value) const {\n    const long long i = ((long long)image * " + h + " + r) * " +
               w + " + c;\n    const " + t + " a = value * (" + t + ")factor;\n" + store.code +
               "  }\n};\n";
    storeInit = "YStore{" + store.init + ", factor}";
  }
  if (store.definition != load->definition) definitions += store.definition;
  std::string includes;
  for (const ElementEnd *end : {&*load, &store})
    if (!end->include.empty() && includes.find(end->include) == std::string::npos)
      includes += "#include \"" + end->include + "\"\n";
  if (forward && includes.find("elementwise.cuh") == std::string::npos)
    includes += "#include \"elementwise.cuh\"\n";

  ProgramBuilder &builder = context.builder;
  std::vector<int> tables = twiddleTables(builder, shape);
  const std::string kind = forward ? "rfft2" : "irfft2";
  std::string entry = kind + "_" + shortName(realType) + "_" + h + "x" + w + "_k" + str(kw) +
                      load->tag + store.tag;
  std::vector<std::string> params(load->params);
  params.insert(params.end(), store.params.begin(), store.params.end());
  std::vector<StepArg> args(load->args);
  args.insert(args.end(), store.args.begin(), store.args.end());
  int64_t tableBytes = 0;
  for (const char *name : {"half_twiddles", "twiddles_n", "twiddles_h"})
    params.push_back("const " + c + "* __restrict__ " + name);
  for (int table : tables) {
    args.push_back(StepArg::of_buffer(table));
    tableBytes += bytesOf(context, table);
  }
  params.push_back("double factor");
  args.push_back(StepArg::f64(*factor));
  std::string body = "  SPECTRAL_DYNAMIC_SHARED(" + c + ", shared);\n  spectral_fft::" + kind +
                     "_block<" + h + ", " + w + ", " + str(kw) + ", " + str(shape.threads) + ", " +
                     t + ">(shared, half_twiddles, twiddles_n, twiddles_h, XLoad{" + load->init +
                     "}, " + storeInit + ");\n";
  KernelSource unit = boundedUnit("fft_real2d.cuh", entry, int(shape.threads),
                                  llvm::join(params, ", "), body,
                                  includes + kPhasedUnit + "\nnamespace {\n" + definitions + functors +
                                      "}  // namespace\n\n");
  std::string where = (load->ops.empty() ? "" : load->ops + ", ") +
                      CodegenContext::describe(anchor) +
                      (store.ops.empty() ? "" : ", " + store.ops);
  int kernel = builder.addKernel(unit, where, load->bytes + tableBytes, store.bytes);
  builder.launch(kernel, {uint32_t(shape.images), 1, 1}, {uint32_t(shape.threads), 1, 1},
                 uint32_t(shape.sharedBytes(kw)), std::move(args), where);
  return true;
}

} // namespace

llvm::Expected<bool> lowerFusedRealTransform2D(CodegenContext &context, sp::FusionOp fusion,
                                               llvm::ArrayRef<Operation *> ops) {
  auto yield = cast<sp::YieldOp>(fusion.getRegion().front().getTerminator());
  std::vector<Value> yielded(yield.getValues().begin(), yield.getValues().end());
  return lowerRealTransform2D(context, ops, yielded,
                              [&] { return fusionOutputs(context, fusion); });
}

llvm::Expected<bool> lowerRealTransform2DOp(CodegenContext &context, Operation *op) {
  if (!fusion::realTransform2DRefusal(op, nullptr).empty()) return false;
  Value result = op->getResult(0);
  return lowerRealTransform2D(context, {op}, {result},
                              [&] { return std::vector<int>{context.newResultBuffer(result)}; });
}

} // namespace spectral::codegen
