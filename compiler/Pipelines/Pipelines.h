//===- Pipelines.h - named pass pipelines of spectral-opt -------*- C++ -*-===//
#pragma once

namespace spectral {

/// Registers the project's pipelines with MLIR's pass registry, so that
/// spectral-opt --help lists them and --spectral-simplify runs one.
void registerPipelines();

} // namespace spectral
