// SparseCodegenTest.cpp - topk_modes, gather, scatter, sparse_add and
// sparse_mul through codegen on the host device, against the reference
// evaluator (indices exactly: ties, NaN order and the slot layout included).
#include "tests/unit/compiler/codegen/CodegenTestUtil.h"



#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>

namespace spectral::testing {
namespace {

template <typename T>
HostTensor hostTensor(DType dtype, std::vector<int64_t> shape, const std::vector<T> &values) {
  HostTensor t{dtype, std::move(shape), std::vector<uint8_t>(values.size() * sizeof(T))};
  std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

HostTensor indexTensor(std::vector<int64_t> shape, const std::vector<int64_t> &indices) {
  return hostTensor(DType::kInt64, std::move(shape), indices);
}

/// `count` indices in [-1, limit), a third of them from {-1, 0, 1, 2}, so
/// that empty slots and duplicates are common.
std::vector<int64_t> randomIndices(int64_t count, int64_t limit, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> any(-1, limit - 1),
      narrow(-1, std::min<int64_t>(2, limit - 1));
  std::vector<int64_t> indices(count);
  for (int64_t i = 0; i < count; ++i) indices[i] = i % 3 == 0 ? narrow(rng) : any(rng);
  return indices;
}

// ---- topk_modes --------------------------------------------------------------------

std::string fusedTopk(const std::string &shape, const std::string &row, const std::string &element,
                      int64_t k, bool flat, const std::string &result);

/// topk_modes of tensor<SHAPExELEMENT> with result shape `result` ("4x5").
std::string topk(const std::string &shape, const std::string &element, int64_t k, bool flat,
                 const std::string &result) {
  std::string x = "tensor<" + shape + "x" + element + ">";
  return graph("%x: " + x, {"tensor<" + result + "x" + element + ">", "tensor<" + result + "xi64>"},
               "spectral.topk_modes %x k " + std::to_string(k) + (flat ? " flat" : "") + " : " + x);
}

TEST(SparseCodegen, TopkPerRow) {
  EXPECT_EQ(expectMatchesReference(topk("4x37", "f32", 5, false, "4x5")), 1);
  expectMatchesReference(topk("3x64", "f64", 1, false, "3x1"));            // k = 1
  expectMatchesReference(topk("2x16", "complex<f32>", 16, false, "2x16")); // k = n
  expectMatchesReference(topk("2x3x9", "complex<f64>", 3, false, "2x3x3"));
  expectMatchesReference(topk("3x20", "i32", 4, false, "3x4")); // random in [0, 10): ties
}

TEST(SparseCodegen, TopkFlat) {
  expectMatchesReference(topk("3x40", "f32", 7, true, "7"));
  expectMatchesReference(topk("2x3x4", "complex<f32>", 24, true, "24")); // k = n
  expectMatchesReference(topk("5x6", "f64", 1, true, "1"));
  expectMatchesReference(topk("2x9", "i64", 3, true, "3"));
}

TEST(SparseCodegen, TopkTiesGoToTheLowerIndex) {
  // |x| ties (signs, zeros of both signs), in several places.
  std::vector<float> reals = {1, -1, 2, -2, 0.5f, -0.0f, 0, 2, -0.5f, 1, -2, 0.5f, 0, 1, -1, 2};
  expectMatchesReference(topk("2x8", "f32", 3, false, "2x3"),
                         {hostTensor(DType::kFloat32, {2, 8}, reals)});
  expectMatchesReference(topk("16", "f32", 6, false, "6"),
                         {hostTensor(DType::kFloat32, {16}, reals)});
  // Moduli 5 five times over, and 1 three times.
  std::vector<std::complex<float>> complex = {{3, 4},  {1, 0},  {-4, 3}, {0, 5},
                                              {0, -1}, {-5, 0}, {4, -3}, {-1, 0}};
  expectMatchesReference(topk("8", "complex<f32>", 3, false, "3"),
                         {hostTensor(DType::kComplex64, {8}, complex)});
  expectMatchesReference(topk("8", "complex<f32>", 6, false, "6"),
                         {hostTensor(DType::kComplex64, {8}, complex)});
}

TEST(SparseCodegen, TopkNaNRanksAboveInfinityAndHugeValuesKeepTheirOrder) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = HUGE_VAL;
  // |x|^2 would overflow for 1e200 and 3e200 in double, underflow for 1e-200.
  std::vector<double> x = {1e200, -3e200, nan, 1e-200, -inf, 2e-200, nan, 0, 3e200, -1};
  expectMatchesReference(topk("10", "f64", 4, false, "4"), {hostTensor(DType::kFloat64, {10}, x)});
  expectMatchesReference(topk("10", "f64", 8, false, "8"), {hostTensor(DType::kFloat64, {10}, x)});
  std::vector<float> f = {1e20f, -3e20f, 1e-20f, 2e-20f, 3e20f, float(nan), -1, 0};
  expectMatchesReference(topk("8", "f32", 5, false, "5"), {hostTensor(DType::kFloat32, {8}, f)});
  std::vector<std::complex<double>> z = {{1, nan}, {inf, 0}, {3e200, 4e200}, {-5e200, 0},
                                         {1, 1},   {nan, 0}, {0, 0},         {1e-300, 0}};
  expectMatchesReference(topk("8", "complex<f64>", 4, false, "4"),
                         {hostTensor(DType::kComplex128, {8}, z)});
}

TEST(SparseCodegen, TopkLargeTakesTheGridPath) {
  // Keys beyond the shared-memory budget: the multi-launch form with a
  // zeroed histogram. Random f32 in [-1, 1) tie often at this count.
  EXPECT_EQ(expectMatchesReference(topk("3x40000", "f32", 100, true, "100")), 6);
  expectMatchesReference(topk("6000", "complex<f64>", 6000, false, "6000")); // k = n
  expectMatchesReference(topk("2x6000", "f64", 10, false, "2x10"));
  expectMatchesReference(topk("12000", "f32", 1, false, "1")); // k = 1
}

// The top-k units are phased on the host (topk.cuh): a block's select by one
// caller gives the bytes the block's threads give, on a row per block (keys
// cached), on the grid form's phases, for integers (ties, in rows and over
// the grid) and for keys computed as they are read.
TEST(SparseCodegen, TopkPhasedMatchesFibers) {
  expectPhasedMatchesFibers({topk("4x37", "f32", 5, false, "4x5"),
                             topk("2x3x9", "complex<f64>", 3, false, "2x3x3"),
                             topk("3x20", "i32", 4, false, "3x4"),
                             topk("2x16", "complex<f32>", 16, false, "2x16")});
  expectPhasedMatchesFibers({topk("3x40000", "f32", 100, true, "100"),
                             topk("3x40000", "i32", 100, true, "100"),
                             topk("2x6000", "f64", 10, false, "2x10"),
                             fusedTopk("3x40000", "40000", "f32", 100, true, "100")});
}

// ---- gather and scatter --------------------------------------------------------------

TEST(SparseCodegen, GatherPerRowAndFlat) {
  std::string perRow = graph("%x: tensor<4x10xf32>, %i: tensor<4x6xi64>", "tensor<4x6xf32>",
                             "spectral.gather %x[%i] : tensor<4x10xf32>, tensor<4x6xi64>");
  std::vector<HostTensor> inputs = randomInputs(perRow);
  inputs[1] = indexTensor({4, 6}, randomIndices(24, 10, 1));
  EXPECT_EQ(expectMatchesReference(perRow, inputs), 1);

  std::string flat =
      graph("%x: tensor<3x5xcomplex<f64>>, %i: tensor<7xi64>", "tensor<7xcomplex<f64>>",
            "spectral.gather %x[%i] : tensor<3x5xcomplex<f64>>, tensor<7xi64>");
  inputs = randomInputs(flat);
  inputs[1] = indexTensor({7}, {14, -1, 0, 14, 7, -1, 3});
  expectMatchesReference(flat, inputs);

  std::string ints = graph("%x: tensor<2x3x4xi32>, %i: tensor<2x3x5xi64>", "tensor<2x3x5xi32>",
                           "spectral.gather %x[%i] : tensor<2x3x4xi32>, tensor<2x3x5xi64>");
  inputs = randomInputs(ints);
  inputs[1] = indexTensor({2, 3, 5}, randomIndices(30, 4, 2));
  expectMatchesReference(ints, inputs);
}

TEST(SparseCodegen, GatherOutOfRangeNamesTheOpAndItsLocation) {
  std::string source = graph("%x: tensor<2x4xf32>, %i: tensor<2x3xi64>", "tensor<2x3xf32>",
                             "spectral.gather %x[%i] : tensor<2x4xf32>, tensor<2x3xi64>");
  std::vector<HostTensor> inputs = randomInputs(source);
  for (int64_t bad : {4, -2}) {
    inputs[1] = indexTensor({2, 3}, {0, 1, -1, 3, bad, 2});
    std::string error = runError(source, inputs);
    EXPECT_NE(error.find("spectral.gather"), std::string::npos) << error;
    EXPECT_NE(error.find(":2:8"), std::string::npos) << error; // the op's line and column
    EXPECT_NE(error.find("out of range"), std::string::npos) << error;
    EXPECT_NE(error.find("position 4"), std::string::npos) << error;
  }
}

TEST(SparseCodegen, ScatterAccumulatesDuplicatesAndSkipsEmptySlots) {
  std::string perRow =
      graph("%v: tensor<3x6xf32>, %i: tensor<3x6xi64>", "tensor<3x10xf32>",
            "spectral.scatter %v, %i : tensor<3x6xf32>, tensor<3x6xi64> -> tensor<3x10xf32>");
  std::vector<HostTensor> inputs = randomInputs(perRow);
  inputs[1] = indexTensor({3, 6}, randomIndices(18, 10, 3));
  EXPECT_EQ(expectMatchesReference(perRow, inputs), 1);

  std::string flat =
      graph("%v: tensor<9xcomplex<f32>>, %i: tensor<9xi64>", "tensor<4x5xcomplex<f32>>",
            "spectral.scatter %v, %i : tensor<9xcomplex<f32>>, tensor<9xi64> -> "
            "tensor<4x5xcomplex<f32>>");
  inputs = randomInputs(flat);
  inputs[1] = indexTensor({9}, {19, 0, -1, 19, 7, 7, 7, -1, 12});
  expectMatchesReference(flat, inputs);

  // Rows of several tiles.
  std::string wide =
      graph("%v: tensor<2x500xf64>, %i: tensor<2x500xi64>", "tensor<2x3000xf64>",
            "spectral.scatter %v, %i : tensor<2x500xf64>, tensor<2x500xi64> -> tensor<2x3000xf64>");
  inputs = randomInputs(wide);
  inputs[1] = indexTensor({2, 500}, randomIndices(1000, 3000, 4));
  expectMatchesReference(wide, inputs);

  std::string ints =
      graph("%v: tensor<2x4xi64>, %i: tensor<2x4xi64>", "tensor<2x3xi64>",
            "spectral.scatter %v, %i : tensor<2x4xi64>, tensor<2x4xi64> -> tensor<2x3xi64>");
  inputs = randomInputs(ints);
  inputs[1] = indexTensor({2, 4}, {2, 2, -1, 0, 1, 1, 1, 1});
  expectMatchesReference(ints, inputs);
}

std::string fusedScatter();

/// The top-k modes of x scattered back: the indices are in range whatever x.
std::string topkScattered(const std::string &shape, const std::string &element, int64_t k,
                          bool flat, const std::string &result) {
  std::string x = "tensor<" + shape + "x" + element + ">",
              v = "tensor<" + result + "x" + element + ">", i = "tensor<" + result + "xi64>";
  return "func.func @main(%x: " + x + ") -> " + x + " {\n  %v, %i = spectral.topk_modes %x k " +
         std::to_string(k) + (flat ? " flat" : "") + " : " + x +
         "\n  %y = spectral.scatter %v, %i : " + v + ", " + i + " -> " + x + "\n  return %y : " +
         x + "\n}\n";
}

/// A scatter of `values` slots per row into rows of `length`, its indices
/// random inputs (in [0, 10): valid, and many slots aimed at one element).
std::string randomScatter(const std::string &rows, int64_t slots, int64_t length,
                          const std::string &element) {
  std::string v = "tensor<" + rows + "x" + std::to_string(slots) + "x" + element + ">",
              i = "tensor<" + rows + "x" + std::to_string(slots) + "xi64>",
              out = "tensor<" + rows + "x" + std::to_string(length) + "x" + element + ">";
  return graph("%v: " + v + ", %i: " + i, out,
               "spectral.scatter %v, %i : " + v + ", " + i + " -> " + out);
}

// The scatter units are phased on the host (sparse.cuh): the slots in order
// give the bytes scatter_into's rounds give: many slots per element over
// several rounds of 256 slots (another order rounds differently), rows of
// several tiles, a fused prologue, the top-k's modes per row and flat.
TEST(SparseCodegen, ScatterPhasedMatchesFibers) {
  expectPhasedMatchesFibers({randomScatter("3", 600, 10, "f32"),
                             randomScatter("2", 700, 3000, "complex<f64>"),
                             randomScatter("4", 5, 12, "f64"), fusedScatter()});
  expectPhasedMatchesFibers({topkScattered("4x37", "f32", 5, false, "4x5"),
                             topkScattered("2x3000", "complex<f64>", 300, false, "2x300"),
                             topkScattered("3x40", "f64", 20, true, "20")},
                            2);
}

TEST(SparseCodegen, ScatterOutOfRangeFailsTheRun) {
  std::string source =
      graph("%v: tensor<2x3xf32>, %i: tensor<2x3xi64>", "tensor<2x4xf32>",
            "spectral.scatter %v, %i : tensor<2x3xf32>, tensor<2x3xi64> -> tensor<2x4xf32>");
  std::vector<HostTensor> inputs = randomInputs(source);
  inputs[1] = indexTensor({2, 3}, {0, 1, 2, 3, -1, 4});
  std::string error = runError(source, inputs);
  EXPECT_NE(error.find("spectral.scatter"), std::string::npos) << error;
  EXPECT_NE(error.find("out of range [0, 4)"), std::string::npos) << error;
  EXPECT_NE(error.find("position 5"), std::string::npos) << error;
}

// ---- sparse_add and sparse_mul -------------------------------------------------------

/// sparse_OP of [LHS] and [RHS] pairs (shapes "3x5"), results of capacity `capacity` ("3x9").
std::string sparseBinary(const std::string &op, const std::string &lhs, const std::string &rhs,
                         const std::string &element, const std::string &capacity) {
  std::string lv = "tensor<" + lhs + "x" + element + ">", li = "tensor<" + lhs + "xi64>";
  std::string rv = "tensor<" + rhs + "x" + element + ">", ri = "tensor<" + rhs + "xi64>";
  return graph("%a: " + lv + ", %ai: " + li + ", %b: " + rv + ", %bi: " + ri,
               {"tensor<" + capacity + "x" + element + ">", "tensor<" + capacity + "xi64>"},
               "spectral." + op + " %a, %ai, %b, %bi : " + lv + ", " + rv);
}

/// Random inputs of a sparse binary graph, with indices drawn from [-1, limit).
std::vector<HostTensor> sparseInputs(const std::string &source, int64_t limit, uint64_t seed) {
  std::vector<HostTensor> inputs = randomInputs(source, seed);
  for (int side : {1, 3}) {
    HostTensor &indices = inputs[side];
    indices = indexTensor(indices.shape, randomIndices(indices.elements(), limit, seed + side));
  }
  return inputs;
}

TEST(SparseCodegen, SparseAddIsTheUnionSortedByIndex) {
  // Unsorted indices, duplicates within a side, -1 slots, shared indices.
  std::string source = sparseBinary("sparse_add", "3x5", "3x4", "f32", "3x9");
  std::vector<HostTensor> inputs = randomInputs(source);
  inputs[1] = indexTensor({3, 5}, {4, 1, -1, 1, 9, /**/ -1, -1, -1, -1, -1, /**/ 3, 3, 3, 0, 2});
  inputs[3] = indexTensor({3, 4}, {1, 0, 7, -1, /**/ 5, 5, -1, 2, /**/ 2, 3, 8, 8});
  EXPECT_EQ(expectMatchesReference(source, inputs), 1);

  std::string flat = sparseBinary("sparse_add", "6", "9", "complex<f32>", "15");
  expectMatchesReference(flat, sparseInputs(flat, 12, 5));
  std::string ints = sparseBinary("sparse_add", "2x3x8", "2x3x8", "i32", "2x3x16");
  expectMatchesReference(ints, sparseInputs(ints, 10, 6));
}

TEST(SparseCodegen, SparseMulIsTheIntersection) {
  std::string source = sparseBinary("sparse_mul", "3x5", "3x4", "f64", "3x4");
  std::vector<HostTensor> inputs = randomInputs(source);
  inputs[1] = indexTensor({3, 5}, {4, 1, -1, 1, 9, /**/ 0, 1, 2, 3, 4, /**/ 3, 3, 3, 0, 2});
  inputs[3] = indexTensor({3, 4}, {1, 0, 9, -1, /**/ 7, 8, -1, 6, /**/ 2, 3, 3, 8});
  EXPECT_EQ(expectMatchesReference(source, inputs), 1);
  std::string complex = sparseBinary("sparse_mul", "4x7", "4x12", "complex<f64>", "4x7");
  expectMatchesReference(complex, sparseInputs(complex, 9, 7));
}

TEST(SparseCodegen, SparseOpsOfManySlots) {
  // Workspace in shared memory.
  std::string add = sparseBinary("sparse_add", "2x300", "2x200", "f64", "2x500");
  expectMatchesReference(add, sparseInputs(add, 400, 8));
  // Workspace beyond the shared budget: a global scratch slice per block.
  std::string mul = sparseBinary("sparse_mul", "2x1500", "2x1000", "f32", "2x1000");
  expectMatchesReference(mul, sparseInputs(mul, 2000, 9));
}

// The merges are phased on the host (sparse_ops.cuh): every loop's entries
// in turn give the bytes the block's threads give; random indices in
// [0, 10) repeat within a side and between them, then with empty ones (-1).
// Workspaces in shared memory and in global scratch.
TEST(SparseCodegen, SparseOpsPhasedMatchFibers) {
  expectPhasedMatchesFibers({sparseBinary("sparse_add", "3x5", "3x4", "f32", "3x9"),
                             sparseBinary("sparse_mul", "4x7", "4x12", "complex<f64>", "4x7"),
                             sparseBinary("sparse_add", "2x3x8", "2x3x8", "i32", "2x3x16"),
                             sparseBinary("sparse_add", "2x300", "2x200", "f64", "2x500"),
                             sparseBinary("sparse_mul", "2x1500", "2x1000", "f32", "2x1000")});
  // Empty slots (-1) among them: sorted last, in both schedules alike.
  expectPhasedMatchesFibers({sparseBinary("sparse_add", "3x5", "3x4", "f32", "3x9"),
                             sparseBinary("sparse_mul", "4x7", "4x12", "complex<f64>", "4x7"),
                             sparseBinary("sparse_add", "2x300", "2x200", "f64", "2x500")},
                            1, /*emptyEvery=*/3);
}

TEST(SparseCodegen, SparseIndexBelowMinusOneFailsTheRun) {
  std::string source = sparseBinary("sparse_add", "2x3", "2x2", "f32", "2x5");
  std::vector<HostTensor> inputs = randomInputs(source);
  inputs[1] = indexTensor({2, 3}, {0, 1, 2, 3, 4, 5});
  inputs[3] = indexTensor({2, 2}, {0, -3, 1, 1});
  std::string error = runError(source, inputs);
  EXPECT_NE(error.find("spectral.sparse_add"), std::string::npos) << error;
  EXPECT_NE(error.find("index below -1"), std::string::npos) << error;
  EXPECT_NE(error.find("position 7"), std::string::npos) << error; // 6 lhs slots, then rhs #1
}

// ---- The GPU gate: every kind of unit compiles with NVRTC, without spills ------------

// ---- fused loads ---------------------------------------------------------------------

/// topk_modes of x * w (w broadcast along rows), the product computed as the
/// keys are read.
std::string fusedTopk(const std::string &shape, const std::string &row, const std::string &element,
                      int64_t k, bool flat, const std::string &result) {
  std::string x = "tensor<" + shape + "x" + element + ">", w = "tensor<" + row + "x" + element + ">";
  std::string v = "tensor<" + result + "x" + element + ">", i = "tensor<" + result + "xi64>";
  return fusion({x, w}, {v, i},
                "    %m = spectral.mul %a, %b : " + x + ", " + w + "\n"
                "    %vals, %idx = spectral.topk_modes %m k " + std::to_string(k) +
                    (flat ? " flat" : "") + " : " + x + "\n"
                "    spectral.yield %vals, %idx : " + v + ", " + i);
}

/// gather from exp(x), scatter of -values: the dense side computed per element read.
std::string fusedGather() {
  return fusion({"tensor<4x10xf32>", "tensor<4x6xi64>"}, {"tensor<4x6xf32>"},
                "    %e = spectral.exp %a : tensor<4x10xf32>\n"
                "    %g = spectral.gather %e[%b] : tensor<4x10xf32>, tensor<4x6xi64>\n"
                "    spectral.yield %g : tensor<4x6xf32>");
}
std::string fusedScatter() {
  return fusion({"tensor<2x500xcomplex<f64>>", "tensor<2x500xi64>"}, {"tensor<2x3000xcomplex<f64>>"},
                "    %n = spectral.conj %a : tensor<2x500xcomplex<f64>>\n"
                "    %s = spectral.scatter %n, %b : tensor<2x500xcomplex<f64>>, tensor<2x500xi64> "
                "-> tensor<2x3000xcomplex<f64>>\n"
                "    spectral.yield %s : tensor<2x3000xcomplex<f64>>");
}

TEST(FusedSparse, TopkRanksComputedKeys) {
  EXPECT_EQ(expectMatchesReference(fusedTopk("4x37", "37", "f32", 5, false, "4x5")), 1);
  EXPECT_EQ(expectMatchesReference(fusedTopk("2x3x9", "9", "complex<f64>", 3, false, "2x3x3")), 1);
  // The grid path reads the keys in every phase.
  EXPECT_EQ(expectMatchesReference(fusedTopk("3x40000", "40000", "f32", 100, true, "100")), 6);
}

TEST(FusedSparse, GatherAndScatterReadComputedOperands) {
  std::vector<HostTensor> inputs = randomInputs(fusedGather());
  inputs[1] = indexTensor({4, 6}, randomIndices(24, 10, 1));
  EXPECT_EQ(expectMatchesReference(fusedGather(), inputs), 1);
  inputs[1] = indexTensor({4, 6}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                   0, 0, 0, 0});
  std::string error = runError(fusedGather(), inputs);
  EXPECT_NE(error.find("spectral.gather"), std::string::npos) << error;
  EXPECT_NE(error.find("position 10"), std::string::npos) << error;
  inputs = randomInputs(fusedScatter());
  inputs[1] = indexTensor({2, 500}, randomIndices(1000, 3000, 4));
  EXPECT_EQ(expectMatchesReference(fusedScatter(), inputs), 1);
}

/// The types of an image transform of [images, h, w] with a top-k, a gather
/// or a scatter of k modes in one fft_complex2d.cuh kernel: the images, their
/// rows of h * w, and k values and indices per image.
struct ImageTypes {
  std::string image, rows, values, indices;
  ImageTypes(int64_t images, int64_t h, int64_t w, const std::string &element, int64_t k) {
    auto tensor = [&](int64_t a, int64_t b, const std::string &type) {
      return "tensor<" + std::to_string(images) + "x" + std::to_string(a) +
             (b ? "x" + std::to_string(b) : "") + "x" + type + ">";
    };
    image = tensor(h, w, element);
    rows = tensor(h * w, 0, element);
    values = tensor(k, 0, element);
    indices = tensor(k, 0, "i64");
  }
};

std::string imageTopk(int64_t images, int64_t h, int64_t w, const std::string &element,
                      int64_t k) {
  const ImageTypes t(images, h, w, element, k);
  return fusion({t.image}, {t.values, t.indices},
                "    %s = spectral.fft %a axes [1, 2] norm ortho : " + t.image + "\n"
                "    %r = spectral.reshape %s : " + t.image + " -> " + t.rows + "\n"
                "    %v, %i = spectral.topk_modes %r k " + std::to_string(k) + " : " + t.rows +
                    "\n"
                "    spectral.yield %v, %i : " + t.values + ", " + t.indices);
}
std::string imageGather(int64_t images, int64_t h, int64_t w, const std::string &element,
                        int64_t k) {
  const ImageTypes t(images, h, w, element, k);
  return fusion({t.image, t.indices}, {t.values},
                "    %s = spectral.fft %a axes [1, 2] : " + t.image + "\n"
                "    %r = spectral.reshape %s : " + t.image + " -> " + t.rows + "\n"
                "    %g = spectral.gather %r[%b] : " + t.rows + ", " + t.indices + "\n"
                "    spectral.yield %g : " + t.values);
}
std::string imageScatter(int64_t images, int64_t h, int64_t w, const std::string &element,
                         int64_t k) {
  const ImageTypes t(images, h, w, element, k);
  return fusion({t.values, t.indices}, {t.image},
                "    %d = spectral.scatter %a, %b : " + t.values + ", " + t.indices + " -> " +
                    t.rows + "\n"
                "    %g = spectral.reshape %d : " + t.rows + " -> " + t.image + "\n"
                "    %y = spectral.ifft %g axes [1, 2] : " + t.image + "\n"
                "    spectral.yield %y : " + t.image);
}

// The image transforms with a top-k, gather or scatter of their modes are
// phased on the host (fft_complex2d.cuh): rows and columns a SIMD width at
// once, the top-k, the slots and the scatter's sums by one caller, the bytes
// the block's threads give. Images of full and partial groups of rows, one
// row, odd lengths; random indices in [0, 10) for the gather and scatter
// (slots repeat, several rounds of them for k = 300), then with empty ones
// (bad slots are compared against the reference in FusedSparse tests and
// lit).
TEST(FusedSparse, ImageTransformsPhasedMatchFibers) {
  expectPhasedMatchesFibers({imageTopk(4, 8, 8, "complex<f32>", 5),
                             imageTopk(2, 7, 9, "complex<f64>", 63),
                             imageTopk(3, 1, 64, "complex<f32>", 4),
                             imageGather(3, 6, 10, "complex<f64>", 7),
                             imageGather(2, 8, 8, "complex<f32>", 70),
                             imageScatter(4, 8, 8, "complex<f32>", 5),
                             imageScatter(2, 12, 10, "complex<f32>", 300),
                             imageScatter(3, 5, 6, "complex<f64>", 50)});
  // Empty slots (-1) among the gathers' and scatters' indices.
  expectPhasedMatchesFibers({imageGather(2, 8, 8, "complex<f32>", 70),
                             imageScatter(2, 12, 10, "complex<f32>", 300),
                             imageScatter(3, 5, 6, "complex<f64>", 50)},
                            1, /*emptyEvery=*/4);
}

TEST(FusedSparse, ConstantOperandsReadNoBuffersOrGetOne) {
  // The dense side computed from a splat alone (no buffer to read), constant
  // indices (a constant buffer).
  std::string source = fusion({"tensor<4x3xf32>"}, {"tensor<4x3xf32>"},
                              "    %one = spectral.constant dense<2.0> : tensor<4x6xf32>\n"
                              "    %d = spectral.pad %one low [0, 1] high [0, 1] value 3.0 : tensor<4x6xf32>\n"
                              "    %i = spectral.constant dense<[0, 3, 7]> : tensor<3xi64>\n"
                              "    %g = spectral.gather %d[%i] : tensor<4x8xf32>, tensor<3xi64>\n"
                              "    %z = spectral.add %a, %g : tensor<4x3xf32>, tensor<3xf32>\n"
                              "    spectral.yield %z : tensor<4x3xf32>");
  EXPECT_GE(expectMatchesReference(source), 1);
  std::string gathered = fusion({"tensor<5xf32>"}, {"tensor<3xf32>"},
                                "    %e = spectral.exp %a : tensor<5xf32>\n"
                                "    %i = spectral.constant dense<[4, 0, 4]> : tensor<3xi64>\n"
                                "    %g = spectral.gather %e[%i] : tensor<5xf32>, tensor<3xi64>\n"
                                "    spectral.yield %g : tensor<3xf32>");
  EXPECT_EQ(expectMatchesReference(gathered), 1);
}

class SparseNvrtc : public ::testing::TestWithParam<std::string> {};

TEST_P(SparseNvrtc, EveryKindOfUnitCompilesWithoutSpills) {
  std::vector<std::string> sources = {
      topk("4x37", "f32", 5, false, "4x5"),              // rows, cached 32-bit keys
      topk("2x3x9", "complex<f64>", 3, false, "2x3x3"),  // rows, cached 64-bit keys
      topk("70000x6000", "f32", 3, false, "70000x3"),    // rows, uncached
      topk("3x40000", "f32", 100, true, "100"),          // grid, 32-bit keys
      topk("6000", "complex<f32>", 6000, false, "6000"), // grid, 64-bit keys
      graph("%x: tensor<3x5xcomplex<f32>>, %i: tensor<7xi64>", "tensor<7xcomplex<f32>>",
            "spectral.gather %x[%i] : tensor<3x5xcomplex<f32>>, tensor<7xi64>"),
      graph("%v: tensor<2x500xf64>, %i: tensor<2x500xi64>", "tensor<2x3000xf64>",
            "spectral.scatter %v, %i : tensor<2x500xf64>, tensor<2x500xi64> -> "
            "tensor<2x3000xf64>"),
      sparseBinary("sparse_add", "3x5", "3x4", "f32", "3x9"),                   // shared workspace
      sparseBinary("sparse_mul", "2x1500", "2x1000", "complex<f64>", "2x1000"), // global
      sparseBinary("sparse_add", "2x3x8", "2x3x8", "i64", "2x3x16"),
  };
  sources.push_back(fusedTopk("4x37", "37", "f32", 5, false, "4x5"));
  sources.push_back(fusedTopk("3x40000", "40000", "f32", 100, true, "100"));
  sources.push_back(fusedGather());
  sources.push_back(fusedScatter());
  std::map<std::string, CompiledKernel> compiled = expectCleanCubins(sources, GetParam());
  EXPECT_EQ(compiled.size(), 14u);
  EXPECT_EQ(fusedUnits(compiled), 4);
}

INSTANTIATE_TEST_SUITE_P(Archs, SparseNvrtc, ::testing::Values("sm_80", "sm_90"));

} // namespace
} // namespace spectral::testing
