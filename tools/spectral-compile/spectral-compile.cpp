//===- spectral-compile.cpp - compile a spectral graph into a .spx artifact ===//
//
// spectral-compile FILE.mlir -o FILE.spx [--function=NAME]
// Simplifies, fuses and compiles one function into its Program (buffers,
// kernels' instantiation units, steps) and writes it as an artifact
// (runtime/program/artifact.h) with the graph's text beside it, so that
// spectral-run runs the .spx as it runs the .mlir (--validate included)
// without compiling the graph again. --report and --dump-kernels show the
// Program as spectral-run does.
//
//===----------------------------------------------------------------------===//
#include "compiler/API/Jit.h"
#include "runtime/program/artifact.h"
#include "runtime/program/kernel_dump.h"
#include "runtime/program/report.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

namespace {

llvm::cl::OptionCategory category("spectral-compile options");

llvm::cl::opt<std::string> inputFile(llvm::cl::Positional, llvm::cl::desc("<graph.mlir>"),
                                     llvm::cl::Required, llvm::cl::cat(category));
llvm::cl::opt<std::string> outputFile("o", llvm::cl::desc("the artifact to write (FILE.spx)"),
                                      llvm::cl::value_desc("FILE.spx"), llvm::cl::Required,
                                      llvm::cl::cat(category));
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
      "  spectral-compile graph.mlir -o graph.spx [--function=main]\n"
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
  llvm::Expected<::spectral::Program> program = ::spectral::compileProgram(**module, options);
  if (!program) return fail(llvm::toString(program.takeError()));

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
               << " kernel" << (kernels == 1 ? "" : "s") << "\n";
  return 0;
}
