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

/// A spectral.constant of `type` (a ranked tensor) with `value` in every element.
mlir::Value splatConstant(mlir::OpBuilder &builder, mlir::Location loc, mlir::Type type,
                          double value);

/// Makes `values` the results of `function` (one block): its return, type
/// and result attributes (the first result keeps its own).
void replaceResults(mlir::func::FuncOp function, llvm::ArrayRef<mlir::Value> values);

/// How trainStep updates the parameters.
struct OptimizerOptions {
  enum class Optimizer { kSgd, kAdam, kAdamW };
  Optimizer optimizer = Optimizer::kAdam;
  double momentum = 0;
  bool nesterov = false;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  double weightDecay = 0;
  double clip = 0;  // the global gradient norm to clip to; 0: no clipping
};

/// Adds the training step `name` of the loss function `forward` for the
/// parameters numbered in `params` (see the spectral-train-step pass for
/// its signature). Fails with diagnostics, leaving the module as it was.
mlir::FailureOr<mlir::func::FuncOp> trainStep(mlir::func::FuncOp forward,
                                              llvm::ArrayRef<unsigned> params,
                                              const OptimizerOptions &options,
                                              llvm::StringRef name);

} // namespace spectral
