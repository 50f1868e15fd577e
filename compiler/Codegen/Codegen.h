//===- Codegen.h - a func of spectral ops -> a Program ----------*- C++ -*-===//
//
// Every op of the function becomes kernels and steps of a Program: the ops
// of a spectral.fusion region together (a region of pointwise and
// index-map ops is one kernel), an op outside any region as a region of its
// own; reshape becomes a view and constants become constant buffers. The
// op families live one per file (CodegenContext.h lists them).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/program/program.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/Error.h"

namespace spectral::codegen {

/// The argument attribute that donates an argument's bytes to the run (a
/// parameter or optimizer state a step replaces): `%w: tensor<...>
/// {spectral.donated}`. The memory plan may then update it in place.
constexpr const char *kDonatedAttr = "spectral.donated";

/// The Program computing `function`; errors are located at the op at fault.
llvm::Expected<Program> compileFunction(mlir::func::FuncOp function);

} // namespace spectral::codegen
