//===- Pipelines.cpp - named pass pipelines of spectral-opt ---------------===//
#include "compiler/Pipelines/Pipelines.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace spectral {

void addSimplifyPipeline(mlir::OpPassManager &pm) {
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  pm.addPass(mlir::createCanonicalizerPass());
}

void registerPipelines() {
  mlir::PassPipelineRegistration<>(
      "spectral-simplify",
      "Simplify a spectral graph: the dialect's folds and canonicalizations "
      "(inverse transform pairs, algebraic identities, constant folding), then "
      "common subexpression elimination, then canonicalization again",
      addSimplifyPipeline);
}

} // namespace spectral
