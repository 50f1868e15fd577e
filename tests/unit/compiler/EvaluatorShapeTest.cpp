//===- EvaluatorShapeTest.cpp - reductions, softmax, shape ops ------------===//
//
// Expected values are written out by hand or computed here with explicit
// index loops over row-major coordinates.
//
//===----------------------------------------------------------------------===//

#include "EvaluatorTest.h"

#include <cmath>
#include <limits>
#include <random>

namespace spectral::reference::test {
namespace {

constexpr double kLn2 = 0.69314718055994530942;
constexpr double kLn3 = 1.09861228866810969140;
constexpr double kLn5 = 1.60943791243410037460;

/// 0, 1, 2, ... as `count` values.
std::vector<Complex> iota(int64_t count) {
  std::vector<Complex> v(count);
  for (int64_t i = 0; i < count; ++i)
    v[i] = double(i);
  return v;
}

const char *kReductions = R"mlir(
  func.func @main(%x: tensor<2x3x4xf32>) -> (tensor<3xf32>, tensor<2x1x1xf32>,
      tensor<2x4xf32>, tensor<f32>, tensor<1x3x4xf32>, tensor<2x3xf32>) {
    %0 = spectral.reduce_sum %x axes [0, 2] : tensor<2x3x4xf32>
    %1 = spectral.reduce_sum %x axes [2, 1] keepdims : tensor<2x3x4xf32>
    %2 = spectral.reduce_mean %x axes [1] : tensor<2x3x4xf32>
    %3 = spectral.reduce_sum %x axes [0, 1, 2] : tensor<2x3x4xf32>
    %4 = spectral.reduce_max %x axes [0] keepdims : tensor<2x3x4xf32>
    %5 = spectral.reduce_max %x axes [2] : tensor<2x3x4xf32>
    return %0, %1, %2, %3, %4, %5 : tensor<3xf32>, tensor<2x1x1xf32>,
        tensor<2x4xf32>, tensor<f32>, tensor<1x3x4xf32>, tensor<2x3xf32>
  })mlir";

TEST(EvaluatorReduce, SumMeanMaxOverAxes) {
  // x[i, j, k] = 12 i + 4 j + k.
  auto out = run(kReductions, {makeTensor(K::F32, {2, 3, 4}, iota(24))});
  ASSERT_EQ(out.size(), 6u);
  expectTensor(out[0], K::F32, {3}, {60, 92, 124}, 0);
  expectTensor(out[1], K::F32, {2, 1, 1}, {66, 210}, 0);
  // Mean over j of 12 i + 4 j + k is 12 i + 4 + k.
  expectTensor(out[2], K::F32, {2, 4}, {4, 5, 6, 7, 16, 17, 18, 19});
  expectTensor(out[3], K::F32, {}, {276}, 0);
  std::vector<Complex> upper(12);
  for (int64_t i = 0; i < 12; ++i)
    upper[i] = 12.0 + double(i);
  expectTensor(out[4], K::F32, {1, 3, 4}, upper, 0);
  expectTensor(out[5], K::F32, {2, 3}, {3, 7, 11, 15, 19, 23}, 0);
}

TEST(EvaluatorReduce, MaxOfMixedSigns) {
  // Values whose maximum is neither first nor last nor non-negative.
  std::vector<Complex> x(24);
  for (int64_t i = 0; i < 24; ++i)
    x[i] = double((i * 7) % 11) - 20.0;
  auto out = run(kReductions, {makeTensor(K::F32, {2, 3, 4}, x)});
  ASSERT_EQ(out.size(), 6u);
  std::vector<Complex> overI(12), overK(6);
  for (int64_t j = 0; j < 3; ++j)
    for (int64_t k = 0; k < 4; ++k) {
      double a = x[4 * j + k].real(), b = x[12 + 4 * j + k].real();
      overI[4 * j + k] = a > b ? a : b;
    }
  for (int64_t r = 0; r < 6; ++r) {
    double m = x[4 * r].real();
    for (int64_t k = 1; k < 4; ++k)
      m = std::max(m, x[4 * r + k].real());
    overK[r] = m;
  }
  expectTensor(out[4], K::F32, {1, 3, 4}, overI, 0);
  expectTensor(out[5], K::F32, {2, 3}, overK, 0);
}

TEST(EvaluatorReduce, ComplexAndInteger) {
  auto out = run(R"mlir(
    func.func @main(%c: tensor<2x2xcomplex<f64>>, %i: tensor<2x3xi32>)
        -> (tensor<2xcomplex<f64>>, tensor<2x1xcomplex<f64>>, tensor<2xi32>, tensor<3xi32>) {
      %0 = spectral.reduce_sum %c axes [0] : tensor<2x2xcomplex<f64>>
      %1 = spectral.reduce_mean %c axes [1] keepdims : tensor<2x2xcomplex<f64>>
      %2 = spectral.reduce_max %i axes [1] : tensor<2x3xi32>
      %3 = spectral.reduce_sum %i axes [0] : tensor<2x3xi32>
      return %0, %1, %2, %3 : tensor<2xcomplex<f64>>, tensor<2x1xcomplex<f64>>, tensor<2xi32>, tensor<3xi32>
    })mlir",
                 {makeTensor(K::C128, {2, 2}, {{1, 1}, {2, -1}, {3, 0}, {0, 5}}),
                  makeTensor(K::I32, {2, 3}, {-5, -2, -9, 3, 8, 1})});
  ASSERT_EQ(out.size(), 4u);
  expectTensor(out[0], K::C128, {2}, {{4, 1}, {2, 4}}, 0);
  expectTensor(out[1], K::C128, {2, 1}, {{1.5, 0}, {1.5, 2.5}}, 0);
  expectTensor(out[2], K::I32, {2}, {-2, 8}, 0);
  expectTensor(out[3], K::I32, {3}, {-2, 6, -8}, 0);
}

TEST(EvaluatorReduce, MaxPropagatesNan) {
  // numpy.max: a NaN anywhere makes the maximum NaN, wherever it sits.
  double nan = std::numeric_limits<double>::quiet_NaN();
  auto out = run(R"mlir(
    func.func @main(%x: tensor<3x3xf64>) -> tensor<3xf64> {
      %0 = spectral.reduce_max %x axes [1] : tensor<3x3xf64>
      return %0 : tensor<3xf64>
    })mlir",
                 {makeTensor(K::F64, {3, 3}, {1, nan, 3, nan, 5, 4, 7, 8, 6})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::F64, {3}, {nan, nan, 8}, 0);
}

TEST(EvaluatorReduce, MaxOverAnEmptyAxisIsAnError) {
  // The maximum of nothing is undefined (numpy raises); -inf would also be
  // no value at all for an integer result.
  const char *source = R"mlir(
    func.func @main(%x: tensor<3x0xi32>, %y: tensor<3x0xf32>) -> (tensor<3xi32>, tensor<3xf32>) {
      %a = spectral.reduce_max %x axes [1] : tensor<3x0xi32>
      %b = spectral.reduce_max %y axes [1] : tensor<3x0xf32>
      return %a, %b : tensor<3xi32>, tensor<3xf32>
    })mlir";
  expectContains(runError(source, {makeTensor(K::I32, {3, 0}, {}),
                                   makeTensor(K::F32, {3, 0}, {})}),
                 {"test.mlir:3", "spectral.reduce_max", "axis 1 of length 0"});
  expectContains(runError(R"mlir(
    func.func @main(%y: tensor<0x2xf64>) -> tensor<f64> {
      %b = spectral.reduce_max %y axes [0, 1] : tensor<0x2xf64>
      return %b : tensor<f64>
    })mlir",
                          {makeTensor(K::F64, {0, 2}, {})}),
                 {"spectral.reduce_max", "axis 0 of length 0"});
  // An empty result has no maximum to take: no error, as in numpy.
  auto out = run(R"mlir(
    func.func @main(%y: tensor<0x0xf32>) -> tensor<0xf32> {
      %b = spectral.reduce_max %y axes [1] : tensor<0x0xf32>
      return %b : tensor<0xf32>
    })mlir",
                 {makeTensor(K::F32, {0, 0}, {})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::F32, {0}, {});
}

TEST(EvaluatorSoftmax, ClosedFormsAlongEitherAxis) {
  // Row 0: e^x is 1 : 2 : 5. Row 1: 1 : 3 : 1 around 1000 (needs the max shift).
  auto out = run(R"mlir(
    func.func @main(%x: tensor<2x3xf64>, %y: tensor<3x2xf32>)
        -> (tensor<2x3xf64>, tensor<2x3xf64>, tensor<3x2xf32>, tensor<3x2xf32>) {
      %0 = spectral.softmax %x axis 1 : tensor<2x3xf64>
      %1 = spectral.log_softmax %x axis 1 : tensor<2x3xf64>
      %2 = spectral.softmax %y axis 0 : tensor<3x2xf32>
      %3 = spectral.log_softmax %y axis 0 : tensor<3x2xf32>
      return %0, %1, %2, %3 : tensor<2x3xf64>, tensor<2x3xf64>, tensor<3x2xf32>, tensor<3x2xf32>
    })mlir",
                 {makeTensor(K::F64, {2, 3}, {0, kLn2, kLn5, 1000, 1000 + kLn3, 1000}),
                  makeTensor(K::F32, {3, 2}, {0, -1, kLn2, -1, kLn5, -1 + kLn2})});
  ASSERT_EQ(out.size(), 4u);
  std::vector<Complex> rows = {1.0 / 8, 2.0 / 8, 5.0 / 8, 0.2, 0.6, 0.2};
  std::vector<Complex> columns = {1.0 / 8, 0.25, 2.0 / 8, 0.25, 5.0 / 8, 0.5};
  // 1000 + ln 3 carries a rounding error of ~1e-13; f32 inputs ~1e-7.
  expectTensor(out[0], K::F64, {2, 3}, rows, 1e-12);
  expectTensor(out[2], K::F32, {3, 2}, columns, 1e-6);
  for (Complex &v : rows)
    v = std::log(v.real());
  for (Complex &v : columns)
    v = std::log(v.real());
  expectTensor(out[1], K::F64, {2, 3}, rows, 1e-12);
  expectTensor(out[3], K::F32, {3, 2}, columns, 1e-6);
}

TEST(EvaluatorSoftmax, MiddleAxisSumsToOneAndLogMatches) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> uniform(-4, 4);
  std::vector<Complex> x(2 * 5 * 3);
  for (Complex &v : x)
    v = uniform(rng);
  auto out = run(R"mlir(
    func.func @main(%x: tensor<2x5x3xf64>) -> (tensor<2x5x3xf64>, tensor<2x5x3xf64>) {
      %0 = spectral.softmax %x axis 1 : tensor<2x5x3xf64>
      %1 = spectral.log_softmax %x axis 1 : tensor<2x5x3xf64>
      return %0, %1 : tensor<2x5x3xf64>, tensor<2x5x3xf64>
    })mlir",
                 {makeTensor(K::F64, {2, 5, 3}, x)});
  ASSERT_EQ(out.size(), 2u);
  std::vector<Complex> soft(x.size()), logSoft(x.size());
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t c = 0; c < 3; ++c) {
      double sum = 0, total = 0;
      for (int64_t j = 0; j < 5; ++j)
        sum += std::exp(x[15 * a + 3 * j + c].real());
      for (int64_t j = 0; j < 5; ++j) {
        int64_t at = 15 * a + 3 * j + c;
        soft[at] = std::exp(x[at].real()) / sum;
        logSoft[at] = x[at].real() - std::log(sum);
        total += out[0].data[at].real();
      }
      EXPECT_NEAR(total, 1.0, 1e-14) << "softmax sums to 1 at (" << a << ", :, " << c << ")";
    }
  expectTensor(out[0], K::F64, {2, 5, 3}, soft, 1e-13);
  expectTensor(out[1], K::F64, {2, 5, 3}, logSoft, 1e-13);
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_NEAR(out[1].data[i].real(), std::log(out[0].data[i].real()), 1e-13);
}

TEST(EvaluatorShape, ReshapeKeepsRowMajorOrder) {
  auto out = run(R"mlir(
    func.func @main(%x: tensor<2x3xi32>, %b: tensor<i1>) -> (tensor<3x2xi32>, tensor<6xi32>, tensor<1x1xi1>) {
      %0 = spectral.reshape %x : tensor<2x3xi32> -> tensor<3x2xi32>
      %1 = spectral.reshape %x : tensor<2x3xi32> -> tensor<6xi32>
      %2 = spectral.reshape %b : tensor<i1> -> tensor<1x1xi1>
      return %0, %1, %2 : tensor<3x2xi32>, tensor<6xi32>, tensor<1x1xi1>
    })mlir",
                 {makeTensor(K::I32, {2, 3}, {1, 2, 3, 4, 5, 6}), makeTensor(K::I1, {}, {1})});
  ASSERT_EQ(out.size(), 3u);
  expectTensor(out[0], K::I32, {3, 2}, {1, 2, 3, 4, 5, 6}, 0);
  expectTensor(out[1], K::I32, {6}, {1, 2, 3, 4, 5, 6}, 0);
  expectTensor(out[2], K::I1, {1, 1}, {1}, 0);
}

TEST(EvaluatorShape, Transpose) {
  auto out = run(R"mlir(
    func.func @main(%x: tensor<2x3x4xf32>, %c: tensor<2x3xcomplex<f32>>)
        -> (tensor<4x2x3xf32>, tensor<3x2xcomplex<f32>>) {
      %0 = spectral.transpose %x perm [2, 0, 1] : tensor<2x3x4xf32>
      %1 = spectral.transpose %c perm [1, 0] : tensor<2x3xcomplex<f32>>
      return %0, %1 : tensor<4x2x3xf32>, tensor<3x2xcomplex<f32>>
    })mlir",
                 {makeTensor(K::F32, {2, 3, 4}, iota(24)),
                  makeTensor(K::C64, {2, 3}, {{0, 1}, {1, 1}, {2, 1}, {3, 1}, {4, 1}, {5, 1}})});
  ASSERT_EQ(out.size(), 2u);
  // Result dim d is operand dim perm[d]: out[k, i, j] = x[i, j, k].
  std::vector<Complex> expected;
  for (int64_t k = 0; k < 4; ++k)
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 3; ++j)
        expected.push_back(double(12 * i + 4 * j + k));
  expectTensor(out[0], K::F32, {4, 2, 3}, expected, 0);
  expectTensor(out[1], K::C64, {3, 2}, {{0, 1}, {3, 1}, {1, 1}, {4, 1}, {2, 1}, {5, 1}}, 0);
}

TEST(EvaluatorShape, Broadcast) {
  auto out = run(R"mlir(
    func.func @main(%x: tensor<3x1xf64>, %b: tensor<i1>) -> (tensor<2x3x4xf64>, tensor<2x2xi1>) {
      %0 = spectral.broadcast %x : tensor<3x1xf64> -> tensor<2x3x4xf64>
      %1 = spectral.broadcast %b : tensor<i1> -> tensor<2x2xi1>
      return %0, %1 : tensor<2x3x4xf64>, tensor<2x2xi1>
    })mlir",
                 {makeTensor(K::F64, {3, 1}, {-1, 0.5, 7}), makeTensor(K::I1, {}, {1})});
  ASSERT_EQ(out.size(), 2u);
  std::vector<Complex> expected;
  for (int64_t i = 0; i < 2; ++i)
    for (double v : {-1.0, 0.5, 7.0})
      for (int64_t k = 0; k < 4; ++k)
        expected.push_back(v);
  expectTensor(out[0], K::F64, {2, 3, 4}, expected, 0);
  expectTensor(out[1], K::I1, {2, 2}, {1, 1, 1, 1}, 0);
}

TEST(EvaluatorShape, SliceWithAndWithoutStride) {
  auto out = run(R"mlir(
    func.func @main(%x: tensor<8x6xf32>, %y: tensor<8xi64>)
        -> (tensor<4x2xf32>, tensor<3x6xf32>, tensor<3xi64>, tensor<0x6xf32>) {
      %0 = spectral.slice %x start [0, 1] limit [8, 6] stride [2, 3] : tensor<8x6xf32>
      %1 = spectral.slice %x start [2, 0] limit [5, 6] : tensor<8x6xf32>
      %2 = spectral.slice %y start [1] limit [8] stride [3] : tensor<8xi64>
      %3 = spectral.slice %x start [3, 0] limit [3, 6] : tensor<8x6xf32>
      return %0, %1, %2, %3 : tensor<4x2xf32>, tensor<3x6xf32>, tensor<3xi64>, tensor<0x6xf32>
    })mlir",
                 {makeTensor(K::F32, {8, 6}, iota(48)), makeTensor(K::I64, {8}, iota(8))});
  ASSERT_EQ(out.size(), 4u);
  // Rows 0, 2, 4, 6 and columns 1, 4 of x[r, c] = 6 r + c.
  expectTensor(out[0], K::F32, {4, 2}, {1, 4, 13, 16, 25, 28, 37, 40}, 0);
  std::vector<Complex> all = iota(48);
  std::vector<Complex> rows(all.begin() + 12, all.begin() + 30);
  expectTensor(out[1], K::F32, {3, 6}, rows, 0);
  expectTensor(out[2], K::I64, {3}, {1, 4, 7}, 0);
  expectTensor(out[3], K::F32, {0, 6}, {}, 0);
}

TEST(EvaluatorShape, PadWithValue) {
  auto out = run(R"mlir(
    func.func @main(%x: tensor<2x2xf32>, %c: tensor<1xcomplex<f64>>, %i: tensor<1xi32>)
        -> (tensor<3x4xf32>, tensor<4xcomplex<f64>>, tensor<3xi32>) {
      %0 = spectral.pad %x low [1, 0] high [0, 2] value -1.0 : tensor<2x2xf32>
      %1 = spectral.pad %c low [2] high [1] value -2.5 : tensor<1xcomplex<f64>>
      %2 = spectral.pad %i low [1] high [1] value 7.0 : tensor<1xi32>
      return %0, %1, %2 : tensor<3x4xf32>, tensor<4xcomplex<f64>>, tensor<3xi32>
    })mlir",
                 {makeTensor(K::F32, {2, 2}, {1, 2, 3, 4}), makeTensor(K::C128, {1}, {{1, 1}}),
                  makeTensor(K::I32, {1}, {5})});
  ASSERT_EQ(out.size(), 3u);
  expectTensor(out[0], K::F32, {3, 4}, {-1, -1, -1, -1, 1, 2, -1, -1, 3, 4, -1, -1}, 0);
  expectTensor(out[1], K::C128, {4}, {-2.5, -2.5, {1, 1}, -2.5}, 0);
  expectTensor(out[2], K::I32, {3}, {7, 5, 7}, 0);
}

TEST(EvaluatorShape, Concat) {
  auto out = run(R"mlir(
    func.func @main(%a: tensor<2x1xf32>, %b: tensor<2x2xf32>, %c: tensor<1x2x2xi64>, %d: tensor<2x2x2xi64>)
        -> (tensor<2x4xf32>, tensor<3x2x2xi64>, tensor<2x1xf32>) {
      %0 = spectral.concat %a, %b, %a axis 1 : tensor<2x1xf32>, tensor<2x2xf32>, tensor<2x1xf32>
      %1 = spectral.concat %c, %d axis 0 : tensor<1x2x2xi64>, tensor<2x2x2xi64>
      %2 = spectral.concat %a axis 0 : tensor<2x1xf32>
      return %0, %1, %2 : tensor<2x4xf32>, tensor<3x2x2xi64>, tensor<2x1xf32>
    })mlir",
                 {makeTensor(K::F32, {2, 1}, {1, 2}), makeTensor(K::F32, {2, 2}, {10, 20, 30, 40}),
                  makeTensor(K::I64, {1, 2, 2}, {-1, -2, -3, -4}),
                  makeTensor(K::I64, {2, 2, 2}, iota(8))});
  ASSERT_EQ(out.size(), 3u);
  expectTensor(out[0], K::F32, {2, 4}, {1, 10, 20, 1, 2, 30, 40, 2}, 0);
  expectTensor(out[1], K::I64, {3, 2, 2}, {-1, -2, -3, -4, 0, 1, 2, 3, 4, 5, 6, 7}, 0);
  expectTensor(out[2], K::F32, {2, 1}, {1, 2}, 0);

  // The middle axis of 3-D operands.
  out = run(R"mlir(
    func.func @main(%a: tensor<2x1x2xf64>, %b: tensor<2x2x2xf64>) -> tensor<2x3x2xf64> {
      %0 = spectral.concat %a, %b axis 1 : tensor<2x1x2xf64>, tensor<2x2x2xf64>
      return %0 : tensor<2x3x2xf64>
    })mlir",
            {makeTensor(K::F64, {2, 1, 2}, {-1, -2, -3, -4}), makeTensor(K::F64, {2, 2, 2}, iota(8))});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::F64, {2, 3, 2}, {-1, -2, 0, 1, 2, 3, -3, -4, 4, 5, 6, 7}, 0);
}

TEST(EvaluatorShape, EmptyTensorsDoNotCrash) {
  // Zero-length dims are legal static shapes; nothing to compute, no crash.
  auto out = run(R"mlir(
    func.func @main(%x: tensor<2x0xf32>, %y: tensor<0x3xf32>)
        -> (tensor<2x0xf32>, tensor<2x0xf32>, tensor<0x3xf32>, tensor<4x0xf32>, tensor<0x6xf32>, tensor<3xf32>) {
      %0 = spectral.softmax %x axis 0 : tensor<2x0xf32>
      %1 = spectral.log_softmax %x axis 1 : tensor<2x0xf32>
      %2 = spectral.concat %y, %y axis 0 : tensor<0x3xf32>, tensor<0x3xf32>
      %3 = spectral.concat %x, %x axis 0 : tensor<2x0xf32>, tensor<2x0xf32>
      %4 = spectral.concat %y, %y axis 1 : tensor<0x3xf32>, tensor<0x3xf32>
      %5 = spectral.reduce_sum %y axes [0] : tensor<0x3xf32>
      return %0, %1, %2, %3, %4, %5 : tensor<2x0xf32>, tensor<2x0xf32>, tensor<0x3xf32>, tensor<4x0xf32>, tensor<0x6xf32>, tensor<3xf32>
    })mlir",
                 {makeTensor(K::F32, {2, 0}, {}), makeTensor(K::F32, {0, 3}, {})});
  ASSERT_EQ(out.size(), 6u);
  expectTensor(out[0], K::F32, {2, 0}, {});
  expectTensor(out[1], K::F32, {2, 0}, {});
  expectTensor(out[2], K::F32, {0, 3}, {});
  expectTensor(out[3], K::F32, {4, 0}, {});
  expectTensor(out[4], K::F32, {0, 6}, {});
  expectTensor(out[5], K::F32, {3}, {0, 0, 0}, 0);
}

} // namespace
} // namespace spectral::reference::test
