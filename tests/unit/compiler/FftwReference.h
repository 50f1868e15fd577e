//===- FftwReference.h - FFTW with numpy / scipy scaling, for tests -*- C++ -*-===//
//
// The independent reference the transform tests compare with: FFTW's guru
// plans over arbitrary axes of dense row-major arrays, in double precision,
// and the numpy.fft / scipy.fft scalings written out here on their own.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/Reference/Transforms.h"

#include <fftw3.h>

#include <complex>
#include <cstdint>
#include <vector>

namespace spectral::reference::test {

using Shape = std::vector<int64_t>;

/// `shape` with the length N along `axis` replaced by N/2+1 (a half spectrum).
Shape halfShape(Shape shape, int64_t axis);

/// Unnormalized complex DFT over `axes`; `sign` is FFTW_FORWARD or
/// FFTW_BACKWARD.
std::vector<Complex> fftwDft(std::vector<Complex> in, const Shape &shape,
                             const Shape &axes, int sign);

/// Unnormalized r2c over `axes`, the last listed axis halved.
std::vector<Complex> fftwR2c(std::vector<double> in, const Shape &shape,
                             const Shape &axes);

/// Unnormalized c2r over `axes`; `realShape` is the output's shape. FFTW
/// drops the imaginary parts of the DC and (even length) Nyquist bins.
std::vector<double> fftwC2r(std::vector<Complex> in, const Shape &realShape,
                            const Shape &axes);

/// Unnormalized numpy.fft.irfftn of an arbitrary (not necessarily Hermitian)
/// half spectrum: inverse complex DFTs along all but the last listed axis,
/// then a 1-D c2r along it.
std::vector<double> numpyIrfft(std::vector<Complex> half, const Shape &realShape,
                               const Shape &axes);

/// scipy.fft.dct / idct of `type` (2 or 3) from FFTW's REDFT10 (DCT-II) and
/// REDFT01 (DCT-III), with scipy's scaling under `norm`.
std::vector<double> scipyDct(std::vector<double> x, const Shape &shape,
                             const Shape &axes, int type, bool inverse, Norm norm);

/// numpy's factor for a (possibly inverse) DFT of n points in all.
double numpyScale(int64_t n, bool inverse, Norm norm);

} // namespace spectral::reference::test
