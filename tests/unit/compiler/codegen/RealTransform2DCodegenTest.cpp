// RealTransform2DCodegenTest.cpp - rfft and irfft over the last two axes of
// small images as one fft_real2d.cuh kernel per region (a block per image),
// with mode truncation in the rfft's store and a zero padding in the
// irfft's load, on the host device against the reference evaluator, and
// through NVRTC's gate.
#include "tests/unit/compiler/codegen/CodegenTestUtil.h"

#include <gtest/gtest.h>

namespace spectral::testing {
namespace {

struct Image {
  std::vector<int64_t> lead;  // the axes before the image
  int64_t h, w;
  std::string element = "f32", norm = "backward";

  std::vector<int64_t> shape(int64_t rows, int64_t cols) const {
    std::vector<int64_t> s = lead;
    s.push_back(rows);
    s.push_back(cols);
    return s;
  }
  std::string real() const { return tensorType(shape(h, w), element); }
  std::string spectrum() const { return tensorType(shape(h, w / 2 + 1), "complex<" + element + ">"); }
  std::string axes() const {
    return "axes [" + std::to_string(lead.size()) + ", " + std::to_string(lead.size() + 1) + "]";
  }
};

/// conj(rfft2(tanh(x))): the whole spectrum, computed in the load and store.
std::string wholeSpectrum(const Image &m) {
  return fusion({m.real()}, {m.spectrum()},
                "    %t = spectral.tanh %a : " + m.real() + "\n"
                "    %s = spectral.rfft %t " + m.axes() + " norm " + m.norm + " : " + m.real() + "\n"
                "    %e = spectral.conj %s : " + m.spectrum() + "\n"
                "    spectral.yield %e : " + m.spectrum());
}

/// The two corners of an FNO layer (rows [0, modes) and [h - modes, h),
/// columns [0, modes)), joined along the rows, and the low corner alone.
std::string corners(const Image &m, int64_t modes) {
  const std::string z = "complex<" + m.element + ">";
  std::string corner = tensorType(m.shape(modes, modes), z),
              both = tensorType(m.shape(2 * modes, modes), z);
  auto zeros = [&](int64_t row) {
    std::string text;
    for (size_t d = 0; d < m.lead.size(); ++d) text += "0, ";
    return text + std::to_string(row) + ", 0";
  };
  auto limit = [&](int64_t row) {
    std::string text;
    for (int64_t d : m.lead) text += std::to_string(d) + ", ";
    return text + std::to_string(row) + ", " + std::to_string(modes);
  };
  const int64_t axis = int64_t(m.lead.size());
  return fusion({m.real()}, {both, corner},
                "    %s = spectral.rfft %a " + m.axes() + " norm " + m.norm + " : " + m.real() + "\n"
                "    %lo = spectral.slice %s start [" + zeros(0) + "] limit [" + limit(modes) +
                    "] : " + m.spectrum() + "\n"
                "    %hi = spectral.slice %s start [" + zeros(m.h - modes) + "] limit [" +
                    limit(m.h) + "] : " + m.spectrum() + "\n"
                "    %c = spectral.concat %lo, %hi axis " + std::to_string(axis) + " : " + corner +
                    ", " + corner + "\n"
                "    %n = spectral.neg %lo : " + corner + "\n"
                "    spectral.yield %c, %n : " + both + ", " + corner);
}

/// gelu(irfft2(pad(y)) + bias): the modes below `modes` columns, zero above.
std::string paddedInverse(const Image &m, int64_t modes) {
  const std::string z = "complex<" + m.element + ">";
  std::string kept = tensorType(m.shape(m.h, modes), z), bias = tensorType({m.w}, m.element);
  std::string low, high;
  for (size_t d = 0; d < m.lead.size(); ++d) {
    low += "0, ";
    high += "0, ";
  }
  return fusion({kept, bias}, {m.real()},
                "    %pd = spectral.pad %a low [" + low + "0, 0] high [" + high + "0, " +
                    std::to_string(m.w / 2 + 1 - modes) + "] : " + kept + "\n"
                "    %y = spectral.irfft %pd " + m.axes() + " length " + std::to_string(m.w) +
                    " norm " + m.norm + " : " + m.spectrum() + "\n"
                "    %o = spectral.add %y, %b : " + m.real() + ", " + bias + "\n"
                "    %g = spectral.gelu %o : " + m.real() + "\n"
                "    spectral.yield %g : " + m.real());
}

/// irfft2 of a whole spectrum read as it is.
std::string plainInverse(const Image &m) {
  return fusion({m.spectrum()}, {m.real()},
                "    %y = spectral.irfft %a " + m.axes() + " length " + std::to_string(m.w) +
                    " norm " + m.norm + " : " + m.spectrum() + "\n"
                "    %t = spectral.tanh %y : " + m.real() + "\n"
                "    spectral.yield %t : " + m.real());
}

const std::vector<Image> &images() {
  static const std::vector<Image> all{
      {{4, 3}, 64, 64},                 // the FNO grid: the rows in one pass
      {{5}, 28, 28},                    // Fashion-MNIST: radix 7
      {{2, 2}, 15, 14, "f64", "ortho"}, // odd rows
      {{3}, 1, 6, "f32", "forward"},    // one row
      {{}, 8, 2},                       // two columns, no batch axes
      {{2}, 300, 8},                    // more rows than a pass holds, the last pass part-full
      {{2}, 32, 128},                   // more columns than a pass holds
      {{3}, 16, 48, "f64"},
  };
  return all;
}

TEST(RealTransform2D, WholeSpectrumInOneKernel) {
  for (const Image &m : images())
    EXPECT_EQ(expectMatchesReference(wholeSpectrum(m)), 1) << m.real() << " " << m.norm;
}

TEST(RealTransform2D, CornersKeptInTheStore) {
  EXPECT_EQ(expectMatchesReference(corners({{3, 4}, 64, 64}, 12)), 1);
  EXPECT_EQ(expectMatchesReference(corners({{2}, 28, 28, "f64", "ortho"}, 5)), 1);
  EXPECT_EQ(expectMatchesReference(corners({{2}, 16, 10}, 6)), 1);  // every column kept
}

TEST(RealTransform2D, InverseLoadsOnlyThePaddedModes) {
  EXPECT_EQ(expectMatchesReference(paddedInverse({{2, 3}, 64, 64}, 12)), 1);
  EXPECT_EQ(expectMatchesReference(paddedInverse({{4}, 28, 28, "f64", "forward"}, 15)), 1);
  EXPECT_EQ(expectMatchesReference(paddedInverse({{2}, 9, 12}, 1)), 1);
}

TEST(RealTransform2D, PhasedAndFiberRunsGiveTheSameBits) {
  // The rows, then the columns, V at once, against every CUDA thread a
  // fiber: kept corners, a padded inverse, the whole spectrum, doubles,
  // and images whose half rows are as long as their columns (W/2 == H).
  expectPhasedMatchesFibers({corners({{3}, 28, 28}, 15), paddedInverse({{2}, 64, 64}, 12),
                             wholeSpectrum({{2}, 12, 20}), plainInverse({{2}, 16, 48, "f64"}),
                             wholeSpectrum({{2}, 16, 32}), plainInverse({{3}, 8, 16})});
}

TEST(RealTransform2D, InverseOfAWholeSpectrum) {
  // Arbitrary bins: the imaginary parts of each row's DC and Nyquist bins
  // are ignored, as numpy's irfft2 ignores them.
  for (const Image &m : images())
    EXPECT_EQ(expectMatchesReference(plainInverse(m)), 1) << m.real() << " " << m.norm;
}

TEST(RealTransform2D, TheSpectrumAsItIsFromAComputedImage) {
  // Nothing after the transform: the store writes the view of shared memory.
  for (const Image &m : {Image{{4, 3}, 64, 64}, Image{{2}, 15, 14, "f64", "ortho"}})
    EXPECT_EQ(expectMatchesReference(fusion({m.real()}, {m.spectrum()},
                                            "    %t = spectral.tanh %a : " + m.real() + "\n"
                                            "    %s = spectral.rfft %t " + m.axes() + " norm " +
                                                m.norm + " : " + m.real() + "\n"
                                            "    spectral.yield %s : " + m.spectrum())),
              1)
        << m.real();
}

TEST(RealTransform2D, AnOpOfItsOwnIsOneKernel) {
  for (const Image &m : {Image{{4, 3}, 64, 64}, Image{{5}, 28, 28, "f64", "forward"}}) {
    EXPECT_EQ(expectMatchesReference(graph("%x: " + m.real(), m.spectrum(),
                                           "spectral.rfft %x " + m.axes() + " norm " + m.norm +
                                               " : " + m.real())),
              1)
        << m.real();
    EXPECT_EQ(expectMatchesReference(graph("%x: " + m.spectrum(), m.real(),
                                           "spectral.irfft %x " + m.axes() + " length " +
                                               std::to_string(m.w) + " norm " + m.norm + " : " +
                                               m.spectrum())),
              1)
        << m.real();
  }
}

TEST(RealTransform2D, OtherShapesGoAxisByAxis) {
  // An odd row length, a prime above 7, an image beyond a block's shared
  // memory: one launch per axis at least, same results.
  EXPECT_GT(expectMatchesReference(wholeSpectrum({{2}, 8, 9})), 1);
  EXPECT_GT(expectMatchesReference(wholeSpectrum({{2}, 11, 8})), 1);
  EXPECT_GT(expectMatchesReference(wholeSpectrum({{1}, 256, 256})), 1);
  EXPECT_GT(expectMatchesReference(plainInverse({{1}, 256, 256})), 1);
}

class RealTransform2DNvrtc : public ::testing::TestWithParam<std::string> {};

TEST_P(RealTransform2DNvrtc, UnitsCompileWithoutSpills) {
  std::map<std::string, CompiledKernel> compiled = expectCleanCubins(
      {wholeSpectrum({{4, 3}, 64, 64}), wholeSpectrum({{2}, 32, 128}),
       corners({{3, 4}, 64, 64}, 12), paddedInverse({{2, 3}, 64, 64}, 12),
       plainInverse({{5}, 28, 28}), plainInverse({{3}, 16, 48, "f64"})},
      GetParam());
  EXPECT_EQ(compiled.size(), 6u);
  for (const auto &[entry, kernel] : compiled)
    EXPECT_TRUE(entry.rfind("rfft2_", 0) == 0 || entry.rfind("irfft2_", 0) == 0) << entry;
}

INSTANTIATE_TEST_SUITE_P(Archs, RealTransform2DNvrtc, ::testing::Values("sm_80", "sm_90"));

} // namespace
} // namespace spectral::testing
