//===- ReferenceTransformsTest.cpp - Reference transforms vs FFTW ---------===//
//
// Checks spectral::reference against FFTW in double precision (complex DFT,
// r2c, c2r, REDFT10 = DCT-II, REDFT01 = DCT-III, each with the numpy/scipy
// scaling applied here), checks that every transform is undone by its inverse,
// and checks a few closed forms that need no FFTW at all.
//
//===----------------------------------------------------------------------===//

#include "FftwReference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <string>

namespace {

using namespace spectral::reference;
using namespace spectral::reference::test;

enum class Kind {
  Dft,
  InverseDft,
  Rdft,
  Irdft,
  Dct2,
  Dct3,
  InverseDct2,
  InverseDct3
};

const char *kindName(Kind kind) {
  switch (kind) {
  case Kind::Dft:
    return "dft";
  case Kind::InverseDft:
    return "idft";
  case Kind::Rdft:
    return "rdft";
  case Kind::Irdft:
    return "irdft";
  case Kind::Dct2:
    return "dct2";
  case Kind::Dct3:
    return "dct3";
  case Kind::InverseDct2:
    return "idct2";
  case Kind::InverseDct3:
    return "idct3";
  }
  return "?";
}

const char *normName(Norm norm) {
  switch (norm) {
  case Norm::Backward:
    return "backward";
  case Norm::Ortho:
    return "ortho";
  case Norm::Forward:
    return "forward";
  }
  return "?";
}

//===----------------------------------------------------------------------===//
// Helpers: random data, errors.
//===----------------------------------------------------------------------===//

std::vector<double> randomReals(int64_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> values(count);
  for (double &v : values)
    v = uniform(rng);
  return values;
}

std::vector<Complex> randomComplex(int64_t count, uint64_t seed) {
  std::vector<double> parts = randomReals(2 * count, seed);
  std::vector<Complex> values(count);
  for (int64_t i = 0; i < count; ++i)
    values[i] = {parts[2 * i], parts[2 * i + 1]};
  return values;
}

/// max|y - ref| / max|ref|, the error every comparison here is held to.
template <typename T>
double relativeError(const std::vector<T> &y, const std::vector<T> &ref) {
  EXPECT_EQ(y.size(), ref.size());
  double diff = 0, scale = 0;
  for (size_t i = 0; i < std::min(y.size(), ref.size()); ++i) {
    diff = std::max(diff, std::abs(y[i] - ref[i]));
    scale = std::max(scale, std::abs(ref[i]));
  }
  return diff / std::max(scale, 1e-300);
}

template <typename T> void scaleBy(std::vector<T> &data, double factor) {
  for (T &v : data)
    v *= factor;
}

int64_t transformedCount(const Shape &shape, const Shape &axes) {
  int64_t n = 1;
  for (int64_t a : axes)
    n *= shape[a];
  return n;
}

//===----------------------------------------------------------------------===//
// Parameterized comparison against FFTW plus a round trip.
//===----------------------------------------------------------------------===//

struct Case {
  Kind kind;
  Shape shape;
  Shape axes;
  Norm norm;
  bool roundTrip;
  std::string name;
};

std::string caseName(Kind kind, const Shape &shape, const Shape &axes,
                     Norm norm) {
  std::string name = kindName(kind);
  name += "_";
  for (size_t d = 0; d < shape.size(); ++d)
    name += (d ? "x" : "") + std::to_string(shape[d]);
  name += "_axes";
  for (int64_t a : axes)
    name += std::to_string(a);
  return name + "_" + normName(norm);
}

std::map<std::string, double> &worstErrors() {
  static std::map<std::string, double> worst;
  return worst;
}

void record(const std::string &what, double error) {
  double &worst = worstErrors()[what];
  worst = std::max(worst, error);
}

// The naive sums are accurate to ~1e-14 relative even at N = 4096 (random
// inputs, double accumulation); FFTW is better still. 1e-12 leaves margin.
constexpr double kTolerance = 1e-12;

class ReferenceTransformsTest : public testing::TestWithParam<Case> {
public:
  static void TearDownTestSuite() {
    std::printf("worst relative error per check:\n");
    for (const auto &[what, error] : worstErrors())
      std::printf("  %-22s %.3e\n", what.c_str(), error);
  }
};

TEST_P(ReferenceTransformsTest, MatchesFftwAndRoundTrips) {
  const Case &c = GetParam();
  const Shape &shape = c.shape, &axes = c.axes;
  uint64_t seed = std::hash<std::string>{}(c.name);
  int64_t n = transformedCount(shape, axes);
  std::string kind = kindName(c.kind);

  if (c.kind == Kind::Dft || c.kind == Kind::InverseDft) {
    bool inverse = c.kind == Kind::InverseDft;
    std::vector<Complex> x = randomComplex(elementCount(shape), seed);
    std::vector<Complex> ref =
        fftwDft(x, shape, axes, inverse ? FFTW_BACKWARD : FFTW_FORWARD);
    scaleBy(ref, numpyScale(n, inverse, c.norm));
    std::vector<Complex> y = x;
    dft(y, shape, axes, inverse, c.norm);
    double error = relativeError(y, ref);
    record(kind, error);
    EXPECT_LT(error, kTolerance);
    if (c.roundTrip) {
      dft(y, shape, axes, !inverse, c.norm);
      record(kind + " round trip", relativeError(y, x));
      EXPECT_LT(relativeError(y, x), kTolerance);
    }
  } else if (c.kind == Kind::Rdft) {
    std::vector<double> x = randomReals(elementCount(shape), seed);
    std::vector<Complex> ref = fftwR2c(x, shape, axes);
    scaleBy(ref, numpyScale(n, false, c.norm));
    Shape outShape;
    std::vector<Complex> y = rdft(x, shape, axes, c.norm, outShape);
    EXPECT_EQ(outShape, halfShape(shape, axes.back()));
    double error = relativeError(y, ref);
    record(kind, error);
    EXPECT_LT(error, kTolerance);
    if (c.roundTrip) {
      Shape backShape;
      std::vector<double> back =
          irdft(y, outShape, axes, shape[axes.back()], c.norm, backShape);
      EXPECT_EQ(backShape, shape);
      record(kind + " round trip", relativeError(back, x));
      EXPECT_LT(relativeError(back, x), kTolerance);
    }
  } else if (c.kind == Kind::Irdft) {
    // A Hermitian-consistent spectrum (the r2c of random reals), compared
    // with FFTW's multi-dimensional c2r.
    int64_t length = shape[axes.back()];
    Shape half = halfShape(shape, axes.back());
    std::vector<Complex> spectrum =
        fftwR2c(randomReals(elementCount(shape), seed), shape, axes);
    std::vector<double> ref = fftwC2r(spectrum, shape, axes);
    scaleBy(ref, numpyScale(n, true, c.norm));
    Shape outShape;
    std::vector<double> y =
        irdft(spectrum, half, axes, length, c.norm, outShape);
    EXPECT_EQ(outShape, shape);
    double error = relativeError(y, ref);
    record(kind, error);
    EXPECT_LT(error, kTolerance);

    // An arbitrary spectrum: numpy.fft.irfftn is inverse complex DFTs along
    // the other axes, then a 1-D c2r (which drops Im of DC and Nyquist).
    std::vector<Complex> arbitrary =
        randomComplex(elementCount(half), seed + 1);
    std::vector<double> refArbitrary = numpyIrfft(arbitrary, shape, axes);
    scaleBy(refArbitrary, numpyScale(n, true, c.norm));
    std::vector<double> yArbitrary =
        irdft(arbitrary, half, axes, length, c.norm, outShape);
    record(kind + " arbitrary input", relativeError(yArbitrary, refArbitrary));
    EXPECT_LT(relativeError(yArbitrary, refArbitrary), kTolerance);

    if (c.roundTrip) {
      Shape backShape;
      std::vector<Complex> back = rdft(y, shape, axes, c.norm, backShape);
      record(kind + " round trip", relativeError(back, spectrum));
      EXPECT_LT(relativeError(back, spectrum), kTolerance);
    }
  } else {
    int type = (c.kind == Kind::Dct2 || c.kind == Kind::InverseDct2) ? 2 : 3;
    bool inverse = c.kind == Kind::InverseDct2 || c.kind == Kind::InverseDct3;
    std::vector<double> x = randomReals(elementCount(shape), seed);
    std::vector<double> ref = scipyDct(x, shape, axes, type, inverse, c.norm);
    std::vector<double> y = x;
    dct(y, shape, axes, type, inverse, c.norm);
    double error = relativeError(y, ref);
    record(kind, error);
    EXPECT_LT(error, kTolerance);
    if (c.roundTrip) {
      dct(y, shape, axes, type, !inverse, c.norm);
      record(kind + " round trip", relativeError(y, x));
      EXPECT_LT(relativeError(y, x), kTolerance);
    }
  }
}

/// Every length in 1-D, 2-D and 3-D, with the tested length in each position,
/// over all axes, a proper subset, and an order where the last listed axis
/// (the halved one for rdft) is not the innermost. Lengths >= 1000 use batch
/// extents of 2, take one norm per multi-dimensional layout (cycling through
/// all three) and skip the multi-dimensional round trips, to keep the O(N^2)
/// loops within a few seconds.
std::vector<Case> allCases() {
  const Kind kinds[] = {Kind::Dft,         Kind::InverseDft, Kind::Rdft,
                        Kind::Irdft,       Kind::Dct2,       Kind::Dct3,
                        Kind::InverseDct2, Kind::InverseDct3};
  const Norm norms[] = {Norm::Backward, Norm::Ortho, Norm::Forward};
  std::vector<Case> cases;
  std::set<std::string> seen;
  auto add = [&](Kind kind, const Shape &shape, const Shape &axes, Norm norm,
                 bool roundTrip) {
    std::string name = caseName(kind, shape, axes, norm);
    if (seen.insert(name).second)
      cases.push_back({kind, shape, axes, norm, roundTrip, name});
  };

  for (int64_t length : {1, 2, 3, 5, 7, 16, 28, 97, 128, 1000, 4096}) {
    bool large = length >= 1000;
    int64_t a = large ? 2 : 3, b = 2;
    std::vector<std::pair<Shape, Shape>> layouts = {
        {{length, a}, {0, 1}},       {{length, a}, {1, 0}},
        {{length, a}, {0}},          {{a, length}, {0, 1}},
        {{a, length}, {1, 0}},       {{a, length}, {1}},
        {{length, a, b}, {0, 1, 2}}, {{length, a, b}, {2, 0}},
        {{a, length, b}, {0, 1, 2}}, {{a, length, b}, {1}},
        {{a, b, length}, {0, 1, 2}}, {{a, b, length}, {2, 0}}};
    if (!large) // Subsets that leave the tested length untransformed.
      layouts.insert(layouts.end(), {{{length, a}, {1}}, {{a, length}, {0}}});
    if (length <= 28)
      layouts.insert(layouts.end(), {{{length, length}, {0, 1}},
                                     {{length, length}, {1}},
                                     {{length, length, length}, {0, 1, 2}},
                                     {{length, length, length}, {1}},
                                     {{length, length, length}, {2, 0}}});
    for (Kind kind : kinds) {
      for (Norm norm : norms)
        add(kind, {length}, {0}, norm, /*roundTrip=*/true);
      for (size_t l = 0; l < layouts.size(); ++l) {
        const auto &[shape, axes] = layouts[l];
        if (large)
          add(kind, shape, axes, norms[l % 3], /*roundTrip=*/false);
        else
          for (Norm norm : norms)
            add(kind, shape, axes, norm, /*roundTrip=*/true);
      }
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(AgainstFftw, ReferenceTransformsTest,
                         testing::ValuesIn(allCases()),
                         [](const testing::TestParamInfo<Case> &info) {
                           return info.param.name;
                         });

//===----------------------------------------------------------------------===//
// Closed forms, independent of FFTW.
//===----------------------------------------------------------------------===//

TEST(ReferenceTransformsClosedForm, DeltaTransformsToOnes) {
  Shape shape = {5, 4, 3};
  std::vector<Complex> data(elementCount(shape));
  data[0] = 1.0;
  dft(data, shape, {0, 1, 2}, /*inverse=*/false, Norm::Backward);
  for (Complex v : data)
    EXPECT_EQ(v, Complex(1.0, 0.0));
}

TEST(ReferenceTransformsClosedForm, ConstantTransformsToScaledDelta) {
  for (int64_t n : {1, 6, 97, 1000}) {
    std::vector<Complex> data(n, Complex(0.5, -2.0));
    dft(data, {n}, {0}, /*inverse=*/false, Norm::Backward);
    EXPECT_NEAR(std::abs(data[0] - Complex(0.5, -2.0) * double(n)), 0.0,
                1e-12 * n);
    for (int64_t k = 1; k < n; ++k)
      EXPECT_NEAR(std::abs(data[k]), 0.0, 1e-12 * n) << "n=" << n << " k=" << k;

    std::vector<double> ones(n, 1.0);
    dct(ones, {n}, {0}, 2, /*inverse=*/false, Norm::Backward);
    EXPECT_NEAR(ones[0], 2.0 * n, 1e-12 * n);
    for (int64_t k = 1; k < n; ++k)
      EXPECT_NEAR(ones[k], 0.0, 1e-12 * n) << "n=" << n << " k=" << k;
  }
}

TEST(ReferenceTransformsClosedForm, ShiftedDeltaIsAPureTone) {
  // x = delta at (1, 2) of a 4 x 8 array: X[k0, k1] = exp(-2 pi i (k0 + k1) /
  // 4), whose values are exactly 1, -i, -1, i: quarter-turn twiddles are exact.
  Shape shape = {4, 8};
  std::vector<Complex> data(elementCount(shape));
  data[1 * 8 + 2] = 1.0;
  dft(data, shape, {0, 1}, /*inverse=*/false, Norm::Backward);
  const Complex powers[] = {{1, 0}, {0, -1}, {-1, 0}, {0, 1}};
  for (int64_t k0 = 0; k0 < 4; ++k0)
    for (int64_t k1 = 0; k1 < 8; ++k1)
      EXPECT_EQ(data[k0 * 8 + k1], powers[(k0 + k1) % 4]);
}

TEST(ReferenceTransformsClosedForm, ParsevalUnderOrtho) {
  Shape shape = {7, 6, 5};
  auto energy = [](const auto &values) {
    double sum = 0;
    for (auto v : values)
      sum += std::norm(v);
    return sum;
  };
  std::vector<Complex> z = randomComplex(elementCount(shape), 1);
  double before = energy(z);
  dft(z, shape, {2, 0, 1}, /*inverse=*/false, Norm::Ortho);
  EXPECT_NEAR(energy(z), before, 1e-13 * before);

  for (int type : {2, 3}) {
    std::vector<double> x = randomReals(elementCount(shape), 2);
    before = energy(x);
    dct(x, shape, {0, 1, 2}, type, /*inverse=*/false, Norm::Ortho);
    EXPECT_NEAR(energy(x), before, 1e-13 * before) << "type " << type;
  }
}

TEST(ReferenceTransformsClosedForm, IrdftIgnoresImaginaryDcAndNyquist) {
  for (int64_t n : {6, 7}) {
    std::vector<Complex> spectrum(n / 2 + 1);
    spectrum[0] = {2.0, 5.0};
    if (n % 2 == 0)
      spectrum[n / 2] = {0.0, -3.0};
    Shape outShape;
    std::vector<double> x =
        irdft(spectrum, {n / 2 + 1}, {0}, n, Norm::Forward, outShape);
    for (double v : x)
      EXPECT_EQ(v, 2.0);
  }
}

TEST(ReferenceTransformsClosedForm, RdftIsTheHalfOfTheComplexDft) {
  Shape shape = {5, 6};
  std::vector<double> x = randomReals(elementCount(shape), 3);
  std::vector<Complex> full(x.begin(), x.end());
  dft(full, shape, {0, 1}, /*inverse=*/false, Norm::Backward);
  Shape outShape;
  // The last listed axis is 0, so axis 0 is halved (5 -> 3).
  std::vector<Complex> half = rdft(x, shape, {1, 0}, Norm::Backward, outShape);
  ASSERT_EQ(outShape, (Shape{3, 6}));
  for (int64_t k0 = 0; k0 < 3; ++k0)
    for (int64_t k1 = 0; k1 < 6; ++k1)
      EXPECT_NEAR(std::abs(half[k0 * 6 + k1] - full[k0 * 6 + k1]), 0.0, 1e-13);
}

} // namespace
