// fuzz_mlir.cc - libFuzzer target: MLIR text as the spectral tools read it
// (the source limits, then MLIR 19's parser with the spectral, func and
// arith dialects, then the verifier) must give an error or a module; never
// crash or hang. Diagnostics are swallowed.
#include "dialects/spectral/IR/SourceLimits.h"
#include "dialects/spectral/IR/SpectralDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdint>
#include <memory>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A fresh context now and then: uniqued types and attributes accumulate.
  static std::unique_ptr<mlir::MLIRContext> context;
  static int uses = 0;
  if (!context || ++uses % 1000 == 0) {
    mlir::DialectRegistry registry;
    registry.insert<mlir::spectral::SpectralDialect, mlir::func::FuncDialect,
                    mlir::arith::ArithDialect>();
    context = std::make_unique<mlir::MLIRContext>(registry, mlir::MLIRContext::Threading::DISABLED);
    context->loadAllAvailableDialects();
    context->getDiagEngine().registerHandler([](mlir::Diagnostic&) {});  // swallowed
  }
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(reinterpret_cast<const char*>(data), size),
                                           "fuzz.mlir"),
      llvm::SMLoc());
  if (mlir::failed(mlir::spectral::checkSourceLimits(sources, sources.getMainFileID(), context.get())))
    return 0;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sources, context.get());
  return 0;
}
