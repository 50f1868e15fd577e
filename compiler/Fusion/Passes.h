//===- Passes.h - the fusion passes -----------------------------*- C++ -*-===//
#pragma once

#include "dialects/spectral/IR/SpectralDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace spectral {

#define GEN_PASS_DECL
#include "compiler/Fusion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/Fusion/Passes.h.inc"

} // namespace spectral
