// ElementwiseCodegenTest.cpp - pointwise and index-map ops through codegen
// on the host device, against the reference evaluator.
#include "tests/unit/compiler/codegen/CodegenTestUtil.h"

#include <gtest/gtest.h>

#include <cstring>

namespace spectral::testing {
namespace {

struct Unary {
  const char *op, *type;
};

class UnaryOps : public ::testing::TestWithParam<Unary> {};

TEST_P(UnaryOps, MatchReference) {
  const Unary &u = GetParam();
  std::string source = graph(std::string("%a: ") + u.type, u.type,
                             std::string("spectral.") + u.op + " %a : " + u.type);
  EXPECT_EQ(expectMatchesReference(source), 1);
}

INSTANTIATE_TEST_SUITE_P(
    Codegen, UnaryOps,
    ::testing::Values(Unary{"neg", "tensor<3x5xf32>"}, Unary{"neg", "tensor<7xi32>"},
                      Unary{"neg", "tensor<7xcomplex<f64>>"}, Unary{"exp", "tensor<33xf32>"},
                      Unary{"exp", "tensor<33xcomplex<f32>>"}, Unary{"exp", "tensor<9xf64>"},
                      Unary{"sqrt", "tensor<17xcomplex<f64>>"},
                      Unary{"tanh", "tensor<17xcomplex<f32>>"}, Unary{"tanh", "tensor<4x4xf64>"},
                      Unary{"log", "tensor<17xcomplex<f64>>"}, Unary{"relu", "tensor<100xf32>"},
                      Unary{"gelu", "tensor<100xf32>"}, Unary{"gelu", "tensor<10xf64>"},
                      Unary{"sigmoid", "tensor<2x50xf32>"}, Unary{"conj", "tensor<5xcomplex<f32>>"}),
    [](const ::testing::TestParamInfo<Unary> &info) {
      std::string name = std::string(info.param.op) + "_" + info.param.type;
      for (char &c : name)
        if (!isalnum(static_cast<unsigned char>(c))) c = '_';
      return name;
    });

TEST(ElementwiseCodegen, LogAndSqrtOfNegativeRealsAreNaN) {
  std::vector<HostTensor> inputs =
      randomInputs(graph("%a: tensor<64xf32>", "tensor<64xf32>", "spectral.log %a : tensor<64xf32>"));
  expectMatchesReference(graph("%a: tensor<64xf32>", "tensor<64xf32>",
                               "spectral.log %a : tensor<64xf32>"), inputs);
  expectMatchesReference(graph("%a: tensor<64xf32>", "tensor<64xf32>",
                               "spectral.sqrt %a : tensor<64xf32>"), inputs);
}

TEST(ElementwiseCodegen, ToRealOps) {
  for (const char *op : {"abs", "real", "imag"})
    expectMatchesReference(graph("%a: tensor<3x4xcomplex<f64>>", "tensor<3x4xf64>",
                                 std::string("spectral.") + op + " %a : tensor<3x4xcomplex<f64>>"));
  expectMatchesReference(graph("%a: tensor<8xi64>", "tensor<8xi64>", "spectral.abs %a : tensor<8xi64>"));
  expectMatchesReference(graph("%a: tensor<8xf32>", "tensor<8xf32>", "spectral.abs %a : tensor<8xf32>"));
}

TEST(ElementwiseCodegen, BinaryOpsBroadcast) {
  for (const char *op : {"add", "sub", "mul", "div"}) {
    for (const char *element : {"f32", "f64", "complex<f32>", "complex<f64>"}) {
      std::string e = element;
      expectMatchesReference(graph("%a: tensor<2x3x4x" + e + ">, %b: tensor<3x1x" + e + ">",
                                   "tensor<2x3x4x" + e + ">",
                                   std::string("spectral.") + op + " %a, %b : tensor<2x3x4x" + e +
                                       ">, tensor<3x1x" + e + ">"));
    }
    expectMatchesReference(graph("%a: tensor<5x1xi32>, %b: tensor<1x6xi32>", "tensor<5x6xi32>",
                                 std::string("spectral.") + op +
                                     " %a, %b : tensor<5x1xi32>, tensor<1x6xi32>"),
                           {}, 0);
  }
}

TEST(ElementwiseCodegen, IntegersWrapAndDivideTowardZero) {
  HostTensor a{DType::kInt32, {4}, {}}, b{DType::kInt32, {4}, {}};
  int32_t av[] = {2147483647, -7, 7, -2147483647 - 1}, bv[] = {1, 2, -2, -1};
  a.bytes.resize(16);
  b.bytes.resize(16);
  std::memcpy(a.bytes.data(), av, 16);
  std::memcpy(b.bytes.data(), bv, 16);
  for (const char *op : {"add", "sub", "mul", "div"})
    expectMatchesReference(
        graph("%a: tensor<4xi32>, %b: tensor<4xi32>", "tensor<4xi32>",
              std::string("spectral.") + op + " %a, %b : tensor<4xi32>, tensor<4xi32>"),
        {a, b});
}

TEST(ElementwiseCodegen, IntegerDivisionByZeroNamesTheOp) {
  HostTensor a{DType::kInt64, {3}, std::vector<uint8_t>(24, 1)}, b{DType::kInt64, {3}, {}};
  int64_t bv[] = {1, 0, 0};
  b.bytes.resize(24);
  std::memcpy(b.bytes.data(), bv, 24);
  std::string error =
      runError("func.func @main(%a: tensor<3xi64>, %b: tensor<3xi64>) -> tensor<3xi64> {\n"
               "  %r = spectral.div %a, %b : tensor<3xi64>, tensor<3xi64>\n"
               "  return %r : tensor<3xi64>\n}\n",
               {a, b});
  EXPECT_NE(error.find("spectral.div"), std::string::npos) << error;
  EXPECT_NE(error.find(":2:8"), std::string::npos) << error;
  EXPECT_NE(error.find("integer division by zero"), std::string::npos) << error;
  EXPECT_NE(error.find("position 1"), std::string::npos) << error;
}

TEST(ElementwiseCodegen, CastsBetweenEveryType) {
  const char *types[] = {"i1", "i32", "i64", "f32", "f64", "complex<f32>", "complex<f64>"};
  for (const char *from : types)
    for (const char *to : types) {
      if (std::strncmp(from, "complex", 7) == 0 && std::strncmp(to, "complex", 7) != 0)
        continue; // the verifier asks for real, imag or abs instead
      std::string f = std::string("tensor<2x9x") + from + ">",
                  t = std::string("tensor<2x9x") + to + ">";
      expectMatchesReference(graph("%a: " + f, t, "spectral.cast %a : " + f + " to " + t));
    }
}

TEST(ElementwiseCodegen, CastOfNaNToIntegerIsAnError) {
  std::string source = "func.func @main(%a: tensor<2xf32>) -> tensor<2xi32> {\n"
                       "  %z = spectral.div %a, %a : tensor<2xf32>, tensor<2xf32>\n"
                       "  %r = spectral.cast %z : tensor<2xf32> to tensor<2xi32>\n"
                       "  return %r : tensor<2xi32>\n}\n";
  HostTensor zeros{DType::kFloat32, {2}, std::vector<uint8_t>(8, 0)};
  std::string error = runError(source, {zeros});
  EXPECT_NE(error.find("spectral.cast"), std::string::npos) << error;
  EXPECT_NE(error.find("NaN or infinity"), std::string::npos) << error;
}

TEST(ElementwiseCodegen, CompareSelectAndComplex) {
  const char *preds[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  for (const char *p : preds) {
    expectMatchesReference(
        graph("%a: tensor<2x3xf64>, %b: tensor<3xf64>", "tensor<2x3xi1>",
              std::string("spectral.cmp ") + p + " %a, %b : tensor<2x3xf64>, tensor<3xf64>"));
    expectMatchesReference(
        graph("%a: tensor<40xi32>, %b: tensor<40xi32>", "tensor<40xi1>",
              std::string("spectral.cmp ") + p + " %a, %b : tensor<40xi32>, tensor<40xi32>"));
  }
  expectMatchesReference(
      graph("%c: tensor<2x3xi1>, %x: tensor<2x3xcomplex<f32>>, %y: tensor<complex<f32>>",
            "tensor<2x3xcomplex<f32>>",
            "spectral.select %c, %x, %y : tensor<2x3xi1>, tensor<2x3xcomplex<f32>>, "
            "tensor<complex<f32>>"));
  expectMatchesReference(graph("%a: tensor<2x1x4xf32>, %b: tensor<3x1xf32>",
                               "tensor<2x3x4xcomplex<f32>>",
                               "spectral.complex %a, %b : tensor<2x1x4xf32>, tensor<3x1xf32>"));
}

TEST(ElementwiseCodegen, IndexMapOps) {
  expectMatchesReference(graph("%x: tensor<2x3x4xf32>", "tensor<4x2x3xf32>",
                               "spectral.transpose %x perm [2, 0, 1] : tensor<2x3x4xf32>"));
  expectMatchesReference(
      graph("%x: tensor<3x1xcomplex<f32>>", "tensor<5x3x7xcomplex<f32>>",
            "spectral.broadcast %x : tensor<3x1xcomplex<f32>> -> tensor<5x3x7xcomplex<f32>>"));
  expectMatchesReference(
      graph("%x: tensor<9x10xf64>", "tensor<3x4xf64>",
            "spectral.slice %x start [1, 2] limit [9, 10] stride [3, 2] : tensor<9x10xf64>"));
  expectMatchesReference(
      graph("%x: tensor<3x4xi32>", "tensor<6x5xi32>",
            "spectral.pad %x low [1, 0] high [2, 1] value 7.0 : tensor<3x4xi32>"));
  expectMatchesReference(
      graph("%x: tensor<3x4xcomplex<f32>>", "tensor<4x6xcomplex<f32>>",
            "spectral.pad %x low [0, 1] high [1, 1] value -2.5 : tensor<3x4xcomplex<f32>>"));
  expectMatchesReference("func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>, %c: "
                         "tensor<2x4xf32>) -> tensor<2x8xf32> {\n"
                         "  %r = spectral.concat %a, %b, %c axis 1 : tensor<2x3xf32>, "
                         "tensor<2x1xf32>, tensor<2x4xf32>\n"
                         "  return %r : tensor<2x8xf32>\n}\n");
}

TEST(ElementwiseCodegen, UnitsSharingAReadableNameStayApart) {
  // Both slices are "ew_slice_f32_2x3"; their offsets differ.
  expectMatchesReference(
      "func.func @main(%x: tensor<4x6xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {\n"
      "  %a = spectral.slice %x start [0, 0] limit [2, 3] : tensor<4x6xf32>\n"
      "  %b = spectral.slice %x start [2, 3] limit [4, 6] : tensor<4x6xf32>\n"
      "  return %a, %b : tensor<2x3xf32>, tensor<2x3xf32>\n}\n");
}

TEST(ElementwiseCodegen, ReshapeIsAViewWithoutKernel) {
  EXPECT_EQ(
      expectMatchesReference(graph("%x: tensor<2x3x4xf32>", "tensor<6x4xf32>",
                                   "spectral.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>")),
      0);
}

TEST(ElementwiseCodegen, ContiguousSlicesAreViewsWithoutKernel) {
  // Rows 1..2 of the leading axis, one row of 8 in the middle (views at an
  // offset), a slice of a view; the middle rows of every leading index are
  // not contiguous (a kernel), nor is the cast (a kernel).
  const std::string x = "tensor<4x6x8xf32>";
  EXPECT_EQ(expectMatchesReference(
                "func.func @main(%x: " + x + ") -> (tensor<2x6x8xf32>, tensor<1x1x8xf32>, "
                "tensor<1x6x8xf32>, tensor<4x2x8xf32>, tensor<2x6x8xf64>) {\n"
                "  %rows = spectral.slice %x start [1, 0, 0] limit [3, 6, 8] : " + x + "\n"
                "  %one = spectral.slice %x start [2, 3, 0] limit [3, 4, 8] : " + x + "\n"
                "  %last = spectral.slice %rows start [1, 0, 0] limit [2, 6, 8] : tensor<2x6x8xf32>\n"
                "  %mid = spectral.slice %x start [0, 2, 0] limit [4, 4, 8] : " + x + "\n"
                "  %wide = spectral.cast %rows : tensor<2x6x8xf32> to tensor<2x6x8xf64>\n"
                "  return %rows, %one, %last, %mid, %wide : tensor<2x6x8xf32>, tensor<1x1x8xf32>, "
                "tensor<1x6x8xf32>, tensor<4x2x8xf32>, tensor<2x6x8xf64>\n}\n"),
            2);
}

TEST(ElementwiseCodegen, ConstantsSplatAndDense) {
  expectMatchesReference(
      "func.func @main(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xcomplex<f64>>) {\n"
      "  %c = spectral.constant dense<[1.5, -2.0, 3.25]> : tensor<3xf32>\n"
      "  %s = spectral.constant dense<2.0> : tensor<2x3xf32>\n"
      "  %a = spectral.mul %x, %c : tensor<2x3xf32>, tensor<3xf32>\n"
      "  %r = spectral.add %a, %s : tensor<2x3xf32>, tensor<2x3xf32>\n"
      "  %z = spectral.constant dense<[(1.0, 2.0), (0.5, -1.0), (3.0, 0.0)]> : "
      "tensor<3xcomplex<f64>>\n"
      "  return %r, %z : tensor<2x3xf32>, tensor<3xcomplex<f64>>\n}\n");
}

TEST(ElementwiseCodegen, FusionRegionOfPointwiseOpsIsOneKernel) {
  std::string source = "func.func @main(%x: tensor<4x8xf32>, %y: tensor<8xf32>) -> "
                       "(tensor<4x8xf32>, tensor<8x4xf32>) {\n"
                       "  %0:2 = spectral.fusion %x, %y : (tensor<4x8xf32>, tensor<8xf32>) -> "
                       "(tensor<4x8xf32>, tensor<8x4xf32>) {\n"
                       "  ^bb0(%a: tensor<4x8xf32>, %b: tensor<8xf32>):\n"
                       "    %two = spectral.constant dense<2.0> : tensor<f32>\n"
                       "    %s = spectral.add %a, %b : tensor<4x8xf32>, tensor<8xf32>\n"
                       "    %g = spectral.gelu %s : tensor<4x8xf32>\n"
                       "    %m = spectral.mul %g, %two : tensor<4x8xf32>, tensor<f32>\n"
                       "    %t = spectral.transpose %m perm [1, 0] : tensor<4x8xf32>\n"
                       "    spectral.yield %s, %t : tensor<4x8xf32>, tensor<8x4xf32>\n"
                       "  }\n"
                       "  return %0#0, %0#1 : tensor<4x8xf32>, tensor<8x4xf32>\n}\n";
  EXPECT_EQ(expectMatchesReference(source), 1);
}

TEST(ElementwiseCodegen, ResultsThatAreArgumentsOrRepeated) {
  expectMatchesReference(
      "func.func @main(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {\n"
      "  %n = spectral.neg %x : tensor<3xf32>\n"
      "  return %x, %n, %n : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>\n}\n");
}

TEST(ElementwiseCodegen, ScalarsAndEmptyTensors) {
  expectMatchesReference(graph("%x: tensor<f64>", "tensor<f64>", "spectral.exp %x : tensor<f64>"));
  expectMatchesReference(
      graph("%x: tensor<0x3xf32>", "tensor<0x3xf32>", "spectral.exp %x : tensor<0x3xf32>"));
}

TEST(ElementwiseCodegen, LargeTensorUsesManyBlocks) {
  expectMatchesReference(graph("%x: tensor<300x1001xf32>, %y: tensor<1001xf32>",
                               "tensor<300x1001xf32>",
                               "spectral.mul %x, %y : tensor<300x1001xf32>, tensor<1001xf32>"));
}

TEST(ElementwiseCodegen, FusionYieldingASplatOrNothing) {
  expectMatchesReference(
      "func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {\n"
      "  %0:2 = spectral.fusion %x : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {\n"
      "  ^bb0(%a: tensor<4xf32>):\n"
      "    %c = spectral.constant dense<1.5> : tensor<4xf32>\n"
      "    %n = spectral.neg %a : tensor<4xf32>\n"
      "    spectral.yield %c, %n : tensor<4xf32>, tensor<4xf32>\n"
      "  }\n"
      "  spectral.fusion %x : (tensor<4xf32>) -> () {\n"
      "  ^bb0(%a: tensor<4xf32>):\n"
      "    %e = spectral.exp %a : tensor<4xf32>\n"
      "    spectral.yield\n"
      "  }\n"
      "  return %0#0, %0#1 : tensor<4xf32>, tensor<4xf32>\n}\n");
}

TEST(ElementwiseCodegen, NonFinitePadValuesAndTheSmallestI64) {
  for (const char *value : {"0x7FF0000000000000", "0xFFF0000000000000", "0x7FF8000000000000"}) {
    expectMatchesReference(graph("%x: tensor<3xf32>", "tensor<5xf32>",
                                 std::string("spectral.pad %x low [1] high [1] value ") + value +
                                     " : tensor<3xf32>"));
    expectMatchesReference(graph("%x: tensor<3xcomplex<f64>>", "tensor<4xcomplex<f64>>",
                                 std::string("spectral.pad %x low [0] high [1] value ") + value +
                                     " : tensor<3xcomplex<f64>>"));
  }
  std::string error = runError(graph("%x: tensor<3xi32>", "tensor<5xi32>",
                                     "spectral.pad %x low [1] high [1] value 0x7FF8000000000000 "
                                     ": tensor<3xi32>"));
  EXPECT_NE(error.find("'spectral.pad': pads an integer tensor with a NaN or infinity"),
            std::string::npos)
      << error;
  expectMatchesReference(
      "func.func @main(%x: tensor<3xi64>) -> tensor<3xi64> {\n"
      "  %m = spectral.constant dense<-9223372036854775808> : tensor<3xi64>\n"
      "  %r = spectral.add %x, %m : tensor<3xi64>, tensor<3xi64>\n"
      "  return %r : tensor<3xi64>\n}\n");
}

TEST(ElementwiseCodegen, AFusedGroupsErrorNamesTheOpThatFailed) {
  HostTensor a{DType::kInt32, {2}, std::vector<uint8_t>(8, 1)}, b{DType::kInt32, {2}, {}};
  int32_t bv[] = {1, 0};
  b.bytes.resize(8);
  std::memcpy(b.bytes.data(), bv, 8);
  std::string error = runError(
      "func.func @main(%a: tensor<2xi32>, %b: tensor<2xi32>) -> tensor<2xi32> {\n"
      "  %0 = spectral.fusion %a, %b : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32> {\n"
      "  ^bb0(%x: tensor<2xi32>, %y: tensor<2xi32>):\n"
      "    %q = spectral.div %x, %y : tensor<2xi32>, tensor<2xi32>\n"
      "    %n = spectral.neg %q : tensor<2xi32>\n"
      "    spectral.yield %n : tensor<2xi32>\n"
      "  }\n"
      "  return %0 : tensor<2xi32>\n}\n",
      {a, b});
  EXPECT_EQ(error.rfind("spectral.div (", 0), 0u) << error;
  EXPECT_NE(error.find(":4:10): integer division by zero"), std::string::npos) << error;
  EXPECT_NE(error.find("position 1"), std::string::npos) << error;
}

class ElementwiseNvrtc : public ::testing::TestWithParam<std::string> {};

TEST_P(ElementwiseNvrtc, UnitsCompileWithoutSpills) {
  std::vector<std::string> sources = {
      graph("%a: tensor<2x3x4xcomplex<f64>>, %b: tensor<3x1xcomplex<f64>>", "tensor<2x3x4xcomplex<f64>>",
            "spectral.div %a, %b : tensor<2x3x4xcomplex<f64>>, tensor<3x1xcomplex<f64>>"),
      graph("%a: tensor<5x1xi64>, %b: tensor<1x6xi64>", "tensor<5x6xi64>",
            "spectral.div %a, %b : tensor<5x1xi64>, tensor<1x6xi64>"),
      graph("%a: tensor<64xcomplex<f32>>", "tensor<64xcomplex<f32>>",
            "spectral.tanh %a : tensor<64xcomplex<f32>>"),
      graph("%a: tensor<64xf64>", "tensor<64xi32>", "spectral.cast %a : tensor<64xf64> to tensor<64xi32>"),
      graph("%x: tensor<3x4xcomplex<f32>>", "tensor<4x6xcomplex<f32>>",
            "spectral.pad %x low [0, 1] high [1, 1] value -2.5 : tensor<3x4xcomplex<f32>>"),
      graph("%x: tensor<3xf64>", "tensor<5xf64>",
            "spectral.pad %x low [1] high [1] value 0xFFF0000000000000 : tensor<3xf64>"),
      "func.func @main(%x: tensor<3xi64>) -> tensor<3xi64> {\n"
      "  %m = spectral.constant dense<-9223372036854775808> : tensor<3xi64>\n"
      "  %r = spectral.add %x, %m : tensor<3xi64>, tensor<3xi64>\n"
      "  return %r : tensor<3xi64>\n}\n",
      graph("%x: tensor<2x3x4xf32>", "tensor<4x2x3xf32>",
            "spectral.transpose %x perm [2, 0, 1] : tensor<2x3x4xf32>"),
      "func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>) -> tensor<2x4xf32> {\n"
      "  %r = spectral.concat %a, %b axis 1 : tensor<2x3xf32>, tensor<2x1xf32>\n"
      "  return %r : tensor<2x4xf32>\n}\n",
  };
  EXPECT_EQ(expectCleanCubins(sources, GetParam()).size(), sources.size());
}

INSTANTIATE_TEST_SUITE_P(Archs, ElementwiseNvrtc, ::testing::Values("sm_80", "sm_90"));

} // namespace
} // namespace spectral::testing
