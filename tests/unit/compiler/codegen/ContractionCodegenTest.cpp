// ContractionCodegenTest.cpp - matmul and channel_mix through codegen on the
// host device against the reference evaluator; a graph chaining the
// contraction and reduction families; and the static gate for the units
// both families generate (NVRTC for sm_80 and sm_90, no spills).
#include "tests/unit/compiler/codegen/CodegenTestUtil.h"



#include <gtest/gtest.h>

#include <cstring>
#include <map>

namespace spectral::testing {
namespace {

struct MatmulCase {
  const char *element;
  std::vector<int64_t> lhs, rhs, out;
};

std::string matmulGraph(const MatmulCase &c) {
  std::string a = tensorType(c.lhs, c.element), b = tensorType(c.rhs, c.element),
              r = tensorType(c.out, c.element);
  return "func.func @main(%a: " + a + ", %b: " + b + ") -> " + r +
         " {\n  %r = spectral.matmul %a, %b : " + a + ", " + b + "\n  return %r : " + r + "\n}\n";
}

class Matmul : public ::testing::TestWithParam<MatmulCase> {};

TEST_P(Matmul, MatchesReference) { EXPECT_EQ(expectMatchesReference(matmulGraph(GetParam())), 1); }

INSTANTIATE_TEST_SUITE_P(
    Codegen, Matmul,
    ::testing::Values(MatmulCase{"f32", {8, 32}, {32, 16}, {8, 16}},
                      MatmulCase{"f64", {5, 7}, {7, 3}, {5, 3}},
                      MatmulCase{"f32", {1, 1}, {1, 1}, {1, 1}},
                      MatmulCase{"f32", {4, 4099}, {4099, 3}, {4, 3}}, // long K
                      // Small 32-bit tiles step K by 16 to 64 (K rounded up to 16).
                      MatmulCase{"f32", {6, 20}, {20, 5}, {6, 5}},
                      MatmulCase{"f32", {20, 40}, {40, 7}, {20, 7}},
                      MatmulCase{"f32", {20, 100}, {100, 7}, {20, 7}},
                      MatmulCase{"i32", {5, 33}, {33, 9}, {5, 9}},
                      MatmulCase{"complex<f32>", {8, 32}, {32, 16}, {8, 16}},
                      MatmulCase{"complex<f64>", {3, 4, 5}, {3, 5, 6}, {3, 4, 6}},
                      MatmulCase{"i32", {6, 9}, {9, 4}, {6, 4}},
                      MatmulCase{"i64", {2, 3, 5}, {5, 7}, {2, 3, 7}},
                      // Batch broadcasting.
                      MatmulCase{"f32", {2, 1, 8, 32}, {3, 32, 16}, {2, 3, 8, 16}},
                      MatmulCase{"complex<f32>", {4, 1, 5, 6}, {1, 3, 6, 2}, {4, 3, 5, 2}},
                      MatmulCase{"f64", {2, 3, 1, 4, 5, 6}, {3, 5, 4, 6, 7}, {2, 3, 5, 4, 5, 7}},
                      // The 64 x 64 tiles, with partial tiles at the edges.
                      MatmulCase{"f32", {8, 130, 33}, {33, 200}, {8, 130, 200}},
                      MatmulCase{"complex<f32>", {70, 20, 7}, {7, 65}, {70, 20, 65}}),
    [](const ::testing::TestParamInfo<MatmulCase> &info) {
      const MatmulCase &c = info.param;
      std::string name = c.element;
      for (int64_t d : c.lhs) name += "_" + std::to_string(d);
      name += "_by";
      for (int64_t d : c.rhs) name += "_" + std::to_string(d);
      for (char &ch : name)
        if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return name;
    });

TEST(MatmulCodegen, IntegersWrap) {
  std::string source = matmulGraph({"i32", {1, 2}, {2, 1}, {1, 1}});
  HostTensor a{DType::kInt32, {1, 2}, std::vector<uint8_t>(8)},
      b{DType::kInt32, {2, 1}, std::vector<uint8_t>(8)};
  int32_t av[] = {2147483647, 65536}, bv[] = {3, 65537};
  std::memcpy(a.bytes.data(), av, 8);
  std::memcpy(b.bytes.data(), bv, 8);
  expectMatchesReference(source, {a, b});
}

struct MixCase {
  const char *element;
  std::vector<int64_t> x, w, out;
};

std::string mixGraph(const MixCase &c) {
  std::string x = tensorType(c.x, c.element), w = tensorType(c.w, c.element),
              r = tensorType(c.out, c.element);
  return "func.func @main(%x: " + x + ", %w: " + w + ") -> " + r +
         " {\n  %r = spectral.channel_mix %x, %w : " + x + ", " + w + "\n  return %r : " + r +
         "\n}\n";
}

TEST(ChannelMixCodegen, MatchesReference) {
  for (const MixCase &c : {MixCase{"f32", {4, 8, 6, 5}, {8, 3, 6, 5}, {4, 3, 6, 5}},
                           MixCase{"f64", {2, 3, 7}, {3, 5, 7}, {2, 5, 7}},
                           MixCase{"complex<f32>", {5, 8, 300}, {8, 6, 300}, {5, 6, 300}},
                           MixCase{"complex<f64>", {1, 1, 1}, {1, 1, 1}, {1, 1, 1}},
                           MixCase{"f32", {3, 4}, {4, 5}, {3, 5}}})
    EXPECT_EQ(expectMatchesReference(mixGraph(c)), 1) << mixGraph(c);
}

// ---- fused regions ----------------------------------------------------------------------

/// act(a b + c): a dense layer, the bias c of shape [n] broadcast over the
/// product, `act` a unary op.
std::string denseLayer(const MatmulCase &c, const std::string &act) {
  std::string a = tensorType(c.lhs, c.element), b = tensorType(c.rhs, c.element),
              r = tensorType(c.out, c.element), bias = tensorType({c.out.back()}, c.element);
  return fusion({a, b, bias}, {r},
                "    %prod = spectral.matmul %a, %b : " + a + ", " + b + "\n"
                "    %sum = spectral.add %prod, %c : " + r + ", " + bias + "\n"
                "    %y = spectral." + act + " %sum : " + r + "\n"
                "    spectral.yield %y : " + r);
}

/// (a * a) exp(b) / 2: a prologue on each operand and an epilogue.
std::string bothEnds(const MatmulCase &c) {
  std::string a = tensorType(c.lhs, c.element), b = tensorType(c.rhs, c.element),
              r = tensorType(c.out, c.element);
  std::string half = std::strncmp(c.element, "complex", 7) ? "0.5" : "(0.5, 0.0)";
  return fusion({a, b}, {r},
                "    %x = spectral.mul %a, %a : " + a + ", " + a + "\n"
                "    %w = spectral.exp %b : " + b + "\n"
                "    %prod = spectral.matmul %x, %w : " + a + ", " + b + "\n"
                "    %h = spectral.constant dense<" + half + "> : " + r + "\n"
                "    %y = spectral.mul %prod, %h : " + r + ", " + r + "\n"
                "    spectral.yield %y : " + r);
}

/// A spectral layer's mix: x scaled per in channel (c of shape [I, 1, ..])
/// before, tanh(y + d) after with d of shape [O, 1, ..].
std::string fusedMix(const MixCase &c) {
  auto perChannel = [&](int64_t channels) {
    std::vector<int64_t> shape(c.x.size() - 1, 1);
    shape[0] = channels;
    return tensorType(shape, c.element);
  };
  std::string x = tensorType(c.x, c.element), w = tensorType(c.w, c.element),
              r = tensorType(c.out, c.element), in = perChannel(c.x[1]),
              out = perChannel(c.out[1]);
  return fusion({x, w, in, out}, {r},
                "    %scaled = spectral.mul %a, %c : " + x + ", " + in + "\n"
                "    %m = spectral.channel_mix %scaled, %b : " + x + ", " + w + "\n"
                "    %y = spectral.add %m, %d : " + r + ", " + out + "\n"
                "    %t = spectral.tanh %y : " + r + "\n"
                "    spectral.yield %t : " + r);
}

const MatmulCase kSmallF32{"f32", {8, 32}, {32, 16}, {8, 16}};
const MatmulCase kTiledF64{"f64", {8, 130, 33}, {33, 200}, {8, 130, 200}};
const MatmulCase kBroadcastC64{"complex<f32>", {4, 1, 5, 6}, {1, 3, 6, 2}, {4, 3, 5, 2}};
const MatmulCase kBatchedC128{"complex<f64>", {3, 4, 5}, {3, 5, 6}, {3, 4, 6}};
const MixCase kMixF32{"f32", {4, 8, 6, 5}, {8, 3, 6, 5}, {4, 3, 6, 5}};
const MixCase kMixC64{"complex<f32>", {5, 8, 300}, {8, 6, 300}, {5, 6, 300}};

TEST(FusedContractions, DenseLayersAreOneLaunch) {
  EXPECT_EQ(expectMatchesReference(denseLayer(kSmallF32, "gelu")), 1);
  EXPECT_EQ(expectMatchesReference(denseLayer({"f64", {5, 7}, {7, 3}, {5, 3}}, "relu")), 1);
  EXPECT_EQ(expectMatchesReference(denseLayer(kTiledF64, "gelu")), 1);  // 64 x 64 tiles
  EXPECT_EQ(expectMatchesReference(denseLayer({"f32", {2, 1, 8, 32}, {3, 32, 16}, {2, 3, 8, 16}},
                                              "sigmoid")),
            1);
  EXPECT_EQ(expectMatchesReference(denseLayer(kBroadcastC64, "tanh")), 1);
  // Integers wrap in the accumulator and in the bias.
  EXPECT_EQ(expectMatchesReference(denseLayer({"i32", {6, 9}, {9, 4}, {6, 4}}, "neg")), 1);
  // An empty sum: the bias alone.
  EXPECT_EQ(expectMatchesReference(denseLayer({"f32", {3, 0}, {0, 4}, {3, 4}}, "relu")), 1);
  // The product and its modulus, two outputs of two element types.
  std::string z = "tensor<8x32xcomplex<f32>>", w = "tensor<32x16xcomplex<f32>>",
              p = "tensor<8x16xcomplex<f32>>", m = "tensor<8x16xf32>";
  EXPECT_EQ(expectMatchesReference(fusion({z, w}, {p, m},
                                          "    %prod = spectral.matmul %a, %b : " + z + ", " + w + "\n"
                                          "    %m = spectral.abs %prod : " + p + "\n"
                                          "    spectral.yield %prod, %m : " + p + ", " + m)),
            1);
}

TEST(FusedContractions, EachOperandTakesItsPrologue) {
  EXPECT_EQ(expectMatchesReference(bothEnds(kSmallF32)), 1);
  EXPECT_EQ(expectMatchesReference(bothEnds(kBatchedC128)), 1);
  EXPECT_EQ(expectMatchesReference(bothEnds(kBroadcastC64)), 1);
  EXPECT_EQ(expectMatchesReference(bothEnds({"f64", {2, 3, 1, 4, 5, 6}, {3, 5, 4, 6, 7},
                                             {2, 3, 5, 4, 5, 7}})),
            1);
  // A row scale broadcast inside the lhs' prologue; the rhs read as is.
  std::string a = "tensor<2x1x8x32xf32>", s = "tensor<8x1xf32>", b = "tensor<3x32x16xf32>",
              r = "tensor<2x3x8x16xf32>";
  EXPECT_EQ(expectMatchesReference(fusion({a, s, b}, {r},
                                          "    %x = spectral.mul %a, %b : " + a + ", " + s + "\n"
                                          "    %prod = spectral.matmul %x, %c : " + a + ", " + b + "\n"
                                          "    spectral.yield %prod : " + r)),
            1);
  // One prologue text on both operands (one struct), one value read twice,
  // and a prologue value recomputed in the Store.
  std::string q = "tensor<16x16xf64>";
  EXPECT_EQ(expectMatchesReference(fusion({q, q}, {q},
                                          "    %t = spectral.tanh %a : " + q + "\n"
                                          "    %u = spectral.tanh %b : " + q + "\n"
                                          "    %prod = spectral.matmul %t, %u : " + q + ", " + q + "\n"
                                          "    spectral.yield %prod : " + q)),
            1);
  EXPECT_EQ(expectMatchesReference(fusion({q}, {q, q},
                                          "    %t = spectral.tanh %a : " + q + "\n"
                                          "    %prod = spectral.matmul %t, %t : " + q + ", " + q + "\n"
                                          "    %y = spectral.add %prod, %t : " + q + ", " + q + "\n"
                                          "    spectral.yield %y, %t : " + q + ", " + q)),
            1);
  std::string i = "tensor<2x3x5xi64>", j = "tensor<5x7xi64>", k = "tensor<2x3x7xi64>";
  EXPECT_EQ(expectMatchesReference(fusion({i, j}, {k},
                                          "    %x = spectral.mul %a, %a : " + i + ", " + i + "\n"
                                          "    %prod = spectral.matmul %x, %b : " + i + ", " + j + "\n"
                                          "    spectral.yield %prod : " + k)),
            1);
}

TEST(FusedContractions, PhasedAndFiberRunsGiveTheSameBits) {
  // matmul's phased form (a tile's loads, then its products, as loops) with
  // fused ends, against every CUDA thread as a fiber.
  expectPhasedMatchesFibers({denseLayer(kTiledF64, "gelu"),
                             denseLayer({"i32", {6, 9}, {9, 4}, {6, 4}}, "neg"),
                             bothEnds(kSmallF32), denseLayer(kBroadcastC64, "tanh")});
}

TEST(FusedContractions, ChannelMixPhasedMatchesFibers) {
  // channel_mix's phased form (a block's modes a SIMD width at a time, a lane
  // each): modes not a multiple of the lanes (30, 7), several blocks of modes
  // (300), batch and out channels past the 4 x 4 tile, every value type
  // and fused ends (the dialect's channel_mix takes floats and complex values).
  expectPhasedMatchesFibers({mixGraph({"f32", {4, 8, 6, 5}, {8, 3, 6, 5}, {4, 3, 6, 5}}),
                             mixGraph({"f64", {6, 3, 7}, {3, 5, 7}, {6, 5, 7}}),
                             mixGraph({"complex<f32>", {5, 8, 300}, {8, 6, 300}, {5, 6, 300}}),
                             mixGraph({"complex<f64>", {2, 3, 70}, {3, 2, 70}, {2, 2, 70}}),
                             fusedMix(kMixC64)});
}

TEST(FusedContractions, ChannelMixes) {
  EXPECT_EQ(expectMatchesReference(fusedMix(kMixF32)), 1);
  EXPECT_EQ(expectMatchesReference(fusedMix({"f64", {2, 3, 7}, {3, 5, 7}, {2, 5, 7}})), 1);
  EXPECT_EQ(expectMatchesReference(fusedMix(kMixC64)), 1);
  EXPECT_EQ(expectMatchesReference(fusedMix({"complex<f64>", {3, 4}, {4, 5}, {3, 5}})), 1);
  // Weights computed in their Load, the product yielded as is.
  std::string x = "tensor<2x4x12xcomplex<f32>>", w = "tensor<4x3x12xcomplex<f32>>",
              r = "tensor<2x3x12xcomplex<f32>>";
  EXPECT_EQ(expectMatchesReference(fusion({x, w}, {r},
                                          "    %v = spectral.conj %b : " + w + "\n"
                                          "    %m = spectral.channel_mix %a, %v : " + x + ", " + w + "\n"
                                          "    spectral.yield %m : " + r)),
            1);
}

TEST(FusedContractions, OtherShapesFallBackToOneKernelPerOp) {
  // After the product of two [16, 16]: its transpose (read at another
  // element), a second product or a softmax (two anchors).
  std::string q = "tensor<16x16xf32>";
  auto afterProduct = [&](const std::string &op) {
    return fusion({q, q}, {q},
                  "    %prod = spectral.matmul %a, %b : " + q + ", " + q + "\n    %y = " + op +
                      "\n    spectral.yield %y : " + q);
  };
  EXPECT_EQ(expectMatchesReference(afterProduct("spectral.transpose %prod perm [1, 0] : " + q)), 2);
  EXPECT_EQ(expectMatchesReference(afterProduct("spectral.softmax %prod axis 1 : " + q)), 2);
  EXPECT_EQ(expectMatchesReference(afterProduct("spectral.matmul %prod, %b : " + q + ", " + q)), 2);
  // A prologue that can fail (integer division, by two here).
  std::string i = "tensor<4x8xi32>", j = "tensor<8x3xi32>";
  EXPECT_EQ(expectMatchesReference(fusion({i, j}, {"tensor<4x3xi32>"},
                                          "    %two = spectral.constant dense<2> : " + i + "\n"
                                          "    %d = spectral.div %a, %two : " + i + ", " + i + "\n"
                                          "    %prod = spectral.matmul %d, %b : " + i + ", " + j + "\n"
                                          "    spectral.yield %prod : tensor<4x3xi32>")),
            2);
  // An operand of another shape than the product yielded; a block argument
  // passed through.
  std::string a = "tensor<4x8xf32>", b = "tensor<8x3xf32>", r = "tensor<4x3xf32>";
  EXPECT_EQ(expectMatchesReference(fusion({a, b}, {r, a},
                                          "    %x = spectral.exp %a : " + a + "\n"
                                          "    %prod = spectral.matmul %x, %b : " + a + ", " + b + "\n"
                                          "    spectral.yield %prod, %x : " + r + ", " + a)),
            2);
  EXPECT_EQ(expectMatchesReference(fusion({a, b}, {r, a},
                                          "    %prod = spectral.matmul %a, %b : " + a + ", " + b + "\n"
                                          "    spectral.yield %prod, %a : " + r + ", " + a)),
            1);
  // An empty product is refused (it has no kernel) and still agrees op by op.
  expectMatchesReference(denseLayer({"f32", {0, 4}, {4, 3}, {0, 3}}, "relu"));
}

/// A classifier step: logits = x w, their log_softmax, the cross-entropy,
/// the mean over the batch and the largest logit, and a spectral layer's
/// channel mix with its mse against a target.
const char *const kChainedGraph = R"(
func.func @main(%x: tensor<16x32xf32>, %w: tensor<32x10xf32>, %labels: tensor<16xi32>,
                %m: tensor<2x4x12xcomplex<f32>>, %mw: tensor<4x3x12xcomplex<f32>>,
                %t: tensor<2x3x12xcomplex<f32>>)
    -> (tensor<f32>, tensor<10xf32>, tensor<16x1xf32>, tensor<f32>, tensor<16x10xf32>) {
  %logits = spectral.matmul %x, %w : tensor<16x32xf32>, tensor<32x10xf32>
  %logp = spectral.log_softmax %logits axis 1 : tensor<16x10xf32>
  %p = spectral.softmax %logits axis 1 : tensor<16x10xf32>
  %loss = spectral.cross_entropy %logits, %labels : tensor<16x10xf32>, tensor<16xi32>
  %mean = spectral.reduce_mean %logp axes [0] : tensor<16x10xf32>
  %max = spectral.reduce_max %logits axes [1] keepdims : tensor<16x10xf32>
  %y = spectral.channel_mix %m, %mw : tensor<2x4x12xcomplex<f32>>, tensor<4x3x12xcomplex<f32>>
  %e = spectral.mse %y, %t : tensor<2x3x12xcomplex<f32>>
  return %loss, %mean, %max, %e, %p : tensor<f32>, tensor<10xf32>, tensor<16x1xf32>, tensor<f32>, tensor<16x10xf32>
}
)";

TEST(ContractionCodegen, ChainedGraphRuns) {
  std::vector<HostTensor> inputs = randomInputs(kChainedGraph);
  ASSERT_EQ(inputs.size(), 6u); // labels are random in [0, 10): in range
  EXPECT_GE(expectMatchesReference(kChainedGraph, inputs), 8);
}

/// Graphs whose kernels cover every kind of unit the two families write.
const char *const kGateGraphs[] = {
    kChainedGraph,
    R"(func.func @main(%a: tensor<3x100000xf32>, %b: tensor<70000x3xf64>, %c: tensor<1000x1000xcomplex<f32>>,
               %d: tensor<7x9x11xi32>, %e: tensor<2x4099xf64>, %f: tensor<5x6x7xf32>)
    -> (tensor<3xf32>, tensor<3xf64>, tensor<complex<f32>>, tensor<9xi32>, tensor<2x4099xf64>, tensor<5x7xf32>, tensor<7x11xi32>) {
  %0 = spectral.reduce_sum %a axes [1] : tensor<3x100000xf32>
  %1 = spectral.reduce_mean %b axes [0] : tensor<70000x3xf64>
  %2 = spectral.reduce_mean %c axes [0, 1] : tensor<1000x1000xcomplex<f32>>
  %3 = spectral.reduce_max %d axes [0, 2] : tensor<7x9x11xi32>
  %4 = spectral.softmax %e axis 1 : tensor<2x4099xf64>
  %5 = spectral.reduce_max %f axes [1] : tensor<5x6x7xf32>
  %6 = spectral.reduce_sum %d axes [1] : tensor<7x9x11xi32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<3xf32>, tensor<3xf64>, tensor<complex<f32>>, tensor<9xi32>, tensor<2x4099xf64>, tensor<5x7xf32>, tensor<7x11xi32>
})",
    R"(func.func @main(%a: tensor<8x130x33xf64>, %b: tensor<33x200xf64>, %c: tensor<2x1x40x40xcomplex<f64>>,
               %d: tensor<3x40x40xcomplex<f64>>, %e: tensor<100x100xcomplex<f32>>, %f: tensor<8x64x64xi64>,
               %x: tensor<5x8x300xcomplex<f64>>, %w: tensor<8x6x300xcomplex<f64>>, %l: tensor<6000x7xf64>,
               %k: tensor<6000xi64>, %y: tensor<9x8x70xf64>, %v: tensor<8x4x70xf64>,
               %g: tensor<8x130x33xcomplex<f32>>, %h: tensor<33x200xcomplex<f32>>, %i: tensor<8x100x70xi32>,
               %j: tensor<8x70x100xi32>)
    -> (tensor<8x130x200xf64>, tensor<2x3x40x40xcomplex<f64>>, tensor<100x100xcomplex<f32>>, tensor<8x64x64xi64>,
        tensor<5x6x300xcomplex<f64>>, tensor<f64>, tensor<9x4x70xf64>, tensor<f64>, tensor<8x130x200xcomplex<f32>>,
        tensor<8x100x100xi32>) {
  %0 = spectral.matmul %a, %b : tensor<8x130x33xf64>, tensor<33x200xf64>
  %1 = spectral.matmul %c, %d : tensor<2x1x40x40xcomplex<f64>>, tensor<3x40x40xcomplex<f64>>
  %2 = spectral.matmul %e, %e : tensor<100x100xcomplex<f32>>, tensor<100x100xcomplex<f32>>
  %3 = spectral.matmul %f, %f : tensor<8x64x64xi64>, tensor<8x64x64xi64>
  %4 = spectral.channel_mix %x, %w : tensor<5x8x300xcomplex<f64>>, tensor<8x6x300xcomplex<f64>>
  %5 = spectral.cross_entropy %l, %k : tensor<6000x7xf64>, tensor<6000xi64>
  %6 = spectral.channel_mix %y, %v : tensor<9x8x70xf64>, tensor<8x4x70xf64>
  %7 = spectral.mse %x, %x : tensor<5x8x300xcomplex<f64>>
  %8 = spectral.matmul %g, %h : tensor<8x130x33xcomplex<f32>>, tensor<33x200xcomplex<f32>>
  %9 = spectral.matmul %i, %j : tensor<8x100x70xi32>, tensor<8x70x100xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<8x130x200xf64>, tensor<2x3x40x40xcomplex<f64>>, tensor<100x100xcomplex<f32>>, tensor<8x64x64xi64>,
        tensor<5x6x300xcomplex<f64>>, tensor<f64>, tensor<9x4x70xf64>, tensor<f64>, tensor<8x130x200xcomplex<f32>>,
        tensor<8x100x100xi32>
})",
    // The small 32-bit tiles: K steps of 32, 48 and 64.
    R"(func.func @main(%a: tensor<6x20xf32>, %b: tensor<20x5xf32>, %c: tensor<20x40xf32>,
               %d: tensor<40x7xf32>, %e: tensor<64x840xf32>, %f: tensor<840x10xf32>,
               %g: tensor<5x33xi32>, %h: tensor<33x9xi32>)
    -> (tensor<6x5xf32>, tensor<20x7xf32>, tensor<64x10xf32>, tensor<5x9xi32>) {
  %0 = spectral.matmul %a, %b : tensor<6x20xf32>, tensor<20x5xf32>
  %1 = spectral.matmul %c, %d : tensor<20x40xf32>, tensor<40x7xf32>
  %2 = spectral.matmul %e, %f : tensor<64x840xf32>, tensor<840x10xf32>
  %3 = spectral.matmul %g, %h : tensor<5x33xi32>, tensor<33x9xi32>
  return %0, %1, %2, %3 : tensor<6x5xf32>, tensor<20x7xf32>, tensor<64x10xf32>, tensor<5x9xi32>
})",
    // Rows of one 512-thread block each, and strided softmax.
    R"(func.func @main(%a: tensor<300x20000xcomplex<f64>>, %b: tensor<300x20000xf64>, %c: tensor<3x50000xf32>,
               %d: tensor<5x40x3xf64>, %e: tensor<300x20000xi64>)
    -> (tensor<300xcomplex<f64>>, tensor<300xf64>, tensor<3x50000xf32>, tensor<5x40x3xf64>, tensor<300xi64>) {
  %0 = spectral.reduce_mean %a axes [1] : tensor<300x20000xcomplex<f64>>
  %1 = spectral.reduce_max %b axes [1] : tensor<300x20000xf64>
  %2 = spectral.log_softmax %c axis 1 : tensor<3x50000xf32>
  %3 = spectral.softmax %d axis 1 : tensor<5x40x3xf64>
  %4 = spectral.reduce_sum %e axes [1] : tensor<300x20000xi64>
  return %0, %1, %2, %3, %4 : tensor<300xcomplex<f64>>, tensor<300xf64>, tensor<3x50000xf32>, tensor<5x40x3xf64>, tensor<300xi64>
})",
};

class ContractionNvrtc : public ::testing::TestWithParam<std::string> {};

TEST_P(ContractionNvrtc, UnitsCompileWithoutSpills) {
  std::vector<std::string> sources(std::begin(kGateGraphs), std::end(kGateGraphs));
  // Fused ends on the 64 x 64 and 32 x 32 tiles and on channel_mix.
  for (const std::string &fused :
       {denseLayer(kSmallF32, "gelu"), denseLayer(kTiledF64, "gelu"), bothEnds(kSmallF32),
        bothEnds(kBroadcastC64), bothEnds(kBatchedC128), bothEnds({"f32", {8, 130, 33}, {33, 200}, {8, 130, 200}}),
        fusedMix(kMixF32), fusedMix(kMixC64)})
    sources.push_back(fused);
  std::map<std::string, CompiledKernel> compiled = expectCleanCubins(sources, GetParam());
  EXPECT_GE(compiled.size(), 37u);
  EXPECT_GE(fusedUnits(compiled), 8);
}

INSTANTIATE_TEST_SUITE_P(Archs, ContractionNvrtc, ::testing::Values("sm_80", "sm_90"));

} // namespace
} // namespace spectral::testing
