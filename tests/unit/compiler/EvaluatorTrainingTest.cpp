//===- EvaluatorTrainingTest.cpp - contractions, losses, optimizer steps --===//
//
// matmul and channel_mix against explicit index loops, losses against
// log-sum-exp and squares by hand, optimizer steps against numbers worked
// out by hand (SGD), closed forms of the bias-corrected update (Adam) and a
// plain loop over the documented update (Adam).
//
//===----------------------------------------------------------------------===//

#include "EvaluatorTest.h"

#include <cmath>
#include <limits>

namespace spectral::reference::test {
namespace {

/// Small integers and halves with both signs: products and sums stay exact.
std::vector<Complex> exactValues(int64_t count, int64_t salt, bool complex = false) {
  std::vector<Complex> v(count);
  for (int64_t i = 0; i < count; ++i) {
    double re = double((i * 5 + salt) % 7) - 3.0;
    double im = complex ? double((i * 3 + salt) % 5) / 2.0 - 1.0 : 0.0;
    v[i] = {re, im};
  }
  return v;
}

TEST(EvaluatorMatmul, BatchDimsBroadcast) {
  // [2, 1, 2, 3] x [4, 3, 2] -> [2, 4, 2, 2].
  std::vector<Complex> a = exactValues(12, 1), b = exactValues(24, 2);
  auto out = run(R"mlir(
    func.func @main(%a: tensor<2x1x2x3xf32>, %b: tensor<4x3x2xf32>) -> tensor<2x4x2x2xf32> {
      %0 = spectral.matmul %a, %b : tensor<2x1x2x3xf32>, tensor<4x3x2xf32>
      return %0 : tensor<2x4x2x2xf32>
    })mlir",
                 {makeTensor(K::F32, {2, 1, 2, 3}, a), makeTensor(K::F32, {4, 3, 2}, b)});
  ASSERT_EQ(out.size(), 1u);
  std::vector<Complex> expected;
  for (int64_t p = 0; p < 2; ++p)
    for (int64_t q = 0; q < 4; ++q)
      for (int64_t i = 0; i < 2; ++i)
        for (int64_t j = 0; j < 2; ++j) {
          Complex sum = 0;
          for (int64_t l = 0; l < 3; ++l)
            sum += a[p * 6 + i * 3 + l] * b[q * 6 + l * 2 + j];
          expected.push_back(sum);
        }
  expectTensor(out[0], K::F32, {2, 4, 2, 2}, expected, 0);
}

TEST(EvaluatorMatmul, UnbatchedLhsMeetsBatchedRhs) {
  // [2, 3] x [3, 3, 2] -> [3, 2, 2]: the lhs is shared by every batch.
  std::vector<Complex> a = exactValues(6, 3), b = exactValues(18, 4);
  auto out = run(R"mlir(
    func.func @main(%a: tensor<2x3xf64>, %b: tensor<3x3x2xf64>) -> tensor<3x2x2xf64> {
      %0 = spectral.matmul %a, %b : tensor<2x3xf64>, tensor<3x3x2xf64>
      return %0 : tensor<3x2x2xf64>
    })mlir",
                 {makeTensor(K::F64, {2, 3}, a), makeTensor(K::F64, {3, 3, 2}, b)});
  ASSERT_EQ(out.size(), 1u);
  std::vector<Complex> expected;
  for (int64_t q = 0; q < 3; ++q)
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 2; ++j) {
        Complex sum = 0;
        for (int64_t l = 0; l < 3; ++l)
          sum += a[i * 3 + l] * b[q * 6 + l * 2 + j];
        expected.push_back(sum);
      }
  expectTensor(out[0], K::F64, {3, 2, 2}, expected, 0);
}

TEST(EvaluatorMatmul, ComplexAndInteger) {
  // [[1+i, 2], [0, -i]] x [[1, i], [1-i, 0]] = [[3-i, -1+i], [-1-i, 0]]:
  // no conjugation anywhere.
  auto out = run(R"mlir(
    func.func @main(%a: tensor<2x2xcomplex<f64>>, %b: tensor<2x2xcomplex<f64>>,
                    %p: tensor<2x2xi32>, %q: tensor<2x1xi32>) -> (tensor<2x2xcomplex<f64>>, tensor<2x1xi32>) {
      %0 = spectral.matmul %a, %b : tensor<2x2xcomplex<f64>>, tensor<2x2xcomplex<f64>>
      %1 = spectral.matmul %p, %q : tensor<2x2xi32>, tensor<2x1xi32>
      return %0, %1 : tensor<2x2xcomplex<f64>>, tensor<2x1xi32>
    })mlir",
                 {makeTensor(K::C128, {2, 2}, {{1, 1}, {2, 0}, {0, 0}, {0, -1}}),
                  makeTensor(K::C128, {2, 2}, {{1, 0}, {0, 1}, {1, -1}, {0, 0}}),
                  makeTensor(K::I32, {2, 2}, {1, 2, 3, 4}), makeTensor(K::I32, {2, 1}, {5, 6})});
  ASSERT_EQ(out.size(), 2u);
  expectTensor(out[0], K::C128, {2, 2}, {{3, -1}, {-1, 1}, {-1, -1}, {0, 0}}, 0);
  expectTensor(out[1], K::I32, {2, 1}, {17, 39}, 0);
}

TEST(EvaluatorChannelMix, MatchesEinsumLoop) {
  // bixy,ioxy->boxy with B = 2, I = 3, O = 4 and 2 x 2 modes, complex.
  std::vector<Complex> x = exactValues(24, 5, true), w = exactValues(48, 6, true);
  auto out = run(R"mlir(
    func.func @main(%x: tensor<2x3x2x2xcomplex<f32>>, %w: tensor<3x4x2x2xcomplex<f32>>)
        -> tensor<2x4x2x2xcomplex<f32>> {
      %0 = spectral.channel_mix %x, %w : tensor<2x3x2x2xcomplex<f32>>, tensor<3x4x2x2xcomplex<f32>>
      return %0 : tensor<2x4x2x2xcomplex<f32>>
    })mlir",
                 {makeTensor(K::C64, {2, 3, 2, 2}, x), makeTensor(K::C64, {3, 4, 2, 2}, w)});
  ASSERT_EQ(out.size(), 1u);
  std::vector<Complex> expected;
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t o = 0; o < 4; ++o)
      for (int64_t s = 0; s < 2; ++s)
        for (int64_t t = 0; t < 2; ++t) {
          Complex sum = 0;
          for (int64_t i = 0; i < 3; ++i)
            sum += x[((b * 3 + i) * 2 + s) * 2 + t] * w[((i * 4 + o) * 2 + s) * 2 + t];
          expected.push_back(sum);
        }
  expectTensor(out[0], K::C64, {2, 4, 2, 2}, expected, 0);
}

TEST(EvaluatorChannelMix, WithoutModesIsAMatrixProduct) {
  std::vector<Complex> x = exactValues(6, 7), w = exactValues(6, 8);
  auto out = run(R"mlir(
    func.func @main(%x: tensor<2x3xf64>, %w: tensor<3x2xf64>) -> tensor<2x2xf64> {
      %0 = spectral.channel_mix %x, %w : tensor<2x3xf64>, tensor<3x2xf64>
      return %0 : tensor<2x2xf64>
    })mlir",
                 {makeTensor(K::F64, {2, 3}, x), makeTensor(K::F64, {3, 2}, w)});
  ASSERT_EQ(out.size(), 1u);
  std::vector<Complex> expected;
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t o = 0; o < 2; ++o)
      expected.push_back(x[b * 3] * w[o] + x[b * 3 + 1] * w[2 + o] + x[b * 3 + 2] * w[4 + o]);
  expectTensor(out[0], K::F64, {2, 2}, expected, 0);
}

const char *kCrossEntropy = R"mlir(
  func.func @main(%l: tensor<2x3xf64>, %y: tensor<2xi32>, %z: tensor<2xi64>) -> (tensor<f64>, tensor<f64>) {
    %0 = spectral.cross_entropy %l, %y : tensor<2x3xf64>, tensor<2xi32>
    %1 = spectral.cross_entropy %l, %z : tensor<2x3xf64>, tensor<2xi64>
    return %0, %1 : tensor<f64>, tensor<f64>
  })mlir";

TEST(EvaluatorCrossEntropy, MeanOfLogSumExpMinusLabelLogit) {
  // Row 0, label 2: log(e + e^2 + e^3) - 3 = log(1 + e^-1 + e^-2).
  // Row 1, label 1: log(3 e^0) - 0 = log 3.
  Tensor logits = makeTensor(K::F64, {2, 3}, {1, 2, 3, 0, 0, 0});
  auto out = run(kCrossEntropy, {logits, makeTensor(K::I32, {2}, {2, 1}),
                                 makeTensor(K::I64, {2}, {0, 1})});
  ASSERT_EQ(out.size(), 2u);
  double row0 = std::log(1 + std::exp(-1.0) + std::exp(-2.0));
  expectTensor(out[0], K::F64, {}, {(row0 + std::log(3.0)) / 2});
  // Label 0 of row 0: log(1 + e + e^2) - 1 + 2 = log(e^-2 + e^-1 + 1) + 2.
  expectTensor(out[1], K::F64, {}, {(row0 + 2 + std::log(3.0)) / 2});

  // Logits far apart need the max shift: the loss of label 2 is exactly 2000.
  out = run(R"mlir(
    func.func @main(%l: tensor<1x3xf32>, %y: tensor<1xi64>) -> tensor<f32> {
      %0 = spectral.cross_entropy %l, %y : tensor<1x3xf32>, tensor<1xi64>
      return %0 : tensor<f32>
    })mlir",
            {makeTensor(K::F32, {1, 3}, {1000, 0, -1000}), makeTensor(K::I64, {1}, {2})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::F32, {}, {2000});
}

TEST(EvaluatorCrossEntropy, LabelOutOfRangeIsNamed) {
  Tensor logits = makeTensor(K::F64, {2, 3}, {1, 2, 3, 0, 0, 0});
  Tensor ok = makeTensor(K::I64, {2}, {0, 0});
  expectContains(runError(kCrossEntropy, {logits, makeTensor(K::I32, {2}, {0, 3}), ok}),
                 {"spectral.cross_entropy", "label 3", "row 1"});
  expectContains(runError(kCrossEntropy, {logits, makeTensor(K::I32, {2}, {-1, 0}), ok}),
                 {"spectral.cross_entropy", "label -1", "row 0"});
}

TEST(EvaluatorMse, RealAndComplex) {
  auto out = run(R"mlir(
    func.func @main(%p: tensor<3xf32>, %t: tensor<3xf32>, %c: tensor<2xcomplex<f32>>, %d: tensor<2xcomplex<f32>>)
        -> (tensor<f32>, tensor<f32>) {
      %0 = spectral.mse %p, %t : tensor<3xf32>
      %1 = spectral.mse %c, %d : tensor<2xcomplex<f32>>
      return %0, %1 : tensor<f32>, tensor<f32>
    })mlir",
                 {makeTensor(K::F32, {3}, {1, 2, 3}), makeTensor(K::F32, {3}, {1, 0, 0}),
                  makeTensor(K::C64, {2}, {{1, 1}, {3, 4}}),
                  makeTensor(K::C64, {2}, {{0, 0}, {0, 0}})});
  ASSERT_EQ(out.size(), 2u);
  expectTensor(out[0], K::F32, {}, {13.0 / 3});
  // |1+i|^2 = 2, |3+4i|^2 = 25; (p - t)^2 without the modulus would be 2i and -7+24i.
  expectTensor(out[1], K::F32, {}, {13.5});
}

TEST(EvaluatorLoss, MeanOverNoElementsIsNan) {
  // Like reduce_mean, a loss averaged over nothing is 0 / 0, not 0.
  double nan = std::numeric_limits<double>::quiet_NaN();
  auto out = run(R"mlir(
    func.func @main(%p: tensor<0xf32>, %l: tensor<0x3xf64>, %y: tensor<0xi64>)
        -> (tensor<f32>, tensor<f64>) {
      %0 = spectral.mse %p, %p : tensor<0xf32>
      %1 = spectral.cross_entropy %l, %y : tensor<0x3xf64>, tensor<0xi64>
      return %0, %1 : tensor<f32>, tensor<f64>
    })mlir",
                 {makeTensor(K::F32, {0}, {}), makeTensor(K::F64, {0, 3}, {}),
                  makeTensor(K::I64, {0}, {})});
  ASSERT_EQ(out.size(), 2u);
  expectTensor(out[0], K::F32, {}, {nan});
  expectTensor(out[1], K::F64, {}, {nan});
}

std::string sgd(const std::string &attributes, const std::string &type = "tensor<2xf64>") {
  return "func.func @main(%p: " + type + ", %g: " + type + ", %v: " + type + ") -> (" +
         type + ", " + type + ") {\n  %0:2 = spectral.sgd_step %p, %g, %v " + attributes +
         " : " + type + "\n  return %0#0, %0#1 : " + type + ", " + type + "\n}\n";
}

TEST(EvaluatorSgd, OneStepByHand) {
  // p = [1, -2], g = [0.5, 0.25], v = [0.1, -0.2], lr = 0.1.
  std::vector<Tensor> in = {makeTensor(K::F64, {2}, {1, -2}),
                            makeTensor(K::F64, {2}, {0.5, 0.25}),
                            makeTensor(K::F64, {2}, {0.1, -0.2})};
  // Plain: v' = g, p' = p - lr g.
  auto out = run(sgd("lr 0.1"), in);
  ASSERT_EQ(out.size(), 2u);
  expectTensor(out[0], K::F64, {2}, {0.95, -2.025});
  expectTensor(out[1], K::F64, {2}, {0.5, 0.25});
  // Momentum 0.9: v' = 0.9 v + g = [0.59, 0.07].
  out = run(sgd("lr 0.1 momentum 0.9"), in);
  ASSERT_EQ(out.size(), 2u);
  expectTensor(out[0], K::F64, {2}, {0.941, -2.007});
  expectTensor(out[1], K::F64, {2}, {0.59, 0.07});
  // Weight decay 0.01: g' = g + 0.01 p = [0.51, 0.23], v' = [0.6, 0.05].
  out = run(sgd("lr 0.1 momentum 0.9 weight_decay 0.01"), in);
  ASSERT_EQ(out.size(), 2u);
  expectTensor(out[0], K::F64, {2}, {0.94, -2.005});
  expectTensor(out[1], K::F64, {2}, {0.6, 0.05});
  // Nesterov: the step is g' + 0.9 v' = [1.05, 0.275].
  out = run(sgd("lr 0.1 momentum 0.9 weight_decay 0.01 nesterov"), in);
  ASSERT_EQ(out.size(), 2u);
  expectTensor(out[0], K::F64, {2}, {0.895, -2.0275});
  expectTensor(out[1], K::F64, {2}, {0.6, 0.05});
  // Weight decay without momentum.
  out = run(sgd("lr 0.1 weight_decay 0.01"), in);
  ASSERT_EQ(out.size(), 2u);
  expectTensor(out[0], K::F64, {2}, {0.949, -2.023});
  expectTensor(out[1], K::F64, {2}, {0.51, 0.23});
}

TEST(EvaluatorSgd, Complex) {
  // p = 1+i, g = i, v = 2: v' = 0.5 * 2 + i, p' = 1+i - 0.5 (1+i) = 0.5+0.5i.
  auto out = run(sgd("lr 0.5 momentum 0.5", "tensor<1xcomplex<f32>>"),
                 {makeTensor(K::C64, {1}, {{1, 1}}), makeTensor(K::C64, {1}, {{0, 1}}),
                  makeTensor(K::C64, {1}, {{2, 0}})});
  ASSERT_EQ(out.size(), 2u);
  expectTensor(out[0], K::C64, {1}, {{0.5, 0.5}});
  expectTensor(out[1], K::C64, {1}, {{1, 1}});
}

struct AdamState {
  std::vector<Complex> p, m;
  std::vector<double> v;
};

/// The documented update, element by element.
AdamState adamByHand(const AdamState &s, const std::vector<Complex> &grad, int step,
                     double lr, double beta1, double beta2, double eps, double decay,
                     bool decoupled) {
  AdamState next = s;
  for (size_t i = 0; i < s.p.size(); ++i) {
    Complex g = grad[i], p = s.p[i];
    if (decoupled)
      p *= 1 - lr * decay;
    else
      g += decay * s.p[i];
    next.m[i] = beta1 * s.m[i] + (1 - beta1) * g;
    next.v[i] = beta2 * s.v[i] + (1 - beta2) * std::norm(g);
    Complex mHat = next.m[i] / (1 - std::pow(beta1, step));
    double vHat = next.v[i] / (1 - std::pow(beta2, step));
    next.p[i] = p - lr * mHat / (std::sqrt(vHat) + eps);
  }
  return next;
}

std::string adam(const std::string &attributes, const std::string &type,
                 const std::string &realType, const std::string &stepType) {
  return "func.func @main(%p: " + type + ", %g: " + type + ", %m: " + type + ", %v: " +
         realType + ", %t: " + stepType + ") -> (" + type + ", " + type + ", " + realType +
         ") {\n  %0:3 = spectral.adam_step %p, %g, %m, %v, %t " + attributes + " : " +
         type + ", " + realType + ", " + stepType + "\n  return %0#0, %0#1, %0#2 : " +
         type + ", " + type + ", " + realType + "\n}\n";
}

TEST(EvaluatorAdam, AdamAndAdamWAtSteps1And3) {
  AdamState s{{1.0, -2.0, 0.5}, {0.1, 0.2, -0.3}, {0.01, 0.5, 0.2}};
  std::vector<Complex> g = {0.5, -0.25, 2.0};
  const char *type = "tensor<3xf64>";
  for (bool decoupled : {false, true})
    for (int step : {1, 3}) {
      SCOPED_TRACE(std::string(decoupled ? "AdamW" : "Adam") + " step " + std::to_string(step));
      std::string attributes = "lr 0.01 beta1 0.8 beta2 0.99 eps 0.001 weight_decay 0.1";
      if (decoupled)
        attributes += " decoupled";
      auto out = run(adam(attributes, type, type, "tensor<i64>"),
                     {makeTensor(K::F64, {3}, s.p), makeTensor(K::F64, {3}, g),
                      makeTensor(K::F64, {3}, s.m),
                      makeTensor(K::F64, {3}, {s.v.begin(), s.v.end()}),
                      makeTensor(K::I64, {}, {double(step)})});
      ASSERT_EQ(out.size(), 3u);
      AdamState next = adamByHand(s, g, step, 0.01, 0.8, 0.99, 0.001, 0.1, decoupled);
      expectTensor(out[0], K::F64, {3}, next.p);
      expectTensor(out[1], K::F64, {3}, next.m);
      expectTensor(out[2], K::F64, {3}, {next.v.begin(), next.v.end()});
    }
}

TEST(EvaluatorAdam, FirstStepFromZeroMovesBySignOfGradient) {
  // m = v = 0, step 1, default betas: the bias-corrected ratio is g / |g|,
  // so p' = p - lr g / (|g| + eps), for real and complex g alike.
  auto out = run(adam("lr 0.5", "tensor<2xf64>", "tensor<2xf64>", "tensor<i32>"),
                 {makeTensor(K::F64, {2}, {1, 1}), makeTensor(K::F64, {2}, {2, -0.5}),
                  makeTensor(K::F64, {2}, {0, 0}), makeTensor(K::F64, {2}, {0, 0}),
                  makeTensor(K::I32, {}, {1})});
  ASSERT_EQ(out.size(), 3u);
  expectTensor(out[0], K::F64, {2}, {1 - 0.5 * 2 / (2 + 1e-8), 1 + 0.5 * 0.5 / (0.5 + 1e-8)},
               1e-12);
  expectTensor(out[1], K::F64, {2}, {0.2, -0.05}, 1e-12);
  expectTensor(out[2], K::F64, {2}, {0.004, 0.00025}, 1e-12);

  out = run(adam("lr 0.5", "tensor<1xcomplex<f64>>", "tensor<1xf64>", "tensor<i64>"),
            {makeTensor(K::C128, {1}, {{1, 0}}), makeTensor(K::C128, {1}, {{3, 4}}),
             makeTensor(K::C128, {1}, {0}), makeTensor(K::F64, {1}, {0}),
             makeTensor(K::I64, {}, {1})});
  ASSERT_EQ(out.size(), 3u);
  expectTensor(out[0], K::C128, {1}, {Complex(1, 0) - 0.5 * Complex(3, 4) / (5 + 1e-8)}, 1e-12);
  expectTensor(out[1], K::C128, {1}, {{0.3, 0.4}}, 1e-12);
  expectTensor(out[2], K::F64, {1}, {0.025}, 1e-12);
}

TEST(EvaluatorAdam, ConstantGradientMovesByTheSameStepEveryTime) {
  // From m = v = 0 under a constant g, m_t = (1 - b1^t) g and v_t = (1 - b2^t)
  // g^2, so the bias-corrected ratio is g / |g| at every step: three steps
  // move p by exactly -3 lr g / (|g| + eps). Worked out by hand for lr = 0.25,
  // eps = 0.5, g = [2, -0.5, 1]: the moves are -1/5, +1/8, -1/6 per step.
  auto out = run(R"mlir(
    func.func @main(%p: tensor<3xf64>, %g: tensor<3xf64>, %z: tensor<3xf64>,
                    %t1: tensor<i64>, %t2: tensor<i64>, %t3: tensor<i64>)
        -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) {
      %a:3 = spectral.adam_step %p, %g, %z, %z, %t1 lr 0.25 beta1 0.5 beta2 0.75 eps 0.5 : tensor<3xf64>, tensor<3xf64>, tensor<i64>
      %b:3 = spectral.adam_step %a#0, %g, %a#1, %a#2, %t2 lr 0.25 beta1 0.5 beta2 0.75 eps 0.5 : tensor<3xf64>, tensor<3xf64>, tensor<i64>
      %c:3 = spectral.adam_step %b#0, %g, %b#1, %b#2, %t3 lr 0.25 beta1 0.5 beta2 0.75 eps 0.5 : tensor<3xf64>, tensor<3xf64>, tensor<i64>
      return %c#0, %c#1, %c#2 : tensor<3xf64>, tensor<3xf64>, tensor<3xf64>
    })mlir",
                 {makeTensor(K::F64, {3}, {1, 1, 1}), makeTensor(K::F64, {3}, {2, -0.5, 1}),
                  makeTensor(K::F64, {3}, {0, 0, 0}), makeTensor(K::I64, {}, {1}),
                  makeTensor(K::I64, {}, {2}), makeTensor(K::I64, {}, {3})});
  ASSERT_EQ(out.size(), 3u);
  expectTensor(out[0], K::F64, {3}, {0.4, 1.375, 0.5}, 1e-15);
  // m_3 = (1 - 1/8) g, v_3 = (1 - 27/64) g^2.
  expectTensor(out[1], K::F64, {3}, {1.75, -0.4375, 0.875}, 1e-15);
  expectTensor(out[2], K::F64, {3}, {37.0 / 16, 37.0 / 256, 37.0 / 64}, 1e-15);
}

TEST(EvaluatorAdam, AdamWWithoutGradientOnlyDecays) {
  // g = 0, m = v = 0: the Adam ratio is 0 / (0 + eps) = 0, so AdamW scales p
  // by 1 - lr wd = 1 - 0.1 * 0.5 = 0.95 and nothing else. Adam (coupled)
  // instead sees g' = g + wd p and, from m = v = 0 at step 1 with eps = 0,
  // takes a full step of -lr sign(g').
  const char *type = "tensor<3xf64>";
  std::vector<Tensor> in = {makeTensor(K::F64, {3}, {2, -4, 0}), makeTensor(K::F64, {3}, {0, 0, 0}),
                            makeTensor(K::F64, {3}, {0, 0, 0}), makeTensor(K::F64, {3}, {0, 0, 0}),
                            makeTensor(K::I64, {}, {1})};
  auto out = run(adam("lr 0.1 weight_decay 0.5 decoupled", type, type, "tensor<i64>"), in);
  ASSERT_EQ(out.size(), 3u);
  expectTensor(out[0], K::F64, {3}, {1.9, -3.8, 0}, 1e-15);
  expectTensor(out[1], K::F64, {3}, {0, 0, 0}, 0);
  expectTensor(out[2], K::F64, {3}, {0, 0, 0}, 0);
  in[1] = makeTensor(K::F64, {3}, {0, 0, 1}); // g' = 1 for the third, not 0
  out = run(adam("lr 0.1 eps 0.0 weight_decay 0.5", type, type, "tensor<i64>"), in);
  ASSERT_EQ(out.size(), 3u);
  // g' = [1, -2, 1]; m' = 0.1 g', v' = 0.001 g'^2.
  expectTensor(out[0], K::F64, {3}, {1.9, -3.9, -0.1}, 1e-15);
  expectTensor(out[1], K::F64, {3}, {0.1, -0.2, 0.1}, 1e-15);
  expectTensor(out[2], K::F64, {3}, {0.001, 0.004, 0.001}, 1e-14);
}

TEST(EvaluatorAdam, StepZeroIsAnError) {
  const char *type = "tensor<1xf32>";
  expectContains(runError(adam("lr 0.1", type, type, "tensor<i64>"),
                          {makeTensor(K::F32, {1}, {1}), makeTensor(K::F32, {1}, {1}),
                           makeTensor(K::F32, {1}, {0}), makeTensor(K::F32, {1}, {0}),
                           makeTensor(K::I64, {}, {0})}),
                 {"spectral.adam_step", "step 0"});
}

TEST(EvaluatorClipGlobalNorm, BelowAndAboveMaxNorm) {
  // The global norm over [3, 0] and [4i] is 5.
  auto clip = [](const std::string &maxNorm) {
    return "func.func @main(%a: tensor<2xf32>, %b: tensor<1xcomplex<f32>>)\n"
           "    -> (tensor<2xf32>, tensor<1xcomplex<f32>>, tensor<f32>) {\n"
           "  %0:3 = spectral.clip_global_norm %a, %b max_norm " + maxNorm +
           " : tensor<2xf32>, tensor<1xcomplex<f32>>\n"
           "  return %0#0, %0#1, %0#2 : tensor<2xf32>, tensor<1xcomplex<f32>>, tensor<f32>\n}\n";
  };
  std::vector<Tensor> in = {makeTensor(K::F32, {2}, {3, 0}), makeTensor(K::C64, {1}, {{0, 4}})};
  for (const char *unclipped : {"10.0", "5.0"}) {
    auto out = run(clip(unclipped), in);
    ASSERT_EQ(out.size(), 3u);
    expectTensor(out[0], K::F32, {2}, {3, 0});
    expectTensor(out[1], K::C64, {1}, {{0, 4}});
    expectTensor(out[2], K::F32, {}, {5});
  }
  auto out = run(clip("2.5"), in);
  ASSERT_EQ(out.size(), 3u);
  expectTensor(out[0], K::F32, {2}, {1.5, 0});
  expectTensor(out[1], K::C64, {1}, {{0, 2}});
  expectTensor(out[2], K::F32, {}, {5}); // the norm before clipping

  out = run(R"mlir(
    func.func @main(%c: tensor<f64>) -> (tensor<f64>, tensor<f64>) {
      %0:2 = spectral.clip_global_norm %c max_norm 0.5 : tensor<f64>
      return %0#0, %0#1 : tensor<f64>, tensor<f64>
    })mlir",
            {makeTensor(K::F64, {}, {-2})});
  ASSERT_EQ(out.size(), 2u);
  expectTensor(out[0], K::F64, {}, {-0.5});
  expectTensor(out[1], K::F64, {}, {2});
}

} // namespace
} // namespace spectral::reference::test
