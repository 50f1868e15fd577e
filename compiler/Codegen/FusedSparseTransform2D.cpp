//===- FusedSparseTransform2D.cpp - top-k in a transform's store, scatter in an inverse's load ===//
//
// A spectral.fusion region holding a complex fft of one image per block and
// the top-k or the gather of each image's modes (fusion::sparseStoreRefusal), or a scatter
// of each image's modes and the ifft that reads it (fusion::scatterLoadRefusal),
// runs as one fft_complex2d.cuh kernel, a block per image:
//
// - fft2_topk_block: the ops before the fft compute the image in the Load;
//   the spectrum stays in shared memory, is ranked there, and only the k
//   modes' values and indices are written (instead of the whole spectrum
//   going through global memory to a top-k kernel).
// - fft2_gather_block: the same, with the k modes at given indices written
//   (a bad index reported through the launch's error word).
// - scatter_ifft2_block: the ops before the scatter compute its values in
//   the Load; the image's spectrum is built from them in shared memory and
//   transformed back; the ops after the ifft compute the region's yields
//   from each output (the epilogue), as the other fused transforms do.
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

/// What both kernels share: the image's shape as text, the tables' buffers
/// and parameters, the includes and definitions their ends need.
struct ImageKernel {
  const fusion::SparseImageTransform &chain;
  std::string c, t, h, w, k;
  std::vector<std::string> params;
  std::vector<StepArg> args;
  std::string includes, definitions;
  int64_t tableBytes = 0;

  explicit ImageKernel(const fusion::SparseImageTransform &chain)
      : chain(chain), c(chain.shape.wide ? "spectral_fft::cplx<double>" : "spectral_fft::cplx<float>"),
        t(chain.shape.wide ? "double" : "float"), h(str(chain.shape.h)), w(str(chain.shape.w)),
        k(str(chain.k)) {}

  /// Adds an end's parameters, arguments, header and definition.
  void take(const ElementEnd &end) {
    params.insert(params.end(), end.params.begin(), end.params.end());
    args.insert(args.end(), end.args.begin(), end.args.end());
    if (!end.include.empty() && includes.find(end.include) == std::string::npos)
      includes += "#include \"" + end.include + "\"\n";
    if (definitions.find(end.definition) == std::string::npos) definitions += end.definition;
  }

  /// The twiddle tables (W entries of w_W, H of w_H) and the norm factor,
  /// the entry's last parameters.
  void addTablesAndFactor(CodegenContext &context, double factor) {
    ProgramBuilder &builder = context.builder;
    const std::string suffix = chain.shape.wide ? "_f64" : "_f32";
    for (auto [n, name] : {std::pair{chain.shape.w, "twiddles_w"}, {chain.shape.h, "twiddles_h"}}) {
      int table = builder.addComplexTable("fft_twiddles_" + str(n) + suffix,
                                          planning::fftTwiddles(n, n), chain.shape.wide);
      params.push_back("const " + c + "* __restrict__ " + name);
      args.push_back(StepArg::of_buffer(table));
      tableBytes += bytesOf(context, table);
    }
    params.push_back("double factor");
    args.push_back(StepArg::f64(factor));
  }

  /// Adds the kernel of `entry` running `body` and launches it, a block per
  /// image; `error` is the launch's error word (or -1) and `why` its message.
  void launch(CodegenContext &context, const std::string &entry, const std::string &functors,
              const std::string &body, const std::string &where, int64_t bytesRead,
              int64_t bytesWritten, bool scatter, int error = -1, std::string why = {}) {
    // The launch's shared memory is fusion's count (OpKinds.cpp); the
    // template must agree, or the kernel does not compile.
    const int64_t shared = chain.shape.sharedBytes(scatter);
    std::string checked = "  static_assert(spectral_fft::complex2d_shared_bytes<" + h + ", " + w +
                          ", " + str(chain.shape.threads) + ", " + t + ", " +
                          (scatter ? "true" : "false") + ">() == " + str(shared) +
                          ", \"shared memory as fusion counts it\");\n" + body;
    KernelSource unit = boundedUnit("fft_complex2d.cuh", entry, int(chain.shape.threads),
                                    llvm::join(params, ", "), checked,
                                    kPhasedUnit + includes + "\nnamespace {\n" + definitions + functors +
                                        "}  // namespace\n\n");
    ProgramBuilder &builder = context.builder;
    int kernel = builder.addKernel(unit, where, bytesRead + tableBytes, bytesWritten);
    builder.launch(kernel, {uint32_t(chain.shape.images), 1, 1},
                   {uint32_t(chain.shape.threads), 1, 1}, uint32_t(shared),
                   std::move(args), where, error, std::move(why));
  }
};

/// "a, b, c": the ops a kernel computes, as steps name them.
std::string describeAll(llvm::ArrayRef<std::string> parts) {
  std::vector<std::string> kept;
  for (const std::string &part : parts)
    if (!part.empty()) kept.push_back(part);
  return llvm::join(kept, ", ");
}

std::string describeChain(const fusion::SparseImageTransform &chain) {
  std::vector<Operation *> ops = {chain.transform, chain.sparse};
  if (chain.reshape) ops.push_back(chain.reshape);
  llvm::sort(ops, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return describeFusedOps(ops);
}

/// The error of a gather's or scatter's bad index, as Sparse.cpp words it.
std::string outOfImage(const fusion::SparseImageTransform &chain) {
  return "index out of range [0, " + str(chain.shape.h * chain.shape.w) +
         ") (-1 marks an empty slot)";
}

/// fft (its operand computed by the ops before it) -> reshape -> topk_modes
/// or gather.
llvm::Expected<bool> lowerSparseStore(CodegenContext &context, sp::FusionOp fusion,
                                      llvm::ArrayRef<Operation *> ops,
                                      const fusion::SparseImageTransform &chain) {
  auto topk = dyn_cast<sp::TopkModesOp>(chain.sparse);
  auto gather = dyn_cast<sp::GatherOp>(chain.sparse);
  std::vector<Operation *> before;
  for (Operation *op : ops) {
    if (op == chain.transform || op == chain.reshape || op == chain.sparse) continue;
    if (!isElementwiseOp(op) || chain.transform->isBeforeInBlock(op)) return false;
    before.push_back(op);
  }
  auto yield = cast<sp::YieldOp>(fusion.getRegion().front().getTerminator());
  for (Value value : yield.getValues())
    if (value.getDefiningOp() != chain.sparse) return false;  // what it picks, as it is
  std::optional<double> factor = plainNormFactor(context, chain.transform);
  if (!factor || (gather && !readableAsIs(context, gather.getIndices()))) return false;
  ImageKernel kernel(chain);
  std::optional<ElementEnd> load =
      operandEnd(context, before, chain.transform->getOperand(0), "x", "X");
  if (!load) return false;

  // The results: the region's outputs, or scratch for one nothing reads.
  std::vector<int> outputs = fusionOutputs(context, fusion);
  std::vector<int> results(chain.sparse->getNumResults(), -1);
  for (auto [value, buffer] : llvm::zip(yield.getValues(), outputs))
    results[cast<OpResult>(value).getResultNumber()] = buffer;
  for (auto [number, buffer] : llvm::enumerate(results))
    if (buffer < 0) {
      auto type = cast<ShapedType>(chain.sparse->getResult(number).getType());
      buffer = context.newScratch(chain.sparse, dtypeOf(type), type.getNumElements());
    }
  int64_t written = 0;
  for (int buffer : results) written += bytesOf(context, buffer);
  kernel.take(*load);
  const std::string dims = kernel.h + ", " + kernel.w + ", " + str(chain.shape.threads) + ", " +
                           kernel.t;
  const std::string common = "(shared, twiddles_w, twiddles_h, (" + kernel.t + ")factor, ";
  const std::string xLoad = "XLoad{" + load->init + "}";
  const std::string name = std::string(shortName(dtypeOf(chain.transform->getResult(0).getType()))) +
                           "_" + kernel.h + "x" + kernel.w + "_k" + kernel.k + load->tag;
  std::string body = "  SPECTRAL_DYNAMIC_SHARED(" + kernel.c + ", shared);\n", entry;
  int error = -1;
  int64_t read = load->bytes;
  if (topk) {
    kernel.params.push_back(kernel.c + "* __restrict__ values");
    kernel.params.push_back("long long* __restrict__ indices");
    for (int buffer : results) kernel.args.push_back(StepArg::of_buffer(buffer));
    body += "  spectral_fft::fft2_topk_block<" + dims + ">" + common + kernel.k + ", " + xLoad +
            ", spectral_sparse::ByMagnitudeStore<" + kernel.c + " >{values, indices, " + kernel.k +
            "});\n";
    entry = "fft2_topk_" + name;
  } else {
    if (llvm::Error failure = giveBuffers(context, {gather.getIndices()})) return failure;
    int indices = context.bufferOf(gather.getIndices());
    error = context.newScratch(gather, DType::kInt64, 1);
    kernel.params.push_back("const long long* __restrict__ indices");
    kernel.params.push_back(kernel.c + "* __restrict__ out");
    kernel.params.push_back("unsigned long long* error");
    for (int buffer : {indices, results[0], error}) kernel.args.push_back(StepArg::of_buffer(buffer));
    body += "  spectral_fft::fft2_gather_block<" + dims + ">" + common + "indices, " + kernel.k +
            ", " + xLoad + ", spectral_sparse::RowsStore<" + kernel.c + " >{out, " + kernel.k +
            "}, error);\n";
    entry = "fft2_gather_" + name;
    read += bytesOf(context, indices);
  }
  kernel.addTablesAndFactor(context, *factor);
  std::string functors =
      offsetLoadFunctor("XLoad", *load, kernel.c, "int image, int r, int col",
                        "((long long)image * " + kernel.h + " + r) * " + kernel.w + " + col");
  kernel.launch(context, entry, functors, body, describeAll({load->ops, describeChain(chain)}),
                read, written, false, error, gather ? outOfImage(chain) : "");
  return true;
}

/// scatter (its values computed by the ops before it) -> reshape -> ifft ->
/// the ops after it, in the store.
llvm::Expected<bool> lowerScatterLoad(CodegenContext &context, sp::FusionOp fusion,
                                      llvm::ArrayRef<Operation *> ops,
                                      const fusion::SparseImageTransform &chain) {
  auto scatter = cast<sp::ScatterOp>(chain.sparse);
  // The load computes the values from the ops before the scatter; the store
  // may need any of the others (a bias broadcast before the scatter, or
  // after it, for an add after the ifft), as irfft2's store does.
  std::vector<Operation *> before, others;
  for (Operation *op : ops) {
    if (op == chain.transform || op == chain.reshape || op == chain.sparse) continue;
    if (!isElementwiseOp(op)) return false;
    if (op->isBeforeInBlock(scatter)) before.push_back(op);
    others.push_back(op);
  }
  auto yield = cast<sp::YieldOp>(fusion.getRegion().front().getTerminator());
  std::vector<Value> yielded(yield.getValues().begin(), yield.getValues().end());
  Value result = chain.transform->getResult(0);
  std::optional<double> factor = plainNormFactor(context, chain.transform);
  if (!factor || !readableAsIs(context, scatter.getIndices())) return false;
  ImageKernel kernel(chain);
  std::optional<ElementEnd> load = operandEnd(context, before, scatter.getValues(), "v", "V");
  if (!load) return false;
  std::optional<StoreGroup> stored = renderStore(context, others, yielded, result, "i");
  if (!stored) return false;

  if (llvm::Error error = giveBuffers(context, {scatter.getIndices()})) return error;
  std::vector<int> outputs = fusionOutputs(context, fusion);
  ElementEnd store = stored->group ? fusedStore(context, *stored->group, stored->ops, outputs)
                                   : bufferStore(context, "out", outputs[0]);
  int indices = context.bufferOf(scatter.getIndices());
  int error = context.newScratch(scatter, DType::kInt64, 1);
  kernel.take(*load);
  kernel.params.push_back("const long long* __restrict__ indices");
  kernel.args.push_back(StepArg::of_buffer(indices));
  kernel.take(store);
  kernel.addTablesAndFactor(context, *factor);
  kernel.params.push_back("unsigned long long* error");
  kernel.args.push_back(StepArg::of_buffer(error));
  std::string functors =
      offsetLoadFunctor("VLoad", *load, kernel.c, "long long row, long long j",
                        "row * " + kernel.k + " + j") +
      "struct YStore {\n" + store.members + "  double factor;\n"
      "  __device__ __forceinline__ void operator()(int image, int r, int col, " + kernel.c +
      " value) const {\n    const long long i = ((long long)image * " + kernel.h + " + r) * " +
      kernel.w + " + col;\n    const " + kernel.c + " a = spectral_fft::scale(value, (" + kernel.t +
      ")factor);\n" + store.code + "  }\n};\n";
  std::string body = "  SPECTRAL_DYNAMIC_SHARED(" + kernel.c + ", shared);\n"
                     "  spectral_fft::scatter_ifft2_block<" + kernel.h + ", " + kernel.w + ", " +
                     str(chain.shape.threads) + ", " + kernel.t + ">(shared, indices, " + kernel.k +
                     ", twiddles_w, twiddles_h, VLoad{" + load->init + "}, YStore{" + store.init +
                     ", factor}, error);\n";
  std::string entry = "scatter_ifft2_" +
                      std::string(shortName(dtypeOf(scatter.getValues().getType()))) + "_" +
                      kernel.h + "x" + kernel.w + "_k" + kernel.k + load->tag + store.tag;
  kernel.launch(context, entry, functors, body,
                describeAll({load->ops, describeChain(chain), store.ops}),
                load->bytes + bytesOf(context, indices), store.bytes, true, error,
                outOfImage(chain));
  return true;
}

} // namespace

llvm::Expected<bool> lowerFusedSparseTransform2D(CodegenContext &context, sp::FusionOp fusion,
                                                 llvm::ArrayRef<Operation *> ops) {
  for (Operation *op : ops) {
    fusion::SparseImageTransform chain;
    if (isa<sp::FftOp>(op) && fusion::sparseStoreRefusal(op, &chain).empty() &&
        llvm::is_contained(ops, chain.sparse))
      return lowerSparseStore(context, fusion, ops, chain);
    if (isa<sp::ScatterOp>(op) && fusion::scatterLoadRefusal(op, &chain).empty() &&
        llvm::is_contained(ops, chain.transform))
      return lowerScatterLoad(context, fusion, ops, chain);
  }
  return false;
}

} // namespace spectral::codegen
