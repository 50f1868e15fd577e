// RowProgramCodegenTest.cpp - row reductions in sequence with pointwise ops
// between and after them (layer norm, a softmax written out by hand) as one
// kernel per region, a warp or a block per row, on the host device against the
// reference evaluator, and through NVRTC's gate.
#include "tests/unit/compiler/codegen/CodegenTestUtil.h"

#include <gtest/gtest.h>

namespace spectral::testing {
namespace {

struct Rows {
  std::vector<int64_t> lead;
  int64_t columns;
  std::string element = "f32";

  std::string row() const {
    std::vector<int64_t> s = lead;
    s.push_back(columns);
    return tensorType(s, element);
  }
  std::string scalar() const {
    std::vector<int64_t> s = lead;
    s.push_back(1);
    return tensorType(s, element);
  }
  std::string axis() const { return "axes [" + std::to_string(lead.size()) + "] keepdims"; }
  std::string column() const { return tensorType({columns}, element); }
};

/// (x - mean) / sqrt(var + eps) * gamma + beta, x computed in the region
/// (tanh of an input), and the variance yielded too.
std::string layerNorm(const Rows &r) {
  const std::string x = r.row(), s = r.scalar(), c = r.column();
  return fusion({x, c, c}, {x, s},
                "    %x = spectral.tanh %a : " + x + "\n"
                "    %mean = spectral.reduce_mean %x " + r.axis() + " : " + x + "\n"
                "    %d = spectral.sub %x, %mean : " + x + ", " + s + "\n"
                "    %sq = spectral.mul %d, %d : " + x + ", " + x + "\n"
                "    %var = spectral.reduce_mean %sq " + r.axis() + " : " + x + "\n"
                "    %eps = spectral.constant dense<1.0e-5> : " + s + "\n"
                "    %ve = spectral.add %var, %eps : " + s + ", " + s + "\n"
                "    %std = spectral.sqrt %ve : " + s + "\n"
                "    %n = spectral.div %d, %std : " + x + ", " + s + "\n"
                "    %gn = spectral.mul %n, %b : " + x + ", " + c + "\n"
                "    %o = spectral.add %gn, %c : " + x + ", " + c + "\n"
                "    spectral.yield %o, %var : " + x + ", " + s);
}

/// exp(x - max(x)) / sum(exp(x - max(x))), read straight from an input; the
/// maximum yielded as it is.
std::string softmaxByHand(const Rows &r) {
  const std::string x = r.row(), s = r.scalar();
  return fusion({x}, {x, s},
                "    %m = spectral.reduce_max %a " + r.axis() + " : " + x + "\n"
                "    %d = spectral.sub %a, %m : " + x + ", " + s + "\n"
                "    %e = spectral.exp %d : " + x + "\n"
                "    %z = spectral.reduce_sum %e " + r.axis() + " : " + x + "\n"
                "    %sm = spectral.div %e, %z : " + x + ", " + s + "\n"
                "    spectral.yield %sm, %m : " + x + ", " + s);
}

TEST(RowProgram, LayerNormInOneKernel) {
  for (const Rows &r : {Rows{{8}, 768}, Rows{{2, 3}, 10}, Rows{{5}, 1000, "f64"}, Rows{{3}, 1},
                        Rows{{}, 300}, Rows{{4}, 257}})
    EXPECT_EQ(expectMatchesReference(layerNorm(r)), 1) << r.row();
}

TEST(RowProgram, SoftmaxWrittenOutInOneKernel) {
  for (const Rows &r : {Rows{{6}, 33}, Rows{{2, 2}, 4096}, Rows{{3}, 7, "f64"}})
    EXPECT_EQ(expectMatchesReference(softmaxByHand(r)), 1) << r.row();
}

TEST(RowProgram, RowsBeyondTheCacheAreReadFromMemory) {
  // Two row-shaped inputs of 6000 doubles (94 KB) do not fit the 32 KiB of
  // cached rows: the second is read from global memory at each stage.
  const std::string x = "tensor<2x6000xf64>", s = "tensor<2x1xf64>";
  EXPECT_EQ(expectMatchesReference(fusion(
                {x, x}, {x},
                "    %m = spectral.reduce_mean %a axes [1] keepdims : " + x + "\n"
                "    %y = spectral.mul %b, %m : " + x + ", " + s + "\n"
                "    %z = spectral.reduce_sum %y axes [1] keepdims : " + x + "\n"
                "    %o = spectral.sub %b, %z : " + x + ", " + s + "\n"
                "    spectral.yield %o : " + x)),
            1);
}

TEST(RowProgram, AnInputReadAtOtherColumnsIsNotCached) {
  // A roll of the row by one column (slices and a concat) before the layer
  // norm: the row cache would give a thread a column another thread copies
  // (review: wrong results without the check); read from memory instead.
  const std::string x = "tensor<8x40xf32>", s = "tensor<8x1xf32>";
  EXPECT_EQ(expectMatchesReference(fusion(
                {x}, {x},
                "    %y = spectral.neg %a : " + x + "\n"
                "    %l = spectral.slice %y start [0, 1] limit [8, 40] : " + x + "\n"
                "    %h = spectral.slice %y start [0, 0] limit [8, 1] : " + x + "\n"
                "    %r = spectral.concat %l, %h axis 1 : tensor<8x39xf32>, tensor<8x1xf32>\n"
                "    %mean = spectral.reduce_mean %r axes [1] keepdims : " + x + "\n"
                "    %d = spectral.sub %r, %mean : " + x + ", " + s + "\n"
                "    %sq = spectral.mul %d, %d : " + x + ", " + x + "\n"
                "    %var = spectral.reduce_mean %sq axes [1] keepdims : " + x + "\n"
                "    %n = spectral.div %d, %var : " + x + ", " + s + "\n"
                "    spectral.yield %n : " + x)),
            1);
}

TEST(RowProgram, ReductionsOfTheSameValues) {
  // Two stages of the same text share one definition (review: it was
  // defined twice and the kernel did not compile).
  const std::string x = "tensor<64x100xf32>", s = "tensor<64x1xf32>";
  EXPECT_EQ(expectMatchesReference(fusion(
                {x}, {x},
                "    %e = spectral.exp %a : " + x + "\n"
                "    %mean = spectral.reduce_mean %e axes [1] keepdims : " + x + "\n"
                "    %mx = spectral.reduce_max %e axes [1] keepdims : " + x + "\n"
                "    %d = spectral.sub %e, %mean : " + x + ", " + s + "\n"
                "    %n = spectral.div %d, %mx : " + x + ", " + s + "\n"
                "    spectral.yield %n : " + x)),
            1);
}

TEST(RowProgram, OtherShapesGoTheirOwnWay) {
  // Reductions over another axis: not rows, and too much work (2 x 2^20
  // element operations) for a block program; still the right results.
  const std::string x = "tensor<1024x1024xf32>", s = "tensor<1x1024xf32>";
  EXPECT_GT(expectMatchesReference(fusion(
                {x}, {x},
                "    %m = spectral.reduce_mean %a axes [0] keepdims : " + x + "\n"
                "    %d = spectral.sub %a, %m : " + x + ", " + s + "\n"
                "    %sq = spectral.mul %d, %d : " + x + ", " + x + "\n"
                "    %v = spectral.reduce_sum %sq axes [0] keepdims : " + x + "\n"
                "    %o = spectral.mul %d, %v : " + x + ", " + s + "\n"
                "    spectral.yield %o : " + x)),
            1);
}

// The row programs are phased on the host (reduce.cuh's block_rows,
// block_row_reduce, block_threads, block_barrier): the bytes the block's
// threads give, for a warp per row (a partial last block of rows, rows past
// the last, one column, 257 columns) and a block per row (a tree over
// warps), cached rows and not.
TEST(RowProgram, PhasedMatchesFibers) {
  expectPhasedMatchesFibers({layerNorm({{8}, 768}), layerNorm({{13}, 200}),
                             layerNorm({{2, 3}, 10}), layerNorm({{5}, 1000, "f64"}),
                             layerNorm({{3}, 1}), layerNorm({{4}, 257}),
                             softmaxByHand({{2, 2}, 4096}), softmaxByHand({{3}, 7, "f64"})});
  const std::string x = "tensor<2x6000xf64>", s = "tensor<2x1xf64>";
  expectPhasedMatchesFibers({fusion({x, x}, {x},
                                    "    %m = spectral.reduce_mean %a axes [1] keepdims : " + x +
                                        "\n"
                                        "    %y = spectral.mul %b, %m : " + x + ", " + s + "\n"
                                        "    %z = spectral.reduce_sum %y axes [1] keepdims : " +
                                        x + "\n"
                                        "    %o = spectral.sub %b, %z : " + x + ", " + s + "\n"
                                        "    spectral.yield %o : " + x)});
}

class RowProgramNvrtc : public ::testing::TestWithParam<std::string> {};

TEST_P(RowProgramNvrtc, UnitsCompileWithoutSpills) {
  std::map<std::string, CompiledKernel> compiled = expectCleanCubins(
      {layerNorm({{8}, 768}), layerNorm({{5}, 1000, "f64"}), softmaxByHand({{6}, 33})},
      GetParam());
  EXPECT_EQ(compiled.size(), 3u);
  for (const auto &[entry, kernel] : compiled) EXPECT_EQ(entry.rfind("rows_", 0), 0u) << entry;
}

INSTANTIATE_TEST_SUITE_P(Archs, RowProgramNvrtc, ::testing::Values("sm_80", "sm_90"));

} // namespace
} // namespace spectral::testing
