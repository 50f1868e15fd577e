//===- Passes.h - reverse-mode differentiation ------------------*- C++ -*-===//
#pragma once

#include "dialects/spectral/IR/SpectralDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace spectral {

#define GEN_PASS_DECL
#include "compiler/Autodiff/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/Autodiff/Passes.h.inc"

/// Adds to `forward`'s module a function `name` with `forward`'s arguments
/// that returns the loss (forward's one real scalar result) and its
/// gradients with respect to the arguments numbered in `wrt` (all float and
/// complex ones when empty). Fails with diagnostics at the ops at fault,
/// leaving the module as it was.
mlir::FailureOr<mlir::func::FuncOp> differentiate(mlir::func::FuncOp forward,
                                                  llvm::ArrayRef<unsigned> wrt,
                                                  llvm::StringRef name);

} // namespace spectral
