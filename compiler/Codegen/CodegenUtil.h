//===- CodegenUtil.h - small helpers the op families share ------*- C++ -*-===//
#pragma once

#include "compiler/Codegen/CodegenContext.h"

#include <cstdint>
#include <string>
#include <vector>

namespace spectral::codegen {

/// a / b rounded up, for a >= 0 and b > 0.
int64_t ceilDiv(int64_t a, int64_t b);

/// `value` as a long long literal of a generated unit: "4096LL".
std::string lit(int64_t value);

/// The product of `shape`'s dims (1 for rank 0).
int64_t elementCount(llvm::ArrayRef<int64_t> shape);
/// `value` in decimal, for the text of generated units.
inline std::string str(int64_t value) { return std::to_string(value); }

/// The number of elements of a statically shaped tensor value.
int64_t elementCount(mlir::Value tensor);

/// Element strides of a row-major array of `shape`.
std::vector<int64_t> rowMajorStrides(llvm::ArrayRef<int64_t> shape);

/// The size of `elements` elements of `dtype`.
int64_t bytesOf(DType dtype, int64_t elements);
/// The size of `buffer` of the Program being built.
int64_t bytesOf(const CodegenContext &context, int buffer);

/// The line a unit says before its definitions when its body calls only
/// templates (or reduce.cuh's block_* helpers) that have a phased form
/// (host_emulation.h, "Phased kernels"): the host device then runs a block
/// per call, each stage a loop over the threads.
inline const std::string kPhasedUnit = "SPECTRAL_HOST_PHASED;\n";

/// One entry after common.cuh, `include` (if not empty) and `prelude`:
/// `extern "C" __global__ void entry(params) { body }`, bounded to `threads`
/// per block and `blocksPerSm` blocks per SM (two by default: without a
/// minimum, ptxas may trade occupancy for registers; a kernel of one block
/// asks for one, leaving it every register).
KernelSource boundedUnit(const std::string &include, const std::string &entry, int threads,
                         const std::string &params, const std::string &body,
                         const std::string &prelude = {}, int blocksPerSm = 2);

/// An op family's answer for an op it lowers: true, or the lowering's error.
llvm::Expected<bool> lowered(llvm::Error error);

} // namespace spectral::codegen
