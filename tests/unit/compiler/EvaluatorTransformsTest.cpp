//===- EvaluatorTransformsTest.cpp - spectral transforms vs FFTW ----------===//
//
// Runs spectral.fft / ifft / rfft / irfft / dct / idct through the evaluator,
// one generated module per case, and compares with FFTW in double precision
// (numpy.fft / scipy.fft scaling applied here). Inputs of f32 cases are
// random values rounded to float, so both sides see the same numbers.
//
//===----------------------------------------------------------------------===//

#include "EvaluatorTest.h"
#include "FftwReference.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <set>

namespace spectral::reference::test {
namespace {

enum class Op { Fft, Ifft, Rfft, Irfft, Dct2, Dct3, Idct2, Idct3 };

const char *opName(Op op) {
  switch (op) {
  case Op::Fft: return "fft";
  case Op::Ifft: return "ifft";
  case Op::Rfft: return "rfft";
  case Op::Irfft: return "irfft";
  case Op::Dct2: return "dct2";
  case Op::Dct3: return "dct3";
  case Op::Idct2: return "idct2";
  case Op::Idct3: return "idct3";
  }
  return "?";
}

const char *normName(Norm norm) {
  switch (norm) {
  case Norm::Backward: return "backward";
  case Norm::Ortho: return "ortho";
  case Norm::Forward: return "forward";
  }
  return "?";
}

struct Case {
  Op op;
  Norm norm;
  bool f64;
  Shape shape; // of the real / complex signal (irfft: of its output)
  Shape axes;
  std::string name;
};

//===----------------------------------------------------------------------===//
// The module of a case, and its random input.
//===----------------------------------------------------------------------===//

std::string tensorType(const Shape &shape, const std::string &element) {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + element + ">";
}

std::string list(const Shape &values) {
  std::string s = "[";
  for (size_t i = 0; i < values.size(); ++i)
    s += (i ? ", " : "") + std::to_string(values[i]);
  return s + "]";
}

std::string moduleOf(const Case &c) {
  std::string real = c.f64 ? "f64" : "f32";
  std::string complex = "complex<" + real + ">";
  // Backward and DCT type 2 are the defaults: left out, they test those too.
  std::string norm =
      c.norm == Norm::Backward ? "" : std::string(" norm ") + normName(c.norm);
  std::string axes = " axes " + list(c.axes);
  std::string in, out, body;
  switch (c.op) {
  case Op::Fft:
  case Op::Ifft:
    in = out = tensorType(c.shape, complex);
    body = std::string("spectral.") + opName(c.op) + " %x" + axes + norm + " : " + in;
    break;
  case Op::Rfft:
    in = tensorType(c.shape, real);
    out = tensorType(halfShape(c.shape, c.axes.back()), complex);
    body = "spectral.rfft %x" + axes + norm + " : " + in;
    break;
  case Op::Irfft:
    in = tensorType(halfShape(c.shape, c.axes.back()), complex);
    out = tensorType(c.shape, real);
    body = "spectral.irfft %x" + axes + " length " +
           std::to_string(c.shape[c.axes.back()]) + norm + " : " + in;
    break;
  default: {
    bool inverse = c.op == Op::Idct2 || c.op == Op::Idct3;
    int type = c.op == Op::Dct2 || c.op == Op::Idct2 ? 2 : 3;
    in = out = tensorType(c.shape, real);
    body = std::string(inverse ? "spectral.idct" : "spectral.dct") + " %x" + axes +
           (type == 2 ? "" : " type 3") + norm + " : " + in;
  }
  }
  return "func.func @main(%x: " + in + ") -> " + out + " {\n  %y = " + body +
         "\n  return %y : " + out + "\n}\n";
}

/// Uniform in [-1, 1), rounded to float for f32 cases.
std::vector<double> randomValues(int64_t n, bool f64, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> v(n);
  for (double &x : v)
    x = f64 ? uniform(rng) : double(float(uniform(rng)));
  return v;
}

std::vector<Complex> randomComplex(int64_t n, bool f64, uint64_t seed) {
  std::vector<double> parts = randomValues(2 * n, f64, seed);
  std::vector<Complex> v(n);
  for (int64_t i = 0; i < n; ++i)
    v[i] = {parts[2 * i], parts[2 * i + 1]};
  return v;
}

double relativeError(const std::vector<Complex> &y, const std::vector<Complex> &ref) {
  double diff = 0, scale = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    diff = std::max(diff, std::abs(y[i] - ref[i]));
    scale = std::max(scale, std::abs(ref[i]));
  }
  return diff / std::max(scale, 1e-300);
}

class EvaluatorTransformsTest : public testing::TestWithParam<Case> {};

TEST_P(EvaluatorTransformsTest, MatchesFftw) {
  const Case &c = GetParam();
  uint64_t seed = std::hash<std::string>{}(c.name);
  ElementKind realKind = c.f64 ? K::F64 : K::F32;
  ElementKind complexKind = c.f64 ? K::C128 : K::C64;
  int64_t n = 1;
  for (int64_t a : c.axes)
    n *= c.shape[a];

  Tensor input;
  std::vector<Complex> ref;
  ElementKind outKind = realKind;
  Shape outShape = c.shape;
  switch (c.op) {
  case Op::Fft:
  case Op::Ifft: {
    bool inverse = c.op == Op::Ifft;
    input = makeTensor(complexKind, c.shape, randomComplex(elementCount(c.shape), c.f64, seed));
    ref = fftwDft(input.data, c.shape, c.axes, inverse ? FFTW_BACKWARD : FFTW_FORWARD);
    for (Complex &v : ref)
      v *= numpyScale(n, inverse, c.norm);
    outKind = complexKind;
    break;
  }
  case Op::Rfft: {
    std::vector<double> x = randomValues(elementCount(c.shape), c.f64, seed);
    input = makeTensor(realKind, c.shape, {x.begin(), x.end()});
    ref = fftwR2c(x, c.shape, c.axes);
    for (Complex &v : ref)
      v *= numpyScale(n, false, c.norm);
    outKind = complexKind;
    outShape = halfShape(c.shape, c.axes.back());
    break;
  }
  case Op::Irfft: {
    // An arbitrary half spectrum: Im of the DC and Nyquist bins must be
    // ignored, as numpy and FFTW do.
    Shape half = halfShape(c.shape, c.axes.back());
    input = makeTensor(complexKind, half, randomComplex(elementCount(half), c.f64, seed));
    std::vector<double> y = numpyIrfft(input.data, c.shape, c.axes);
    for (double &v : y)
      v *= numpyScale(n, true, c.norm);
    ref.assign(y.begin(), y.end());
    break;
  }
  default: {
    bool inverse = c.op == Op::Idct2 || c.op == Op::Idct3;
    int type = c.op == Op::Dct2 || c.op == Op::Idct2 ? 2 : 3;
    std::vector<double> x = randomValues(elementCount(c.shape), c.f64, seed);
    input = makeTensor(realKind, c.shape, {x.begin(), x.end()});
    std::vector<double> y = scipyDct(x, c.shape, c.axes, type, inverse, c.norm);
    ref.assign(y.begin(), y.end());
  }
  }

  std::string source = moduleOf(c);
  std::vector<Tensor> out = run(source, {input});
  ASSERT_EQ(out.size(), 1u) << source;
  EXPECT_EQ(elementKindName(out[0].kind), std::string(elementKindName(outKind)));
  ASSERT_EQ(out[0].shape, outShape) << source;
  ASSERT_EQ(out[0].data.size(), ref.size());
  if (outKind == realKind) {
    for (Complex v : out[0].data)
      ASSERT_EQ(v.imag(), 0.0) << "a real result has an imaginary part";
  }
  EXPECT_LT(relativeError(out[0].data, ref), 1e-12) << source;
}

/// Every op, norm and element type for each length in 1-D, 2-D (the length
/// on either axis) and 3-D (all axes, listed out of order so that rfft halves
/// the middle one, and the middle axis alone). The other axes have 3 and 2
/// points. Lengths >= 1000 take every norm and element type in 1-D; in 2-D
/// and 3-D they use 2 and 2 points and one norm / element type per
/// (op, layout), cycling so that each op still meets all of them.
std::vector<Case> allCases() {
  const Op ops[] = {Op::Fft,  Op::Ifft, Op::Rfft,  Op::Irfft,
                    Op::Dct2, Op::Dct3, Op::Idct2, Op::Idct3};
  const Norm norms[] = {Norm::Backward, Norm::Ortho, Norm::Forward};
  std::vector<Case> cases;
  for (int64_t length : {1, 2, 3, 5, 7, 16, 28, 97, 128, 1000, 4096}) {
    bool large = length >= 1000;
    int64_t a = large ? 2 : 3, b = 2;
    const std::vector<std::pair<Shape, Shape>> layouts = {
        {{length}, {0}},
        {{a, length}, {0, 1}},
        {{length, a}, {1, 0}},
        {{a, length, b}, {2, 0, 1}},
        {{a, length, b}, {1}}};
    for (size_t o = 0; o < std::size(ops); ++o)
      for (size_t l = 0; l < layouts.size(); ++l)
        for (size_t v = 0; v < 6; ++v) {
          Norm norm = norms[v % 3];
          bool f64 = v >= 3;
          if (large && l != 0 && v != (o + l) % 6)
            continue;
          const auto &[shape, axes] = layouts[l];
          std::string name = std::string(opName(ops[o])) + "_" + (f64 ? "f64" : "f32");
          for (size_t d = 0; d < shape.size(); ++d)
            name += (d ? "x" : "_") + std::to_string(shape[d]);
          name += "_axes";
          for (int64_t axis : axes)
            name += std::to_string(axis);
          name += std::string("_") + normName(norm);
          cases.push_back({ops[o], norm, f64, shape, axes, name});
        }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(EvaluatorVsFftw, EvaluatorTransformsTest,
                         testing::ValuesIn(allCases()),
                         [](const testing::TestParamInfo<Case> &info) {
                           return info.param.name;
                         });

} // namespace
} // namespace spectral::reference::test

namespace spectral::reference::test {
namespace {

TEST(EvaluatorTransformsLimits, TooCostlyForTheNaiveDftIsAnError) {
  // The naive transforms cost (elements) x (axis length) multiply-adds per
  // axis; above 2^36 they would run for minutes to hours, so they fail at
  // once. Each case costs 2^37 or 2^38, on inputs of only 2^18 or 2^19.
  const int64_t n = int64_t(1) << 18;
  std::string half = std::to_string(n), full = std::to_string(2 * n),
              bins = std::to_string(n + 1);
  struct Costly {
    std::string body, in, out;
    Tensor input;
    std::string length, cost;
  };
  const Costly cases[] = {
      {"spectral.fft %x axes [1]", "tensor<2x" + half + "xcomplex<f32>>",
       "tensor<2x" + half + "xcomplex<f32>>",
       makeTensor(K::C64, {2, n}, std::vector<Complex>(2 * n)), half, "137438953472"},
      {"spectral.dct %x axes [0]", "tensor<" + full + "xf64>", "tensor<" + full + "xf64>",
       makeTensor(K::F64, {2 * n}, std::vector<Complex>(2 * n)), full, "274877906944"},
      {"spectral.rfft %x axes [0]", "tensor<" + full + "xf32>",
       "tensor<" + bins + "xcomplex<f32>>",
       makeTensor(K::F32, {2 * n}, std::vector<Complex>(2 * n)), full, "274877906944"},
      // Counted on the real output, whose length is `length`.
      {"spectral.irfft %x axes [0] length " + full, "tensor<" + bins + "xcomplex<f64>>",
       "tensor<" + full + "xf64>", makeTensor(K::C128, {n + 1}, std::vector<Complex>(n + 1)),
       full, "274877906944"}};
  for (const Costly &c : cases) {
    SCOPED_TRACE(c.body);
    std::string source = "func.func @main(%x: " + c.in + ") -> " + c.out +
                         " {\n  %y = " + c.body + " : " + c.in +
                         "\n  return %y : " + c.out + "\n}\n";
    expectContains(runError(source, {c.input}),
                   {"test.mlir:2", "too large for the naive reference evaluator",
                    "axis of length " + c.length, "cost " + c.cost});
  }
}

} // namespace
} // namespace spectral::reference::test
