// fft_units.h - instantiation units for the FFT templates and a small driver
// that runs them on HostDevice, as codegen will: one kernel per axis for
// lengths a block holds (Stockham, or Bluestein for large prime factors),
// two passes (four-step) beyond.
#pragma once

#include "runtime/device/device.h"

#include <complex>
#include <string>
#include <vector>

namespace spectral::testing {

/// Lengths up to this run in one block (float2 in shared memory: 32 KiB).
constexpr int kMaxInBlockLength = 4096;
/// Bluestein runs in one block while its convolution length is at most this
/// (its two FFTs hold twice the registers: longer ones would not leave two
/// blocks per SM); longer ones run multi-pass.
constexpr int kMaxInBlockBluestein = 2048;

/// The Stockham unit for length n: entry(in, out, twiddles, batches,
/// in_inner, out_inner, forward), one transform per block row.
KernelSource stockham_unit(int n, bool double_precision = false);
/// A pointwise step ("pad", "filter" or "finish") of Bluestein for lengths
/// whose convolution does not fit one block.
KernelSource bluestein_step_unit(const std::string& step);
/// The Bluestein unit for length n (any n): entry(data, twiddles_m, chirp,
/// filter, batches, inner).
KernelSource bluestein_unit(int n);
/// The first four-step pass for n1 x n2: length-n1 transforms along the
/// strided axis, then the w_N^(k1 n2) twiddle: entry(data, twiddles, hi, lo,
/// shift, batches, inner, forward).
KernelSource fourstep_unit(int n1, int n2);
/// The second pass: length-n2 transforms written in the transposed order:
/// entry(in, out, twiddles, batches, inner, forward).
KernelSource fourstep_rows_unit(int n1, int n2);

/// The real-input unit for length n: entry(in, out, twiddles, twiddles_n,
/// chirp, filter, batches); even n whose half has a Stockham plan packs pairs
/// into a length n/2 FFT, other n run a complex FFT of length n (Stockham or
/// Bluestein). Lines are contiguous: in [batches, n], out [batches, n/2+1].
KernelSource r2c_unit(int n);
/// The real-output unit (FFTW's unnormalized c2r), same arguments, in
/// [batches, n/2+1], out [batches, n].
KernelSource c2r_unit(int n);

/// The pointwise step around a multi-pass complex FFT of half length for even
/// real lengths beyond one block: unpacking the spectrum (r2c) or packing it
/// (c2r): entry(in, out, twiddles_n, count, h).
KernelSource real_step_unit(bool r2c);

/// R2C / C2R of `batches` contiguous lines of real length n on the host device.
std::vector<std::complex<float>> run_r2c(const std::vector<float>& x, int batches, int n);
std::vector<float> run_c2r(const std::vector<std::complex<float>>& x, int batches, int n);

/// The DCT unit (type 2 or 3, scipy's unnormalized convention) for length
/// n: entry(in, out, twiddles, quarter, chirp, filter, batches) over
/// contiguous lines; one complex FFT of length n (Stockham, or Bluestein when
/// n has a prime factor above 7) with Makhoul's reordering.
KernelSource dct_unit(int n, int type);
std::vector<float> run_dct(const std::vector<float>& x, int batches, int n, int type);

/// Complex<f64> Stockham DFT of `batches` contiguous lines of length n.
std::vector<std::complex<double>> run_c2c_double(const std::vector<std::complex<double>>& x,
                                                 int batches, int n, bool forward);

/// The DFT of `x` (row-major, `shape`) over `axes`, unnormalized, on the
/// host device; fails the test on any error.
std::vector<std::complex<float>> run_c2c(const std::vector<std::complex<float>>& x,
                                         const std::vector<int>& shape,
                                         const std::vector<int>& axes, bool forward);

}  // namespace spectral::testing
