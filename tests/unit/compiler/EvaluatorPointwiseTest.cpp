//===- EvaluatorPointwiseTest.cpp - unary, binary, cmp, select, cast ------===//
//
// Each op against closed forms: values whose results are known exactly or
// to the last digit (e, ln 2, Phi(1), ...), written out by hand.
//
//===----------------------------------------------------------------------===//

#include "EvaluatorTest.h"

#include <cmath>
#include <limits>

namespace spectral::reference::test {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kE = 2.71828182845904523536;
constexpr double kLn2 = 0.69314718055994530942;
constexpr double kLn3 = 1.09861228866810969140;

/// @main applying `op` to one argument of `type`, returning `resultType`.
std::string unary(const std::string &op, const std::string &type,
                  const std::string &resultType = "") {
  const std::string &out = resultType.empty() ? type : resultType;
  return "func.func @main(%x: " + type + ") -> " + out + " {\n  %y = spectral." +
         op + " %x : " + type + "\n  return %y : " + out + "\n}\n";
}

/// @main applying binary `op` to arguments of types `a` and `b`.
std::string binary(const std::string &op, const std::string &a, const std::string &b,
                   const std::string &out) {
  return "func.func @main(%a: " + a + ", %b: " + b + ") -> " + out +
         " {\n  %y = spectral." + op + " %a, %b : " + a + ", " + b +
         "\n  return %y : " + out + "\n}\n";
}

TEST(EvaluatorUnary, Neg) {
  auto out = run(unary("neg", "tensor<3xf32>"), {makeTensor(K::F32, {3}, {1.5, -2, 0})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::F32, {3}, {-1.5, 2, 0}, 0);
  out = run(unary("neg", "tensor<2xcomplex<f64>>"),
            {makeTensor(K::C128, {2}, {{1, -2}, {0, 3}})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::C128, {2}, {{-1, 2}, {0, -3}}, 0);
  out = run(unary("neg", "tensor<2xi32>"), {makeTensor(K::I32, {2}, {3, -4})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::I32, {2}, {-3, 4}, 0);
}

TEST(EvaluatorUnary, Exp) {
  double inf = std::numeric_limits<double>::infinity();
  auto out = run(unary("exp", "tensor<6xf64>"),
                 {makeTensor(K::F64, {6}, {0, 1, -1, kLn2, 1000, -inf})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::F64, {6}, {1, kE, 1 / kE, 2, inf, 0});
  // e^(i pi) = -1, e^(ln 2 + i pi/2) = 2i.
  out = run(unary("exp", "tensor<2xcomplex<f32>>"),
            {makeTensor(K::C64, {2}, {{0, kPi}, {kLn2, kPi / 2}})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::C64, {2}, {{-1, 0}, {0, 2}});
}

TEST(EvaluatorUnary, Log) {
  auto out = run(unary("log", "tensor<3xf64>"),
                 {makeTensor(K::F64, {3}, {1, kE, 0.25})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::F64, {3}, {0, 1, -2 * kLn2});
  // Principal branch: log(-1) = i pi, log(i) = i pi/2, log(-2i) = ln 2 - i pi/2.
  out = run(unary("log", "tensor<3xcomplex<f64>>"),
            {makeTensor(K::C128, {3}, {{-1, 0}, {0, 1}, {0, -2}})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::C128, {3}, {{0, kPi}, {0, kPi / 2}, {kLn2, -kPi / 2}});
}

TEST(EvaluatorUnary, Sqrt) {
  auto out = run(unary("sqrt", "tensor<3xf32>"),
                 {makeTensor(K::F32, {3}, {4, 2.25, 0})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::F32, {3}, {2, 1.5, 0});
  // Principal branch (Re >= 0): sqrt(-4) = 2i, sqrt(3+4i) = 2+i, sqrt(-2i) = 1-i.
  out = run(unary("sqrt", "tensor<3xcomplex<f64>>"),
            {makeTensor(K::C128, {3}, {{-4, 0}, {3, 4}, {0, -2}})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::C128, {3}, {{0, 2}, {2, 1}, {1, -1}});
}

TEST(EvaluatorUnary, Tanh) {
  // tanh(ln 3) = (9 - 1) / (9 + 1); tanh(i pi/4) = i tan(pi/4) = i.
  auto out = run(unary("tanh", "tensor<5xf64>"),
                 {makeTensor(K::F64, {5}, {0, kLn3, -kLn3, 40, -1000})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::F64, {5}, {0, 0.8, -0.8, 1, -1});
  out = run(unary("tanh", "tensor<1xcomplex<f32>>"),
            {makeTensor(K::C64, {1}, {{0, kPi / 4}})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::C64, {1}, {{0, 1}});
}

TEST(EvaluatorUnary, ReluGeluSigmoid) {
  auto out = run(unary("relu", "tensor<4xf32>"),
                 {makeTensor(K::F32, {4}, {-1, 0, 2.5, -0.001})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::F32, {4}, {0, 0, 2.5, 0}, 0);
  // x * Phi(x) with Phi(1) = 0.841344746068542949, Phi(2) = 0.977249868051820793:
  // the erf form, not the tanh approximation (which is off by ~1e-4 at 1).
  out = run(unary("gelu", "tensor<4xf64>"), {makeTensor(K::F64, {4}, {0, 1, -1, 2})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::F64, {4},
               {0, 0.841344746068542949, -(1 - 0.841344746068542949),
                2 * 0.977249868051820793});
  out = run(unary("sigmoid", "tensor<4xf64>"),
            {makeTensor(K::F64, {4}, {0, kLn3, -kLn3, -800})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::F64, {4}, {0.5, 0.75, 0.25, 0});
}

TEST(EvaluatorUnary, ReluPropagatesNan) {
  // torch.relu(nan) is nan; max(x, 0) written as x > 0 ? x : 0 would give 0.
  double nan = std::numeric_limits<double>::quiet_NaN();
  auto out = run(unary("relu", "tensor<3xf64>"), {makeTensor(K::F64, {3}, {nan, -nan, 1})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::F64, {3}, {nan, nan, 1}, 0);
}

TEST(EvaluatorUnary, ConjAbsRealImag) {
  Tensor c = makeTensor(K::C64, {3}, {{3, -4}, {-1.5, 2}, {0, 0}});
  auto out = run(unary("conj", "tensor<3xcomplex<f32>>"), {c});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::C64, {3}, {{3, 4}, {-1.5, -2}, {0, 0}}, 0);
  out = run(unary("abs", "tensor<3xcomplex<f32>>", "tensor<3xf32>"), {c});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::F32, {3}, {5, 2.5, 0});
  out = run(unary("real", "tensor<3xcomplex<f32>>", "tensor<3xf32>"), {c});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::F32, {3}, {3, -1.5, 0}, 0);
  out = run(unary("imag", "tensor<3xcomplex<f32>>", "tensor<3xf32>"), {c});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::F32, {3}, {-4, 2, 0}, 0);
  out = run(unary("abs", "tensor<2xf64>"), {makeTensor(K::F64, {2}, {-2.5, 1})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::F64, {2}, {2.5, 1}, 0);
  out = run(unary("abs", "tensor<2xi64>"), {makeTensor(K::I64, {2}, {-7, 7})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::I64, {2}, {7, 7}, 0);
}

std::string cast(const std::string &from, const std::string &to) {
  return "func.func @main(%x: " + from + ") -> " + to +
         " {\n  %y = spectral.cast %x : " + from + " to " + to +
         "\n  return %y : " + to + "\n}\n";
}

TEST(EvaluatorCast, FloatToIntegerTruncatesTowardZero) {
  auto out = run(cast("tensor<6xf32>", "tensor<6xi32>"),
                 {makeTensor(K::F32, {6}, {2.75, -2.75, 0.5, -0.5, 7, -8})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::I32, {6}, {2, -2, 0, 0, 7, -8}, 0);
  out = run(cast("tensor<2xf64>", "tensor<2xi64>"),
            {makeTensor(K::F64, {2}, {1e10 + 0.9, -1e10 - 0.9})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::I64, {2}, {1e10, -1e10}, 0);
}

TEST(EvaluatorCast, FloatToI1IsNotZero) {
  // numpy's astype(bool): any value that is not zero is true, fractions and
  // NaN included (truncating first would make 0.5 and -0.25 false).
  double nan = std::numeric_limits<double>::quiet_NaN();
  double inf = std::numeric_limits<double>::infinity();
  auto out = run(cast("tensor<6xf32>", "tensor<6xi1>"),
                 {makeTensor(K::F32, {6}, {0.5, -0.25, 0.0, -0.0, nan, -inf})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::I1, {6}, {1, 1, 0, 0, 1, 1}, 0);
}

TEST(EvaluatorCast, ToF32RoundsToNearestFloat) {
  // The nearest floats, written out: 0.1f = 13421773 / 2^27, (1/3)f =
  // 11184811 / 2^25; 2^24 + 1 ties to the even 2^24; 1e300 overflows to inf.
  const double tenth = 0.100000001490116119384765625;
  const double third = 0.3333333432674407958984375;
  double inf = std::numeric_limits<double>::infinity();
  auto out = run(cast("tensor<5xf64>", "tensor<5xf32>"),
                 {makeTensor(K::F64, {5}, {0.1, 1.0 / 3, 16777217, 1e300, -0.5})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::F32, {5}, {tenth, third, 16777216, inf, -0.5}, 0);
  out = run(cast("tensor<1xcomplex<f64>>", "tensor<1xcomplex<f32>>"),
            {makeTensor(K::C128, {1}, {{0.1, -1.0 / 3}})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::C64, {1}, {{tenth, -third}}, 0);
  out = run(cast("tensor<1xf64>", "tensor<1xcomplex<f32>>"),
            {makeTensor(K::F64, {1}, {0.1})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::C64, {1}, {{tenth, 0}}, 0);
  // Through f32 and back, the value stays rounded; other ops keep double.
  out = run(R"mlir(
    func.func @main(%x: tensor<1xf64>) -> (tensor<1xf64>, tensor<1xf32>) {
      %f = spectral.cast %x : tensor<1xf64> to tensor<1xf32>
      %d = spectral.cast %f : tensor<1xf32> to tensor<1xf64>
      %t = spectral.div %f, %f : tensor<1xf32>, tensor<1xf32>
      %s = spectral.mul %t, %f : tensor<1xf32>, tensor<1xf32>
      return %d, %s : tensor<1xf64>, tensor<1xf32>
    })mlir",
            {makeTensor(K::F64, {1}, {0.1})});
  ASSERT_EQ(out.size(), 2u);
  expectTensor(out[0], K::F64, {1}, {tenth}, 0);
  expectTensor(out[1], K::F32, {1}, {tenth}, 0);
}

TEST(EvaluatorCast, NanOrInfinityToIntegerIsAnError) {
  // No integer holds them; the result would be undefined behaviour later.
  double nan = std::numeric_limits<double>::quiet_NaN();
  double inf = std::numeric_limits<double>::infinity();
  expectContains(runError(cast("tensor<3xf32>", "tensor<3xi32>"),
                          {makeTensor(K::F32, {3}, {1, nan, 2})}),
                 {"test.mlir:2", "spectral.cast", "cannot represent nan in i32",
                  "element 1"});
  expectContains(runError(cast("tensor<2xf64>", "tensor<2xi64>"),
                          {makeTensor(K::F64, {2}, {inf, 0})}),
                 {"spectral.cast", "cannot represent inf in i64", "element 0"});
  expectContains(runError(cast("tensor<2xf64>", "tensor<2xi32>"),
                          {makeTensor(K::F64, {2}, {0, -inf})}),
                 {"spectral.cast", "cannot represent -inf in i32"});
  // pad's value is an f64 attribute: a NaN fill is caught the same way.
  expectContains(runError(R"mlir(
    func.func @main(%x: tensor<2xi32>) -> tensor<3xi32> {
      %y = spectral.pad %x low [1] high [0] value 0x7FF8000000000000 : tensor<2xi32>
      return %y : tensor<3xi32>
    })mlir",
                          {makeTensor(K::I32, {2}, {1, 2})}),
                 {"spectral.pad", "cannot represent nan in i32"});
}

TEST(EvaluatorCast, RealToComplexAndOthers) {
  auto out = run(cast("tensor<2xf32>", "tensor<2xcomplex<f64>>"),
                 {makeTensor(K::F32, {2}, {1.5, -3})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::C128, {2}, {{1.5, 0}, {-3, 0}}, 0);
  out = run(cast("tensor<2xi32>", "tensor<2xcomplex<f32>>"),
            {makeTensor(K::I32, {2}, {-4, 9})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::C64, {2}, {{-4, 0}, {9, 0}}, 0);
  out = run(cast("tensor<2xi32>", "tensor<2xf64>"), {makeTensor(K::I32, {2}, {-4, 9})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::F64, {2}, {-4, 9}, 0);
  out = run(cast("tensor<3xi1>", "tensor<3xf32>"), {makeTensor(K::I1, {3}, {1, 0, 1})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::F32, {3}, {1, 0, 1}, 0);
  out = run(cast("tensor<2xf64>", "tensor<2xi1>"), {makeTensor(K::F64, {2}, {0, 1})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::I1, {2}, {0, 1}, 0);
  out = run(cast("tensor<1xcomplex<f32>>", "tensor<1xcomplex<f64>>"),
            {makeTensor(K::C64, {1}, {{0.25, -8}})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::C128, {1}, {{0.25, -8}}, 0);
}

TEST(EvaluatorBinary, BroadcastColumnByRow) {
  // [3, 1] op [1, 4] -> [3, 4]: element (i, j) combines a[i] and b[j].
  Tensor a = makeTensor(K::F32, {3, 1}, {1, 2, 3});
  Tensor b = makeTensor(K::F32, {1, 4}, {10, 20, 30, 40});
  const char *ta = "tensor<3x1xf32>", *tb = "tensor<1x4xf32>", *to = "tensor<3x4xf32>";
  auto add = run(binary("add", ta, tb, to), {a, b});
  auto sub = run(binary("sub", ta, tb, to), {a, b});
  auto mul = run(binary("mul", ta, tb, to), {a, b});
  auto div = run(binary("div", ta, tb, to), {a, b});
  ASSERT_EQ(add.size() + sub.size() + mul.size() + div.size(), 4u);
  std::vector<Complex> sum, difference, product, quotient;
  for (double x : {1, 2, 3})
    for (double y : {10, 20, 30, 40}) {
      sum.push_back(x + y);
      difference.push_back(x - y);
      product.push_back(x * y);
      quotient.push_back(x / y);
    }
  expectTensor(add[0], K::F32, {3, 4}, sum, 0);
  expectTensor(sub[0], K::F32, {3, 4}, difference, 0);
  expectTensor(mul[0], K::F32, {3, 4}, product, 0);
  expectTensor(div[0], K::F32, {3, 4}, quotient);
}

TEST(EvaluatorBinary, BroadcastLowerRankAndScalar) {
  // [2, 3] - [3] subtracts the row from each row; [2, 3] * [] scales.
  Tensor a = makeTensor(K::F64, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto out = run(binary("sub", "tensor<2x3xf64>", "tensor<3xf64>", "tensor<2x3xf64>"),
                 {a, makeTensor(K::F64, {3}, {1, 10, 100})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::F64, {2, 3}, {0, -8, -97, 3, -5, -94}, 0);
  out = run(binary("mul", "tensor<f64>", "tensor<2x3xf64>", "tensor<2x3xf64>"),
            {makeTensor(K::F64, {}, {-2}), a});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::F64, {2, 3}, {-2, -4, -6, -8, -10, -12}, 0);
}

TEST(EvaluatorBinary, ComplexArithmetic) {
  // (1+2i)(3-i) = 5+5i; (5+5i)/(3-i) = 1+2i; (1+2i)+(3-i) = 4+i.
  Tensor a = makeTensor(K::C128, {2}, {{1, 2}, {5, 5}});
  Tensor b = makeTensor(K::C128, {2}, {{3, -1}, {3, -1}});
  const char *t = "tensor<2xcomplex<f64>>";
  auto mul = run(binary("mul", t, t, t), {a, b});
  auto div = run(binary("div", t, t, t), {a, b});
  auto add = run(binary("add", t, t, t), {a, b});
  auto sub = run(binary("sub", t, t, t), {a, b});
  ASSERT_EQ(mul.size() + div.size() + add.size() + sub.size(), 4u);
  expectTensor(mul[0], K::C128, {2}, {{5, 5}, {20, 10}});
  expectTensor(div[0], K::C128, {2}, {{0.1, 0.7}, {1, 2}});
  expectTensor(add[0], K::C128, {2}, {{4, 1}, {8, 4}}, 0);
  expectTensor(sub[0], K::C128, {2}, {{-2, 3}, {2, 6}}, 0);
}

TEST(EvaluatorBinary, IntegerDivisionTruncatesTowardZero) {
  // Floor division would give -4 where these give -3.
  Tensor a = makeTensor(K::I32, {5}, {7, -7, 7, -7, 6});
  Tensor b = makeTensor(K::I32, {5}, {2, 2, -2, -2, 3});
  auto out = run(binary("div", "tensor<5xi32>", "tensor<5xi32>", "tensor<5xi32>"), {a, b});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::I32, {5}, {3, -3, -3, 3, 2}, 0);
  out = run(binary("div", "tensor<2xi64>", "tensor<1xi64>", "tensor<2xi64>"),
            {makeTensor(K::I64, {2}, {-9, 9}), makeTensor(K::I64, {1}, {4})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::I64, {2}, {-2, 2}, 0);
}

TEST(EvaluatorBinary, IntegerDivisionByZeroIsAnError) {
  std::string error = runError(
      binary("div", "tensor<3xi32>", "tensor<3xi32>", "tensor<3xi32>"),
      {makeTensor(K::I32, {3}, {1, 2, 3}), makeTensor(K::I32, {3}, {1, 0, 1})});
  expectContains(error, {"spectral.div", "division by zero"});
  // Floats divide by zero to infinities, as IEEE says.
  auto out = run(binary("div", "tensor<2xf64>", "tensor<2xf64>", "tensor<2xf64>"),
                 {makeTensor(K::F64, {2}, {1, -1}), makeTensor(K::F64, {2}, {0, 0})});
  ASSERT_EQ(out.size(), 1u);
  double inf = std::numeric_limits<double>::infinity();
  expectTensor(out[0], K::F64, {2}, {inf, -inf});
}

TEST(EvaluatorBinary, ComplexFromParts) {
  auto out = run(binary("complex", "tensor<3x1xf32>", "tensor<2xf32>",
                        "tensor<3x2xcomplex<f32>>"),
                 {makeTensor(K::F32, {3, 1}, {1, 2, 3}), makeTensor(K::F32, {2}, {-1, 5})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::C64, {3, 2}, {{1, -1}, {1, 5}, {2, -1}, {2, 5}, {3, -1}, {3, 5}}, 0);
}

TEST(EvaluatorCmp, EveryPredicate) {
  const std::pair<const char *, std::vector<Complex>> cases[] = {
      {"eq", {0, 1, 0}}, {"ne", {1, 0, 1}}, {"lt", {1, 0, 0}},
      {"le", {1, 1, 0}}, {"gt", {0, 0, 1}}, {"ge", {0, 1, 1}}};
  for (const auto &[predicate, expected] : cases) {
    SCOPED_TRACE(predicate);
    std::string source = "func.func @main(%a: tensor<3xf32>, %b: tensor<f32>) -> tensor<3xi1> {\n"
                         "  %y = spectral.cmp " + std::string(predicate) +
                         " %a, %b : tensor<3xf32>, tensor<f32>\n  return %y : tensor<3xi1>\n}\n";
    auto out = run(source, {makeTensor(K::F32, {3}, {1, 2, 3}), makeTensor(K::F32, {}, {2})});
    ASSERT_EQ(out.size(), 1u);
    expectTensor(out[0], K::I1, {3}, expected, 0);

    source = "func.func @main(%a: tensor<3xi64>, %b: tensor<3xi64>) -> tensor<3xi1> {\n"
             "  %y = spectral.cmp " + std::string(predicate) +
             " %a, %b : tensor<3xi64>, tensor<3xi64>\n  return %y : tensor<3xi1>\n}\n";
    out = run(source, {makeTensor(K::I64, {3}, {-5, 0, 5}), makeTensor(K::I64, {3}, {0, 0, 0})});
    ASSERT_EQ(out.size(), 1u);
    expectTensor(out[0], K::I1, {3}, expected, 0);
  }
}

TEST(EvaluatorSelect, BroadcastsAllThree) {
  // cond [2, 1], a [3], b [] -> [2, 3]: row 0 from a, row 1 all b.
  auto out = run(R"mlir(
    func.func @main(%c: tensor<2x1xi1>, %a: tensor<3xf32>, %b: tensor<f32>) -> tensor<2x3xf32> {
      %y = spectral.select %c, %a, %b : tensor<2x1xi1>, tensor<3xf32>, tensor<f32>
      return %y : tensor<2x3xf32>
    })mlir",
                 {makeTensor(K::I1, {2, 1}, {1, 0}), makeTensor(K::F32, {3}, {1, 2, 3}),
                  makeTensor(K::F32, {}, {9})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::F32, {2, 3}, {1, 2, 3, 9, 9, 9}, 0);

  out = run(R"mlir(
    func.func @main(%c: tensor<3xi1>, %a: tensor<2x3xcomplex<f64>>, %b: tensor<1x3xcomplex<f64>>)
        -> tensor<2x3xcomplex<f64>> {
      %y = spectral.select %c, %a, %b : tensor<3xi1>, tensor<2x3xcomplex<f64>>, tensor<1x3xcomplex<f64>>
      return %y : tensor<2x3xcomplex<f64>>
    })mlir",
            {makeTensor(K::I1, {3}, {0, 1, 0}),
             makeTensor(K::C128, {2, 3}, {{1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}, {6, 6}}),
             makeTensor(K::C128, {1, 3}, {{-1, 0}, {-2, 0}, {-3, 0}})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::C128, {2, 3},
               {{-1, 0}, {2, 2}, {-3, 0}, {-1, 0}, {5, 5}, {-3, 0}}, 0);
}

} // namespace
} // namespace spectral::reference::test
