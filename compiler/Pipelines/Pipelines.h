//===- Pipelines.h - named pass pipelines of spectral-opt -------*- C++ -*-===//
#pragma once

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace spectral {

/// spectral-simplify: the dialect's folds and canonicalizations, CSE, and
/// canonicalization again. The JIT runs it before codegen.
void addSimplifyPipeline(mlir::OpPassManager &pm);

/// Registers the project's pipelines with MLIR's pass registry, so that
/// spectral-opt --help lists them and --spectral-simplify runs one.
void registerPipelines();

} // namespace spectral
