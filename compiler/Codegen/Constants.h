//===- Constants.h - dense literals as kernel literals or buffers -*- C++ -*-===//
#pragma once

#include "compiler/Codegen/CodegenContext.h"

#include <optional>
#include <string>

namespace spectral::codegen {

/// For a spectral.constant or arith.constant whose elements are all one
/// finite value: that value as a C++ expression of the element type
/// ("1.5f", "spectral_fft::make_cplx<double>(1, -2)", "(long long)7"). Else
/// nothing (also for other ops and null).
std::optional<std::string> splatLiteral(mlir::Operation *op);

/// A constant buffer holding the op's elements in the Program's layout.
llvm::Expected<int> constantBuffer(CodegenContext &context, mlir::Operation *op);

} // namespace spectral::codegen
