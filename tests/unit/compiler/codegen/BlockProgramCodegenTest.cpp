// BlockProgramCodegenTest.cpp - small work in sequence (reductions over any
// axes, softmax, log_softmax, cross_entropy, mse and the elementwise ops
// around them) as one kernel of one block, on the host device against the
// reference evaluator, and through NVRTC's gate.
#include "tests/unit/compiler/codegen/CodegenTestUtil.h"

#include <gtest/gtest.h>

#include <cstring>

namespace spectral::testing {
namespace {

/// One layer of PureFFT's pattern selection and the loss: logits of the
/// patterns, their softmax over the patterns, the pattern-weighted scale,
/// the class scores of the scaled features, the cross entropy.
std::string patternLayer(int64_t batch, const std::string &e) {
  auto t = [&](std::vector<int64_t> s) { return tensorType(s, e); };
  const std::string x = t({batch, 12}), pool = t({5, 12}), layer = t({1, 12}),
                    classes = t({10, 12}), labels = tensorType({batch}, "i32");
  return fusion({x, labels, pool, layer, classes}, {t({}), t({5, 1}), t({batch, 10})},
                "    %sel = spectral.mul %c, %d : " + pool + ", " + layer + "\n"
                "    %lg = spectral.reduce_sum %sel axes [1] keepdims : " + pool + "\n"
                "    %w = spectral.softmax %lg axis 0 : " + t({5, 1}) + "\n"
                "    %pw = spectral.mul %c, %w : " + pool + ", " + t({5, 1}) + "\n"
                "    %scale = spectral.reduce_sum %pw axes [0] : " + pool + "\n"
                "    %y = spectral.mul %a, %scale : " + x + ", " + t({12}) + "\n"
                "    %y3 = spectral.reshape %y : " + x + " -> " + t({batch, 1, 12}) + "\n"
                "    %m = spectral.mul %y3, %e : " + t({batch, 1, 12}) + ", " + classes + "\n"
                "    %sc = spectral.reduce_sum %m axes [2] : " + t({batch, 10, 12}) + "\n"
                "    %loss = spectral.cross_entropy %sc, %b : " + t({batch, 10}) + ", " + labels + "\n"
                "    %th = spectral.tanh %sc : " + t({batch, 10}) + "\n"
                "    spectral.yield %loss, %w, %th : " + t({}) + ", " + t({5, 1}) + ", " +
                    t({batch, 10}));
}

/// reduce_max over the middle axes, log_softmax over the first, a mean over
/// everything, mse between two computed values.
std::string mixedStages(const std::string &e) {
  auto t = [&](std::vector<int64_t> s) { return tensorType(s, e); };
  const std::string x = t({3, 4, 5, 2});
  return fusion({x, t({3, 2})}, {t({3, 1, 1, 2}), t({}), t({})},
                "    %mx = spectral.reduce_max %a axes [1, 2] keepdims : " + x + "\n"
                "    %ls = spectral.log_softmax %mx axis 0 : " + t({3, 1, 1, 2}) + "\n"
                "    %mean = spectral.reduce_mean %ls axes [0, 1, 2, 3] : " + t({3, 1, 1, 2}) + "\n"
                "    %flat = spectral.reshape %mx : " + t({3, 1, 1, 2}) + " -> " + t({3, 2}) + "\n"
                "    %ex = spectral.exp %b : " + t({3, 2}) + "\n"
                "    %err = spectral.mse %flat, %ex : " + t({3, 2}) + "\n"
                "    spectral.yield %ls, %mean, %err : " + t({3, 1, 1, 2}) + ", " + t({}) + ", " +
                    t({}));
}

TEST(BlockProgram, PatternSelectionAndLossInOneKernel) {
  for (int64_t batch : {1, 7, 300})  // more rows than the block's threads
    for (const char *e : {"f32", "f64"})
      EXPECT_EQ(expectMatchesReference(patternLayer(batch, e)), 1) << batch << " " << e;
}

TEST(BlockProgram, ReductionsSoftmaxAndMseOverAnyAxes) {
  EXPECT_EQ(expectMatchesReference(mixedStages("f32")), 1);
  EXPECT_EQ(expectMatchesReference(mixedStages("f64")), 1);
}

TEST(BlockProgram, PhasedAndFiberRunsGiveTheSameBits) {
  // Each stage as a loop over the threads, the losses' sums by
  // row_reduce_phased: the same bits as every thread a fiber.
  expectPhasedMatchesFibers({patternLayer(7, "f32"), patternLayer(300, "f64"), mixedStages("f32")});
}

TEST(BlockProgram, ALabelOutOfRangeNamesItsRow) {
  std::string source = patternLayer(4, "f32");
  std::vector<HostTensor> inputs = randomInputs(source);
  int32_t bad = 10;  // classes are [0, 10)
  std::memcpy(inputs[1].bytes.data() + 2 * sizeof(int32_t), &bad, sizeof bad);
  std::string error = runError(source, inputs);
  EXPECT_NE(error.find("label out of range [0, 10) in row (at position 2)"), std::string::npos) << error;
  EXPECT_NE(error.find("spectral.cross_entropy"), std::string::npos) << error;
}

TEST(BlockProgram, ALargeYieldIsNotOneBlocksWork) {
  // Two small reductions and a 1024 x 1024 exp yielded from one region: the
  // exp alone is 2^20 element operations, beyond a block program (review:
  // it ran in one block); the region goes its own ways, with the same results.
  const std::string big = "tensor<1024x1024xf32>", small = "tensor<16xf32>";
  EXPECT_GT(expectMatchesReference(fusion(
                {big, small}, {big, "tensor<f32>"},
                "    %e = spectral.exp %a : " + big + "\n"
                "    %s = spectral.reduce_sum %b axes [0] : " + small + "\n"
                "    %m = spectral.reduce_max %b axes [0] : " + small + "\n"
                "    %pr = spectral.mul %s, %m : tensor<f32>, tensor<f32>\n"
                "    spectral.yield %e, %pr : " + big + ", tensor<f32>")),
            1);
}

class BlockProgramNvrtc : public ::testing::TestWithParam<std::string> {};

TEST_P(BlockProgramNvrtc, UnitsCompileWithoutSpills) {
  std::map<std::string, CompiledKernel> compiled = expectCleanCubins(
      {patternLayer(64, "f32"), patternLayer(7, "f64"), mixedStages("f32")}, GetParam());
  EXPECT_EQ(compiled.size(), 3u);
  for (const auto &[entry, kernel] : compiled) EXPECT_EQ(entry.rfind("block_", 0), 0u) << entry;
}

INSTANTIATE_TEST_SUITE_P(Archs, BlockProgramNvrtc, ::testing::Values("sm_80", "sm_90"));

} // namespace
} // namespace spectral::testing
