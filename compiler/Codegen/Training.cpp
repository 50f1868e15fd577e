//===- Training.cpp - optimizer steps and the global-norm clip ------------===//
//
// The ops are functional (param in, new param out), so each step reads its
// inputs and writes new buffers in one launch: optimizer.cuh's functional
// form (sgd_streams, adam_streams), whose pointers are the kernel's own
// arguments. Its multi-tensor form reads a device table of pointers, which
// only the executor could fill (buffer addresses exist at run time alone),
// costing a setup launch per step and a copy of each state tensor; batching
// several steps into one launch is for the fusion pass. Hyperparameters are
// launch arguments, sizes are baked in ("adamw_f32_64x64_i64step").
//
// clip_global_norm takes three launches: loss.cuh's norm_partials over a
// table of the tensors (as reals: a complex tensor's |z|^2 is the sum of
// its two parts' squares) that each block writes into shared memory from its
// arguments, norm_final in one block (the norm, and the dialect's scale
// norm > max_norm ? max_norm / norm : 1 in double), then one pass scaling
// every tensor in double.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/CodegenUtil.h"
#include "compiler/Codegen/Elementwise.h"
#include "compiler/Codegen/FusedReductions.h"
#include "compiler/Codegen/FusedRegion.h"
#include "compiler/Codegen/FusedTraining.h"
#include "dialects/spectral/IR/SpectralOps.h"

#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <cstdio>

using namespace mlir;
namespace sp = mlir::spectral;

namespace spectral::codegen {
namespace {

constexpr int kThreads = 256;
/// Elements per block and chunk of an optimizer step (a multiple of 4).
constexpr int64_t kChunk = 4096;

/// The C++ real type of a float dtype's parts.
const char *realType(DType dtype) {
  return dtype == DType::kFloat64 || dtype == DType::kComplex128 ? "double" : "float";
}

std::string complexFlag(DType dtype) { return dtype_is_complex(dtype) ? "true" : "false"; }

Dim3 chunkGrid(int64_t count) {
  return {uint32_t(std::clamp<int64_t>(ceilDiv(count, kChunk), 1, 65535)), 1, 1};
}

/// How a step reads its gradient: from its buffer, or through a fused
/// prologue (`end`) computing it at each flat element.
struct GradientSource {
  const ElementEnd *end = nullptr;
  std::string params, prelude, tag, ops;
  std::vector<StepArg> args;
  int64_t bytes = 0;

  GradientSource(CodegenContext &context, Value grad, const ElementEnd *fused,
                 const std::string &t)
      : end(fused) {
    if (!end) {
      params = "const " + t + "* __restrict__ grad, ";
      args = {StepArg::of_buffer(context.bufferOf(grad))};
      bytes = bytesOf(context, context.bufferOf(grad));
      return;
    }
    for (const std::string &param : end->params) params += param + ", ";
    args = end->args;
    bytes = end->bytes;
    prelude = "#include \"" + end->include + "\"\n\nnamespace {\n" + end->definition +
              "struct Grad {\n" + end->members +
              "  __device__ __forceinline__ auto operator()(long long i) const { return " +
              end->code + "; }\n};\n}  // namespace\n\n";
    tag = end->tag;
    ops = end->ops;
  }
  /// The stream's grad pointer.
  std::string pointer() const { return end ? "nullptr" : "grad"; }
  /// `name` with "_computed_grad" when the gradient is fused.
  std::string apply(const std::string &name) const {
    return end ? name + "_computed_grad" : name;
  }
  /// The argument after the stream: the Grad functor, or the clip scale.
  std::string gradArgument() const { return end ? "Grad{" + end->init + "}" : "nullptr"; }
  std::string describe(Operation *op) const {
    return (ops.empty() ? "" : ops + ", ") + CodegenContext::describe(op);
  }
};

// ---- sgd_step ------------------------------------------------------------------------

llvm::Error lowerSgd(CodegenContext &context, sp::SgdStepOp op, const ElementEnd *fusedGrad) {
  ProgramBuilder &builder = context.builder;
  DType dtype = dtypeOf(op.getParam().getType());
  std::string t = realType(dtype);
  double momentum = op.getMomentum().convertToDouble();
  // With momentum 0 the velocity only matters as a result: when nothing
  // uses it, it is neither read nor written (p' = p - lr g'; a non-finite
  // input velocity, which 0 * v would spread, is then ignored).
  bool velocity = momentum != 0 || !op.getNewVelocity().use_empty();
  bool nesterov = op.getNesterov();
  int64_t count = elementCount(op.getParam());

  GradientSource grad(context, op.getGrad(), fusedGrad, t);
  int param = context.bufferOf(op.getParam());
  int newParam = context.newResultBuffer(op.getNewParam());
  std::vector<StepArg> args{StepArg::of_buffer(param)};
  args.insert(args.end(), grad.args.begin(), grad.args.end());
  int64_t read = bytesOf(context, param) + grad.bytes;
  int64_t written = bytesOf(context, newParam);
  std::string params = "const " + t + "* __restrict__ param, " + grad.params;
  std::string streams = "param, " + grad.pointer() + ", ";
  if (velocity) {
    int v = context.bufferOf(op.getVelocity());
    int newV = context.newResultBuffer(op.getNewVelocity());
    args.push_back(StepArg::of_buffer(v));
    args.push_back(StepArg::of_buffer(newParam));
    args.push_back(StepArg::of_buffer(newV));
    read += bytesOf(context, v);
    written += bytesOf(context, newV);
    params += "const " + t + "* __restrict__ velocity, " + t + "* __restrict__ new_param, " + t +
              "* __restrict__ new_velocity, ";
    streams += "velocity, nullptr, new_param, new_velocity, nullptr, ";
  } else {
    args.push_back(StepArg::of_buffer(newParam));
    params += t + "* __restrict__ new_param, ";
    streams += "nullptr, nullptr, new_param, nullptr, nullptr, ";
  }
  params += "double lr, double momentum, double weight_decay";
  for (double value :
       {op.getLr().convertToDouble(), momentum, op.getWeightDecay().convertToDouble()})
    args.push_back(StepArg::f64(value));

  std::string entry = std::string("sgd") + (velocity ? "_momentum" : "") +
                      (nesterov ? "_nesterov" : "") + "_" + shortName(dtype) + "_" +
                      shapeName(shapeOf(op.getParam().getType())) + grad.tag;
  std::string body = "  const spectral_optimizer::OptimizerStreams<" + t + "> tensor{" + streams +
                     lit(count) + "};\n  spectral_optimizer::" + grad.apply("sgd_streams") + "<" +
                     t + ", " + complexFlag(dtype) + ", " + (velocity ? "true" : "false") + ", " +
                     (nesterov ? "true" : "false") +
                     (grad.end ? "" : ", " + std::to_string(kChunk)) + ">(tensor, " +
                     grad.gradArgument() + ", lr, momentum, weight_decay);\n";
  std::string description = grad.describe(op);
  int kernel = builder.addKernel(
      boundedUnit("optimizer.cuh", entry, kThreads, params, body, grad.prelude), description,
      read, written);
  builder.launch(kernel, chunkGrid(count), {kThreads, 1, 1}, 0, std::move(args), description);
  return llvm::Error::success();
}

// ---- adam_step -----------------------------------------------------------------------

llvm::Error lowerAdam(CodegenContext &context, sp::AdamStepOp op, const ElementEnd *fusedGrad) {
  ProgramBuilder &builder = context.builder;
  DType dtype = dtypeOf(op.getParam().getType());
  std::string t = realType(dtype);
  bool decoupled = op.getDecoupled();
  DType stepType = dtypeOf(op.getStep().getType());
  int64_t count = elementCount(op.getParam());

  GradientSource grad(context, op.getGrad(), fusedGrad, t);
  std::vector<StepArg> args;
  int64_t read = grad.bytes, written = 0;
  for (Value input : {op.getParam(), op.getGrad(), op.getM(), op.getV(), op.getStep()}) {
    if (input == op.getGrad()) {
      args.insert(args.end(), grad.args.begin(), grad.args.end());
      continue;
    }
    int buffer = context.bufferOf(input);
    args.push_back(StepArg::of_buffer(buffer));
    read += bytesOf(context, buffer);
  }
  for (Value result : op->getResults()) {
    int buffer = context.newResultBuffer(result);
    args.push_back(StepArg::of_buffer(buffer));
    written += bytesOf(context, buffer);
  }
  for (llvm::APFloat value :
       {op.getLr(), op.getBeta1(), op.getBeta2(), op.getEps(), op.getWeightDecay()})
    args.push_back(StepArg::f64(value.convertToDouble()));
  int error = context.newScratch(op, DType::kInt64, 1);
  args.push_back(StepArg::of_buffer(error));

  std::string stepC = cppType(stepType);
  std::string entry = std::string(decoupled ? "adamw_" : "adam_") + shortName(dtype) + "_" +
                      shapeName(shapeOf(op.getParam().getType())) + "_" + shortName(stepType) +
                      "step" + grad.tag;
  std::string params = "const " + t + "* __restrict__ param, " + grad.params + "const " + t +
                       "* __restrict__ m, const " + t +
                       "* __restrict__ v, const " + stepC + "* __restrict__ step, " + t +
                       "* __restrict__ new_param, " + t + "* __restrict__ new_m, " + t +
                       "* __restrict__ new_v, double lr, double beta1, double beta2, double eps, "
                       "double weight_decay, unsigned long long* error";
  // The step is data: the bias corrections 1 - beta^t are computed here, in
  // double as the dialect defines them, and a step below 1 fails the run.
  std::string body = "  const long long t = (long long)*step;\n"
                     "  if (t < 1) {\n"
                     "    if (blockIdx.x == 0 && threadIdx.x == 0) *error = ~0ull;\n"
                     "    return;\n"
                     "  }\n"
                     "  const double correction1 = 1.0 - pow(beta1, (double)t);\n"
                     "  const double correction2 = 1.0 - pow(beta2, (double)t);\n";
  body += "  const spectral_optimizer::OptimizerStreams<" + t + "> tensor{param, " +
          grad.pointer() + ", m, v, new_param, new_m, new_v, " + lit(count) + "};\n";
  body += "  spectral_optimizer::" + grad.apply("adam_streams") + "<" + t + ", " +
          complexFlag(dtype) + ", " + (decoupled ? "true" : "false") +
          (grad.end ? "" : ", " + std::to_string(kChunk)) + ">(tensor, " + grad.gradArgument() +
          ", lr, beta1, beta2, eps, weight_decay, correction1, correction2);\n";
  std::string description = grad.describe(op);
  int kernel = builder.addKernel(
      boundedUnit("optimizer.cuh", entry, kThreads, params, body, grad.prelude), description,
      read, written);
  builder.launch(kernel, chunkGrid(count), {kThreads, 1, 1}, 0, std::move(args), description, error,
                 "step must be >= 1 (the count of updates so far, 1-based)");
  return llvm::Error::success();
}

// ---- clip_global_norm ----------------------------------------------------------------

llvm::Error lowerClip(CodegenContext &context, sp::ClipGlobalNormOp op) {
  ProgramBuilder &builder = context.builder;
  auto inputs = op.getInputs();
  size_t tensors = inputs.size();
  DType first = dtypeOf(inputs.front().getType());
  std::string t = realType(first);
  DType normType = dtype_is_wide(first) ? DType::kFloat64 : DType::kFloat32;

  // Each tensor as reals; the unit's name lists the inputs' types.
  std::vector<int64_t> reals;
  std::string inputNames;
  int64_t longest = 1;
  for (Value input : inputs) {
    DType dtype = dtypeOf(input.getType());
    int64_t count = context.builder.program().buffers[context.bufferOf(input)].elements();
    reals.push_back(count * (dtype_is_complex(dtype) ? 2 : 1));
    longest = std::max(longest, reals.back());
    inputNames += std::string("_") + shortName(dtype) + "_" + shapeName(shapeOf(input.getType()));
  }
  int64_t chunks = std::clamp<int64_t>(ceilDiv(longest, kThreads * 8), 1, 256);
  // Many tensors: their count and a digest of their types instead of the list.
  if (inputNames.size() > 80) {
    char digest[17];
    std::snprintf(digest, sizeof digest, "%016llx",
                  (unsigned long long)llvm::xxh3_64bits(inputNames));
    inputNames = "_" + std::string(shortName(normType)) + "_" + std::to_string(tensors) +
                 "tensors_" + digest;
  }

  std::vector<int> in, out;
  int64_t inBytes = 0, outBytes = 0;
  for (Value input : inputs) {
    in.push_back(context.bufferOf(input));
    inBytes += bytesOf(context, in.back());
  }
  for (Value result : op.getResults()) {
    out.push_back(context.newResultBuffer(result));
    outBytes += bytesOf(context, out.back());
  }
  int norm = context.newResultBuffer(op.getNorm());
  int partials = context.newScratch(op, DType::kFloat64, int64_t(tensors) * chunks);
  int scale = context.newScratch(op, DType::kFloat64, 1);
  std::string description = CodegenContext::describe(op);

  // 1. Partial square sums per (tensor, chunk).
  std::string params, table;
  std::vector<StepArg> args;
  for (size_t i = 0; i < tensors; ++i) {
    std::string x = "x" + std::to_string(i);
    params += "const " + t + "* __restrict__ " + x + ", ";
    table += "    tensors[" + std::to_string(i) + "] = spectral_reduce::TensorRef<" + t + ">{" + x +
             ", " + lit(reals[i]) + "};\n";
    args.push_back(StepArg::of_buffer(in[i]));
  }
  params += "double* __restrict__ partials";
  args.push_back(StepArg::of_buffer(partials));
  std::string body = "  __shared__ spectral_reduce::TensorRef<" + t + "> tensors[" +
                     std::to_string(tensors) + "];\n  if (threadIdx.x == 0) {\n" + table +
                     "  }\n  __syncthreads();\n  spectral_reduce::norm_partials<" +
                     std::to_string(kThreads) + ", double>(tensors, partials);\n";
  std::string entry = "clip_norm_partials" + inputNames;
  int kernel = builder.addKernel(boundedUnit("loss.cuh", entry, kThreads, params, body),
                                 description, inBytes, int64_t(tensors) * chunks * 8);
  builder.launch(kernel, {uint32_t(tensors), uint32_t(chunks), 1}, {kThreads, 1, 1}, 0,
                 std::move(args), description);

  // 2. The norm and the scale, by one block.
  std::string n = cppType(normType);
  std::string prelude =
      "namespace {\n"
      "/// Keeps store(0, norm): the norm, and the dialect's scale (1 for a NaN norm).\n"
      "template <typename N>\n"
      "struct ClipStore {\n"
      "  N* norm;\n"
      "  double* scale;\n"
      "  double max_norm;\n"
      "  __device__ __forceinline__ void operator()(long long i, double value) const {\n"
      "    if (i != 0) return;\n"
      "    *norm = (N)value;\n"
      "    *scale = value > max_norm ? max_norm / value : 1.0;\n"
      "  }\n"
      "};\n"
      "}  // namespace\n\n";
  entry = "clip_norm_final_" + std::string(shortName(normType)) + "_" + std::to_string(tensors) +
          "x" + std::to_string(chunks);
  body = "  spectral_reduce::norm_final<" + std::to_string(kThreads) + ", double>(" +
         std::to_string(tensors) + ", " + std::to_string(chunks) +
         ", partials, max_norm, ClipStore<" + n + ">{norm, scale, max_norm});\n";
  kernel =
      builder.addKernel(boundedUnit("loss.cuh", entry, kThreads,
                                    "const double* __restrict__ partials, " + n +
                                        "* __restrict__ norm, double* __restrict__ scale, "
                                        "double max_norm",
                                    body, prelude),
                        description, int64_t(tensors) * chunks * 8, bytesOf(context, norm) + 8);
  builder.launch(kernel, {1, 1, 1}, {kThreads, 1, 1}, 0,
                 {StepArg::of_buffer(partials), StepArg::of_buffer(norm), StepArg::of_buffer(scale),
                  StepArg::f64(op.getMaxNorm().convertToDouble())},
                 description);

  // 3. Every tensor times the scale, in double (as the dialect: one rounding).
  params.clear();
  body = "  const double s = *scale;\n"
         "  const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
         "  const long long stride = (long long)gridDim.x * blockDim.x;\n";
  args.clear();
  for (size_t i = 0; i < tensors; ++i) {
    std::string x = "x" + std::to_string(i), y = "y" + std::to_string(i);
    params += "const " + t + "* __restrict__ " + x + ", " + t + "* __restrict__ " + y + ", ";
    body += "  for (long long i = first; i < " + lit(reals[i]) + "; i += stride) " + y + "[i] = (" +
            t + ")((double)" + x + "[i] * s);\n";
    args.push_back(StepArg::of_buffer(in[i]));
    args.push_back(StepArg::of_buffer(out[i]));
  }
  params += "const double* __restrict__ scale";
  args.push_back(StepArg::of_buffer(scale));
  entry = "clip_scale" + inputNames;
  kernel = builder.addKernel(boundedUnit("", entry, kThreads, params, body), description,
                             inBytes + 8, outBytes);
  builder.launch(kernel, gridFor(longest, kThreads, 4), {kThreads, 1, 1}, 0, std::move(args),
                 description);
  return llvm::Error::success();
}

} // namespace

llvm::Expected<bool> lowerTraining(CodegenContext &context, Operation *op) {
  if (auto sgd = dyn_cast<sp::SgdStepOp>(op)) return lowered(lowerSgd(context, sgd, nullptr));
  if (auto adam = dyn_cast<sp::AdamStepOp>(op)) return lowered(lowerAdam(context, adam, nullptr));
  if (auto clip = dyn_cast<sp::ClipGlobalNormOp>(op)) return lowered(lowerClip(context, clip));
  return false;
}

llvm::Expected<bool> lowerFusedOptimizerStep(CodegenContext &context, sp::FusionOp fusion,
                                             llvm::ArrayRef<Operation *> ops) {
  // The gradient computed on the fly; parameters and state read as they are
  // (constants in the region, zero state or a first step, get buffers).
  auto isStep = [](Operation *op) { return isa<sp::SgdStepOp, sp::AdamStepOp>(op); };
  llvm::Expected<std::optional<ComputedOperand>> region =
      analyzeComputedOperand(context, fusion, ops, isStep, 1);
  if (!region) return region.takeError();
  if (!*region) return false;
  Operation *step = (*region)->anchor;
  ElementEnd grad = fusedLoad(context, (*region)->group, (*region)->ops, "G");
  llvm::Error error = isa<sp::SgdStepOp>(step)
                          ? lowerSgd(context, cast<sp::SgdStepOp>(step), &grad)
                          : lowerAdam(context, cast<sp::AdamStepOp>(step), &grad);
  if (error) return error;
  bindYieldedBuffers(context, fusion);
  return true;
}

} // namespace spectral::codegen
