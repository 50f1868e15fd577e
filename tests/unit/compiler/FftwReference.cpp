//===- FftwReference.cpp - FFTW with numpy / scipy scaling, for tests -----===//
#include "FftwReference.h"

#include <algorithm>
#include <cmath>

namespace spectral::reference::test {
namespace {

Shape rowMajorStrides(const Shape &shape) {
  Shape strides(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

int64_t countOf(const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// FFTW guru dimensions: `transformed` in the order of `axes` with logical
/// lengths `lengths`, `batch` for every other axis of the in/out arrays.
struct GuruDims {
  std::vector<fftw_iodim> transformed, batch;
};

GuruDims guruDims(const Shape &lengths, const Shape &inShape,
                  const Shape &outShape, const Shape &axes) {
  Shape is = rowMajorStrides(inShape), os = rowMajorStrides(outShape);
  GuruDims dims;
  for (int64_t a : axes)
    dims.transformed.push_back({int(lengths[a]), int(is[a]), int(os[a])});
  for (int64_t d = 0; d < int64_t(inShape.size()); ++d)
    if (std::find(axes.begin(), axes.end(), d) == axes.end())
      dims.batch.push_back({int(inShape[d]), int(is[d]), int(os[d])});
  return dims;
}

fftw_complex *asFftw(Complex *data) {
  return reinterpret_cast<fftw_complex *>(data);
}

/// Unnormalized r2r of one kind (REDFT10 / REDFT01) over `axes`.
std::vector<double> fftwR2r(std::vector<double> in, const Shape &shape,
                            const Shape &axes, fftw_r2r_kind kind) {
  std::vector<double> out(in.size());
  GuruDims d = guruDims(shape, shape, shape, axes);
  std::vector<fftw_r2r_kind> kinds(axes.size(), kind);
  fftw_plan plan = fftw_plan_guru_r2r(
      int(d.transformed.size()), d.transformed.data(), int(d.batch.size()),
      d.batch.data(), in.data(), out.data(), kinds.data(), FFTW_ESTIMATE);
  fftw_execute(plan);
  fftw_destroy_plan(plan);
  return out;
}

/// Multiplies every element by the product over `axes` of factor(i_a, N_a),
/// i_a being the element's index along axis a.
template <typename Factor>
void scalePerIndex(std::vector<double> &data, const Shape &shape,
                   const Shape &axes, Factor factor) {
  Shape strides = rowMajorStrides(shape);
  for (int64_t i = 0; i < int64_t(data.size()); ++i)
    for (int64_t a : axes)
      data[i] *= factor((i / strides[a]) % shape[a], shape[a]);
}

} // namespace

Shape halfShape(Shape shape, int64_t axis) {
  shape[axis] = shape[axis] / 2 + 1;
  return shape;
}

std::vector<Complex> fftwDft(std::vector<Complex> in, const Shape &shape,
                             const Shape &axes, int sign) {
  std::vector<Complex> out(in.size());
  GuruDims d = guruDims(shape, shape, shape, axes);
  fftw_plan plan =
      fftw_plan_guru_dft(int(d.transformed.size()), d.transformed.data(),
                         int(d.batch.size()), d.batch.data(), asFftw(in.data()),
                         asFftw(out.data()), sign, FFTW_ESTIMATE);
  fftw_execute(plan);
  fftw_destroy_plan(plan);
  return out;
}

std::vector<Complex> fftwR2c(std::vector<double> in, const Shape &shape,
                             const Shape &axes) {
  Shape outShape = halfShape(shape, axes.back());
  std::vector<Complex> out(countOf(outShape));
  GuruDims d = guruDims(shape, shape, outShape, axes);
  fftw_plan plan = fftw_plan_guru_dft_r2c(
      int(d.transformed.size()), d.transformed.data(), int(d.batch.size()),
      d.batch.data(), in.data(), asFftw(out.data()), FFTW_ESTIMATE);
  fftw_execute(plan);
  fftw_destroy_plan(plan);
  return out;
}

// Takes `in` by value: c2r overwrites its input.
std::vector<double> fftwC2r(std::vector<Complex> in, const Shape &realShape,
                            const Shape &axes) {
  Shape inShape = halfShape(realShape, axes.back());
  std::vector<double> out(countOf(realShape));
  GuruDims d = guruDims(realShape, inShape, realShape, axes);
  fftw_plan plan = fftw_plan_guru_dft_c2r(
      int(d.transformed.size()), d.transformed.data(), int(d.batch.size()),
      d.batch.data(), asFftw(in.data()), out.data(), FFTW_ESTIMATE);
  fftw_execute(plan);
  fftw_destroy_plan(plan);
  return out;
}

std::vector<double> numpyIrfft(std::vector<Complex> half, const Shape &realShape,
                               const Shape &axes) {
  Shape others(axes.begin(), axes.end() - 1);
  if (!others.empty())
    half = fftwDft(half, halfShape(realShape, axes.back()), others, FFTW_BACKWARD);
  return fftwC2r(half, realShape, {axes.back()});
}

// idct of type 2 is REDFT01 and idct of type 3 is REDFT10; Backward puts
// 1/(2N) per axis on idct, Forward on dct. Ortho scales REDFT10's output y_0
// by sqrt(1/(4N)) and y_k by sqrt(1/(2N)), and REDFT01's input (its
// transpose) x_0 by sqrt(1/N), x_k by sqrt(1/(2N)).
std::vector<double> scipyDct(std::vector<double> x, const Shape &shape,
                             const Shape &axes, int type, bool inverse,
                             Norm norm) {
  bool redft10 = (type == 2) != inverse;
  if (norm == Norm::Ortho && !redft10)
    scalePerIndex(x, shape, axes, [](int64_t i, int64_t n) {
      return i == 0 ? std::sqrt(1.0 / n) : std::sqrt(1.0 / (2.0 * n));
    });
  std::vector<double> y =
      fftwR2r(x, shape, axes, redft10 ? FFTW_REDFT10 : FFTW_REDFT01);
  if (norm == Norm::Ortho && redft10)
    scalePerIndex(y, shape, axes, [](int64_t i, int64_t n) {
      return i == 0 ? std::sqrt(1.0 / (4.0 * n)) : std::sqrt(1.0 / (2.0 * n));
    });
  if ((norm == Norm::Backward && inverse) || (norm == Norm::Forward && !inverse))
    for (int64_t a : axes)
      for (double &v : y)
        v /= 2.0 * double(shape[a]);
  return y;
}

double numpyScale(int64_t n, bool inverse, Norm norm) {
  if (norm == Norm::Ortho)
    return 1.0 / std::sqrt(double(n));
  return (norm == Norm::Backward) == inverse ? 1.0 / double(n) : 1.0;
}

} // namespace spectral::reference::test
