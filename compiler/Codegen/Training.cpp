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
#include "compiler/Fusion/OpKinds.h"
#include "dialects/spectral/IR/SpectralOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

#include "llvm/ADT/StringExtras.h"
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

/// How the steps of one launch read tensor 0's gradient: from its buffer, or
/// through a fused prologue (`end`, a launch of one step) computing it at
/// each flat element.
struct GradientSource {
  const ElementEnd *end = nullptr;
  std::string prelude, tag, ops;

  explicit GradientSource(const ElementEnd *fused) : end(fused) {
    if (!end) return;
    prelude = "#include \"" + end->include + "\"\n\nnamespace {\n" + end->definition +
              "struct Grad {\n" + end->members +
              "  __device__ __forceinline__ auto operator()(long long i) const { return " +
              end->code + "; }\n};\n}  // namespace\n\n";
    tag = end->tag;
    ops = end->ops;
  }
  /// `name` with "_computed_grad" when the gradient is fused.
  std::string apply(const std::string &name) const {
    return end ? name + "_computed_grad" : name;
  }
  /// The argument after the stream: the Grad functor, or no clip scale.
  std::string gradArgument() const { return end ? "Grad{" + end->init + "}" : "nullptr"; }
};

/// One tensor's pointers in the unit, "p0", "g0", ... ("nullptr" when unused).
struct StepTensor {
  std::string p, g, m, v, newP, newM, newV;
  int64_t count = 0;
  std::string streams(const std::string &t) const {
    return "spectral_optimizer::OptimizerStreams<" + t + ">{" + p + ", " + g + ", " + m + ", " + v +
           ", " + newP + ", " + newM + ", " + newV + ", " + lit(count) + "}";
  }
};

// ---- sgd_step and adam_step ------------------------------------------------------------

/// Whether the launch of `steps` reads and writes velocities (moments):
/// Adam always; SGD with momentum 0 only when a velocity result is used
/// (p' = p - lr g'; a non-finite input velocity, which 0 * v would spread,
/// is then ignored).
bool readsVelocity(llvm::ArrayRef<Operation *> steps) {
  auto sgd = dyn_cast<sp::SgdStepOp>(steps.front());
  return !sgd || sgd.getMomentum().convertToDouble() != 0 ||
         llvm::any_of(steps, [](Operation *op) { return !op->getResult(1).use_empty(); });
}

/// One launch of `steps`: sgd_step or adam_step ops of one kind with the same
/// attributes, element type (and step): block row y updates tensor y (the
/// optimizer updates of all parameters in one launch), blocks along x its
/// chunks. `fusedGrad` (one step only) computes its gradient.
llvm::Error lowerSteps(CodegenContext &context, llvm::ArrayRef<Operation *> steps,
                       const ElementEnd *fusedGrad) {
  ProgramBuilder &builder = context.builder;
  Operation *first = steps.front();
  auto adam = dyn_cast<sp::AdamStepOp>(first);
  auto sgd = dyn_cast<sp::SgdStepOp>(first);
  DType dtype = dtypeOf(first->getOperand(0).getType());
  std::string t = realType(dtype);
  GradientSource grad(fusedGrad);
  const bool velocity = readsVelocity(steps);

  std::vector<std::string> params;
  std::vector<StepArg> args;
  std::vector<StepTensor> tensors;
  std::vector<std::pair<int, int>> inPlace;  // (read, written) args of donated state
  int64_t read = 0, written = 0, chunks = 1;
  std::string shapes;
  // A donated argument (a parameter, optimizer state) may be written over by
  // its update: neither pointer is __restrict__ then.
  auto donated = [&](Value value) {
    return context.builder.program().buffers[context.bufferOf(value)].donated;
  };
  auto input = [&](Value value, const std::string &name) {
    int buffer = context.bufferOf(value);
    params.push_back("const " + t + (donated(value) ? "* " : "* __restrict__ ") + name);
    args.push_back(StepArg::of_buffer(buffer));
    read += bytesOf(context, buffer);
    return name;
  };
  auto output = [&](Value value, const std::string &name, Value state) {
    int buffer = context.newResultBuffer(value);
    if (donated(state)) {
      auto from = llvm::find_if(args, [&](const StepArg &arg) {
        return arg.kind == StepArg::Kind::kBuffer && arg.buffer == context.bufferOf(state);
      });
      inPlace.push_back({int(from - args.begin()), int(args.size())});
    }
    params.push_back(t + (donated(state) ? "* " : "* __restrict__ ") + name);
    args.push_back(StepArg::of_buffer(buffer));
    written += bytesOf(context, buffer);
    return name;
  };
  for (auto [k, op] : llvm::enumerate(steps)) {
    std::string n = std::to_string(k);
    StepTensor tensor;
    tensor.count = elementCount(op->getOperand(0));
    chunks = std::max<int64_t>(chunks, chunkGrid(tensor.count).x);
    shapes += "_" + shapeName(shapeOf(op->getOperand(0).getType()));
    tensor.p = input(op->getOperand(0), "p" + n);
    if (k == 0 && grad.end) {
      params.insert(params.end(), grad.end->params.begin(), grad.end->params.end());
      args.insert(args.end(), grad.end->args.begin(), grad.end->args.end());
      read += grad.end->bytes;
      tensor.g = "nullptr";
    } else {
      tensor.g = input(op->getOperand(1), "g" + n);
    }
    tensor.m = velocity ? input(op->getOperand(2), "m" + n) : "nullptr";
    tensor.v = adam ? input(op->getOperand(3), "v" + n) : "nullptr";
    tensor.newP = output(op->getResult(0), "np" + n, op->getOperand(0));
    tensor.newM = velocity ? output(op->getResult(1), "nm" + n, op->getOperand(2)) : "nullptr";
    tensor.newV = adam ? output(op->getResult(2), "nv" + n, op->getOperand(3)) : "nullptr";
    tensors.push_back(tensor);
  }

  std::string body, name, apply, hyper;
  std::vector<double> values;
  int error = -1;
  // The learning rate: an attribute passed by value, or data (lr_from) read
  // by the kernel, so a schedule changes it between runs.
  auto learningRate = [&](std::optional<llvm::APFloat> attr, Value value) {
    if (attr) {
      params.push_back("double lr");
      args.push_back(StepArg::f64(attr->convertToDouble()));
      return;
    }
    const int buffer = context.bufferOf(value);
    const std::string type = cppType(dtypeOf(value.getType()));
    params.push_back("const " + type + "* __restrict__ lr_input");
    args.push_back(StepArg::of_buffer(buffer));
    read += bytesOf(context, buffer);
    body += "  const double lr = (double)*lr_input;\n";
    shapes += std::string("_") + shortName(dtypeOf(value.getType())) + "lr";
  };
  if (adam) {
    DType stepType = dtypeOf(adam.getStep().getType());
    params.push_back("const " + std::string(cppType(stepType)) + "* __restrict__ step");
    args.push_back(StepArg::of_buffer(context.bufferOf(adam.getStep())));
    read += bytesOf(context, context.bufferOf(adam.getStep()));
    learningRate(adam.getLr(), adam.getLrValue());
    for (const char *h : {"beta1", "beta2", "eps", "weight_decay"})
      params.push_back("double " + std::string(h));
    for (llvm::APFloat value : {adam.getBeta1(), adam.getBeta2(), adam.getEps(),
                                adam.getWeightDecay()})
      args.push_back(StepArg::f64(value.convertToDouble()));
    error = context.newScratch(first, DType::kInt64, 1);
    params.push_back("unsigned long long* error");
    args.push_back(StepArg::of_buffer(error));
    // The step is data: the bias corrections 1 - beta^t are computed here, in
    // double as the dialect defines them, and a step below 1 fails the run.
    body += "  const long long t = (long long)*step;\n"
           "  if (t < 1) {\n"
           "    if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0) *error = ~0ull;\n"
           "    return;\n"
           "  }\n"
           "  const double correction1 = 1.0 - pow(beta1, (double)t);\n"
           "  const double correction2 = 1.0 - pow(beta2, (double)t);\n";
    name = std::string(adam.getDecoupled() ? "adamw_" : "adam_") + shortName(dtype);
    apply = grad.apply("adam_streams") + "<" + t + ", " + complexFlag(dtype) + ", " +
            (adam.getDecoupled() ? "true" : "false");
    hyper = "lr, beta1, beta2, eps, weight_decay, correction1, correction2";
    shapes += std::string("_") + shortName(stepType) + "step";
  } else {
    bool nesterov = sgd.getNesterov();
    learningRate(sgd.getLr(), sgd.getLrValue());
    for (const char *h : {"momentum", "weight_decay"})
      params.push_back("double " + std::string(h));
    for (llvm::APFloat value : {sgd.getMomentum(), sgd.getWeightDecay()})
      args.push_back(StepArg::f64(value.convertToDouble()));
    name = std::string("sgd") + (velocity ? "_momentum" : "") + (nesterov ? "_nesterov" : "") +
           "_" + shortName(dtype);
    apply = grad.apply("sgd_streams") + "<" + t + ", " + complexFlag(dtype) + ", " +
            (velocity ? "true" : "false") + ", " + (nesterov ? "true" : "false");
    hyper = "lr, momentum, weight_decay";
  }
  apply += (grad.end ? "" : ", " + std::to_string(kChunk)) + ">";
  // One tensor: its pointers as they are (the read-only path stays visible
  // to the compiler); several: block row y picks tensor y's.
  if (tensors.size() == 1) {
    body += "  const auto tensor = " + tensors[0].streams(t) + ";\n";
  } else {
    body += "  spectral_optimizer::OptimizerStreams<" + t + "> tensor{};\n  switch (blockIdx.y) {\n";
    for (size_t k = 0; k < tensors.size(); ++k)
      body += "    case " + std::to_string(k) + ": tensor = " + tensors[k].streams(t) + "; break;\n";
    body += "    default: return;\n  }\n";
  }
  body += "  spectral_optimizer::" + apply + "(tensor, " + grad.gradArgument() + ", " + hyper + ");\n";
  // Entry names: the shapes of one tensor, or their count and a digest.
  if (tensors.size() > 1 || shapes.size() > 80) {
    char digest[17];
    std::snprintf(digest, sizeof digest, "%016llx", (unsigned long long)llvm::xxh3_64bits(shapes));
    shapes = "_" + std::to_string(tensors.size()) + "tensors_" + digest;
  }
  std::string entry = name + shapes + grad.tag;
  std::string description = grad.ops;
  for (Operation *op : steps)
    description += (description.empty() ? "" : ", ") + CodegenContext::describe(op);
  int kernel = builder.addKernel(
      boundedUnit("optimizer.cuh", entry, kThreads, llvm::join(params, ", "), body, grad.prelude),
      description, read, written);
  builder.launch(kernel, {uint32_t(chunks), uint32_t(tensors.size()), 1}, {kThreads, 1, 1}, 0,
                 std::move(args), description, error,
                 adam ? "step must be >= 1 (the count of updates so far, 1-based)" : "");
  for (auto [from, to] : inPlace) builder.inPlace(from, to);
  return llvm::Error::success();
}

// ---- clip_global_norm ----------------------------------------------------------------

/// The most values (reals) clip_global_norm runs as one block: one SM
/// reads them twice, which beats two more launches only while they are few
/// (to be measured on a GPU).
constexpr int64_t kOneBlockClip = int64_t(1) << 14;

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
  std::string description = CodegenContext::describe(op);
  int64_t total = 0;
  for (int64_t r : reals) total += r;
  if (total <= kOneBlockClip) {
    // Small models: one block sums the squares, takes the scale and scales
    // every tensor (one launch instead of three).
    std::string params, sums, scaling;
    std::vector<StepArg> args;
    for (size_t i = 0; i < tensors; ++i) {
      std::string x = "x" + std::to_string(i), y = "y" + std::to_string(i);
      params += "const " + t + "* __restrict__ " + x + ", " + t + "* __restrict__ " + y + ", ";
      sums += "    for (long long i = (unsigned)t; i < " + lit(reals[i]) + "; i += " +
              std::to_string(kThreads) + ") acc += (double)" + x + "[i] * (double)" + x + "[i];\n";
      scaling += "    for (long long i = (unsigned)t; i < " + lit(reals[i]) + "; i += " +
                 std::to_string(kThreads) + ") " + y + "[i] = (" + t + ")((double)" + x +
                 "[i] * s);\n";
      args.push_back(StepArg::of_buffer(in[i]));
      args.push_back(StepArg::of_buffer(out[i]));
    }
    std::string n = cppType(normType);
    params += n + "* __restrict__ norm, double max_norm";
    args.push_back(StepArg::of_buffer(norm));
    args.push_back(StepArg::f64(op.getMaxNorm().convertToDouble()));
    // Phased on the host: each stage a loop over the threads (reduce.cuh's
    // block_sum, block_barrier, block_threads); on a GPU the same code.
    std::string block = std::to_string(kThreads);
    std::string body =
        "  SPECTRAL_DYNAMIC_SHARED(double, shared);\n"
        "  const double acc = spectral_reduce::block_sum<" + block + ", double>([&](int t) {\n"
        "    double acc = 0;\n" + sums + "    return acc;\n  });\n"
        "  if (threadIdx.x == 0) {  // a phased call's too\n    const double value = sqrt(acc);\n"
        "    *norm = (" + n + ")value;\n"
        "    shared[0] = value > max_norm ? max_norm / value : 1.0;  // 1 for NaN\n  }\n"
        "  spectral_reduce::block_barrier();  // every thread reads the scale\n"
        "  const double s = shared[0];\n"
        "  spectral_reduce::block_threads<" + block + ">([&](int t) {\n" + scaling + "  });\n";
    std::string entry = "clip_one_block" + inputNames;
    int kernel = builder.addKernel(boundedUnit("reduce.cuh", entry, kThreads, params, body,
                                               kPhasedUnit),
                                   description, inBytes, outBytes + bytesOf(context, norm));
    builder.launch(kernel, {1, 1, 1}, {kThreads, 1, 1}, 8, std::move(args), description);
    return llvm::Error::success();
  }
  int partials = context.newScratch(op, DType::kFloat64, int64_t(tensors) * chunks);
  int scale = context.newScratch(op, DType::kFloat64, 1);

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
                     std::to_string(tensors) + "];\n"
                     "  if (threadIdx.x == 0) {  // a phased call's too\n" + table + "  }\n"
                     "  spectral_reduce::block_barrier();\n"
                     "  spectral_reduce::norm_partials<" + std::to_string(kThreads) +
                     ", double>(tensors, partials);\n";
  std::string entry = "clip_norm_partials" + inputNames;
  int kernel = builder.addKernel(boundedUnit("loss.cuh", entry, kThreads, params, body,
                                             kPhasedUnit),
                                 description, inBytes, int64_t(tensors) * chunks * 8);
  builder.launch(kernel, {uint32_t(tensors), uint32_t(chunks), 1}, {kThreads, 1, 1}, 0,
                 std::move(args), description);

  // 2. The norm and the scale, by one block.
  std::string n = cppType(normType);
  std::string prelude =
      kPhasedUnit + "namespace {\n"
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
  if (isa<sp::SgdStepOp, sp::AdamStepOp>(op)) return lowered(lowerSteps(context, {op}, nullptr));
  if (auto clip = dyn_cast<sp::ClipGlobalNormOp>(op)) return lowered(lowerClip(context, clip));
  return false;
}

llvm::Expected<bool> lowerFusedOptimizerSteps(CodegenContext &context, sp::FusionOp fusion,
                                              llvm::ArrayRef<Operation *> ops) {
  // The steps, and the splat literals they read (plain SGD's zero velocities).
  std::vector<Operation *> steps;
  for (Operation *op : ops)
    if (!isa<sp::ConstantOp, arith::ConstantOp>(op)) steps.push_back(op);
  if (steps.size() < 2 || !llvm::all_of(steps, [&](Operation *op) {
        return fusion::shareAnOptimizerLaunch(steps.front(), op);
      }))
    return false;
  auto yield = cast<sp::YieldOp>(fusion.getRegion().front().getTerminator());
  for (Value value : yield.getValues())
    if (!llvm::is_contained(steps, value.getDefiningOp())) return false;
  const bool velocity = readsVelocity(steps);
  std::vector<Value> asIs;
  for (Operation *op : steps)
    for (auto [k, operand] : llvm::enumerate(op->getOperands())) {
      if (isa<sp::SgdStepOp>(op) && k == 2 && !velocity) continue;  // never read
      if (!readableAsIs(context, operand)) return false;
      asIs.push_back(operand);
    }
  if (llvm::Error error = giveBuffers(context, asIs)) return error;
  if (llvm::Error error = lowerSteps(context, steps, nullptr)) return error;
  bindYieldedBuffers(context, fusion);
  return true;
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
  if (llvm::Error error = lowerSteps(context, {step}, &grad)) return error;
  bindYieldedBuffers(context, fusion);
  return true;
}

} // namespace spectral::codegen
