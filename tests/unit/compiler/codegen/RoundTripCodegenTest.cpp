// RoundTripCodegenTest.cpp - a transform, a pointwise filter of its spectrum
// and the inverse transform as one kernel per line (fft_roundtrip_batched,
// fft_real_roundtrip_batched), on the host device against the reference
// evaluator, and through NVRTC's gate.
#include "tests/unit/compiler/codegen/CodegenTestUtil.h"

#include <gtest/gtest.h>

namespace spectral::testing {
namespace {

/// A complex round trip along `axis` of `shape`: fft (norm `norm`), times
/// weights broadcast from the axis' own shape, `unary` (exp where the norm
/// keeps the spectrum small, else neg), ifft, conj.
std::string complexFilter(const std::string &shape, const std::string &weights, int axis,
                          const std::string &norm, const std::string &element) {
  const std::string unary = norm == "backward" ? "neg" : "exp";
  std::string c = "tensor<" + shape + "xcomplex<" + element + ">>",
              w = "tensor<" + weights + "xcomplex<" + element + ">>", ax = std::to_string(axis);
  return fusion({c, w}, {c},
                "    %f = spectral.fft %a axes [" + ax + "] norm " + norm + " : " + c + "\n"
                "    %m = spectral.mul %f, %b : " + c + ", " + w + "\n"
                "    %e = spectral." + unary + " %m : " + c + "\n"
                "    %g = spectral.ifft %e axes [" + ax + "] norm " + norm + " : " + c + "\n"
                "    %h = spectral.conj %g : " + c + "\n"
                "    spectral.yield %h : " + c);
}

/// y = irfft(rfft(tanh x) * w) + b along the last axis of [rows, n].
std::string realFilter(int64_t rows, int64_t n, const std::string &norm, const std::string &element) {
  std::string x = "tensor<" + std::to_string(rows) + "x" + std::to_string(n) + "x" + element + ">",
              bins = std::to_string(n / 2 + 1),
              s = "tensor<" + std::to_string(rows) + "x" + bins + "xcomplex<" + element + ">>",
              w = "tensor<" + bins + "xcomplex<" + element + ">>",
              b = "tensor<" + std::to_string(n) + "x" + element + ">";
  return fusion({x, w, b}, {x},
                "    %t = spectral.tanh %a : " + x + "\n"
                "    %f = spectral.rfft %t axes [1] norm " + norm + " : " + x + "\n"
                "    %m = spectral.mul %f, %b : " + s + ", " + w + "\n"
                "    %g = spectral.irfft %m axes [1] length " + std::to_string(n) + " norm " +
                    norm + " : " + s + "\n"
                "    %y = spectral.add %g, %c : " + x + ", " + b + "\n"
                "    spectral.yield %y : " + x);
}

TEST(RoundTrips, ComplexFiltersRunAsOneKernel) {
  // Contiguous and strided axes, every norm, float and double, the longest
  // in-block length and mixed radices.
  EXPECT_EQ(expectMatchesReference(complexFilter("6x64", "64", 1, "ortho", "f32")), 1);
  EXPECT_EQ(expectMatchesReference(complexFilter("60x3x5", "60x1x1", 0, "forward", "f32")), 1);
  EXPECT_EQ(expectMatchesReference(complexFilter("2x2048", "2048", 1, "backward", "f32")), 1);
  EXPECT_EQ(expectMatchesReference(complexFilter("3x7x5", "7x5", 1, "ortho", "f64")), 1);
}

TEST(RoundTrips, PhasedAndFiberRunsGiveTheSameBits) {
  // The round trips' phased forms (host_emulation.h, "Phased kernels")
  // against every CUDA thread as a fiber, on the same inputs: a line at a
  // time (6 lines), and a SIMD width of lines at once, a lane each (40; the
  // 15 of a strided axis, the last group not full).
  expectPhasedMatchesFibers(
      {complexFilter("6x64", "64", 1, "ortho", "f32"),
       complexFilter("40x64", "64", 1, "backward", "f64"),
       complexFilter("60x3x5", "60x1x1", 0, "forward", "f32"),
       complexFilter("3x7x5", "7x5", 1, "ortho", "f64"), realFilter(5, 6, "ortho", "f32"),
       realFilter(9, 256, "backward", "f32"), realFilter(4, 120, "forward", "f64"),
       realFilter(300, 256, "ortho", "f32"),  // runs of blocks
       complexFilter("300x64", "64", 1, "ortho", "f32")});
}

TEST(RoundTrips, RealFiltersRunAsOneKernel) {
  // Half lengths 1, 3 (a bin pair and its middle), 128 and the longest
  // (2048); the complex weights make the DC and Nyquist bins complex, whose
  // imaginary parts the inverse drops.
  EXPECT_EQ(expectMatchesReference(realFilter(3, 2, "backward", "f32")), 1);
  EXPECT_EQ(expectMatchesReference(realFilter(5, 6, "ortho", "f32")), 1);
  EXPECT_EQ(expectMatchesReference(realFilter(7, 256, "forward", "f32")), 1);
  EXPECT_EQ(expectMatchesReference(realFilter(2, 4096, "backward", "f32")), 1);
  EXPECT_EQ(expectMatchesReference(realFilter(4, 30, "ortho", "f64")), 1);
}

TEST(RoundTrips, StridedRealAxisWithSeveralResults) {
  // rfft along the middle axis; the region yields the inverse's result and
  // a value computed from it.
  std::string x = "tensor<3x16x5xf32>", s = "tensor<3x9x5xcomplex<f32>>";
  EXPECT_EQ(expectMatchesReference(fusion(
                {x, "tensor<9x1xf32>"}, {x, x},
                "    %f = spectral.rfft %a axes [1] : " + x + "\n"
                "    %w = spectral.cast %b : tensor<9x1xf32> to tensor<9x1xcomplex<f32>>\n"
                "    %m = spectral.mul %f, %w : " + s + ", tensor<9x1xcomplex<f32>>\n"
                "    %g = spectral.irfft %m axes [1] length 16 : " + s + "\n"
                "    %r = spectral.relu %g : " + x + "\n"
                "    spectral.yield %g, %r : " + x + ", " + x)),
            1);
}

TEST(RoundTrips, EpiloguesReadConstantsAndOtherTypes) {
  // A splat constant comes first in a region: the store still computes
  // from it; a real part of the inverse is stored as a real; an empty filter
  // (norms that differ, so the pair does not fold) is the identity.
  std::string c = "tensor<4x16xcomplex<f32>>", r = "tensor<4x16xf32>";
  EXPECT_EQ(expectMatchesReference(fusion({c}, {r},
                                          "    %h = spectral.constant dense<0.5> : " + r + "\n"
                                          "    %f = spectral.fft %a axes [1] : " + c + "\n"
                                          "    %m = spectral.mul %f, %f : " + c + ", " + c + "\n"
                                          "    %g = spectral.ifft %m axes [1] : " + c + "\n"
                                          "    %re = spectral.real %g : " + c + "\n"
                                          "    %y = spectral.mul %re, %h : " + r + ", " + r + "\n"
                                          "    spectral.yield %y : " + r)),
            1);
  EXPECT_EQ(expectMatchesReference(fusion({c}, {c},
                                          "    %f = spectral.fft %a axes [1] norm forward : " + c + "\n"
                                          "    %g = spectral.ifft %f axes [1] : " + c + "\n"
                                          "    spectral.yield %g : " + c)),
            1);
}

TEST(RoundTrips, OtherShapesFallBackAndAgree) {
  // Beyond a round trip's 256 threads (4096 complex points, 8192 reals) or
  // one block (8192 complex points: four-step), two axes, the filtered
  // spectrum also yielded: the region runs op by op, results agree.
  EXPECT_EQ(expectMatchesReference(complexFilter("2x4096", "4096", 1, "ortho", "f32")), 5);
  EXPECT_EQ(expectMatchesReference(realFilter(2, 8192, "backward", "f32")), 5);
  EXPECT_GT(expectMatchesReference(complexFilter("1x8192", "8192", 1, "backward", "f32")), 2);
  std::string c = "tensor<4x8xcomplex<f32>>";
  EXPECT_GT(expectMatchesReference(fusion({c}, {c},
                                          "    %f = spectral.fft %a axes [0, 1] : " + c + "\n"
                                          "    %g = spectral.ifft %f axes [0, 1] : " + c + "\n"
                                          "    spectral.yield %g : " + c)),
            1);
  EXPECT_GT(expectMatchesReference(fusion({c}, {c, c},
                                          "    %f = spectral.fft %a axes [1] : " + c + "\n"
                                          "    %m = spectral.mul %f, %f : " + c + ", " + c + "\n"
                                          "    %g = spectral.ifft %m axes [1] : " + c + "\n"
                                          "    spectral.yield %g, %m : " + c + ", " + c)),
            1);
}

class RoundTripNvrtc : public ::testing::TestWithParam<std::string> {};

TEST_P(RoundTripNvrtc, UnitsCompileWithoutSpills) {
  std::map<std::string, CompiledKernel> compiled = expectCleanCubins(
      {complexFilter("2x2048", "2048", 1, "backward", "f32"),
       complexFilter("3x7x5", "7x5", 1, "ortho", "f64"), realFilter(2, 4096, "backward", "f32"),
       realFilter(4, 1024, "ortho", "f64")},
      GetParam());
  int roundTrips = 0;
  for (const auto &[entry, kernel] : compiled)
    roundTrips += entry.find("_roundtrip_") != std::string::npos;
  EXPECT_EQ(roundTrips, 4);
}

INSTANTIATE_TEST_SUITE_P(Archs, RoundTripNvrtc, ::testing::Values("sm_80", "sm_90"));

} // namespace
} // namespace spectral::testing
