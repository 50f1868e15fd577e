//===- FftPlanner.h - FFT, real FFT and DCT axes -> kernels and launches -*- C++ -*-===//
//
// The one place that decides how a transform of length n along one axis
// runs: which kernel templates (kernels_templates/fft_*.cuh), with which
// constant tables, in how many launches. Codegen calls it for the dialect's
// fft / ifft / rfft / irfft / dct / idct ops, one axis at a time; the
// template tests and the bench call it the same way.
//
// The paths, for a complex transform of length L:
//   - L <= kMaxInBlockLength with radices 2..8: one Stockham kernel;
//   - else a Bluestein convolution length <= kMaxInBlockBluestein: one kernel;
//   - else L = L1 * L2 with both in-block Stockham lengths: four-step, two
//     launches (column transforms with twiddles, then row transforms);
//   - else Bluestein over two four-step FFTs of its convolution length
//     (four launches; the chirp, padding and filter fused into them);
//   - else (beyond 2^24 points, or a convolution beyond it) an error.
// Real and DCT transforms are complex ones with adapters fused into the
// first load and the last store (fft_io.cuh); an even-length real transform
// packs pairs into a complex one of half the length, in one kernel when the
// half fits a block, else around the half's multi-pass plan with one
// pointwise (un)packing step.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/Codegen/ProgramBuilder.h"

#include "runtime/status.h"

#include <cstdint>
#include <string>

namespace spectral::planning {

enum class FftKind {
  kForward,     // complex DFT, exp(-2 pi i jk/n), unscaled
  kInverse,     // complex DFT, exp(+2 pi i jk/n), unscaled
  kRealForward, // r2c: n reals -> n/2+1 bins
  kRealInverse, // c2r: n/2+1 bins -> n reals, FFTW's unnormalized c2r
  kDct2,        // scipy.fft.dct type 2, unnormalized
  kDct3,        // scipy.fft.dct type 3 (idct of type 2), unnormalized
};

/// "fft", "ifft", "rfft", "irfft", "dct2", "dct3".
const char *fftKindName(FftKind kind);

/// One transform along one axis of an array seen as [outer, len, inner].
struct FftAxis {
  FftKind kind = FftKind::kForward;
  /// Logical length: the complex length; the real length for r2c / c2r (the
  /// spectrum side has n/2+1 bins); the DCT length.
  int64_t n = 1;
  int64_t outer = 1, inner = 1; // inner is the axis' stride in elements
  bool doublePrecision = false; // complex<f64> / f64 data and tables
  double factor = 1;            // every output is multiplied by it (the norm)
  int input = -1, output = -1;  // buffer ids; output may equal input for C2C and DCT
  std::string op;               // "spectral.fft (file:line:col)", names steps and kernels
};

/// Lengths one block holds in shared memory (complex<f32>: 32 KiB, complex<f64>:
/// 64 KiB, within the opt-in of sm_80 and sm_90 for two blocks per SM).
constexpr int64_t kMaxInBlockLength = 4096;
/// The longest Bluestein convolution one block runs (its two FFTs hold more
/// values live; longer ones would not leave two blocks per SM).
constexpr int64_t kMaxInBlockBluestein = 2048;
/// The most threads one transform of a round trip (transform, filter,
/// inverse in one kernel) takes: complex lengths up to 2048, real up to 4096.
constexpr int64_t kMaxRoundTripThreads = 256;
/// The longest four-step transform: both factors within one block.
constexpr int64_t kMaxFourStepLength = kMaxInBlockLength * kMaxInBlockLength;

/// Appends to `builder` the kernels, constant tables and launches of one
/// axis, with scratch arrays as temporaries. A length it cannot plan, or
/// buffers that do not match the axis (dtype, element count), is an error
/// naming them; nothing is appended then.
Status planFftAxis(codegen::ProgramBuilder &builder, const FftAxis &axis);

} // namespace spectral::planning
