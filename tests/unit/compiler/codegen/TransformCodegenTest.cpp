// TransformCodegenTest.cpp - fft, ifft, rfft, irfft, dct and idct through
// codegen and the FFT planner on the host device, against the reference
// evaluator (itself checked against FFTW).
#include "tests/unit/compiler/codegen/CodegenTestUtil.h"

#include <gtest/gtest.h>

namespace spectral::testing {
namespace {

std::string unary(const std::string &in, const std::string &out, const std::string &body) {
  return "func.func @main(%x: " + in + ") -> " + out + " {\n  %r = " + body +
         "\n  return %r : " + out + "\n}\n";
}

std::string axesText(const std::vector<int64_t> &axes) {
  std::string text = "[";
  for (size_t i = 0; i < axes.size(); ++i) text += (i ? ", " : "") + std::to_string(axes[i]);
  return text + "]";
}

struct Case {
  std::vector<int64_t> shape, axes;
  const char *norm;
};

const Case kCases[] = {
    {{4, 16}, {1}, "backward"},        {{3, 7}, {1}, "ortho"},
    {{5, 12}, {0}, "forward"},         {{2, 97}, {1}, "backward"},
    {{6, 10, 3}, {1}, "ortho"},        {{4, 8, 6}, {0, 2}, "backward"},
    {{3, 5, 4}, {2, 0, 1}, "forward"}, {{1, 1}, {0, 1}, "ortho"},
    {{2, 4096}, {1}, "backward"},      {{1, 8192}, {1}, "ortho"},
    {{2, 2053}, {1}, "backward"},      {{1, 1000}, {1}, "forward"},
};

class Transforms : public ::testing::TestWithParam<Case> {};

TEST_P(Transforms, ComplexForwardAndInverse) {
  const Case &c = GetParam();
  for (const char *element : {"complex<f32>", "complex<f64>"})
    for (const char *op : {"fft", "ifft"}) {
      std::string t = tensorType(c.shape, element);
      expectMatchesReference(unary(t, t,
                                   std::string("spectral.") + op + " %x axes " + axesText(c.axes) +
                                       " norm " + c.norm + " : " + t));
    }
}

TEST_P(Transforms, RealForwardAndInverse) {
  const Case &c = GetParam();
  for (const char *real : {"f32", "f64"}) {
    std::string complex = std::string("complex<") + real + ">";
    std::vector<int64_t> half = c.shape;
    half[c.axes.back()] = c.shape[c.axes.back()] / 2 + 1;
    std::string in = tensorType(c.shape, real), out = tensorType(half, complex);
    expectMatchesReference(unary(
        in, out, "spectral.rfft %x axes " + axesText(c.axes) + " norm " + c.norm + " : " + in));
    expectMatchesReference(unary(out, in,
                                 "spectral.irfft %x axes " + axesText(c.axes) + " length " +
                                     std::to_string(c.shape[c.axes.back()]) + " norm " + c.norm +
                                     " : " + out));
  }
}

TEST_P(Transforms, CosineTransformsOfBothTypes) {
  const Case &c = GetParam();
  if (c.shape[c.axes.back()] > 4096 && c.axes.size() > 1) GTEST_SKIP();
  for (const char *real : {"f32", "f64"})
    for (const char *op : {"dct", "idct"})
      for (int type : {2, 3}) {
        std::string t = tensorType(c.shape, real);
        expectMatchesReference(unary(t, t,
                                     std::string("spectral.") + op + " %x axes " +
                                         axesText(c.axes) + " type " + std::to_string(type) +
                                         " norm " + c.norm + " : " + t));
      }
}

INSTANTIATE_TEST_SUITE_P(Codegen, Transforms, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case> &info) {
                           std::string name;
                           for (int64_t d : info.param.shape) name += std::to_string(d) + "x";
                           name += "_axes";
                           for (int64_t a : info.param.axes) name += std::to_string(a);
                           return name + "_" + info.param.norm;
                         });

TEST(TransformCodegen, SpectralConvolutionExampleShape) {
  expectMatchesReference(
      "func.func @main(%x: tensor<2x4x64xf32>, %w: tensor<4x17xcomplex<f32>>) -> "
      "tensor<2x4x64xf32> {\n"
      "  %s = spectral.rfft %x axes [2] : tensor<2x4x64xf32>\n"
      "  %m = spectral.slice %s start [0, 0, 0] limit [2, 4, 17] : tensor<2x4x33xcomplex<f32>>\n"
      "  %y = spectral.mul %m, %w : tensor<2x4x17xcomplex<f32>>, tensor<4x17xcomplex<f32>>\n"
      "  %p = spectral.pad %y low [0, 0, 0] high [0, 0, 16] : tensor<2x4x17xcomplex<f32>>\n"
      "  %r = spectral.irfft %p axes [2] length 64 : tensor<2x4x33xcomplex<f32>>\n"
      "  return %r : tensor<2x4x64xf32>\n}\n");
}

/// The planner's units are gated in the template tests; this covers the
/// ones codegen adds around them (the orthonormal DCT's first-entry scale).
class TransformNvrtc : public ::testing::TestWithParam<std::string> {};

TEST_P(TransformNvrtc, UnitsCompileWithoutSpills) {
  std::map<std::string, CompiledKernel> compiled = expectCleanCubins(
      {unary("tensor<6x10xf32>", "tensor<6x10xf32>",
             "spectral.dct %x axes [1] type 2 norm ortho : tensor<6x10xf32>"),
       unary("tensor<6x10xf64>", "tensor<6x10xf64>",
             "spectral.idct %x axes [0] type 2 norm ortho : tensor<6x10xf64>")},
      GetParam());
  EXPECT_EQ(compiled.count("scale_first_f32"), 1u);
  EXPECT_EQ(compiled.count("scale_first_f64"), 1u);
}

INSTANTIATE_TEST_SUITE_P(Archs, TransformNvrtc, ::testing::Values("sm_80", "sm_90"));

} // namespace
} // namespace spectral::testing
