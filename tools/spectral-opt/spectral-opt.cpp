//===- spectral-opt.cpp - the spectral graph optimizer --------------------===//
//
// mlir-opt for spectral graphs: the spectral, func and arith dialects and the
// passes that apply to them.
//
//===----------------------------------------------------------------------===//
#include "compiler/Autodiff/Passes.h"
#include "compiler/Fusion/Passes.h"
#include "compiler/Pipelines/Pipelines.h"
#include "dialects/spectral/IR/SpectralDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  spectral::registerPipelines();
  spectral::registerFusionPasses();
  spectral::registerAutodiffPasses();
  mlir::DialectRegistry registry;
  registry.insert<mlir::spectral::SpectralDialect, mlir::func::FuncDialect,
                  mlir::arith::ArithDialect>();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "Spectral graph optimizer\n", registry));
}
