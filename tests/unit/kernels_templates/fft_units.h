// fft_units.h - the FFT tests' and bench's driver: Programs written by the
// planner (compiler/Planning/FftPlanner.h), run on the host device by the
// executor, as codegen's programs will be. No planning happens here.
#pragma once

#include "compiler/Planning/FftPlanner.h"
#include "runtime/program/executor.h"

#include <complex>
#include <cstdint>
#include <utility>
#include <vector>

namespace spectral::testing {

/// A Program "x" -> "y" with the C2C transform of `shape` over `axes`: the
/// first axis from x into y, the others in place on y; every output times
/// `factor` (applied by the last axis). Fails the test on a planner error.
Program c2c_program(const std::vector<int64_t>& shape, const std::vector<int>& axes, bool forward,
                    bool wide, double factor = 1);

/// A Program "x" -> "y" with one transform of `kind` along the middle axis
/// of [outer, n, inner], or the planner's error.
StatusOr<Program> axis_program(planning::FftKind kind, int64_t outer, int64_t n,
                               int64_t inner, bool wide, double factor = 1);

/// Runs `program` once on the host device with one input and returns its
/// first output's bytes; fails the test (and returns nothing) on error.
std::vector<uint8_t> run_program(Program program, const HostTensor& input);
/// The same on `on`.
std::vector<uint8_t> run_program(Program program, const HostTensor& input, Device& on);

/// The kernels of `program`, each with the most threads per block any of its
/// launches uses (for the NVRTC gate).
std::vector<std::pair<KernelSource, int64_t>> kernels_of(const Program& program);

// Typed shortcuts over the two above, for T = float and double.

/// The DFT of `x` (row-major, `shape`) over `axes`, times `factor`.
template <typename T>
std::vector<std::complex<T>> run_c2c(const std::vector<std::complex<T>>& x,
                                     const std::vector<int>& shape, const std::vector<int>& axes,
                                     bool forward, double factor = 1);
/// R2C of [outer, n, inner] reals -> [outer, n/2+1, inner] bins.
template <typename T>
std::vector<std::complex<T>> run_r2c(const std::vector<T>& x, int64_t outer, int64_t n,
                                     int64_t inner = 1, double factor = 1);
/// C2R (FFTW's unnormalized c2r) of [outer, n/2+1, inner] -> [outer, n, inner].
template <typename T>
std::vector<T> run_c2r(const std::vector<std::complex<T>>& x, int64_t outer, int64_t n,
                       int64_t inner = 1, double factor = 1);
/// DCT of `type` (2 or 3, scipy's unnormalized) along [outer, n, inner].
template <typename T>
std::vector<T> run_dct(const std::vector<T>& x, int64_t outer, int64_t n, int64_t inner, int type,
                       double factor = 1);

}  // namespace spectral::testing
