// CodegenTestUtil.cpp - graphs through codegen on the host device.
#include "tests/unit/compiler/codegen/CodegenTestUtil.h"

#include "compiler/API/Jit.h"
#include "compiler/API/Validate.h"
#include "compiler/Reference/Evaluator.h"
#include "runtime/device/host/host_device.h"
#include "runtime/kernels/embedded_templates.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <complex>
#include <cstdio>
#include <cstring>
#include <random>

namespace spectral::testing {
namespace {

mlir::OwningOpRef<mlir::ModuleOp> parse(mlir::MLIRContext &context, const std::string &source) {
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  return module;
}

} // namespace

std::string tensorType(const std::vector<int64_t> &shape, const std::string &element) {
  std::string text = "tensor<";
  for (int64_t d : shape) text += std::to_string(d) + "x";
  return text + element + ">";
}

std::string graph(const std::string &args, const std::vector<std::string> &results,
                  const std::string &body) {
  std::string types, values;
  for (size_t i = 0; i < results.size(); ++i) {
    types += (i ? ", " : "") + results[i];
    values += (i ? ", %r#" : "%r#") + std::to_string(i);
  }
  if (results.size() == 1) values = "%r";
  std::string name = results.size() == 1 ? "%r" : "%r:" + std::to_string(results.size());
  return "func.func @main(" + args + ") -> (" + types + ") {\n  " + name + " = " + body +
         "\n  return " + values + " : " + types + "\n}\n";
}

std::string graph(const std::string &args, const std::string &result, const std::string &body) {
  return graph(args, std::vector<std::string>{result}, body);
}

std::string fusion(const std::vector<std::string> &args, const std::vector<std::string> &results,
                   const std::string &body) {
  std::string params, operands, inner, argTypes, resultTypes, returned;
  const char *outer[] = {"%p", "%q", "%r", "%s", "%t", "%u", "%v", "%w"},
             *names[] = {"%a", "%b", "%c", "%d", "%e", "%f", "%g", "%h"};
  if (args.size() > 8) ADD_FAILURE() << "fusion() takes at most eight arguments";
  for (size_t i = 0; i < args.size(); ++i) {
    params += (i ? ", " : "") + std::string(outer[i]) + ": " + args[i];
    operands += (i ? ", " : "") + std::string(outer[i]);
    inner += (i ? ", " : "") + std::string(names[i]) + ": " + args[i];
    argTypes += (i ? ", " : "") + args[i];
  }
  for (size_t i = 0; i < results.size(); ++i) {
    resultTypes += (i ? ", " : "") + results[i];
    returned += (i ? ", %0#" : "%0#") + std::to_string(i);
  }
  if (results.size() == 1) returned = "%0";
  std::string lhs = results.size() == 1 ? "%0" : "%0:" + std::to_string(results.size());
  return "func.func @main(" + params + ") -> (" + resultTypes + ") {\n  " + lhs +
         " = spectral.fusion " + operands + " : (" + argTypes + ") -> (" + resultTypes +
         ") {\n  ^bb0(" + inner + "):\n" + body + "\n  }\n  return " + returned + " : " +
         resultTypes + "\n}\n";
}

Device &hostDevice() {
  static std::unique_ptr<Device> device = [] {
    StatusOr<std::unique_ptr<Device>> created = create_device("host");
    if (!created) {
      fprintf(stderr, "no host device: %s\n", created.status().message().c_str());
      std::abort();
    }
    return std::move(*created);
  }();
  return *device;
}

std::vector<HostTensor> randomInputs(const std::string &source, uint64_t seed) {
  auto context = createContext();
  auto module = parse(*context, source);
  std::vector<HostTensor> inputs;
  if (!module) return inputs;
  auto function = module->lookupSymbol<mlir::func::FuncOp>("main");
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (mlir::Type type : function.getArgumentTypes()) {
    reference::Tensor t;
    llvm::Expected<reference::ElementKind> kind =
        reference::elementKindOf(mlir::cast<mlir::ShapedType>(type).getElementType());
    if (!kind) {
      llvm::consumeError(kind.takeError());
      return {};
    }
    t.kind = *kind;
    auto shape = mlir::cast<mlir::ShapedType>(type).getShape();
    t.shape.assign(shape.begin(), shape.end());
    int64_t count = 1;
    for (int64_t d : shape) count *= d;
    for (int64_t i = 0; i < count; ++i) {
      if (*kind == reference::ElementKind::I1) t.data.emplace_back(double(rng() % 2));
      else if (reference::isIntegerKind(*kind)) t.data.emplace_back(double(rng() % 10));
      else t.data.emplace_back(uniform(rng), reference::isComplexKind(*kind) ? uniform(rng) : 0);
    }
    inputs.push_back(toHostTensor(t));  // rounds to the argument's precision
  }
  return inputs;
}

int expectMatchesReference(const std::string &source, std::vector<HostTensor> inputs,
                           double tolerance) {
  auto context = createContext();
  auto module = parse(*context, source);
  if (!module) {
    ADD_FAILURE() << "does not parse:\n" << source;
    return 0;
  }
  if (inputs.empty()) inputs = randomInputs(source);
  auto function = module->lookupSymbol<mlir::func::FuncOp>("main");
  std::vector<reference::Tensor> arguments;
  for (const HostTensor &input : inputs) arguments.push_back(toReferenceTensor(input));
  llvm::Expected<std::vector<reference::Tensor>> expected =
      reference::evaluate(function, arguments);
  if (!expected) {
    ADD_FAILURE() << "reference: " << llvm::toString(expected.takeError());
    return 0;
  }
  JitOptions options;
  options.simplify = false;
  options.fuse = false;  // the regions as the test writes them
  llvm::Expected<std::unique_ptr<Executable>> executable =
      jitCompile(*module, hostDevice(), options);
  if (!executable) {
    ADD_FAILURE() << llvm::toString(executable.takeError()) << "\nin:\n" << source;
    return 0;
  }
  std::vector<HostTensor> outputs;
  if (Status status = (*executable)->run(inputs, &outputs); !status) {
    ADD_FAILURE() << status.message() << "\nin:\n" << source;
    return 0;
  }
  EXPECT_EQ(outputs.size(), expected->size());
  for (size_t i = 0; i < outputs.size() && i < expected->size(); ++i) {
    double limit = tolerance > 0 ? tolerance : defaultTolerance(outputs[i].dtype);
    Agreement a = compareWithReference(outputs[i], (*expected)[i], limit);
    EXPECT_TRUE(a.pass) << "result #" << i << " (" << outputs[i].type_string()
                        << "): max abs error " << a.maxAbsError << ", relative " << a.relative
                        << (a.mismatch.empty() ? "" : ", " + a.mismatch) << " > " << limit
                        << "\nin:\n" << source;
  }
  int launches = 0;
  for (const Step &step : (*executable)->program().steps)
    launches += step.kind == Step::Kind::kLaunch;
  return launches;
}

std::string runOn(const std::string &source, Device &device, const std::vector<HostTensor> &inputs,
                  std::vector<HostTensor> *outputs) {
  auto context = createContext();
  auto module = parse(*context, source);
  if (!module) return "does not parse";
  JitOptions options;
  options.simplify = false;
  options.fuse = false;  // the regions as the test writes them
  llvm::Expected<std::unique_ptr<Executable>> executable = jitCompile(*module, device, options);
  if (!executable) return llvm::toString(executable.takeError());
  Status status = (*executable)->run(inputs, outputs);
  return status.message();
}

std::string runError(const std::string &source, std::vector<HostTensor> inputs) {
  if (inputs.empty()) inputs = randomInputs(source);
  std::vector<HostTensor> outputs;
  return runOn(source, hostDevice(), inputs, &outputs);
}

void expectPhasedMatchesFibers(const std::vector<std::string> &sources, int phased,
                               int emptyEvery) {
  auto make = [](HostSchedule schedule) {
    StatusOr<std::unique_ptr<HostDevice>> device = HostDevice::create(host::HostChecks{}, schedule);
    EXPECT_TRUE(bool(device)) << device.status().message();
    return device ? std::move(*device) : nullptr;
  };
  static std::unique_ptr<HostDevice> loops = make(HostSchedule::kPhased),
                                     fibers = make(HostSchedule::kFibers);
  ASSERT_TRUE(loops && fibers);
  for (const std::string &source : sources) {
    auto context = createContext();
    auto module = parse(*context, source);
    ASSERT_TRUE(module) << source;
    JitOptions options;
    options.simplify = false;
    options.fuse = false;
    llvm::Expected<std::unique_ptr<Executable>> executable = jitCompile(*module, *loops, options);
    ASSERT_TRUE(bool(executable)) << llvm::toString(executable.takeError()) << "\nin:\n" << source;
    EXPECT_EQ(llvm::count_if((*executable)->program().kernels,
                             [](const KernelDesc &kernel) {
                               return kernel.source.source.find("SPECTRAL_HOST_PHASED;") !=
                                      std::string::npos;
                             }),
              phased)
        << "phased units in:\n" << source;
    std::vector<HostTensor> inputs = randomInputs(source, 3);
    for (HostTensor &input : inputs)
      for (int64_t i = 1; emptyEvery > 0 && i < input.elements(); i += emptyEvery) {
        if (input.dtype == DType::kInt64) reinterpret_cast<int64_t *>(input.bytes.data())[i] = -1;
        if (input.dtype == DType::kInt32) reinterpret_cast<int32_t *>(input.bytes.data())[i] = -1;
      }
    std::vector<HostTensor> byLoops, byFibers;
    ASSERT_EQ((*executable)->run(inputs, &byLoops).message(), "") << source;
    ASSERT_EQ(runOn(source, *fibers, inputs, &byFibers), "") << source;
    ASSERT_EQ(byLoops.size(), byFibers.size());
    for (size_t i = 0; i < byLoops.size(); ++i)
      EXPECT_TRUE(byLoops[i].bytes == byFibers[i].bytes)
          << "result #" << i << " differs between the phased and the fiber runs in:\n" << source;
  }
}

std::map<std::string, CompiledKernel> expectCleanCubins(const std::vector<std::string> &sources,
                                                        const std::string &arch) {
  std::map<std::string, CompiledKernel> compiled;
  static StatusOr<NvrtcCompiler> compiler = NvrtcCompiler::create();
  if (!compiler) {
    ADD_FAILURE() << "the NVRTC gate needs NVRTC: " << compiler.status().message();
    return compiled;
  }
  static const std::vector<NvrtcHeader> headers = [] {
    std::vector<NvrtcHeader> all;
    for (const EmbeddedFile &file : embedded_templates()) all.push_back({file.name, file.content});
    return all;
  }();
  // Every distinct unit once (two programs may give different units one
  // entry name), with the largest block it is launched with.
  std::map<std::string, std::pair<KernelSource, int64_t>> units;
  for (const std::string &source : sources) {
    auto context = createContext();
    auto module = parse(*context, source);
    if (!module) {
      ADD_FAILURE() << "does not parse:\n" << source;
      continue;
    }
    JitOptions options;
    options.simplify = false;
    options.fuse = false;  // the regions as the test writes them
    llvm::Expected<Program> program = compileProgram(*module, options);
    if (!program) {
      ADD_FAILURE() << llvm::toString(program.takeError()) << "\nin:\n" << source;
      continue;
    }
    for (const Step &step : program->steps) {
      if (step.kind != Step::Kind::kLaunch) continue;
      const KernelSource &unit = program->kernels[step.kernel].source;
      auto &entry = units.try_emplace(unit.source, unit, 0).first->second;
      entry.second =
          std::max<int64_t>(entry.second, int64_t(step.block.x) * step.block.y * step.block.z);
    }
  }
  NvrtcOptions options;
  options.arch = arch;
  options.want_ptx = true;
  for (const auto &[text, unit] : units) {
    const std::string &entry = unit.first.entry;
    StatusOr<CompiledKernel> kernel = compiler->compile(unit.first, options, headers);
    if (!kernel) {
      ADD_FAILURE() << entry << " on " << arch << ": " << kernel.status().message();
      continue;
    }
    const ResourceUsage *usage = kernel->usage_of(entry);
    if (!usage) {
      ADD_FAILURE() << entry << " is missing from the ptxas report:\n" << kernel->log;
      continue;
    }
    EXPECT_EQ(usage->spill_store_bytes, 0) << entry << " on " << arch;
    EXPECT_EQ(usage->spill_load_bytes, 0) << entry << " on " << arch;
    EXPECT_LE(2 * usage->registers * unit.second, 65536)
        << entry << " on " << arch << ": " << usage->registers << " registers x " << unit.second
        << " threads leave no room for a second block per SM";
    if (std::getenv("SPECTRAL_PRINT_USAGE"))
      std::printf("%s %s: %lld registers, %lld B smem, %lld B stack\n", arch.c_str(),
                  entry.c_str(), (long long)usage->registers, (long long)usage->shared_bytes,
                  (long long)usage->stack_bytes);
    compiled.emplace(entry, std::move(*kernel));
  }
  return compiled;
}

int fusedUnits(const std::map<std::string, CompiledKernel> &compiled) {
  int fused = 0;
  for (const auto &[entry, kernel] : compiled)
    fused += entry.find("_Lpro") != std::string::npos || entry.find("_Sepi") != std::string::npos;
  return fused;
}

} // namespace spectral::testing
