// reduce_units.h - instantiation units for reduce.cuh, softmax.cuh and
// loss.cuh, written as codegen will (includes, functors, one extern "C"
// entry), and the launch shapes the tests run them with.
#pragma once

#include "runtime/device/device.h"

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

namespace spectral::testing {

/// A row block (BLOCK_X, ROWS) of reduce.cuh: BLOCK_X threads per row.
struct RowBlock {
  int x;
  int rows;
};

/// Sub-warp rows, a warp per row, two warps per row, a block per row; for
/// `double` only the second and the last (the other paths do not depend on
/// the type).
const std::vector<RowBlock>& row_blocks(const std::string& type);

/// The (logits type, label type, block) of the cross-entropy units.
struct CrossEntropyUnit {
  std::string type, label;
  RowBlock block;
};
const std::vector<CrossEntropyUnit>& cross_entropy_units();

/// The CUDA C++ name of a kernel value type ("float", "cplx<double>", "int").
template <typename T> std::string cuda_type();
template <> inline std::string cuda_type<float>() { return "float"; }
template <> inline std::string cuda_type<double>() { return "double"; }
template <> inline std::string cuda_type<int32_t>() { return "int"; }
template <> inline std::string cuda_type<int64_t>() { return "long long"; }
template <> inline std::string cuda_type<std::complex<float>>() { return "cplx<float>"; }
template <> inline std::string cuda_type<std::complex<double>>() { return "cplx<double>"; }

/// The ops of the reduce units' `op` argument.
enum ReduceOp : int { kSum = 0, kMean = 1, kMax = 2 };

/// entry(const T* x, T* out, long long rows, long long n, T scale, int op):
/// out[row] = op over scale * x[row * n + i].
KernelSource reduce_rows_unit(const std::string& type, RowBlock block);
/// Threads per block of the whole-tensor passes.
constexpr int kGridBlock = 256;
/// entry(const T* x, T* partials, long long n, int op): pass one.
KernelSource reduce_partials_unit(const std::string& type);
/// entry(const T* partials, T* out, long long count, long long total, int op):
/// pass two, one block.
KernelSource reduce_final_unit(const std::string& type);
/// entry(const T* x, T* y, long long rows, long long n, int log_softmax).
KernelSource softmax_unit(const std::string& type, RowBlock block);
/// entry(const T* logits, const L* labels, T* losses, long long rows, long long n).
KernelSource cross_entropy_unit(const std::string& type, const std::string& label, RowBlock block);
/// entry(const V* a, const V* b, R* partials, long long n): pass one of
/// mean |a - b|^2 (V real or complex, R its real type); pass two is
/// reduce_final_unit(R) with kMean.
KernelSource mse_partials_unit(const std::string& value_type, const std::string& real_type);
/// entry(const TensorRef<T>* tensors, T* partials), grid (tensors, chunks).
KernelSource norm_partials_unit(const std::string& type);
/// entry(int tensors, int chunks, const T* partials, T max_norm, T* out):
/// out = [norm, clip scale, square sum of each tensor...].
KernelSource norm_final_unit(const std::string& type);

/// Every unit above that the tests run (for the NVRTC test).
std::vector<KernelSource> reduce_units_to_compile();

}  // namespace spectral::testing
