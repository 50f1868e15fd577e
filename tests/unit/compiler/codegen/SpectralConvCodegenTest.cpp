// SpectralConvCodegenTest.cpp - a 1-D FNO spectral convolution (rfft, low
// modes, channel_mix, zero padding, irfft) as one fno.cuh kernel per layer,
// on the host device against the reference evaluator, and through NVRTC's gate.
#include "tests/unit/compiler/codegen/CodegenTestUtil.h"

#include <gtest/gtest.h>

namespace spectral::testing {
namespace {

struct Conv {
  int64_t batch, cin, cout, n, modes;
  std::string element = "f32", norm = "backward";
};

std::string tensor(const std::vector<int64_t> &shape, const std::string &element) {
  return tensorType(shape, element);
}

/// gelu(irfft(pad(channel_mix(slice(rfft(x)), w))) + bias) in one region;
/// `computedInputs` computes x (tanh) and the weights (complex of two real
/// parts) in the region too.
std::string spectralConv(const Conv &c, bool computedInputs) {
  const std::string e = c.element, z = "complex<" + e + ">";
  const int64_t bins = c.n / 2 + 1;
  std::string x = tensor({c.batch, c.cin, c.n}, e), spectrum = tensor({c.batch, c.cin, bins}, z),
              kept = tensor({c.batch, c.cin, c.modes}, z),
              w = tensor({c.cin, c.cout, c.modes}, z), wr = tensor({c.cin, c.cout, c.modes}, e),
              mixed = tensor({c.batch, c.cout, c.modes}, z),
              full = tensor({c.batch, c.cout, bins}, z), y = tensor({c.batch, c.cout, c.n}, e),
              bias = tensor({c.cout, 1}, e);
  std::string body, input = "%a", weights = "%b";
  std::vector<std::string> args;
  if (computedInputs) {
    args = {x, wr, wr, bias};
    body += "    %t = spectral.tanh %a : " + x + "\n";
    body += "    %cw = spectral.complex %b, %c : " + wr + ", " + wr + "\n";
    input = "%t";
    weights = "%cw";
  } else {
    args = {x, w, bias};
  }
  const std::string b = computedInputs ? "%d" : "%c";
  body += "    %sp = spectral.rfft " + input + " axes [2] norm " + c.norm + " : " + x + "\n";
  body += "    %l = spectral.slice %sp start [0, 0, 0] limit [" + std::to_string(c.batch) + ", " +
          std::to_string(c.cin) + ", " + std::to_string(c.modes) + "] : " + spectrum + "\n";
  body += "    %m = spectral.channel_mix %l, " + weights + " : " + kept + ", " + w + "\n";
  body += "    %f = spectral.pad %m low [0, 0, 0] high [0, 0, " + std::to_string(bins - c.modes) +
          "] : " + mixed + "\n";
  body += "    %ir = spectral.irfft %f axes [2] length " + std::to_string(c.n) + " norm " + c.norm +
          " : " + full + "\n";
  body += "    %o = spectral.add %ir, " + b + " : " + y + ", " + bias + "\n";
  body += "    %g = spectral.gelu %o : " + y + "\n";
  body += "    spectral.yield %g, %ir : " + y + ", " + y;
  return fusion(args, {y, y}, body);
}

TEST(SpectralConv, OneKernelPerLayer) {
  for (const Conv &c : {Conv{4, 8, 8, 128, 16}, Conv{3, 3, 5, 64, 33},  // every bin kept
                        Conv{2, 6, 2, 30, 1, "f32", "ortho"},          // odd half length
                        Conv{1, 4, 4, 2, 2, "f64", "forward"},         // two points
                        Conv{3, 2, 2, 2048, 12},                       // 256 threads
                        Conv{2, 1, 1, 4096, 40}})                      // the longest
    EXPECT_EQ(expectMatchesReference(spectralConv(c, false)), 1)
        << c.batch << "x" << c.cin << "->" << c.cout << " n " << c.n;
}

TEST(SpectralConv, PhasedAndFiberRunsGiveTheSameBits) {
  // The channels one by one, the mixing, the outputs, against every CUDA
  // thread a fiber (rows past the input channels, every bin kept, doubles).
  expectPhasedMatchesFibers({spectralConv({3, 3, 5, 64, 33}, false),
                             spectralConv({2, 6, 2, 30, 1, "f32", "ortho"}, true),
                             spectralConv({3, 5, 5, 16, 9, "f64", "ortho"}, true)});
}

TEST(SpectralConv, InputAndWeightsComputedInTheLoads) {
  EXPECT_EQ(expectMatchesReference(spectralConv({2, 4, 6, 48, 10}, true)), 1);
  EXPECT_EQ(expectMatchesReference(spectralConv({3, 5, 5, 16, 9, "f64", "ortho"}, true)), 1);
}

TEST(SpectralConv, TheStoreReadsTheComputedInputAndBias) {
  // FNO's residual over a computed input, a computed bias, a complex result.
  std::string x = "tensor<2x4x32xf32>", w = "tensor<4x4x6xcomplex<f32>>",
              z = "tensor<2x4x32xcomplex<f32>>";
  EXPECT_EQ(expectMatchesReference(fusion(
                {x, w, "tensor<4x1xf32>"}, {z},
                "    %t = spectral.tanh %a : " + x + "\n"
                "    %sp = spectral.rfft %t axes [2] : " + x + "\n"
                "    %l = spectral.slice %sp start [0, 0, 0] limit [2, 4, 6] : tensor<2x4x17xcomplex<f32>>\n"
                "    %m = spectral.channel_mix %l, %b : tensor<2x4x6xcomplex<f32>>, " + w + "\n"
                "    %f = spectral.pad %m low [0, 0, 0] high [0, 0, 11] : tensor<2x4x6xcomplex<f32>>\n"
                "    %ir = spectral.irfft %f axes [2] length 32 : tensor<2x4x17xcomplex<f32>>\n"
                "    %e = spectral.exp %c : tensor<4x1xf32>\n"
                "    %o = spectral.add %ir, %t : " + x + ", " + x + "\n"
                "    %qq = spectral.add %o, %e : " + x + ", tensor<4x1xf32>\n"
                "    %y = spectral.complex %qq, %ir : " + x + ", " + x + "\n"
                "    spectral.yield %y : " + z)),
            1);
}

TEST(SpectralConv, OtherShapesGoOpByOp) {
  // More threads than a block of 256 takes (two channels of 256 threads), or
  // more shared memory than 40 KiB (8 channels of 1024 points): op by op,
  // same results.
  EXPECT_GT(expectMatchesReference(spectralConv({1, 2, 2, 4096, 4}, false)), 1);
  EXPECT_GT(expectMatchesReference(spectralConv({1, 8, 8, 2048, 4}, false)), 1);
}

class SpectralConvNvrtc : public ::testing::TestWithParam<std::string> {};

TEST_P(SpectralConvNvrtc, UnitsCompileWithoutSpills) {
  std::map<std::string, CompiledKernel> compiled = expectCleanCubins(
      {spectralConv({4, 8, 8, 128, 16}, false), spectralConv({2, 4, 6, 48, 10}, true),
       spectralConv({3, 2, 2, 2048, 12}, false), spectralConv({2, 1, 1, 4096, 40}, false),
       spectralConv({3, 5, 5, 16, 9, "f64", "ortho"}, true)},
      GetParam());
  EXPECT_EQ(compiled.size(), 5u);
  for (const auto &[entry, kernel] : compiled) EXPECT_EQ(entry.rfind("fno1d_", 0), 0u) << entry;
}

INSTANTIATE_TEST_SUITE_P(Archs, SpectralConvNvrtc, ::testing::Values("sm_80", "sm_90"));

} // namespace
} // namespace spectral::testing
