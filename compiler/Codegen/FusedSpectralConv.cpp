//===- FusedSpectralConv.cpp - a 1-D FNO spectral convolution as one kernel ===//
//
// A spectral.fusion region holding rfft -> slice of the low modes ->
// channel_mix -> zero padding -> irfft (fusion::SpectralConv), with
// elementwise ops computing its input or weights before it and elementwise
// ops on its result after it, runs as one fno.cuh kernel per layer: a block
// per batch element transforms its channels, mixes the kept modes and
// transforms back in shared memory. The input and the weights are read
// through Load functors (a fused prologue or the buffer), the result is
// written through a Store that applies the irfft's norm and computes the
// region's yields at each element (the epilogue). Anything else is left to
// the other lowerings: lowerFusedSpectralConv returns false before it adds
// anything to the Program.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/CodegenUtil.h"
#include "compiler/Codegen/Elementwise.h"
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

llvm::Expected<bool> lowerFusedSpectralConv(CodegenContext &context, sp::FusionOp fusion,
                                            llvm::ArrayRef<Operation *> ops) {
  auto rfft = llvm::find_if(ops, [](Operation *op) { return isa<sp::RfftOp>(op); });
  fusion::SpectralConv conv;
  if (rfft == ops.end() || !fusion::spectralConvRefusal(*rfft, &conv).empty()) return false;
  std::vector<Operation *> before, after;
  bool past = false;
  for (Operation *op : ops) {
    if (llvm::is_contained({conv.rfft, conv.slice, conv.mix, conv.pad, conv.irfft}, op)) {
      past = op == conv.irfft;
      continue;
    }
    if (!isElementwiseOp(op)) return false;
    (past ? after : before).push_back(op);
  }
  Value x = conv.rfft->getOperand(0), weights = conv.mix->getOperand(1);
  Value result = conv.irfft->getResult(0);
  auto yield = cast<sp::YieldOp>(fusion.getRegion().front().getTerminator());
  std::vector<Value> yielded(yield.getValues().begin(), yield.getValues().end());
  // The ends, rendered before anything is added to the Program.
  std::optional<ElementEnd> load = operandEnd(context, before, x, "x", "X");
  std::optional<ElementEnd> weightEnd = operandEnd(context, before, weights, "w", "W");
  if (!load || !weightEnd) return false;
  // The store computes from the irfft's result and whatever else it needs at
  // the same element (a residual of the computed input, a computed bias).
  std::vector<Operation *> others(before);
  others.insert(others.end(), after.begin(), after.end());
  std::optional<StoreGroup> stored = renderStore(context, others, yielded, result, "i");
  if (!stored) return false;
  const std::vector<Operation *> &storing = stored->ops;
  const std::optional<FusedGroup> &post = stored->group;
  // The norms: the rfft's factor on the kept bins, the irfft's at the store.
  llvm::Expected<TransformPasses> there =
      transformPasses(context, conv.rfft, -1, -1, [] { return -1; });
  if (!there) return there.takeError();
  llvm::Expected<TransformPasses> back =
      transformPasses(context, conv.irfft, -1, -1, [] { return -1; });
  if (!back) return back.takeError();
  if (there->passes.size() != 1 || back->passes.size() != 1) return false;  // empty tensors

  std::vector<int> outputs = fusionOutputs(context, fusion);
  ElementEnd store = post ? fusedStore(context, *post, storing, outputs)
                          : bufferStore(context, "out", outputs[0]);
  DType dtype = dtypeOf(x.getType());
  const bool wide = dtype == DType::kFloat64;
  const std::string t = cppType(dtype), c = cppType(wide ? DType::kComplex128 : DType::kComplex64);
  const std::string cin = std::to_string(conv.cin), cout = std::to_string(conv.cout),
                    n = std::to_string(conv.n), modes = std::to_string(conv.modes);
  ProgramBuilder &builder = context.builder;
  const int64_t h = conv.n / 2, rows = std::max(conv.cin, conv.cout);
  int halfTwiddles = builder.addComplexTable("fft_twiddles_" + std::to_string(h) +
                                                 (wide ? "_f64" : "_f32"),
                                             planning::fftTwiddles(h, h), wide);
  int twiddlesN = builder.addComplexTable("fft_twiddles_n_" + n + (wide ? "_f64" : "_f32"),
                                          planning::fftTwiddles(conv.n, h + 1), wide);

  std::string definitions = load->definition +
                            (weightEnd->definition == load->definition ? "" : weightEnd->definition) +
                            store.definition;
  std::string functors =
      offsetLoadFunctor("XLoad", *load, t, "int batch, int channel, int n",
                "((long long)batch * " + cin + " + channel) * " + n + " + n") +
      offsetLoadFunctor("WLoad", *weightEnd, c, "int i_, int o, int m",
                "((long long)i_ * " + cout + " + o) * " + modes + " + m") +
      "struct YStore {\n" + store.members + "  double factor;\n"
      "  __device__ __forceinline__ void operator()(int batch, int o, int n, " + t +
      " value) const {\n    const long long i = ((long long)batch * " + cout + " + o) * " + n +
      " + n;\n    const " + t + " a = value * (" + t + ")factor;\n" + store.code + "  }\n};\n";
  std::string includes;
  for (const ElementEnd *end : {&*load, &*weightEnd, &store})
    if (!end->include.empty() && includes.find(end->include) == std::string::npos)
      includes += "#include \"" + end->include + "\"\n";
  std::string entry = "fno1d_" + std::string(shortName(dtype)) + "_b" +
                      std::to_string(conv.batch) + "_i" + cin + "_o" + cout + "_n" + n + "_m" +
                      modes + load->tag + weightEnd->tag + store.tag;
  std::vector<std::string> params;
  std::vector<StepArg> args;
  for (const ElementEnd *end : {&*load, &*weightEnd, &store}) {
    params.insert(params.end(), end->params.begin(), end->params.end());
    args.insert(args.end(), end->args.begin(), end->args.end());
  }
  params.push_back("const " + c + "* __restrict__ half_twiddles");
  params.push_back("const " + c + "* __restrict__ twiddles_n");
  params.push_back("double rfft_factor");
  params.push_back("double irfft_factor");
  args.push_back(StepArg::of_buffer(halfTwiddles));
  args.push_back(StepArg::of_buffer(twiddlesN));
  args.push_back(StepArg::f64(there->passes[0].factor));
  args.push_back(StepArg::f64(back->passes[0].factor));
  std::string body = "  SPECTRAL_DYNAMIC_SHARED(" + c + ", shared);\n"
                     "  spectral_fft::fno1d_layer<" + n + ", " + std::to_string(conv.threads) +
                     ", " + cin + ", " + cout + ", " + modes + ", " + t +
                     ">(shared, half_twiddles, twiddles_n, (" + t + ")rfft_factor, XLoad{" +
                     load->init + "}, WLoad{" + weightEnd->init + "}, YStore{" + store.init +
                     ", irfft_factor});\n";
  KernelSource unit = boundedUnit(
      "fno.cuh", entry, int(rows * conv.threads), llvm::join(params, ", "), body,
      includes + kPhasedUnit + "\nnamespace {\n" +
          definitions + functors + "}  // namespace\n\n");
  std::string where = (load->ops.empty() ? "" : load->ops + ", ") +
                      (weightEnd->ops.empty() ? "" : weightEnd->ops + ", ") +
                      describeFusedOps({conv.rfft, conv.slice, conv.mix, conv.pad, conv.irfft}) +
                      (store.ops.empty() ? "" : ", " + store.ops);
  int64_t tables = bytesOf(context, halfTwiddles) + bytesOf(context, twiddlesN);
  int kernel = builder.addKernel(unit, where, load->bytes + weightEnd->bytes + tables, store.bytes);
  const int64_t shared = (rows * h + (conv.cin + conv.cout) * conv.modes) * (wide ? 16 : 8);
  builder.launch(kernel, {uint32_t(conv.batch), 1, 1},
                 {uint32_t(conv.threads), uint32_t(rows), 1}, uint32_t(shared), std::move(args),
                 where);
  return true;
}

} // namespace spectral::codegen
