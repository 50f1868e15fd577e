//===- Jit.cpp - one call from a .mlir func to a loaded Executable --------===//
#include "compiler/API/Jit.h"

#include "compiler/Autodiff/Passes.h"
#include "compiler/Codegen/Codegen.h"
#include "compiler/Fusion/Passes.h"
#include "compiler/Pipelines/Pipelines.h"
#include "compiler/Planning/BufferPlan.h"
#include "dialects/spectral/IR/SourceLimits.h"
#include "dialects/spectral/IR/SpectralOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/SourceMgr.h"

#include <mutex>

using namespace mlir;

namespace spectral {

std::unique_ptr<MLIRContext> createContext() {
  DialectRegistry registry;
  registry.insert<mlir::spectral::SpectralDialect, func::FuncDialect, arith::ArithDialect>();
  auto context = std::make_unique<MLIRContext>(registry);
  context->loadAllAvailableDialects();
  // Diagnostics point at the source line; the generic form of the op adds nothing.
  context->printOpOnDiagnostic(false);
  return context;
}

llvm::Expected<OwningOpRef<ModuleOp>> parseFile(MLIRContext &context, const std::string &path) {
  std::string error;
  auto file = openInputFile(path, &error);
  if (!file) return llvm::createStringError(error);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  if (failed(mlir::spectral::checkSourceLimits(sourceMgr, sourceMgr.getMainFileID(), &context)))
    return llvm::createStringError(path + ": not accepted (see above)");
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module) return llvm::createStringError(path + ": could not be parsed (see above)");
  return module;
}

namespace {

/// The passes a pipeline may name, as spectral-opt registers them (once per process).
void registerPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerTransformsPasses();
    registerPipelines();
    registerFusionPasses();
    registerAutodiffPasses();
  });
}

} // namespace

llvm::Expected<Program> compileProgram(ModuleOp module, const JitOptions &options) {
  if (!options.passPipeline.empty()) {
    registerPasses();
    std::string errors;
    llvm::raw_string_ostream os(errors);
    FailureOr<OpPassManager> parsed = parsePassPipeline(options.passPipeline, os);
    if (failed(parsed))
      return llvm::createStringError("pass pipeline '" + options.passPipeline + "': " + errors);
    if (parsed->getOpAnchorName() != ModuleOp::getOperationName())
      return llvm::createStringError("pass pipeline '" + options.passPipeline +
                                     "' must be anchored on builtin.module: "
                                     "'builtin.module(func.func(spectral-fuse))'");
    PassManager pm(module.getContext());
    static_cast<OpPassManager &>(pm) = *parsed;
    if (failed(pm.run(module)))
      return llvm::createStringError("pass pipeline '" + options.passPipeline +
                                     "' failed (see the diagnostics above)");
  } else if (options.simplify || options.fuse) {
    PassManager pm(module.getContext());
    if (options.simplify) addSimplifyPipeline(pm);
    if (options.fuse) {
      FormFusionGroupsOptions fuse;
      fuse.remarks = options.fusionRemarks;
      fuse.blockPrograms = true;
      pm.addNestedPass<func::FuncOp>(createFormFusionGroups(fuse));
    }
    if (failed(pm.run(module)))
      return llvm::createStringError(std::string(options.simplify ? "spectral-simplify" : "") +
                                     (options.simplify && options.fuse ? " or " : "") +
                                     (options.fuse ? "spectral-fuse" : "") +
                                     " failed (see the diagnostics above)");
  }
  auto function = module.lookupSymbol<func::FuncOp>(options.function);
  if (!function) {
    std::string names;
    module.walk([&](func::FuncOp f) { names += " @" + f.getSymName().str(); });
    return llvm::createStringError("no function @" + options.function + " (there is:" +
                                   (names.empty() ? " none" : names) + ")");
  }
  llvm::Expected<Program> program = codegen::compileFunction(function);
  if (program && options.reuseBuffers) planning::planBuffers(*program);
  return program;
}

llvm::Expected<std::unique_ptr<Executable>> jitCompile(ModuleOp module, Device &device,
                                                       const JitOptions &options,
                                                       LoadStats *stats) {
  llvm::Expected<Program> program = compileProgram(module, options);
  if (!program) return program.takeError();
  StatusOr<std::unique_ptr<Executable>> executable =
      Executable::load(std::move(*program), device, stats, options.compileThreads);
  if (!executable) return llvm::createStringError(executable.status().message());
  return std::move(*executable);
}

} // namespace spectral
