//===- SpectralDialect.h - the spectral dialect -----------------*- C++ -*-===//
#pragma once

#include "mlir/IR/Dialect.h"

#include "dialects/spectral/IR/SpectralDialect.h.inc"
