//===- Transforms.h - Reference DFT / DCT in double precision ---*- C++ -*-===//
//
// The executable specification of the spectral transforms: straightforward
// O(N^2)-per-axis loops in double precision, with twiddles indexed by
// (j * k) mod N so that large lengths lose no accuracy. Arrays are dense,
// row-major, described by their shape; a transform over several axes applies
// the 1-D transform along each axis in turn.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <complex>
#include <cstdint>
#include <vector>

namespace spectral::reference {

using Complex = std::complex<double>;

/// Scaling convention, as numpy.fft / scipy.fft name it.
enum class Norm { Backward, Ortho, Forward };

/// exp(2*pi*i*m/n) for 0 <= m < n, with the angle reduced to [0, pi/4] before
/// calling cos/sin, so that quarter turns are exact and symmetric roots agree.
Complex unitRoot(int64_t m, int64_t n);

/// Number of elements of a row-major array with this shape.
int64_t elementCount(const std::vector<int64_t> &shape);

/// In-place complex DFT over `axes` of an array of `shape`. The forward
/// transform uses exp(-2*pi*i*j*k/N); `inverse` uses exp(+2*pi*i*j*k/N).
/// With n = product of the transformed lengths: Backward scales the inverse
/// by 1/n, Forward scales the forward by 1/n, Ortho scales both by 1/sqrt(n).
void dft(std::vector<Complex> &data, const std::vector<int64_t> &shape,
         const std::vector<int64_t> &axes, bool inverse, Norm norm);

/// Real-to-complex DFT over `axes` (numpy.fft.rfftn): a half-spectrum real
/// DFT along the last listed axis, axes.back() (length N -> N/2+1), then
/// complex DFTs along the other axes. Input is real
/// (`input.size() == elementCount(shape)`). Returns the output; `outShape`
/// receives its shape.
std::vector<Complex> rdft(const std::vector<double> &input,
                          const std::vector<int64_t> &shape,
                          const std::vector<int64_t> &axes, Norm norm,
                          std::vector<int64_t> &outShape);

/// Complex-to-real inverse of rdft (numpy.fft.irfftn). `shape` is the shape
/// of `input`, the half spectrum. Inverse complex DFTs along all but the last
/// listed axis in `axes`, then a Hermitian inverse DFT along the last one,
/// whose input length must be length/2+1 and whose output length is `length`.
/// The imaginary parts of the DC (and, for even length, Nyquist) bins are
/// ignored, as numpy and FFTW do.
std::vector<double> irdft(const std::vector<Complex> &input,
                          const std::vector<int64_t> &shape,
                          const std::vector<int64_t> &axes, int64_t length,
                          Norm norm, std::vector<int64_t> &outShape);

/// Real DCT over `axes`, in place, with scipy.fft.dct's conventions:
/// type 2: y[k] = 2 * sum_n x[n] cos(pi k (2n+1) / (2N)),
/// type 3: y[k] = x[0] + 2 * sum_{n>=1} x[n] cos(pi n (2k+1) / (2N)).
/// `inverse` computes scipy.fft.idct of that type (idct type 2 is a DCT-III
/// divided by 2N, idct type 3 a DCT-II divided by 2N, under Backward).
/// Forward moves the 1/(2N) to the forward transform; Ortho makes the
/// transform matrix orthogonal (as scipy's norm="ortho").
void dct(std::vector<double> &data, const std::vector<int64_t> &shape,
         const std::vector<int64_t> &axes, int type, bool inverse, Norm norm);

} // namespace spectral::reference
