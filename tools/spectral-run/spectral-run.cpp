//===- spectral-run.cpp - run a spectral graph on .npy inputs -------------===//
//
// spectral-run FILE.mlir --function=NAME --input=@a.npy ... --output=@o.npy
// Compiles the function into kernels and runs them on a device (CUDA, or the
// host when there is no GPU), or runs it with the reference evaluator
// (--device=reference); --validate checks a device run against the reference.
//
//===----------------------------------------------------------------------===//
#include "compiler/API/Jit.h"
#include "compiler/API/Validate.h"
#include "compiler/Reference/Evaluator.h"
#include "dialects/spectral/IR/SourceLimits.h"
#include "dialects/spectral/IR/SpectralOps.h"
#include "runtime/device/host/host_checks.h"
#include "runtime/program/artifact.h"
#include "runtime/program/kernel_dump.h"
#include "runtime/program/report.h"
#include "runtime/tensor/npy.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <random>

using namespace mlir;
using ::spectral::NpyArray;
using ::spectral::NpyDtype;
using ::spectral::reference::ElementKind;
using ::spectral::HostTensor;
using ::spectral::reference::Tensor;

namespace {

llvm::cl::OptionCategory category("spectral-run options");

llvm::cl::opt<std::string> inputFile(llvm::cl::Positional,
                                     llvm::cl::desc("<graph.mlir or graph.spx>"),
                                     llvm::cl::Required, llvm::cl::cat(category));
llvm::cl::opt<std::string> functionName("function",
                                        llvm::cl::desc("function to run"),
                                        llvm::cl::init("main"),
                                        llvm::cl::cat(category));
llvm::cl::list<std::string>
    inputs("input", llvm::cl::desc("@FILE.npy for the next argument, in order"),
           llvm::cl::cat(category));
llvm::cl::list<std::string>
    outputs("output", llvm::cl::cat(category),
            llvm::cl::desc("@FILE.npy for the next result, in order; "
                                     "without it results are printed"));
llvm::cl::opt<bool> randomInputs(
    "random-inputs", llvm::cl::cat(category),
    llvm::cl::desc("fill arguments not given by --input: floats and complex "
                   "parts uniform in [-1, 1), integers in [0, 10)"));
llvm::cl::opt<uint64_t> seed("seed", llvm::cl::desc("seed for --random-inputs"),
                             llvm::cl::init(0), llvm::cl::cat(category));
llvm::cl::opt<std::string> deviceName(
    "device", llvm::cl::init("auto"), llvm::cl::cat(category),
    llvm::cl::desc("auto (CUDA when a driver and GPU exist, else host), cuda, host, or "
                   "reference (the double-precision evaluator, no kernels)"));
llvm::cl::opt<std::string> checks(
    "check", llvm::cl::cat(category), llvm::cl::value_desc("CHECKS"),
    llvm::cl::desc("run on the host device in check mode (SPECTRAL_HOST_CHECK), a comma-"
                   "separated list: bounds ends the run with an error naming the kernel, block "
                   "and thread of an access past the end of device or dynamic shared memory "
                   "(slower: every allocation takes whole pages); sync ends it at a thread "
                   "exiting while others wait at a barrier or at a warp intrinsic naming it, a "
                   "barrier after exits, or a warp mask naming absent lanes; race at two "
                   "accesses to one byte of shared or device memory, one a write, that no "
                   "__syncthreads orders (or from two blocks of a launch); init at a read of "
                   "shared or device memory nothing wrote (race and init build the kernels "
                   "instrumented, many times slower); order[=reverse|SEED] runs every launch "
                   "twice, threads in forward and then in reversed or random order, and ends it "
                   "when the bytes written differ"));
llvm::cl::opt<bool> validate(
    "validate", llvm::cl::cat(category),
    llvm::cl::desc("also run the reference evaluator and compare every result; exit "
                   "status 3 when one is off by more than the tolerance"));
llvm::cl::opt<double> validateTolerance(
    "validate-tolerance", llvm::cl::init(-1), llvm::cl::cat(category),
    llvm::cl::desc("largest max-abs-error / max|reference| that passes; 0 asks for exact "
                   "agreement (default 1e-4 for 32-bit results, 1e-10 for 64-bit)"));
llvm::cl::opt<unsigned> benchmark(
    "benchmark", llvm::cl::init(0), llvm::cl::cat(category),
    llvm::cl::desc("run N times; print compile time (kernels from the memory cache, disk "
                   "cache or compiled), min and median run time, the steps' time on the "
                   "device, bytes moved per run"));
llvm::cl::opt<bool> noGraphs(
    "no-graphs", llvm::cl::cat(category),
    llvm::cl::desc("launch every step by itself on every run (by default runs after the "
                   "first replay the steps as one CUDA graph)"));
llvm::cl::opt<bool> noFuse(
    "no-fuse", llvm::cl::cat(category),
    llvm::cl::desc("compile every op as a kernel of its own (skip spectral-fuse)"));
llvm::cl::opt<bool> fusionRemarks(
    "fusion-remarks", llvm::cl::cat(category),
    llvm::cl::desc("remark, at the op, on every producer/consumer pair spectral-fuse left in "
                   "different kernels, and why"));
llvm::cl::opt<bool> noBufferReuse(
    "no-buffer-reuse", llvm::cl::cat(category),
    llvm::cl::desc("give every temporary storage of its own (skip the memory plan)"));
llvm::cl::opt<bool> report(
    "report", llvm::cl::cat(category),
    llvm::cl::desc("print per kernel and in total: bytes moved against the minimum, FLOPs, "
                   "device memory, and roofline estimates on an A100 and an H100"));
llvm::cl::opt<std::string> saveNpy(
    "save-npy", llvm::cl::value_desc("DIR"), llvm::cl::cat(category),
    llvm::cl::desc("also write every argument the run used as DIR/argN.npy (random ones "
                   "included) and every result as DIR/resultN.npy (DIR is created; higher "
                   "numbers an earlier save left are removed)"));
llvm::cl::opt<std::string> dumpKernels(
    "dump-kernels", llvm::cl::cat(category),
    llvm::cl::desc("write each kernel's .cu, .ptx and .ptxas.txt and summary.txt/.json to "
                   "DIR (default: $SPECTRAL_DUMP_DIR when set)"));
llvm::cl::opt<std::string> dumpArch("dump-arch", llvm::cl::init("sm_90"), llvm::cl::cat(category),
                                    llvm::cl::desc("architecture of the dump: sm_XX of sm_75 or newer (sm_80, sm_90, sm_90a)"));

/// The Program of a .spx input (spectral-compile's), run instead of compiling.
std::optional<::spectral::Program> precompiled;

/// "1 argument", "2 arguments".
std::string count(size_t n, const char *noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

int fail(const llvm::Twine &message) {
  llvm::errs() << "spectral-run: error: " << message << "\n";
  return 1;
}

/// The .npy dtype of a reference element kind.
NpyDtype dtypeOf(ElementKind kind) {
  return ::spectral::npy_dtype_of(::spectral::dtypeOfKind(kind));
}

/// .npy files and host tensors share one byte layout.
NpyArray toNpy(HostTensor t) {
  NpyArray array;
  array.dtype = ::spectral::npy_dtype_of(t.dtype);
  array.shape = std::move(t.shape);
  array.bytes = std::move(t.bytes);
  return array;
}

/// --save-npy: `tensors` as DIR/<prefix>N.npy, and the numbers after them that
/// an earlier save left removed, so DIR holds this run's alone; false after
/// fail() said why.
bool saveAll(const std::vector<HostTensor> &tensors, const std::string &prefix) {
  std::error_code code;
  std::filesystem::create_directories(std::string(saveNpy), code);
  if (code) {
    fail("--save-npy=" + saveNpy + ": " + code.message());
    return false;
  }
  for (size_t i = 0; i < tensors.size(); ++i) {
    std::string error;
    std::string path = saveNpy + "/" + prefix + std::to_string(i) + ".npy";
    if (!::spectral::write_npy(path, toNpy(tensors[i]), &error)) {
      fail("--save-npy: " + error);
      return false;
    }
  }
  for (size_t i = tensors.size();; ++i) {
    std::string stale = saveNpy + "/" + prefix + std::to_string(i) + ".npy";
    if (!std::filesystem::is_regular_file(stale, code) || !std::filesystem::remove(stale, code))
      break;
  }
  return true;
}

/// Random values for an argument of `type`.
llvm::Expected<Tensor> randomTensor(RankedTensorType type, std::mt19937_64 &rng) {
  llvm::Expected<ElementKind> kind =
      ::spectral::reference::elementKindOf(type.getElementType());
  if (!kind)
    return kind.takeError();
  std::optional<int64_t> count = mlir::spectral::checkedElementCount(type.getShape());
  if (!count || *count > ::spectral::reference::kMaxReferenceElements)
    return llvm::createStringError("more than " +
                                   std::to_string(::spectral::reference::kMaxReferenceElements) +
                                   " elements, too many for the reference evaluator");
  Tensor t{*kind, {type.getShape().begin(), type.getShape().end()}, {}};
  t.data.reserve(*count);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::uniform_int_distribution<int> integer(0, 9);
  // Values the argument's type holds exactly, so that writing them to .npy
  // and reading them back gives the same run.
  bool single = *kind == ElementKind::F32 || *kind == ElementKind::C64;
  auto real = [&] { return single ? double(float(uniform(rng))) : uniform(rng); };
  for (int64_t i = 0; i < *count; ++i) {
    if (::spectral::reference::isIntegerKind(*kind)) {
      t.data.emplace_back(*kind == ElementKind::I1 ? integer(rng) % 2 : integer(rng));
    } else if (::spectral::reference::isComplexKind(*kind)) {
      double re = real();
      t.data.emplace_back(re, real());
    } else {
      t.data.emplace_back(real());
    }
  }
  return t;
}

template <typename T> T element(const HostTensor &t, int64_t i) {
  T value;
  std::memcpy(&value, t.bytes.data() + i * sizeof(T), sizeof(T));
  return value;
}

/// Element i as numpy prints it (integers exactly, whatever their size).
void printScalar(llvm::raw_ostream &os, const HostTensor &t, int64_t i) {
  using ::spectral::DType;
  switch (t.dtype) {
  case DType::kBool: os << (t.bytes[i] ? "True" : "False"); break;
  case DType::kInt32: os << element<int32_t>(t, i); break;
  case DType::kInt64: os << element<int64_t>(t, i); break;
  case DType::kFloat32: os << llvm::format("%.6g", double(element<float>(t, i))); break;
  case DType::kFloat64: os << llvm::format("%.6g", element<double>(t, i)); break;
  case DType::kComplex64: {
    auto v = element<std::complex<float>>(t, i);
    os << llvm::format("%.6g%+.6gj", double(v.real()), double(v.imag()));
    break;
  }
  case DType::kComplex128: {
    auto v = element<std::complex<double>>(t, i);
    os << llvm::format("%.6g%+.6gj", v.real(), v.imag());
    break;
  }
  }
}

/// numpy-like nested lists; long dims show their first and last 3 entries.
void printNested(llvm::raw_ostream &os, const HostTensor &t, size_t dim,
                 int64_t offset, int64_t stride, bool summarize) {
  if (dim == t.shape.size()) {
    printScalar(os, t, offset);
    return;
  }
  int64_t n = t.shape[dim], inner = stride / std::max<int64_t>(n, 1);
  os << "[";
  std::string separator =
      dim + 1 == t.shape.size() ? ", " : ",\n" + std::string(dim + 1, ' ');
  for (int64_t i = 0; i < n; ++i) {
    if (i)
      os << separator;
    if (summarize && n > 6 && i == 3) {
      os << "..." << separator;
      i = n - 3;
    }
    printNested(os, t, dim + 1, offset + i * inner, inner, summarize);
  }
  os << "]";
}


bool validationFailed = false;

/// The arguments as the reference evaluator holds them (double precision),
/// refusing what it cannot hold exactly: integers beyond 2^53, more than
/// kMaxReferenceElements elements.
llvm::Expected<std::vector<Tensor>> referenceArguments(const std::vector<HostTensor> &inputs) {
  std::vector<Tensor> arguments;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string what = "argument #" + std::to_string(i);
    if (inputs[i].elements() > ::spectral::reference::kMaxReferenceElements)
      return llvm::createStringError(
          what + " holds " + std::to_string(inputs[i].elements()) + " elements, more than the " +
          std::to_string(::spectral::reference::kMaxReferenceElements) +
          " the reference evaluator accepts");
    Tensor tensor = ::spectral::toReferenceTensor(inputs[i]);
    if (inputs[i].dtype == ::spectral::DType::kInt64)
      for (int64_t j = 0; j < inputs[i].elements(); ++j)
        if (int64_t v = element<int64_t>(inputs[i], j); v >= (int64_t(1) << 53) || v <= -(int64_t(1) << 53))
          return llvm::createStringError(
              what + ": element " + std::to_string(j) + " (" + std::to_string(v) +
              ") is beyond 2^53; the reference evaluator holds integers exactly only below that");
    arguments.push_back(std::move(tensor));
  }
  return arguments;
}

double milliseconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

/// The reference evaluator, with a failed allocation thrown as std::bad_alloc
/// (which it turns into an error at the op) rather than aborting, as
/// InitLLVM's handler makes it elsewhere; that handler is back on return.
llvm::Expected<std::vector<Tensor>> evaluateReference(func::FuncOp function,
                                                      const std::vector<Tensor> &inputs) {
  std::new_handler llvmHandler = std::set_new_handler(nullptr);
  llvm::Expected<std::vector<Tensor>> results = ::spectral::reference::evaluate(function, inputs);
  std::set_new_handler(llvmHandler);
  return results;
}

/// Compiles @function for the chosen device, runs it on `arguments`, and
/// handles --validate, --benchmark and --dump-kernels. Returns the exit status.
int runOnDevice(ModuleOp module, func::FuncOp function,
                const std::vector<HostTensor> &inputs, std::vector<HostTensor> &outputs) {
  if (deviceName != "auto" && deviceName != "cuda" && deviceName != "host")
    return fail("--device=" + deviceName + ": expected auto, cuda, host or reference");
  if (checks.getNumOccurrences() > 0) {
    if (checks.empty())
      return fail("--check= names no check (available: " +
                  std::string(::spectral::host::kAvailableChecks) + ")");
    if (deviceName == "cuda") return fail("--check runs on the host device, not --device=cuda");
    deviceName = "host";
    setenv("SPECTRAL_HOST_CHECK", checks.c_str(), 1);
  }
  // What --validate cannot hold is refused before anything compiles or runs.
  llvm::Expected<std::vector<Tensor>> referenceInputs =
      validate ? referenceArguments(inputs) : std::vector<Tensor>{};
  if (!referenceInputs)
    return fail("--validate: " + llvm::toString(referenceInputs.takeError()));
  ::spectral::StatusOr<std::unique_ptr<::spectral::Device>> device =
      ::spectral::create_device(deviceName);
  if (!device) {
    // A bad --check comes back as SPECTRAL_HOST_CHECK's error: said as --check's.
    llvm::StringRef message = device.status().message();
    if (checks.getNumOccurrences() > 0 &&
        message.consume_front("SPECTRAL_HOST_CHECK=" + checks + ": "))
      return fail("--check=" + checks + ": " + message.str());
    return fail("--device=" + deviceName + ": " + message.str());
  }
  if (checks.getNumOccurrences() > 0)
    llvm::errs() << "spectral-run: on the " << (*device)->name()
                 << " (check mode: slower than a plain run)\n";
  // Codegen simplifies its own copy: the reference runs the graph as written.
  OwningOpRef<ModuleOp> copy(module.clone());
  ::spectral::JitOptions options;
  options.function = functionName;
  options.fuse = !noFuse;
  options.fusionRemarks = fusionRemarks;
  options.reuseBuffers = !noBufferReuse;
  // The JIT's two halves (jitCompile is both): the dump and the report come
  // between them, so a kernel that fails to load is still dumped. A .spx
  // brings its Program: nothing is compiled from the graph.
  auto start = std::chrono::steady_clock::now();
  llvm::Expected<::spectral::Program> compiled =
      precompiled ? llvm::Expected<::spectral::Program>(std::move(*precompiled))
                  : ::spectral::compileProgram(*copy, options);
  if (!compiled)
    return fail(llvm::toString(compiled.takeError()));
  const double codegenMs = milliseconds(std::chrono::steady_clock::now() - start);
  const ::spectral::Program &program = *compiled;
  std::string dumpDir = dumpKernels;
  if (dumpDir.empty())
    if (const char *env = std::getenv("SPECTRAL_DUMP_DIR"); env && *env)
      dumpDir = env;
  if (!dumpDir.empty()) {
    ::spectral::StatusOr<std::string> summary =
        ::spectral::dump_kernels(program, {dumpDir, dumpArch});
    if (!summary)
      return fail("--dump-kernels=" + dumpDir + ": " + summary.status().message());
    llvm::errs() << summary.value();
  }
  if (report)
    llvm::errs() << ::spectral::format_report(program);
  ::spectral::LoadStats stats;
  ::spectral::StatusOr<std::unique_ptr<::spectral::Executable>> executable =
      ::spectral::Executable::load(std::move(*compiled), **device, &stats);
  if (!executable)
    return fail(executable.status().message());
  (*executable)->use_graphs(!noGraphs);
  // A GPU that could not use the GPU code an artifact carries says why.
  if ((*device)->name().rfind("cuda:", 0) == 0) {
    const std::vector<::spectral::KernelDesc> &kernels = (*executable)->program().kernels;
    for (size_t k = 0; k < kernels.size(); ++k)
      if (!kernels[k].binaries.empty() && !stats.prebuilt_kernels[k])
        llvm::errs() << "note: kernel '" << kernels[k].source.entry << "' "
                     << stats.origins[k] << "\n";
  }
  if (::spectral::Status status = (*executable)->run(inputs, &outputs); !status)
    return fail(status.message());

  if (benchmark) {
    llvm::errs() << llvm::format(
        "compile: %.1f ms (codegen %.1f ms, load %.1f ms); %d kernel%s: %d from the "
        "artifact's CUBIN/PTX, %llu from the memory cache, %llu from the disk cache, "
        "%llu compiled\n",
        codegenMs + stats.seconds * 1e3, codegenMs, stats.seconds * 1e3, stats.kernels,
        stats.kernels == 1 ? "" : "s", stats.prebuilt, (unsigned long long)stats.memory_hits,
        (unsigned long long)stats.disk_hits, (unsigned long long)stats.compiles);
    std::vector<double> times, deviceTimes;
    ::spectral::RunStats runStats;
    for (unsigned r = 0; r < benchmark; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      if (::spectral::Status status = (*executable)->run(inputs, &outputs, &runStats); !status)
        return fail(status.message());
      times.push_back(milliseconds(std::chrono::steady_clock::now() - t0));
      deviceTimes.push_back(runStats.device_seconds * 1e3);
    }
    std::sort(times.begin(), times.end());
    std::sort(deviceTimes.begin(), deviceTimes.end());
    double bytes = double((*executable)->program().bytes_moved());
    llvm::errs() << llvm::format(
        "run on %s: min %.3f ms, median %.3f ms over %u runs; %.0f bytes moved per run "
        "by kernels and device copies (%.2f GB/s at the min; a run also copies inputs in and "
        "results out)\n",
        (*device)->name().c_str(), times.front(), times[times.size() / 2], unsigned(benchmark),
        bytes, bytes / (times.front() * 1e6));
    llvm::errs() << llvm::format(
        "steps on the device: min %.3f ms, median %.3f ms (%.2f GB/s at the min), %zu step%s "
        "run %s\n",
        deviceTimes.front(), deviceTimes[deviceTimes.size() / 2],
        bytes / (deviceTimes.front() * 1e6), (*executable)->program().steps.size(),
        (*executable)->program().steps.size() == 1 ? "" : "s", runStats.steps.c_str());
  }

  if (validate) {
    llvm::Expected<std::vector<Tensor>> expected =
        evaluateReference(function, *referenceInputs);
    if (!expected)
      return fail("--validate: the reference evaluator failed: " +
                  llvm::toString(expected.takeError()));
    for (size_t i = 0; i < outputs.size(); ++i) {
      double tolerance = validateTolerance >= 0
                             ? double(validateTolerance)
                             : ::spectral::defaultTolerance(outputs[i].dtype);
      ::spectral::Agreement a =
          ::spectral::compareWithReference(outputs[i], (*expected)[i], tolerance);
      validationFailed |= !a.pass;
      llvm::errs() << llvm::format(
          "validate result #%zu %s: max abs error %.3g, relative %.3g (tolerance %.3g)%s: %s\n",
          i, outputs[i].type_string().c_str(), a.maxAbsError, a.relative, tolerance,
          (a.mismatch.empty() ? "" : ", " + a.mismatch).c_str(), a.pass ? (const char *)"PASS" : (const char *)"FAIL");
    }
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::HideUnrelatedOptions(category);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "spectral-run: run a function of a spectral graph on .npy inputs\n\n"
      "  spectral-run graph.mlir --function=main --input=@x.npy "
      "--output=@y.npy\n  spectral-run graph.mlir --random-inputs --seed=1\n");

  std::unique_ptr<MLIRContext> owned = ::spectral::createContext();
  MLIRContext &context = *owned;
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  std::string error;
  auto file = openInputFile(inputFile, &error);
  if (!file)
    return fail(error);
  llvm::StringRef head = file->getBuffer().take_front(8);
  if (::spectral::looks_like_artifact(std::vector<uint8_t>(head.begin(), head.end()))) {
    // A .spx: its Program runs; the graph it was compiled from (kept in it)
    // gives the arguments' types and the reference for --validate.
    ::spectral::StatusOr<::spectral::Artifact> artifact = ::spectral::load_artifact(inputFile);
    if (!artifact)
      return fail(artifact.status().message());
    if (artifact->graph.empty())
      return fail(inputFile + ": the artifact holds no graph (spectral-run needs the graph "
                  "spectral-compile keeps in it)");
    if (functionName.getNumOccurrences() && functionName != artifact->program.function)
      return fail(inputFile + " holds @" + artifact->program.function + ", not @" + functionName);
    for (const char *flag : {"no-fuse", "fusion-remarks", "no-buffer-reuse"})
      if (llvm::cl::getRegisteredOptions().lookup(flag)->getNumOccurrences())
        llvm::errs() << "spectral-run: warning: --" << flag << " has no effect on "
                     << inputFile << ": it is compiled already\n";
    functionName = artifact->program.function;
    file = llvm::MemoryBuffer::getMemBufferCopy(artifact->graph, artifact->graph_name);
    precompiled = std::move(artifact->program);
  }
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  if (failed(mlir::spectral::checkSourceLimits(sourceMgr, sourceMgr.getMainFileID(), &context)))
    return 1;
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1; // the parser reported file:line:col
  auto function = module->lookupSymbol<func::FuncOp>(functionName);
  if (!function) {
    std::string names;
    module->walk([&](func::FuncOp f) { names += " @" + f.getSymName().str(); });
    return fail(inputFile + " has no function @" + functionName +
                " (it has:" + (names.empty() ? " none" : names) + ")");
  }

  auto argumentTypes = function.getArgumentTypes();
  if (inputs.size() > argumentTypes.size() ||
      (inputs.size() < argumentTypes.size() && !randomInputs))
    return fail("@" + functionName + " takes " +
                count(argumentTypes.size(), "argument") + " but " +
                llvm::Twine(inputs.size()) + " --input were given" +
                (randomInputs ? "" : " (or use --random-inputs)"));
  size_t resultCount = function.getResultTypes().size();
  if (!outputs.empty() && outputs.size() != resultCount)
    return fail("@" + functionName + " returns " + count(resultCount, "result") +
                " but " + llvm::Twine(outputs.size()) + " --output were given");
  for (const std::string &output : outputs)
    if (output.empty() || output[0] != '@')
      return fail("--output=" + output + ": expected @FILE.npy");
  std::vector<HostTensor> arguments;
  std::mt19937_64 rng(seed);
  for (size_t i = 0; i < argumentTypes.size(); ++i) {
    std::string what = "argument #" + std::to_string(i);
    auto type = dyn_cast<RankedTensorType>(argumentTypes[i]);
    if (!type || !type.hasStaticShape())
      return fail(what + " of @" + functionName + " is not a static tensor");
    if (i >= inputs.size()) {
      llvm::Expected<Tensor> t = randomTensor(type, rng);
      if (!t)
        return fail(what + ": " + llvm::toString(t.takeError()));
      arguments.push_back(::spectral::toHostTensor(*t));
      continue;
    }
    if (inputs[i].empty() || inputs[i][0] != '@')
      return fail("--input=" + inputs[i] + " for " + what +
                  ": expected @FILE.npy");
    llvm::Expected<ElementKind> kind =
        ::spectral::reference::elementKindOf(type.getElementType());
    if (!kind)
      return fail(what + ": " + llvm::toString(kind.takeError()));
    // The header is checked against the argument before any data is read.
    bool refused = false;
    auto accept = [&](::spectral::NpyDtype dtype, const std::vector<int64_t> &dims,
                      std::string *why) {
      if (dtype == dtypeOf(*kind) && llvm::ArrayRef<int64_t>(dims) == type.getShape())
        return true;
      Tensor expected{*kind, {type.getShape().begin(), type.getShape().end()}, {}};
      std::string shape;
      for (int64_t d : dims)
        shape += (shape.empty() ? "" : ", ") + std::to_string(d);
      *why = what + " must be " + expected.typeString() + " (numpy " +
             ::spectral::npy_dtype_name(dtypeOf(*kind)) + "), but " + inputs[i].substr(1) +
             " holds " + ::spectral::npy_dtype_name(dtype) + " of shape (" + shape + ")";
      refused = true;
      return false;
    };
    NpyArray array;
    if (!::spectral::read_npy(inputs[i].substr(1), &array, &error, accept))
      return fail(refused ? error : what + ": " + error);
    arguments.push_back({::spectral::dtypeOfKind(*kind), std::move(array.shape),
                         std::move(array.bytes)});
  }

  if (!saveNpy.empty() && !saveAll(arguments, "arg"))
    return 1;

  std::vector<HostTensor> results;
  if (validateTolerance.getNumOccurrences() && !(validateTolerance >= 0))
    return fail("--validate-tolerance must be a number of at least 0, got " +
                std::to_string(double(validateTolerance)));
  {
    // NVRTC 13 compiles for sm_75 and newer; refuse anything else before
    // codegen writes the first file of a dump.
    llvm::StringRef arch = dumpArch;
    unsigned number = 0;
    const bool prefixed = arch.consume_front("sm_");
    if (!arch.consume_back("a")) arch.consume_back("f");  // sm_90a, sm_100f
    if (!prefixed || arch.getAsInteger(10, number) || number < 75)
      return fail("--dump-arch=" + dumpArch + ": expected sm_XX of sm_75 or newer (sm_80, "
                  "sm_90, sm_90a, ...)");
  }
  if (deviceName == "reference") {
    if (validate || benchmark || report || !dumpKernels.empty() || checks.getNumOccurrences() > 0)
      return fail("--validate, --benchmark, --report, --dump-kernels and --check need a device "
                  "that runs kernels (auto, cuda or host)");
    llvm::Expected<std::vector<Tensor>> exact = referenceArguments(arguments);
    if (!exact)
      return fail(llvm::toString(exact.takeError()));
    llvm::Expected<std::vector<Tensor>> evaluated =
        evaluateReference(function, *exact);
    if (!evaluated)
      return fail(llvm::toString(evaluated.takeError()));
    for (const Tensor &t : *evaluated) results.push_back(::spectral::toHostTensor(t));
  } else {
    int status = runOnDevice(*module, function, arguments, results);
    if (status != 0)
      return status;
  }

  if (!saveNpy.empty() && !saveAll(results, "result"))
    return 1;
  for (size_t i = 0; i < results.size(); ++i) {
    HostTensor &t = results[i];
    if (outputs.empty()) {
      llvm::outs() << "result #" << i << ": " << t.type_string() << "\n";
      printNested(llvm::outs(), t, 0, 0, t.elements(), t.elements() > 1000);
      llvm::outs() << "\n";
      continue;
    }
    if (!::spectral::write_npy(outputs[i].substr(1), toNpy(std::move(t)), &error))
      return fail("result #" + llvm::Twine(i) + ": " + error);
  }
  return validationFailed ? 3 : 0;
}
