//===- spectral-compile.cpp - compile a spectral graph into a .spx artifact ===//
//
// spectral-compile FILE.mlir -o FILE.spx [--function=NAME] [--target=sm_90 ...]
// Simplifies, fuses and compiles one function into its Program (buffers,
// kernels' instantiation units, steps) and writes it as an artifact
// (runtime/program/artifact.h) with the graph's text beside it, so that
// spectral-run runs the .spx as it runs the .mlir (--validate included)
// without compiling the graph again. Each --target=sm_XX embeds every
// kernel's CUBIN and PTX for that GPU (runtime/program/prebuilt.h). --report
// and --dump-kernels show the Program as spectral-run does. --emit=mlir
// writes the graph after the passes instead, --emit=cuda every kernel's
// instantiation unit, --emit=ptx their PTX, --emit=cubin their CUBINs.
//
//===----------------------------------------------------------------------===//
#include "compiler/API/Jit.h"
#include "runtime/program/artifact.h"
#include "runtime/program/kernel_dump.h"
#include "runtime/program/prebuilt.h"
#include "runtime/program/report.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <unistd.h>

namespace {

llvm::cl::OptionCategory category("spectral-compile options");

llvm::cl::opt<std::string> inputFile(llvm::cl::Positional, llvm::cl::desc("<graph.mlir>"),
                                     llvm::cl::Required, llvm::cl::cat(category));
llvm::cl::opt<std::string> outputFile(
    "o",
    llvm::cl::desc("where to write (FILE.spx; for mlir, cuda and ptx a file, or '-' or absent "
                   "for stdout; for cubin a directory)"),
    llvm::cl::value_desc("FILE"), llvm::cl::cat(category));
enum class Emit { kSpx, kMlir, kCuda, kPtx, kCubin };
llvm::cl::opt<Emit> emit(
    "emit", llvm::cl::desc("what to write"), llvm::cl::init(Emit::kSpx),
    llvm::cl::values(clEnumValN(Emit::kSpx, "spx", "the artifact (the default)"),
                     clEnumValN(Emit::kMlir, "mlir", "the graph after simplify and fuse"),
                     clEnumValN(Emit::kCuda, "cuda", "every kernel's CUDA C++ unit"),
                     clEnumValN(Emit::kPtx, "ptx", "every kernel's PTX for each sm target"),
                     clEnumValN(Emit::kCubin, "cubin",
                                "DIR/ENTRY.sm_XX.cubin per kernel and sm target (-o DIR)")),
    llvm::cl::cat(category));
llvm::cl::list<std::string> targets(
    "target", llvm::cl::value_desc("host|sm_XX"), llvm::cl::cat(category),
    llvm::cl::desc("where the artifact will run, repeatable: sm_80, sm_90, ... embed every "
                   "kernel's CUBIN and PTX for that GPU (a GPU without its own CUBIN runs the "
                   "PTX of an older one, else compiles the source); host (the default) embeds "
                   "nothing: the source every artifact carries is what the host compiles. "
                   "--emit=ptx and --emit=cubin default to sm_90"));
llvm::cl::opt<std::string> passPipeline(
    "pass-pipeline", llvm::cl::cat(category), llvm::cl::value_desc("PIPELINE"),
    llvm::cl::desc("run this MLIR pass pipeline instead of simplify and fuse, e.g. "
                   "'builtin.module(func.func(spectral-fuse))'"));
llvm::cl::opt<std::string> functionName("function", llvm::cl::desc("function to compile"),
                                        llvm::cl::init("main"), llvm::cl::cat(category));
llvm::cl::opt<bool> noFuse("no-fuse", llvm::cl::cat(category),
                           llvm::cl::desc("compile every op as a kernel of its own"));
llvm::cl::opt<bool> fusionRemarks(
    "fusion-remarks", llvm::cl::cat(category),
    llvm::cl::desc("remark on every producer/consumer pair spectral-fuse left apart, and why"));
llvm::cl::opt<bool> noBufferReuse("no-buffer-reuse", llvm::cl::cat(category),
                                  llvm::cl::desc("give every temporary storage of its own"));
llvm::cl::opt<bool> report("report", llvm::cl::cat(category),
                           llvm::cl::desc("print bytes, FLOPs and roofline estimates per kernel"));
llvm::cl::opt<std::string> dumpKernels(
    "dump-kernels", llvm::cl::cat(category),
    llvm::cl::desc("write each kernel's .cu, .ptx and .ptxas.txt and a summary to DIR"));
llvm::cl::opt<std::string> dumpArch("dump-arch", llvm::cl::init("sm_90"), llvm::cl::cat(category),
                                    llvm::cl::desc("architecture of the dump (sm_75 or newer)"));

int fail(const llvm::Twine &message) {
  llvm::errs() << "spectral-compile: error: " << message << "\n";
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::HideUnrelatedOptions(category);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "spectral-compile: compile a function of a spectral graph into a .spx artifact\n\n"
      "  spectral-compile graph.mlir -o graph.spx [--function=main] [--target=sm_90 ...]\n"
      "  spectral-compile graph.mlir --emit=mlir|cuda|ptx [-o FILE]\n"
      "  spectral-compile graph.mlir --emit=cubin -o DIR [--target=sm_80 ...]\n"
      "  spectral-run graph.spx --random-inputs --validate\n");

  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> text = llvm::MemoryBuffer::getFile(inputFile);
  if (!text) return fail(inputFile + ": " + text.getError().message());
  std::unique_ptr<mlir::MLIRContext> context = ::spectral::createContext();
  llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>> module =
      ::spectral::parseFile(*context, inputFile);
  if (!module) return fail(llvm::toString(module.takeError()));
  ::spectral::JitOptions options;
  options.function = functionName;
  options.fuse = !noFuse;
  options.fusionRemarks = fusionRemarks;
  options.reuseBuffers = !noBufferReuse;
  options.passPipeline = passPipeline;
  if ((emit == Emit::kSpx || emit == Emit::kCubin) && (outputFile.empty() || outputFile == "-"))
    return fail(emit == Emit::kSpx
                    ? "-o FILE.spx is required for --emit=spx (an artifact is not written to stdout)"
                    : "-o DIR is required for --emit=cubin (a directory for the CUBIN files)");
  ::spectral::StatusOr<std::vector<std::string>> archs = ::spectral::gpu_targets(targets);
  if (!archs) return fail("--target: " + archs.status().message());
  if ((emit == Emit::kPtx || emit == Emit::kCubin) && archs->empty()) {
    if (!targets.empty())
      return fail("--emit=ptx and --emit=cubin need a GPU target (--target=sm_XX), not host");
    archs->push_back("sm_90");
  }
  llvm::Expected<::spectral::Program> program = ::spectral::compileProgram(**module, options);
  if (!program) return fail(llvm::toString(program.takeError()));
  if ((emit == Emit::kMlir || emit == Emit::kCuda) && !archs->empty()) {
    llvm::errs() << "spectral-compile: warning: --target has no effect on --emit="
                 << (emit == Emit::kMlir ? "mlir" : "cuda") << "\n";
    archs->clear();
  }
  if (!archs->empty()) {
    // Compiling every kernel for every target takes seconds each: show progress on a terminal.
    const bool terminal = isatty(2);
    std::string list = llvm::join(*archs, ", ");
    ::spectral::Status built = ::spectral::embed_binaries(
        *program, *archs, [&](size_t done, size_t total) {
          if (terminal)
            llvm::errs() << "\rcompiling kernels for " << list << ": " << done << "/" << total
                         << (done == total ? "\n" : "");
        });
    if (!built) return fail(built.message());
  }
  if (emit == Emit::kCubin) {
    if (std::error_code error = llvm::sys::fs::create_directories(outputFile))
      return fail(outputFile + ": " + error.message());
    // All or nothing: a failed write removes the files this run wrote.
    std::vector<std::string> written;
    auto undo = [&](const std::string &message) {
      for (const std::string &path : written) llvm::sys::fs::remove(path);
      return fail(message);
    };
    for (const ::spectral::KernelDesc &kernel : program->kernels)
      for (const ::spectral::KernelBinary &binary : kernel.binaries) {
        std::string path = outputFile + "/" + kernel.source.entry + "." + binary.arch + ".cubin";
        std::error_code error;
        llvm::raw_fd_ostream file(path, error);
        if (error) return undo(path + ": " + error.message());
        written.push_back(path);
        file.write(reinterpret_cast<const char *>(binary.cubin.data()), binary.cubin.size());
        file.close();
        if (file.has_error()) return undo(path + ": " + file.error().message());
      }
    const size_t files = written.size();
    llvm::errs() << "wrote " << files << " CUBIN file" << (files == 1 ? "" : "s") << " to "
                 << outputFile << "\n";
    return 0;
  }
  if (emit != Emit::kSpx) {
    std::string out;
    llvm::raw_string_ostream os(out);
    if (emit == Emit::kMlir) {
      (*module)->print(os);
    } else {
      for (const ::spectral::KernelDesc &kernel : program->kernels) {
        if (emit == Emit::kCuda)
          os << "// ===== " << kernel.source.entry << ": " << kernel.ops << "\n"
             << ::spectral::with_defines(kernel.source).source << "\n";
        else
          for (const ::spectral::KernelBinary &binary : kernel.binaries)
            os << "// ===== " << kernel.source.entry << " (" << binary.arch
               << "): " << kernel.ops << "\n"
               << binary.ptx << "\n";
      }
    }
    if (outputFile.empty() || outputFile == "-") {
      llvm::outs() << out;
      return 0;
    }
    std::error_code error;
    llvm::raw_fd_ostream file(outputFile, error);
    if (error) return fail(outputFile + ": " + error.message());
    file << out;
    return 0;
  }

  std::string dumpDir = dumpKernels;
  if (dumpDir.empty())
    if (const char *env = std::getenv("SPECTRAL_DUMP_DIR"); env && *env) dumpDir = env;
  if (!dumpDir.empty()) {
    ::spectral::StatusOr<std::string> summary =
        ::spectral::dump_kernels(*program, {dumpDir, dumpArch});
    if (!summary) return fail("--dump-kernels=" + dumpDir + ": " + summary.status().message());
    llvm::errs() << summary.value();
  }
  if (report) llvm::errs() << ::spectral::format_report(*program);

  ::spectral::Artifact artifact;
  artifact.program = std::move(*program);
  artifact.producer = "spectral " SPECTRAL_VERSION;
  artifact.graph = (*text)->getBuffer().str();
  artifact.graph_name = inputFile;
  const size_t kernels = artifact.program.kernels.size();
  if (::spectral::Status status = ::spectral::save_artifact(artifact, outputFile); !status)
    return fail(status.message());
  llvm::errs() << "wrote " << outputFile << ": @" << artifact.program.function << ", " << kernels
               << " kernel" << (kernels == 1 ? "" : "s");
  if (!archs->empty()) llvm::errs() << ", CUBIN and PTX for " << llvm::join(*archs, ", ");
  llvm::errs() << "\n";
  return 0;
}
