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

namespace spectral::planning {

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

/// Threads of an in-block Bluestein transform with convolution length m: its
/// two FFTs of length m keep more values live than one Stockham FFT, so at
/// most 256, which keeps two blocks per SM without spilling.
int64_t bluesteinThreads(int64_t m);

/// The radices the Stockham template (kernels_templates/fft_stockham.cuh,
/// make_plan) uses for n: greedy 8s, one 4 or 2, then 3s, 5s, 7s. Empty when
/// n has a prime factor above 7 (and for n = 1, which needs no stage).
std::vector<int> stockhamRadices(int64_t n);

/// Whether the Stockham template handles n (no prime factor above 7).
bool hasStockhamPlan(int64_t n);

/// Threads one Stockham transform of length n uses (threads_for in the
/// template): n over its largest radix, at most 512 (two blocks per SM).
int64_t stockhamThreads(int64_t n);

} // namespace spectral::planning
