//===- Transforms.cpp - Reference DFT / DCT in double precision -----------===//
//
// Every transform is a loop over the 1-D lines of the array along one axis and
// a naive O(N^2) sum per line. Twiddles come from a table of exact-angle unit
// roots indexed by (j * k) mod N, kept as a running index that wraps at N, so
// the argument of sin/cos never grows with j * k.
//
//===----------------------------------------------------------------------===//

#include "compiler/Reference/Transforms.h"

#include <algorithm>
#include <cmath>

namespace spectral::reference {
namespace {

constexpr double kPi = 3.14159265358979323846;

/// roots[m] = exp(sign * 2*pi*i*m/n) for m in [0, n).
std::vector<Complex> unitRoots(int64_t n, int sign) {
  std::vector<Complex> roots(n);
  for (int64_t m = 0; m < n; ++m)
    roots[m] = sign > 0 ? unitRoot(m, n) : std::conj(unitRoot(m, n));
  return roots;
}

/// Applies `transform(lineIn, lineOut)` to every line of `in` along `axis` and
/// gathers the results into a new array whose length along `axis` is
/// `outLength`; `shape` is updated to the new shape.
template <typename Out, typename In, typename LineFn>
std::vector<Out> mapLines(const std::vector<In> &in,
                          std::vector<int64_t> &shape, int64_t axis,
                          int64_t outLength, LineFn transform) {
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  for (int64_t d = axis + 1; d < static_cast<int64_t>(shape.size()); ++d)
    inner *= shape[d];
  int64_t inLength = shape[axis];
  std::vector<Out> out(outer * outLength * inner);
  std::vector<In> lineIn(inLength);
  std::vector<Out> lineOut(outLength);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      for (int64_t j = 0; j < inLength; ++j)
        lineIn[j] = in[(o * inLength + j) * inner + i];
      transform(lineIn, lineOut);
      for (int64_t j = 0; j < outLength; ++j)
        out[(o * outLength + j) * inner + i] = lineOut[j];
    }
  }
  shape[axis] = outLength;
  return out;
}

/// The factor a 1-D DFT of length n is multiplied by under `norm`.
double dftScale(int64_t n, bool inverse, Norm norm) {
  switch (norm) {
  case Norm::Backward:
    return inverse ? 1.0 / static_cast<double>(n) : 1.0;
  case Norm::Forward:
    return inverse ? 1.0 : 1.0 / static_cast<double>(n);
  case Norm::Ortho:
    break;
  }
  return 1.0 / std::sqrt(static_cast<double>(n));
}

/// (index + step) mod n, for index, step in [0, n): the running (j * k) mod n.
inline int64_t advance(int64_t index, int64_t step, int64_t n) {
  index += step;
  return index >= n ? index - n : index;
}

/// acc += x * w, written out so the inner loops stay plain real arithmetic.
inline void multiplyAdd(double &re, double &im, Complex x, Complex w) {
  re += x.real() * w.real() - x.imag() * w.imag();
  im += x.real() * w.imag() + x.imag() * w.real();
}

/// Complex DFT of every line along `axis`.
std::vector<Complex> dftAlong(const std::vector<Complex> &data,
                              std::vector<int64_t> &shape, int64_t axis,
                              bool inverse, Norm norm) {
  int64_t n = shape[axis];
  std::vector<Complex> roots = unitRoots(n, inverse ? +1 : -1);
  double scale = dftScale(n, inverse, norm);
  auto line = [&](const std::vector<Complex> &x, std::vector<Complex> &y) {
    for (int64_t k = 0; k < n; ++k) {
      double re = 0, im = 0;
      for (int64_t j = 0, jk = 0; j < n; ++j, jk = advance(jk, k, n))
        multiplyAdd(re, im, x[j], roots[jk]);
      y[k] = scale * Complex(re, im);
    }
  };
  return mapLines<Complex>(data, shape, axis, n, line);
}

} // namespace

Complex unitRoot(int64_t m, int64_t n) {
  // angle = (pi/4) * (octant + r/n); 8m < 2^63 for every length we handle.
  int64_t octant = 8 * m / n;
  int64_t r = 8 * m - octant * n;
  Complex z;
  int64_t quarterTurns;
  if (octant % 2 == 0) {
    double t = kPi / 4 * static_cast<double>(r) / static_cast<double>(n);
    z = {std::cos(t), std::sin(t)};
    quarterTurns = octant / 2;
  } else { // angle = (octant + 1) * pi/4 - t
    double t = kPi / 4 * static_cast<double>(n - r) / static_cast<double>(n);
    z = {std::cos(t), -std::sin(t)};
    quarterTurns = (octant + 1) / 2;
  }
  for (int64_t q = 0; q < quarterTurns % 4; ++q)
    z = {-z.imag(), z.real()}; // multiply by i
  return z;
}

int64_t elementCount(const std::vector<int64_t> &shape) {
  int64_t count = 1;
  for (int64_t extent : shape)
    count *= extent;
  return count;
}

void dft(std::vector<Complex> &data, const std::vector<int64_t> &shape,
         const std::vector<int64_t> &axes, bool inverse, Norm norm) {
  std::vector<int64_t> workShape = shape;
  for (int64_t axis : axes)
    data = dftAlong(data, workShape, axis, inverse, norm);
}

std::vector<Complex> rdft(const std::vector<double> &input,
                          const std::vector<int64_t> &shape,
                          const std::vector<int64_t> &axes, Norm norm,
                          std::vector<int64_t> &outShape) {
  outShape = shape;
  if (axes.empty()) // Nothing to transform (numpy rejects this).
    return std::vector<Complex>(input.begin(), input.end());

  // Half-spectrum real DFT along the last listed axis: X_k, k in [0, n/2].
  int64_t last = axes.back();
  int64_t n = shape[last];
  std::vector<Complex> roots = unitRoots(n, -1);
  double scale = dftScale(n, /*inverse=*/false, norm);
  auto line = [&](const std::vector<double> &x, std::vector<Complex> &y) {
    for (int64_t k = 0; k <= n / 2; ++k) {
      double re = 0, im = 0;
      for (int64_t j = 0, jk = 0; j < n; ++j, jk = advance(jk, k, n)) {
        re += x[j] * roots[jk].real();
        im += x[j] * roots[jk].imag();
      }
      y[k] = scale * Complex(re, im);
    }
  };
  std::vector<Complex> data =
      mapLines<Complex>(input, outShape, last, n / 2 + 1, line);

  for (size_t a = 0; a + 1 < axes.size(); ++a)
    data = dftAlong(data, outShape, axes[a], /*inverse=*/false, norm);
  return data;
}

std::vector<double> irdft(const std::vector<Complex> &input,
                          const std::vector<int64_t> &shape,
                          const std::vector<int64_t> &axes, int64_t length,
                          Norm norm, std::vector<int64_t> &outShape) {
  outShape = shape;
  std::vector<Complex> data = input;
  for (size_t a = 0; a + 1 < axes.size(); ++a)
    data = dftAlong(data, outShape, axes[a], /*inverse=*/true, norm);
  if (axes.empty()) { // Nothing to transform (numpy rejects this).
    std::vector<double> real(data.size());
    for (size_t i = 0; i < data.size(); ++i)
      real[i] = data[i].real();
    return real;
  }

  // Hermitian inverse along the last listed axis:
  //   x_j = sum_{k=0}^{n/2} c_k Re(X_k w^{jk}), w = exp(2*pi*i/n),
  // with c_k = 1 for the DC and (even n) Nyquist bins and 2 for the others,
  // which stand for themselves and their conjugate mirror X_{n-k}. The DC
  // and Nyquist twiddles are exactly real, so their imaginary parts drop out.
  // Bins missing from a shorter input count as zero, as in numpy.
  int64_t last = axes.back();
  int64_t n = length;
  int64_t bins = std::min(n / 2 + 1, outShape[last]);
  std::vector<Complex> roots = unitRoots(n, +1);
  double scale = dftScale(n, /*inverse=*/true, norm);
  auto line = [&](const std::vector<Complex> &x, std::vector<double> &y) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t k = 0, jk = 0; k < bins; ++k, jk = advance(jk, j, n)) {
        double weight = (k == 0 || 2 * k == n) ? 1.0 : 2.0;
        Complex w = roots[jk];
        sum += weight * (x[k].real() * w.real() - x[k].imag() * w.imag());
      }
      y[j] = scale * sum;
    }
  };
  return mapLines<double>(data, outShape, last, n, line);
}

void dct(std::vector<double> &data, const std::vector<int64_t> &shape,
         const std::vector<int64_t> &axes, int type, bool inverse, Norm norm) {
  // idct of type 2 computes a DCT-III and idct of type 3 a DCT-II. Backward
  // puts the 1/(2N) on the inverse, Forward on the forward transform.
  bool typeTwoKernel = (type == 2) != inverse;
  std::vector<int64_t> workShape = shape;
  for (int64_t axis : axes) {
    int64_t n = shape[axis];
    double twoN = 2.0 * static_cast<double>(n);
    // cos(pi * m / (2n)) = Re exp(2*pi*i*m/(4n)), for m in [0, 4n).
    std::vector<double> cosines(4 * n);
    for (int64_t m = 0; m < 4 * n; ++m)
      cosines[m] = unitRoot(m, 4 * n).real();

    // Ortho: the DCT-II scales y_0 by sqrt(1/(4n)) and the other outputs by
    // sqrt(1/(2n)); the DCT-III is its transpose, so it scales x_0 by
    // 2*sqrt(1/(4n)) = sqrt(1/n) and the other inputs by sqrt(1/(2n)).
    double scale = 1.0;
    if (norm == Norm::Backward && inverse)
      scale = 1.0 / twoN;
    if (norm == Norm::Forward && !inverse)
      scale = 1.0 / twoN;
    double orthoFirst =
        typeTwoKernel ? std::sqrt(1.0 / (2.0 * twoN)) : std::sqrt(2.0 / twoN);
    double orthoRest = std::sqrt(1.0 / twoN);

    auto line = [&](const std::vector<double> &x, std::vector<double> &y) {
      for (int64_t k = 0; k < n; ++k) {
        double sum = 0;
        if (typeTwoKernel) { // y_k = 2 sum_j x_j cos(pi k (2j+1) / (2n))
          for (int64_t j = 0, m = k; j < n; ++j, m = advance(m, 2 * k, 4 * n))
            sum += 2.0 * x[j] * cosines[m];
          if (norm == Norm::Ortho)
            sum *= k == 0 ? orthoFirst : orthoRest;
        } else { // y_k = x_0 + 2 sum_{j>=1} x_j cos(pi j (2k+1) / (2n))
          sum = norm == Norm::Ortho ? orthoFirst * x[0] : x[0];
          double rest = 0;
          for (int64_t j = 1, m = 2 * k + 1; j < n;
               ++j, m = advance(m, 2 * k + 1, 4 * n))
            rest += 2.0 * x[j] * cosines[m];
          sum += norm == Norm::Ortho ? orthoRest * rest : rest;
        }
        y[k] = scale * sum;
      }
    };
    data = mapLines<double>(data, workShape, axis, n, line);
  }
}

} // namespace spectral::reference
