//===- FftTables.h - constant tables the FFT kernels read -------*- C++ -*-===//
//
// Computed once per kernel in double precision on the host, then rounded to
// the kernel's precision: twiddles for the Stockham stages and the chirp and
// filter spectrum of Bluestein's algorithm. Plain C++ (no MLIR).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <complex>
#include <cstdint>
#include <vector>

namespace spectral::codegen {

using Complex = std::complex<double>;

/// w_N^m = exp(-2 pi i m / N) for m in [0, count).
std::vector<Complex> fftTwiddles(int64_t n, int64_t count);

/// Bluestein's tables for length n in one direction, for convolution length m
/// (a power of two >= 2n - 1): chirp[j] = exp(-+ pi i j^2 / n), j < n, and
/// filter = FFT_m(conj(chirp) laid out circularly) / m.
struct BluesteinTables {
  int64_t m = 0;
  std::vector<Complex> chirp, filter;
};
BluesteinTables bluesteinTables(int64_t n, int64_t m, bool forward);

/// The smallest power of two >= 2n - 1.
int64_t bluesteinLength(int64_t n);

} // namespace spectral::codegen
