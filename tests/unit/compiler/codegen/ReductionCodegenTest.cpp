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

namespace spectral::testing {
namespace {

std::string graph(const std::string &args, const std::string &result, const std::string &body) {
  return "func.func @main(" + args + ") -> " + result + " {\n  %r = " + body +
         "\n  return %r : " + result + "\n}\n";
}

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

} // namespace
} // namespace spectral::testing
