// ReductionCodegenTest.cpp - reduce_sum/mean/max, softmax, log_softmax,
// cross_entropy and mse through codegen on the host device, against the
// reference evaluator.
#include "tests/unit/compiler/codegen/CodegenTestUtil.h"

#include "compiler/API/Jit.h"

#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

namespace spectral::testing {
namespace {

template <typename T>
HostTensor hostTensor(DType dtype, std::vector<int64_t> shape, const std::vector<T> &values) {
  HostTensor t{dtype, std::move(shape), std::vector<uint8_t>(values.size() * sizeof(T))};
  std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

struct ReduceCase {
  const char *op, *element;
  std::vector<int64_t> shape, axes;
  bool keepdims;
};

std::string reduceGraph(const ReduceCase &c) {
  std::vector<int64_t> out;
  for (size_t d = 0; d < c.shape.size(); ++d) {
    bool reduced = std::find(c.axes.begin(), c.axes.end(), int64_t(d)) != c.axes.end();
    if (!reduced)
      out.push_back(c.shape[d]);
    else if (c.keepdims)
      out.push_back(1);
  }
  std::string axes;
  for (int64_t a : c.axes) axes += (axes.empty() ? "" : ", ") + std::to_string(a);
  std::string in = tensorType(c.shape, c.element);
  return graph("%x: " + in, tensorType(out, c.element),
               std::string("spectral.") + c.op + " %x axes [" + axes + "]" +
                   (c.keepdims ? " keepdims" : "") + " : " + in);
}

class Reductions : public ::testing::TestWithParam<ReduceCase> {};

TEST_P(Reductions, MatchReference) { expectMatchesReference(reduceGraph(GetParam())); }

INSTANTIATE_TEST_SUITE_P(
    Codegen, Reductions,
    ::testing::Values(
        // Trailing axes: threads along the row.
        ReduceCase{"reduce_sum", "f32", {4, 128}, {1}, false},
        ReduceCase{"reduce_sum", "f32", {4, 1, 128}, {2}, true}, // the same unit
        ReduceCase{"reduce_mean", "f32", {8, 4099}, {1}, false}, // longer than a block
        ReduceCase{"reduce_max", "f32", {7, 97}, {1}, true},
        ReduceCase{"reduce_sum", "i32", {5, 7}, {1}, false},
        ReduceCase{"reduce_sum", "f32", {3, 100000}, {1}, false}, // split into chunks
        // Leading and middle axes: threads along rows.
        ReduceCase{"reduce_sum", "f32", {97, 7}, {0}, false},
        ReduceCase{"reduce_sum", "f64", {3, 5, 7}, {1}, false},
        ReduceCase{"reduce_mean", "complex<f32>", {1000, 3}, {0}, false},
        ReduceCase{"reduce_max", "i64", {4, 6}, {0}, false},
        ReduceCase{"reduce_sum", "f32", {70000, 3}, {0}, false},    // strided chunks
        ReduceCase{"reduce_mean", "f32", {2, 40000, 2}, {1}, true}, // middle, chunks
        // Several axes.
        ReduceCase{"reduce_sum", "complex<f32>", {6, 4, 5}, {0, 2}, false},
        ReduceCase{"reduce_mean", "f64", {2, 3, 4, 5}, {1, 3}, false},
        ReduceCase{"reduce_max", "i32", {9, 1, 11}, {0, 1}, false},
        ReduceCase{"reduce_sum", "f32", {5, 1}, {1}, false}, // only a size-1 axis
        // All axes: one block, or partials then one block.
        ReduceCase{"reduce_sum", "complex<f64>", {2, 3, 4}, {0, 1, 2}, true},
        ReduceCase{"reduce_mean", "f32", {4099}, {0}, false},
        ReduceCase{"reduce_sum", "f32", {1000, 1000}, {0, 1}, false},
        ReduceCase{"reduce_sum", "i64", {1000}, {0}, false},
        ReduceCase{"reduce_max", "f64", {1}, {0}, false},
        ReduceCase{"reduce_max", "f32", {3, 4099}, {0, 1}, false}),
    [](const ::testing::TestParamInfo<ReduceCase> &info) {
      const ReduceCase &c = info.param;
      std::string name = std::string(c.op) + "_" + c.element;
      for (int64_t d : c.shape) name += "_" + std::to_string(d);
      name += "_axes";
      for (int64_t a : c.axes) name += std::to_string(a);
      if (c.keepdims) name += "_keep";
      for (char &ch : name)
        if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return name;
    });

TEST(ReductionCodegen, IntegerSumsWrap) {
  std::vector<int32_t> values{2147483647, 1, 5, -2147483647 - 1, -1, 3};
  expectMatchesReference(reduceGraph({"reduce_sum", "i32", {2, 3}, {1}, false}),
                         {hostTensor(DType::kInt32, {2, 3}, values)});
  expectMatchesReference(reduceGraph({"reduce_max", "i32", {6}, {0}, false}),
                         {hostTensor(DType::kInt32, {6}, values)});
}

TEST(ReductionCodegen, MaxPropagatesNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN(),
              inf = std::numeric_limits<float>::infinity();
  std::vector<float> values{1, nan, 3, -inf, -inf, -inf, 2, 5, nan, inf, 0, 1};
  expectMatchesReference(reduceGraph({"reduce_max", "f32", {4, 3}, {1}, false}),
                         {hostTensor(DType::kFloat32, {4, 3}, values)});
  expectMatchesReference(reduceGraph({"reduce_max", "f32", {4, 3}, {0}, false}),
                         {hostTensor(DType::kFloat32, {4, 3}, values)});
  expectMatchesReference(reduceGraph({"reduce_sum", "f32", {4, 3}, {0, 1}, false}),
                         {hostTensor(DType::kFloat32, {4, 3}, values)});
}

TEST(ReductionCodegen, EmptyAxes) {
  // A sum over nothing is 0 and a mean NaN; a maximum over nothing is an error.
  expectMatchesReference(reduceGraph({"reduce_sum", "f32", {3, 0}, {1}, false}));
  // (The reference's mean of nothing is NaN + NaN i even for reals, so this
  // one is checked here.)
  std::string mean = reduceGraph({"reduce_mean", "f64", {0, 2}, {0, 1}, false});
  auto context = createContext();
  auto module = mlir::parseSourceString<mlir::ModuleOp>(mean, context.get());
  JitOptions options;
  options.simplify = false;
  options.fuse = false;  // the regions as the test writes them
  llvm::Expected<std::unique_ptr<Executable>> executable =
      jitCompile(*module, hostDevice(), options);
  ASSERT_TRUE(bool(executable)) << llvm::toString(executable.takeError());
  std::vector<HostTensor> outputs;
  ASSERT_TRUE(bool((*executable)->run(randomInputs(mean), &outputs)));
  double value = 0;
  std::memcpy(&value, outputs.at(0).bytes.data(), sizeof value);
  EXPECT_TRUE(std::isnan(value)) << value;
  std::string error = runError(reduceGraph({"reduce_max", "f32", {3, 0}, {1}, false}));
  EXPECT_NE(error.find("spectral.reduce_max"), std::string::npos) << error;
  EXPECT_NE(error.find("maximum of no elements"), std::string::npos) << error;
}

struct SoftmaxCase {
  const char *op, *element;
  std::vector<int64_t> shape;
  int64_t axis;
};

std::string softmaxGraph(const SoftmaxCase &c) {
  std::string type = tensorType(c.shape, c.element);
  return graph("%x: " + type, type,
               std::string("spectral.") + c.op + " %x axis " + std::to_string(c.axis) + " : " +
                   type);
}

class Softmax : public ::testing::TestWithParam<SoftmaxCase> {};

TEST_P(Softmax, MatchesReference) { expectMatchesReference(softmaxGraph(GetParam())); }

INSTANTIATE_TEST_SUITE_P(Codegen, Softmax,
                         ::testing::Values(SoftmaxCase{"softmax", "f32", {64, 10}, 1},
                                           SoftmaxCase{"softmax", "f64", {3, 7, 5}, 1},
                                           SoftmaxCase{"softmax", "f32", {97, 4}, 0},
                                           SoftmaxCase{"softmax", "f32", {1000}, 0},
                                           SoftmaxCase{"softmax", "f32", {1, 1}, 1},
                                           SoftmaxCase{"log_softmax", "f32", {2, 4099}, 1},
                                           SoftmaxCase{"log_softmax", "f64", {5, 3}, 0},
                                           SoftmaxCase{"log_softmax", "f32", {2, 3, 33}, 2}),
                         [](const ::testing::TestParamInfo<SoftmaxCase> &info) {
                           const SoftmaxCase &c = info.param;
                           std::string name = std::string(c.op) + "_" + c.element;
                           for (int64_t d : c.shape) name += "_" + std::to_string(d);
                           return name + "_axis" + std::to_string(c.axis);
                         });

TEST(SoftmaxCodegen, InfinitiesAndNaN) {
  // Rows: some -inf entries (they give 0 / -inf), all -inf (NaN), a +inf
  // (NaN), a NaN (NaN), ordinary values.
  const float nan = std::numeric_limits<float>::quiet_NaN(),
              inf = std::numeric_limits<float>::infinity();
  std::vector<float> rows{-inf, 1, -inf, 2,   -inf, -inf, -inf, -inf,  1, inf,
                          0,    2, 3,    nan, 1,    0,    0.5f, -0.5f, 1, 2};
  for (const char *op : {"softmax", "log_softmax"}) {
    expectMatchesReference(softmaxGraph({op, "f32", {5, 4}, 1}),
                           {hostTensor(DType::kFloat32, {5, 4}, rows)});
    expectMatchesReference(softmaxGraph({op, "f32", {4, 5}, 0}),
                           {hostTensor(DType::kFloat32, {4, 5}, rows)});
  }
}

/// Random logits and labels in [0, classes).
std::vector<HostTensor> crossEntropyInputs(const std::string &source, int64_t classes) {
  std::vector<HostTensor> inputs = randomInputs(source);
  HostTensor &labels = inputs[1];
  if (labels.dtype == DType::kInt32) {
    auto *data = reinterpret_cast<int32_t *>(labels.bytes.data());
    for (int64_t i = 0; i < labels.elements(); ++i) data[i] = int32_t((i * 7 + 3) % classes);
  } else {
    auto *data = reinterpret_cast<int64_t *>(labels.bytes.data());
    for (int64_t i = 0; i < labels.elements(); ++i) data[i] = (i * 7 + 3) % classes;
  }
  return inputs;
}

std::string crossEntropyGraph(int64_t rows, int64_t classes, const std::string &element,
                              const std::string &label) {
  std::string logits = tensorType({rows, classes}, element), labels = tensorType({rows}, label);
  return graph("%x: " + logits + ", %l: " + labels, tensorType({}, element),
               "spectral.cross_entropy %x, %l : " + logits + ", " + labels);
}

TEST(CrossEntropyCodegen, MatchesReference) {
  struct Case {
    int64_t rows, classes;
    const char *element, *label;
  };
  for (Case c : {Case{64, 10, "f32", "i32"}, Case{7, 1000, "f64", "i64"},
                 Case{5000, 3, "f32", "i64"}, Case{1, 1, "f32", "i32"}}) {
    std::string source = crossEntropyGraph(c.rows, c.classes, c.element, c.label);
    expectMatchesReference(source, crossEntropyInputs(source, c.classes));
  }
}

TEST(CrossEntropyCodegen, LabelOutOfRangeNamesTheOp) {
  std::string source = crossEntropyGraph(6, 10, "f32", "i64");
  std::vector<HostTensor> inputs = crossEntropyInputs(source, 10);
  reinterpret_cast<int64_t *>(inputs[1].bytes.data())[4] = 10;
  reinterpret_cast<int64_t *>(inputs[1].bytes.data())[5] = -1;
  std::string error = runError(source, inputs);
  EXPECT_NE(error.find("spectral.cross_entropy"), std::string::npos) << error;
  EXPECT_NE(error.find(":2:8"), std::string::npos) << error;
  EXPECT_NE(error.find("label out of range [0, 10)"), std::string::npos) << error;
  EXPECT_NE(error.find("position 4"), std::string::npos) << error;
}

TEST(MseCodegen, RealAndComplex) {
  struct Case {
    std::vector<int64_t> shape;
    const char *element, *result;
  };
  for (const Case &c : {Case{{100}, "f32", "f32"}, Case{{3, 5000}, "complex<f32>", "f32"},
                        Case{{7}, "f64", "f64"}, Case{{2, 2}, "complex<f64>", "f64"}}) {
    std::string type = tensorType(c.shape, c.element);
    expectMatchesReference(graph("%a: " + type + ", %b: " + type, tensorType({}, c.result),
                                 "spectral.mse %a, %b : " + type));
  }
}

/// The L2 norm of each row: the square in the Load, the root in the Store.
std::string rowNorms(const std::string &element) {
  std::string x = "tensor<8x256x" + element + ">", r = "tensor<8x" + element + ">";
  return fusion({x}, {r},
                "    %s = spectral.mul %a, %a : " + x + ", " + x + "\n"
                "    %n = spectral.reduce_sum %s axes [1] : " + x + "\n"
                "    %root = spectral.sqrt %n : " + r + "\n"
                "    spectral.yield %root : " + r);
}

/// log(softmax(x + bias)) and 0.5 * softmax over the rows of [16, 10].
std::string softmaxWithBias(const std::string &element) {
  std::string x = "tensor<16x10x" + element + ">", b = "tensor<10x" + element + ">";
  return fusion({x, b}, {x, x},
                "    %z = spectral.add %a, %b : " + x + ", " + b + "\n"
                "    %s = spectral.softmax %z axis 1 : " + x + "\n"
                "    %l = spectral.log %s : " + x + "\n"
                "    %h = spectral.constant dense<0.5> : " + x + "\n"
                "    %m = spectral.mul %s, %h : " + x + ", " + x + "\n"
                "    spectral.yield %l, %m : " + x + ", " + x);
}

/// max |x| over the middle axis of [4, 9, 6], negated.
std::string middleMaxOfAbs(const std::string &element) {
  std::string x = "tensor<4x9x6x" + element + ">", r = "tensor<4x6x" + element + ">";
  return fusion({x}, {r},
                "    %m = spectral.abs %a : " + x + "\n"
                "    %r = spectral.reduce_max %m axes [1] : " + x + "\n"
                "    %n = spectral.neg %r : " + r + "\n"
                "    spectral.yield %n : " + r);
}

/// 3 * log_softmax(x + bias) along axis 0, the bias broadcast over rows.
std::string columnLogSoftmax(const std::string &element) {
  std::string x = "tensor<7x5x" + element + ">", b = "tensor<1x5x" + element + ">";
  return fusion({x, b}, {x},
                "    %z = spectral.add %a, %b : " + x + ", " + b + "\n"
                "    %s = spectral.log_softmax %z axis 0 : " + x + "\n"
                "    %k = spectral.constant dense<3.0> : " + x + "\n"
                "    %m = spectral.mul %s, %k : " + x + ", " + x + "\n"
                "    spectral.yield %m : " + x);
}

/// sqrt(mean((x - y)^2)) over all of `shape`: the whole-tensor passes.
std::string rootMeanSquare(const std::string &shape) {
  std::string x = "tensor<" + shape + ">", r = "tensor<f64>";
  return fusion({x, x}, {r},
                "    %d = spectral.sub %a, %b : " + x + ", " + x + "\n"
                "    %s = spectral.mul %d, %d : " + x + ", " + x + "\n"
                "    %m = spectral.reduce_mean %s axes [0, 1] : " + x + "\n"
                "    %root = spectral.sqrt %m : " + r + "\n"
                "    spectral.yield %root : " + r);
}

/// exp in the split path's first pass over rows of 40000, log in its final pass.
std::string splitLogSumExp() {
  std::string x = "tensor<2x40000xf32>", r = "tensor<2x1xf32>";
  return fusion({x}, {r},
                "    %e = spectral.exp %a : " + x + "\n"
                "    %s = spectral.reduce_sum %e axes [1] keepdims : " + x + "\n"
                "    %l = spectral.log %s : " + r + "\n"
                "    spectral.yield %l : " + r);
}

TEST(FusedReductions, NormsAreOneLaunch) {
  EXPECT_EQ(expectMatchesReference(rowNorms("f32")), 1);
  EXPECT_EQ(expectMatchesReference(rowNorms("f64")), 1);
  // A mean with keepdims, the exp before it and the log after it.
  std::string x = "tensor<6x100xf64>", r = "tensor<6x1xf64>";
  EXPECT_EQ(expectMatchesReference(fusion({x}, {r},
                                          "    %e = spectral.exp %a : " + x + "\n"
                                          "    %m = spectral.reduce_mean %e axes [1] keepdims : " + x + "\n"
                                          "    %l = spectral.log %m : " + r + "\n"
                                          "    spectral.yield %l : " + r)),
            1);
  // Complex sums over the outer and inner axes (threads along rows).
  std::string z = "tensor<6x4x5xcomplex<f32>>", m = "tensor<4xcomplex<f32>>";
  EXPECT_EQ(expectMatchesReference(fusion({z}, {"tensor<4xf32>"},
                                          "    %c = spectral.conj %a : " + z + "\n"
                                          "    %s = spectral.reduce_sum %c axes [0, 2] : " + z + "\n"
                                          "    %m = spectral.abs %s : " + m + "\n"
                                          "    spectral.yield %m : tensor<4xf32>")),
            1);
  // Integer sums wrap in the accumulator; the Store casts the sum.
  std::string i = "tensor<5x7xi32>";
  EXPECT_EQ(expectMatchesReference(fusion({i}, {"tensor<5xf32>"},
                                          "    %s = spectral.mul %a, %a : " + i + ", " + i + "\n"
                                          "    %r = spectral.reduce_sum %s axes [1] : " + i + "\n"
                                          "    %f = spectral.cast %r : tensor<5xi32> to tensor<5xf32>\n"
                                          "    spectral.yield %f : tensor<5xf32>")),
            1);
}

TEST(FusedReductions, SoftmaxWithBiasAndEpilogue) {
  EXPECT_EQ(expectMatchesReference(softmaxWithBias("f32")), 1);
  EXPECT_EQ(expectMatchesReference(softmaxWithBias("f64")), 1);
  EXPECT_EQ(expectMatchesReference(columnLogSoftmax("f32")), 1);
  EXPECT_EQ(expectMatchesReference(columnLogSoftmax("f64")), 1);
  // A yielded value of the prologue is recomputed in the Store.
  std::string x = "tensor<3x33xf32>";
  EXPECT_EQ(expectMatchesReference(fusion({x}, {x, x},
                                          "    %t = spectral.tanh %a : " + x + "\n"
                                          "    %s = spectral.softmax %t axis 1 : " + x + "\n"
                                          "    spectral.yield %s, %t : " + x + ", " + x)),
            1);
}

TEST(FusedReductions, MaxOverAMiddleAxis) {
  EXPECT_EQ(expectMatchesReference(middleMaxOfAbs("f32")), 1);
  EXPECT_EQ(expectMatchesReference(middleMaxOfAbs("f64")), 1);
}

TEST(FusedReductions, WholeTensorAndSplitPaths) {
  // One block, then partials (the difference in the first launch) and a final
  // block (the root in the last).
  EXPECT_EQ(expectMatchesReference(rootMeanSquare("3x50xf64")), 1);
  EXPECT_EQ(expectMatchesReference(rootMeanSquare("100x100xf64")), 2);
  EXPECT_EQ(expectMatchesReference(splitLogSumExp()), 2);
}

TEST(FusedReductions, OtherShapesFallBackToOneKernelPerOp) {
  // A transpose of the result reads it at another element.
  std::string x = "tensor<3x4x4xf32>", r = "tensor<4x4xf32>";
  EXPECT_EQ(expectMatchesReference(fusion({x}, {r},
                                          "    %e = spectral.exp %a : " + x + "\n"
                                          "    %s = spectral.reduce_sum %e axes [0] : " + x + "\n"
                                          "    %t = spectral.transpose %s perm [1, 0] : " + r + "\n"
                                          "    spectral.yield %t : " + r)),
            3);
  // A prologue that can fail.
  std::string i = "tensor<4x8xi32>", f = "tensor<4x8xf32>";
  std::vector<HostTensor> sevens{hostTensor(DType::kInt32, {4, 8}, std::vector<int32_t>(32, 7)),
                                 hostTensor(DType::kInt32, {8}, std::vector<int32_t>(8, 2))};
  EXPECT_EQ(expectMatchesReference(fusion({i, "tensor<8xi32>"}, {"tensor<4xf32>"},
                                          "    %quot = spectral.div %a, %b : " + i + ", tensor<8xi32>\n"
                                          "    %c = spectral.cast %quot : " + i + " to " + f + "\n"
                                          "    %m = spectral.reduce_mean %c axes [1] : " + f + "\n"
                                          "    spectral.yield %m : tensor<4xf32>"),
                                   sevens),
            3);
  // Two anchors (a softmax written out): a block program, one kernel
  // (BlockProgramCodegenTest); a value of the operand's shape yielded, a
  // block argument passed through.
  std::string s = "tensor<4x10xf32>", k = "tensor<4x1xf32>";
  EXPECT_EQ(expectMatchesReference(fusion({s}, {s},
                                          "    %m = spectral.reduce_max %a axes [1] keepdims : " + s + "\n"
                                          "    %d = spectral.sub %a, %m : " + s + ", " + k + "\n"
                                          "    %e = spectral.exp %d : " + s + "\n"
                                          "    %t = spectral.reduce_sum %e axes [1] keepdims : " + s + "\n"
                                          "    %y = spectral.div %e, %t : " + s + ", " + k + "\n"
                                          "    spectral.yield %y : " + s)),
            1);
  EXPECT_EQ(expectMatchesReference(fusion({s}, {"tensor<4xf32>", s},
                                          "    %e = spectral.exp %a : " + s + "\n"
                                          "    %r = spectral.reduce_sum %e axes [1] : " + s + "\n"
                                          "    spectral.yield %r, %e : tensor<4xf32>, " + s)),
            2);
  EXPECT_EQ(expectMatchesReference(fusion({s}, {s, s},
                                          "    %y = spectral.softmax %a axis 1 : " + s + "\n"
                                          "    spectral.yield %y, %a : " + s + ", " + s)),
            1);
  // A maximum of nothing is still the reduction's error.
  std::string error = runError(fusion({"tensor<3x0xf32>"}, {"tensor<3xf32>"},
                                      "    %m = spectral.abs %a : tensor<3x0xf32>\n"
                                      "    %r = spectral.reduce_max %m axes [1] : tensor<3x0xf32>\n"
                                      "    spectral.yield %r : tensor<3xf32>"));
  EXPECT_NE(error.find("maximum of no elements"), std::string::npos) << error;
}

/// cross_entropy of logits x * w + b (the prologue) and half the loss (the
/// epilogue): the row losses and their mean, two launches.
std::string fusedCrossEntropy(const std::string &element, int64_t rows) {
  std::string x = "tensor<" + std::to_string(rows) + "x10x" + element + ">",
              w = "tensor<10x" + element + ">", r = "tensor<" + element + ">",
              l = "tensor<" + std::to_string(rows) + "xi64>";
  return fusion({x, w, l}, {r},
                "    %s = spectral.mul %a, %b : " + x + ", " + w + "\n"
                "    %t = spectral.tanh %s : " + x + "\n"
                "    %e = spectral.cross_entropy %t, %c : " + x + ", " + l + "\n"
                "    %h = spectral.constant dense<0.5> : " + r + "\n"
                "    %y = spectral.mul %e, %h : " + r + ", " + r + "\n"
                "    spectral.yield %y : " + r);
}

/// mse of two computed operands, its root in the store.
std::string fusedMse(const std::string &type) {
  std::string t = "tensor<" + type + ">", r = "tensor<f32>";
  if (type.find("f64") != std::string::npos) r = "tensor<f64>";
  return fusion({t, t}, {r},
                "    %u = spectral.exp %a : " + t + "\n"
                "    %v = spectral.neg %b : " + t + "\n"
                "    %m = spectral.mse %u, %v : " + t + "\n"
                "    %s = spectral.sqrt %m : " + r + "\n"
                "    spectral.yield %s : " + r);
}

TEST(FusedLosses, CrossEntropyTakesItsLogitsFromAPrologue) {
  std::vector<HostTensor> inputs = randomInputs(fusedCrossEntropy("f32", 6));
  inputs[2] = hostTensor(DType::kInt64, {6}, std::vector<int64_t>{0, 9, 3, 3, 7, 1});
  // Small work: one launch of one block (a block program).
  EXPECT_EQ(expectMatchesReference(fusedCrossEntropy("f32", 6), inputs), 1);
  // Many rows: the row losses, partials of their mean, the half in the
  // final pass (3 x 40000 x 10 element operations: beyond a block program).
  std::vector<HostTensor> many = randomInputs(fusedCrossEntropy("f32", 40000));
  std::vector<int64_t> labels(40000);
  for (size_t i = 0; i < labels.size(); ++i) labels[i] = int64_t(i * 7 % 10);
  many[2] = hostTensor(DType::kInt64, {40000}, labels);
  EXPECT_EQ(expectMatchesReference(fusedCrossEntropy("f32", 40000), many), 3);
  many = randomInputs(fusedCrossEntropy("f64", 5000));
  many[2] = hostTensor(DType::kInt64, {5000}, std::vector<int64_t>(labels.begin(), labels.begin() + 5000));
  EXPECT_EQ(expectMatchesReference(fusedCrossEntropy("f64", 5000), many), 1);
  // A label out of range still names the op.
  inputs[2] = hostTensor(DType::kInt64, {6}, std::vector<int64_t>{0, 9, 3, 10, 7, 1});
  std::string error = runError(fusedCrossEntropy("f32", 6), inputs);
  EXPECT_NE(error.find("spectral.cross_entropy"), std::string::npos) << error;
  EXPECT_NE(error.find("label out of range [0, 10) in row (at position 3)"), std::string::npos)
      << error;
}

TEST(FusedLosses, MseTakesBothOperandsFromPrologues) {
  // Small work: one block. Beyond a block program's 2^20 element
  // operations, two passes (partials of the squared error, then their
  // mean), as unfused; complex operands are not a block program's.
  EXPECT_EQ(expectMatchesReference(fusedMse("7x9xf32")), 1);
  EXPECT_EQ(expectMatchesReference(fusedMse("300x100xf64")), 1);
  EXPECT_EQ(expectMatchesReference(fusedMse("1024x600xf32")), 2);
  EXPECT_EQ(expectMatchesReference(fusion({"tensor<4x5xcomplex<f32>>"}, {"tensor<f32>"},
                                          "    %c = spectral.conj %a : tensor<4x5xcomplex<f32>>\n"
                                          "    %m = spectral.mse %c, %a : tensor<4x5xcomplex<f32>>\n"
                                          "    spectral.yield %m : tensor<f32>")),
            2);
  // Constant labels are read from a constant buffer.
  EXPECT_EQ(expectMatchesReference(fusion({"tensor<3x4xf32>"}, {"tensor<f32>"},
                                          "    %l = spectral.constant dense<[1, 3, 0]> : tensor<3xi32>\n"
                                          "    %t = spectral.tanh %a : tensor<3x4xf32>\n"
                                          "    %e = spectral.cross_entropy %t, %l : tensor<3x4xf32>, tensor<3xi32>\n"
                                          "    spectral.yield %e : tensor<f32>")),
            1);
  // Computed labels are read as they are, and a cast that can fail is no
  // block program's: the region runs op by op (the cast, the loss in one
  // block).
  std::string x = "tensor<3x4xf32>";
  EXPECT_EQ(expectMatchesReference(fusion({x, "tensor<3xf32>"}, {"tensor<f32>"},
                                          "    %l = spectral.cast %b : tensor<3xf32> to tensor<3xi32>\n"
                                          "    %e = spectral.cross_entropy %a, %l : " + x + ", tensor<3xi32>\n"
                                          "    spectral.yield %e : tensor<f32>"),
                                   {hostTensor(DType::kFloat32, {3, 4}, std::vector<float>(12, 0.5f)),
                                    hostTensor(DType::kFloat32, {3}, std::vector<float>{0, 3, 1})}),
            2);
}

/// The NVRTC gate: plain units of every path and the fused ones.
class ReductionNvrtc : public ::testing::TestWithParam<std::string> {};

TEST_P(ReductionNvrtc, UnitsCompileWithoutSpills) {
  std::map<std::string, CompiledKernel> compiled = expectCleanCubins(
      {reduceGraph({"reduce_sum", "f32", {4, 128}, {1}, false}),
       reduceGraph({"reduce_mean", "f64", {2, 3, 4, 5}, {1, 3}, false}),
       reduceGraph({"reduce_sum", "f32", {3, 100000}, {1}, false}),
       reduceGraph({"reduce_max", "f32", {3, 4099}, {0, 1}, false}),
       softmaxGraph({"softmax", "f32", {2, 3, 33}, 1}), rowNorms("f32"), rowNorms("f64"),
       softmaxWithBias("f32"), columnLogSoftmax("f64"), middleMaxOfAbs("f32"),
       rootMeanSquare("100x100xf64"), splitLogSumExp(), fusedCrossEntropy("f32", 6),
       fusedCrossEntropy("f32", 40000), fusedMse("300x100xf64"), fusedMse("1024x600xf32")},
      GetParam());
  int fused = fusedUnits(compiled);
  EXPECT_GE(fused, 12);
}

INSTANTIATE_TEST_SUITE_P(Archs, ReductionNvrtc, ::testing::Values("sm_80", "sm_90"));

} // namespace
} // namespace spectral::testing
