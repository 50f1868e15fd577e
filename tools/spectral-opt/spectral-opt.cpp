//===- spectral-opt.cpp - the spectral graph optimizer --------------------===//
//
// mlir-opt for spectral graphs: the spectral, func and arith dialects and the
// passes that apply to them. The input is checked against the source limits
// (dialects/spectral/IR/SourceLimits.h) before MLIR's parser reads it.
//
//===----------------------------------------------------------------------===//
#include "compiler/Autodiff/Passes.h"
#include "compiler/Fusion/Passes.h"
#include "compiler/Pipelines/Pipelines.h"
#include "dialects/spectral/IR/SourceLimits.h"
#include "dialects/spectral/IR/SpectralDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);  // stack dumps on a crash, as MlirOptMain gives
  mlir::registerTransformsPasses();
  spectral::registerPipelines();
  spectral::registerFusionPasses();
  spectral::registerAutodiffPasses();
  mlir::DialectRegistry registry;
  registry.insert<mlir::spectral::SpectralDialect, mlir::func::FuncDialect,
                  mlir::arith::ArithDialect>();
  // What MlirOptMain(argc, argv, ...) does, with the limits checked between
  // reading the input and parsing it.
  auto [input, output] =
      mlir::registerAndParseCLIOptions(argc, argv, "Spectral graph optimizer\n", registry);
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file = mlir::openInputFile(input, &error);
  if (!file) {
    llvm::errs() << error << "\n";
    return 1;
  }
  {
    mlir::MLIRContext context;
    llvm::SourceMgr sources;
    sources.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBuffer(file->getMemBufferRef()),
                               llvm::SMLoc());
    mlir::SourceMgrDiagnosticHandler diagnostics(sources, &context);
    if (mlir::failed(mlir::spectral::checkSourceLimits(sources, sources.getMainFileID(), &context)))
      return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> out = mlir::openOutputFile(output, &error);
  if (!out) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (mlir::failed(mlir::MlirOptMain(out->os(), std::move(file), registry, config))) return 1;
  out->keep();
  return 0;
}
