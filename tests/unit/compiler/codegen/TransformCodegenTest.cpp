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

TEST(FusedTransforms, PrologueAndEpilogueRunInTheTransformsKernels) {
  // One pass: the scaling before and the modulus after live in the FFT's kernel.
  std::string c = "tensor<6x64xcomplex<f32>>", r = "tensor<6x64xf32>";
  EXPECT_EQ(expectMatchesReference(fusion(
                {c, "tensor<64xcomplex<f32>>"}, {r, c},
                "    %w = spectral.mul %a, %b : " + c + ", tensor<64xcomplex<f32>>\n"
                "    %f = spectral.fft %w axes [1] norm ortho : " + c + "\n"
                "    %m = spectral.abs %f : " + c + "\n"
                "    spectral.yield %m, %f : " + r + ", " + c)),
            1);
  // Two axes: the prologue rides on the first pass, the epilogue on the last.
  std::string c2 = "tensor<4x12x10xcomplex<f64>>";
  EXPECT_EQ(expectMatchesReference(fusion(
                {c2}, {c2},
                "    %e = spectral.exp %a : " + c2 + "\n"
                "    %f = spectral.ifft %e axes [1, 2] : " + c2 + "\n"
                "    %g = spectral.conj %f : " + c2 + "\n"
                "    spectral.yield %g : " + c2)),
            2);
}

TEST(FusedTransforms, RealTransformsWithBiasAndActivation) {
  // The tail of an FNO layer: irfft, bias, GELU in one kernel.
  std::string s = "tensor<2x4x33xcomplex<f32>>", y = "tensor<2x4x64xf32>";
  EXPECT_EQ(expectMatchesReference(fusion(
                {s, "tensor<4x1xf32>"}, {y},
                "    %y = spectral.irfft %a axes [2] length 64 : " + s + "\n"
                "    %z = spectral.add %y, %b : " + y + ", tensor<4x1xf32>\n"
                "    %g = spectral.gelu %z : " + y + "\n"
                "    spectral.yield %g : " + y)),
            1);
  // rfft of a real part, over two axes not both last (r2c then a complex
  // pass; the last two axes are one kernel: RealTransform2DCodegenTest).
  std::string z = "tensor<8x3x30xcomplex<f32>>", h = "tensor<8x3x16xcomplex<f32>>";
  EXPECT_EQ(expectMatchesReference(fusion(
                {z}, {h},
                "    %re = spectral.real %a : " + z + "\n"
                "    %f = spectral.rfft %re axes [0, 2] norm forward : tensor<8x3x30xf32>\n"
                "    %s = spectral.mul %f, %f : " + h + ", " + h + "\n"
                "    spectral.yield %s : " + h)),
            2);
}

TEST(FusedTransforms, CosineTransformsAndMultiPassLengths) {
  std::string t = "tensor<5x24xf64>";
  EXPECT_EQ(expectMatchesReference(fusion(
                {t}, {t},
                "    %n = spectral.neg %a : " + t + "\n"
                "    %d = spectral.idct %n axes [1] type 3 norm forward : " + t + "\n"
                "    %r = spectral.relu %d : " + t + "\n"
                "    spectral.yield %r : " + t)),
            1);
  // Four-step (8192 = 64 x 128): the prologue in the column pass, the epilogue in the row pass.
  std::string c = "tensor<2x8192xcomplex<f32>>";
  EXPECT_EQ(expectMatchesReference(fusion({c}, {c},
                                          "    %s = spectral.sqrt %a : " + c + "\n"
                                          "    %f = spectral.fft %s axes [1] : " + c + "\n"
                                          "    %t = spectral.conj %f : " + c + "\n"
                                          "    spectral.yield %t : " + c)),
            2);
  // DCT-III's two loads per element go through the prologue; over two axes
  // each pass keeps its own factor.
  std::string t3 = "tensor<6x10xf32>";
  EXPECT_EQ(expectMatchesReference(fusion({t3}, {t3},
                                          "    %e = spectral.exp %a : " + t3 + "\n"
                                          "    %d = spectral.dct %e axes [0, 1] type 3 : " + t3 + "\n"
                                          "    %s = spectral.sigmoid %d : " + t3 + "\n"
                                          "    spectral.yield %s : " + t3)),
            2);
  std::string t2 = "tensor<7x9xf64>";
  EXPECT_EQ(expectMatchesReference(fusion({t2}, {t2},
                                          "    %e = spectral.abs %a : " + t2 + "\n"
                                          "    %d = spectral.idct %e axes [1, 0] : " + t2 + "\n"
                                          "    spectral.yield %d : " + t2)),
            2);
}

TEST(FusedTransforms, OddPackedMultiPassAndBluesteinPaths) {
  // Odd real lengths run as complex transforms with real adapters.
  std::string x7 = "tensor<3x7xf32>", s7 = "tensor<3x4xcomplex<f32>>";
  EXPECT_EQ(expectMatchesReference(fusion({x7}, {"tensor<3x4xf32>"},
                                          "    %n = spectral.neg %a : " + x7 + "\n"
                                          "    %f = spectral.rfft %n axes [1] : " + x7 + "\n"
                                          "    %m = spectral.abs %f : " + s7 + "\n"
                                          "    spectral.yield %m : tensor<3x4xf32>")),
            1);
  std::string s9 = "tensor<2x5xcomplex<f64>>", x9 = "tensor<2x9xf64>";
  EXPECT_EQ(expectMatchesReference(fusion({s9}, {x9},
                                          "    %c = spectral.conj %a : " + s9 + "\n"
                                          "    %y = spectral.irfft %c axes [1] length 9 : " + s9 + "\n"
                                          "    %r = spectral.relu %y : " + x9 + "\n"
                                          "    spectral.yield %r : " + x9)),
            1);
  // Even real lengths beyond one block: packed around a four-step FFT of
  // the half length (8232 = 2 x 49 x 84).
  std::string xl = "tensor<1x8232xf32>", sl = "tensor<1x4117xcomplex<f32>>";
  expectMatchesReference(fusion({xl}, {sl},
                                "    %n = spectral.sigmoid %a : " + xl + "\n"
                                "    %f = spectral.rfft %n axes [1] : " + xl + "\n"
                                "    %c = spectral.conj %f : " + sl + "\n"
                                "    spectral.yield %c : " + sl));
  expectMatchesReference(fusion({sl}, {xl},
                                "    %c = spectral.conj %a : " + sl + "\n"
                                "    %y = spectral.irfft %c axes [1] length 8232 : " + sl + "\n"
                                "    %r = spectral.neg %y : " + xl + "\n"
                                "    spectral.yield %r : " + xl));
  // Bluestein in one block (97) and multi-pass (2053).
  for (const char *c : {"tensor<3x97xcomplex<f32>>", "tensor<1x2053xcomplex<f32>>"})
    expectMatchesReference(fusion({c}, {c},
                                  std::string("    %e = spectral.exp %a : ") + c + "\n"
                                  "    %f = spectral.ifft %e axes [1] norm ortho : " + c + "\n"
                                  "    %g = spectral.conj %f : " + c + "\n"
                                  "    spectral.yield %g : " + c));
  // An N-D irfft: the prologue feeds the complex pass that writes the scratch.
  std::string s3 = "tensor<6x2x5xcomplex<f32>>", x3 = "tensor<6x2x8xf32>";
  EXPECT_EQ(expectMatchesReference(fusion({s3}, {x3},
                                          "    %e = spectral.neg %a : " + s3 + "\n"
                                          "    %y = spectral.irfft %e axes [0, 2] length 8 : " + s3 + "\n"
                                          "    %g = spectral.gelu %y : " + x3 + "\n"
                                          "    spectral.yield %g : " + x3)),
            2);
}

TEST(FusedTransforms, OtherShapesFallBackToOneKernelPerOp) {
  // The slice after the transform reads other elements: op by op, same results.
  std::string x = "tensor<4x32xf32>", s = "tensor<4x17xcomplex<f32>>";
  EXPECT_EQ(expectMatchesReference(fusion(
                {x}, {"tensor<4x5xcomplex<f32>>"},
                "    %d = spectral.mul %a, %a : " + x + ", " + x + "\n"
                "    %f = spectral.rfft %d axes [1] : " + x + "\n"
                "    %l = spectral.slice %f start [0, 0] limit [4, 5] : " + s + "\n"
                "    spectral.yield %l : tensor<4x5xcomplex<f32>>")),
            3);
  // A transpose of the result, a prologue that can fail, a block argument
  // passed through: op by op as well.
  std::string c = "tensor<4x8xcomplex<f32>>";
  EXPECT_EQ(expectMatchesReference(fusion({c}, {c},
                                          "    %f = spectral.fft %a axes [1] : " + c + "\n"
                                          "    %t = spectral.transpose %f perm [1, 0] : " + c + "\n"
                                          "    %r = spectral.reshape %t : tensor<8x4xcomplex<f32>> -> " + c + "\n"
                                          "    spectral.yield %r : " + c)),
            2);
  EXPECT_EQ(expectMatchesReference(fusion({"tensor<4x8xi32>", "tensor<8xi32>"}, {c},
                                          "    %quot = spectral.div %a, %b : tensor<4x8xi32>, tensor<8xi32>\n"
                                          "    %z = spectral.cast %quot : tensor<4x8xi32> to " + c + "\n"
                                          "    %f = spectral.fft %z axes [1] : " + c + "\n"
                                          "    spectral.yield %f : " + c),
                                   {[] {
                                      HostTensor a{DType::kInt32, {4, 8}, std::vector<uint8_t>(128, 3)};
                                      return a;
                                    }(),
                                    [] {
                                      HostTensor b{DType::kInt32, {8}, std::vector<uint8_t>(32, 1)};
                                      return b;
                                    }()}),
            3);
  EXPECT_EQ(expectMatchesReference(fusion({c}, {c, c},
                                          "    %f = spectral.fft %a axes [1] : " + c + "\n"
                                          "    spectral.yield %f, %a : " + c + ", " + c)),
            1);
  // The orthonormal DCT scales first entries in kernels of its own.
  std::string t = "tensor<3x16xf32>";
  expectMatchesReference(fusion({t}, {t},
                                "    %e = spectral.exp %a : " + t + "\n"
                                "    %d = spectral.dct %e axes [1] norm ortho : " + t + "\n"
                                "    spectral.yield %d : " + t));
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

/// Units with fused prologues and epilogues: in-block complex, packed real,
/// DCT, four-step (both passes), double precision.
TEST_P(TransformNvrtc, FusedUnitsCompileWithoutSpills) {
  std::string c = "tensor<6x64xcomplex<f32>>", y = "tensor<2x4x64xf32>",
              s = "tensor<2x4x33xcomplex<f32>>", d = "tensor<5x24xf64>",
              l = "tensor<2x8192xcomplex<f32>>";
  std::map<std::string, CompiledKernel> compiled = expectCleanCubins(
      {fusion({c, "tensor<64xcomplex<f32>>"}, {"tensor<6x64xf32>"},
              "    %w = spectral.mul %a, %b : " + c + ", tensor<64xcomplex<f32>>\n"
              "    %f = spectral.fft %w axes [1] : " + c + "\n"
              "    %m = spectral.abs %f : " + c + "\n"
              "    spectral.yield %m : tensor<6x64xf32>"),
       fusion({s, "tensor<4x1xf32>"}, {y},
              "    %e = spectral.exp %a : " + s + "\n"
              "    %r = spectral.irfft %e axes [2] length 64 : " + s + "\n"
              "    %z = spectral.add %r, %b : " + y + ", tensor<4x1xf32>\n"
              "    %g = spectral.gelu %z : " + y + "\n"
              "    spectral.yield %g : " + y),
       fusion({d}, {d},
              "    %n = spectral.neg %a : " + d + "\n"
              "    %t = spectral.dct %n axes [1] : " + d + "\n"
              "    %r = spectral.relu %t : " + d + "\n"
              "    spectral.yield %r : " + d),
       fusion({l}, {l},
              "    %q = spectral.sqrt %a : " + l + "\n"
              "    %f = spectral.fft %q axes [1] : " + l + "\n"
              "    %t = spectral.tanh %f : " + l + "\n"
              "    spectral.yield %t : " + l)},
      GetParam());
  int fused = fusedUnits(compiled);
  EXPECT_GE(fused, 5);
}

INSTANTIATE_TEST_SUITE_P(Archs, TransformNvrtc, ::testing::Values("sm_80", "sm_90"));

} // namespace
} // namespace spectral::testing
