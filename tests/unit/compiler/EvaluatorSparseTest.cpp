//===- EvaluatorSparseTest.cpp - topk_modes, gather, scatter, sparse ops --===//
//
// Sparse pairs (values, indices) against hand-worked examples: ties, order
// by index, empty slots (-1), duplicates, and the errors for indices out of
// range.
//
//===----------------------------------------------------------------------===//

#include "EvaluatorTest.h"

#include <limits>

namespace spectral::reference::test {
namespace {

TEST(EvaluatorTopk, PerRowTiesTowardLowerIndexSortedByIndex) {
  auto out = run(R"mlir(
    func.func @main(%x: tensor<3x5xf32>) -> (tensor<3x2xf32>, tensor<3x2xi64>) {
      %v, %i = spectral.topk_modes %x k 2 : tensor<3x5xf32>
      return %v, %i : tensor<3x2xf32>, tensor<3x2xi64>
    })mlir",
                 {makeTensor(K::F32, {3, 5},
                             {1, -5, 3, 5, 0,      // |-5| = |5|: both, by index
                              2, 7, -7, 7, 1,      // three 7s: the first two
                              3, 0, 4, 0, 0.5})}); // 4 > 3, listed by index
  ASSERT_EQ(out.size(), 2u);
  expectTensor(out[0], K::F32, {3, 2}, {-5, 5, 7, -7, 3, 4}, 0);
  expectTensor(out[1], K::I64, {3, 2}, {1, 3, 1, 2, 0, 2}, 0);
}

TEST(EvaluatorTopk, LongRowOfEqualMagnitudes) {
  // 200 entries of magnitude 1 (alternating sign) around one 2 at index 150:
  // an unstable sort would pick arbitrary ones among the ties.
  std::vector<Complex> x(200);
  for (int64_t i = 0; i < 200; ++i)
    x[i] = i % 2 ? -1.0 : 1.0;
  x[150] = 2.0;
  auto out = run(R"mlir(
    func.func @main(%x: tensor<200xf64>) -> (tensor<4xf64>, tensor<4xi64>) {
      %v, %i = spectral.topk_modes %x k 4 : tensor<200xf64>
      return %v, %i : tensor<4xf64>, tensor<4xi64>
    })mlir",
                 {makeTensor(K::F64, {200}, x)});
  ASSERT_EQ(out.size(), 2u);
  expectTensor(out[0], K::F64, {4}, {1, -1, 1, 2}, 0);
  expectTensor(out[1], K::I64, {4}, {0, 1, 2, 150}, 0);
}

TEST(EvaluatorTopk, FlatByComplexMagnitude) {
  // Magnitudes 5, 6, 5, 1.41, 4.5, 6: the two 6s, then the first 5. Ordering
  // by real part instead would pick 5+0i, 4.5+0i and 3+4i.
  auto out = run(R"mlir(
    func.func @main(%x: tensor<2x3xcomplex<f64>>) -> (tensor<3xcomplex<f64>>, tensor<3xi64>) {
      %v, %i = spectral.topk_modes %x k 3 flat : tensor<2x3xcomplex<f64>>
      return %v, %i : tensor<3xcomplex<f64>>, tensor<3xi64>
    })mlir",
                 {makeTensor(K::C128, {2, 3},
                             {{3, 4}, {0, 6}, {5, 0}, {-1, -1}, {4.5, 0}, {0, -6}})});
  ASSERT_EQ(out.size(), 2u);
  expectTensor(out[0], K::C128, {3}, {{3, 4}, {0, 6}, {0, -6}}, 0);
  expectTensor(out[1], K::I64, {3}, {0, 1, 5}, 0);
}

TEST(EvaluatorTopk, IntegersAndLeadingDims) {
  auto out = run(R"mlir(
    func.func @main(%x: tensor<2x2x3xi32>) -> (tensor<2x2x1xi32>, tensor<2x2x1xi64>) {
      %v, %i = spectral.topk_modes %x k 1 : tensor<2x2x3xi32>
      return %v, %i : tensor<2x2x1xi32>, tensor<2x2x1xi64>
    })mlir",
                 {makeTensor(K::I32, {2, 2, 3}, {-9, 4, 8, 0, 0, 0, 1, 2, 3, 5, -5, 4})});
  ASSERT_EQ(out.size(), 2u);
  expectTensor(out[0], K::I32, {2, 2, 1}, {-9, 0, 3, 5}, 0);
  expectTensor(out[1], K::I64, {2, 2, 1}, {0, 0, 2, 0}, 0);
}

TEST(EvaluatorTopk, HugeMagnitudesDoNotOverflow) {
  // |z|^2 of 1e200 overflows to inf, making the first three tie; |z| does not.
  auto out = run(R"mlir(
    func.func @main(%x: tensor<4xf64>, %c: tensor<3xcomplex<f64>>)
        -> (tensor<1xf64>, tensor<1xi64>, tensor<1xcomplex<f64>>, tensor<1xi64>) {
      %v, %i = spectral.topk_modes %x k 1 : tensor<4xf64>
      %w, %j = spectral.topk_modes %c k 1 : tensor<3xcomplex<f64>>
      return %v, %i, %w, %j : tensor<1xf64>, tensor<1xi64>, tensor<1xcomplex<f64>>, tensor<1xi64>
    })mlir",
                 {makeTensor(K::F64, {4}, {1e200, 3e200, 2e200, 1}),
                  makeTensor(K::C128, {3}, {{1e200, 1e200}, {0, -2e200}, {1e300, 0}})});
  ASSERT_EQ(out.size(), 4u);
  expectTensor(out[0], K::F64, {1}, {3e200}, 0);
  expectTensor(out[1], K::I64, {1}, {1}, 0);
  expectTensor(out[2], K::C128, {1}, {{1e300, 0}}, 0);
  expectTensor(out[3], K::I64, {1}, {2}, 0);
}

TEST(EvaluatorTopk, NanIsTheLargestMagnitude) {
  // As torch.topk: NaNs rank above every number (inf included), ties
  // (among NaNs too) go to the lower index; results are listed by index.
  double nan = std::numeric_limits<double>::quiet_NaN();
  double inf = std::numeric_limits<double>::infinity();
  const char *source = R"mlir(
    func.func @main(%x: tensor<2x5xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>) {
      %v, %i = spectral.topk_modes %x k 3 : tensor<2x5xf32>
      return %v, %i : tensor<2x3xf32>, tensor<2x3xi64>
    })mlir";
  auto out = run(source, {makeTensor(K::F32, {2, 5}, {1, nan, -inf, nan, nan,  //
                                                      nan, 2, -3, 1, 3})});
  ASSERT_EQ(out.size(), 2u);
  expectTensor(out[0], K::F32, {2, 3}, {nan, nan, nan, nan, -3, 3}, 0);
  expectTensor(out[1], K::I64, {2, 3}, {1, 3, 4, 0, 2, 4}, 0);
}

TEST(EvaluatorGather, PerRowAndFlatWithEmptySlots) {
  auto out = run(R"mlir(
    func.func @main(%x: tensor<2x4xf32>, %i: tensor<2x2xi64>, %c: tensor<2x3xcomplex<f32>>, %j: tensor<4xi64>)
        -> (tensor<2x2xf32>, tensor<4xcomplex<f32>>) {
      %0 = spectral.gather %x[%i] : tensor<2x4xf32>, tensor<2x2xi64>
      %1 = spectral.gather %c[%j] : tensor<2x3xcomplex<f32>>, tensor<4xi64>
      return %0, %1 : tensor<2x2xf32>, tensor<4xcomplex<f32>>
    })mlir",
                 {makeTensor(K::F32, {2, 4}, {10, 11, 12, 13, 20, 21, 22, 23}),
                  makeTensor(K::I64, {2, 2}, {3, -1, 0, 0}),
                  makeTensor(K::C64, {2, 3}, {{0, 1}, {1, 1}, {2, 1}, {3, 1}, {4, 1}, {5, 1}}),
                  makeTensor(K::I64, {4}, {5, 0, -1, 3})});
  ASSERT_EQ(out.size(), 2u);
  expectTensor(out[0], K::F32, {2, 2}, {13, 0, 20, 20}, 0);
  expectTensor(out[1], K::C64, {4}, {{5, 1}, {0, 1}, 0, {3, 1}}, 0);
}

TEST(EvaluatorGather, PerRowSharesLeadingDims) {
  // x[a, b, :] is the row that indices[a, b, :] address.
  auto out = run(R"mlir(
    func.func @main(%x: tensor<2x2x3xi32>, %i: tensor<2x2x2xi64>) -> tensor<2x2x2xi32> {
      %0 = spectral.gather %x[%i] : tensor<2x2x3xi32>, tensor<2x2x2xi64>
      return %0 : tensor<2x2x2xi32>
    })mlir",
                 {makeTensor(K::I32, {2, 2, 3}, {0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32}),
                  makeTensor(K::I64, {2, 2, 2}, {2, 0, 1, -1, 0, 0, 2, 1})});
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], K::I32, {2, 2, 2}, {2, 0, 11, 0, 20, 20, 32, 31}, 0);
}

const char *kGatherPerRow = R"mlir(
  func.func @main(%x: tensor<2x4xf32>, %i: tensor<2x2xi64>) -> tensor<2x2xf32> {
    %0 = spectral.gather %x[%i] : tensor<2x4xf32>, tensor<2x2xi64>
    return %0 : tensor<2x2xf32>
  })mlir";

TEST(EvaluatorGather, IndexOutOfRangeIsNamed) {
  Tensor x = makeTensor(K::F32, {2, 4}, {10, 11, 12, 13, 20, 21, 22, 23});
  expectContains(runError(kGatherPerRow, {x, makeTensor(K::I64, {2, 2}, {0, 1, 2, 4})}),
                 {"spectral.gather", "index 4"});
  expectContains(runError(kGatherPerRow, {x, makeTensor(K::I64, {2, 2}, {0, -2, 2, 3})}),
                 {"spectral.gather", "index -2"});
  // Flat indices address all 6 elements; 6 is one past the end.
  expectContains(runError(R"mlir(
    func.func @main(%x: tensor<2x3xf32>, %i: tensor<2xi64>) -> tensor<2xf32> {
      %0 = spectral.gather %x[%i] : tensor<2x3xf32>, tensor<2xi64>
      return %0 : tensor<2xf32>
    })mlir",
                          {makeTensor(K::F32, {2, 3}, {1, 2, 3, 4, 5, 6}),
                           makeTensor(K::I64, {2}, {5, 6})}),
                 {"spectral.gather", "index 6"});
}

TEST(EvaluatorScatter, AccumulatesDuplicatesAndSkipsEmptySlots) {
  auto out = run(R"mlir(
    func.func @main(%v: tensor<2x3xf64>, %i: tensor<2x3xi64>, %c: tensor<4xcomplex<f32>>, %j: tensor<4xi64>)
        -> (tensor<2x4xf64>, tensor<2x3xcomplex<f32>>) {
      %0 = spectral.scatter %v, %i : tensor<2x3xf64>, tensor<2x3xi64> -> tensor<2x4xf64>
      %1 = spectral.scatter %c, %j : tensor<4xcomplex<f32>>, tensor<4xi64> -> tensor<2x3xcomplex<f32>>
      return %0, %1 : tensor<2x4xf64>, tensor<2x3xcomplex<f32>>
    })mlir",
                 {makeTensor(K::F64, {2, 3}, {1, 2, 3, 4, 5, 6}),
                  makeTensor(K::I64, {2, 3}, {1, 1, -1, 0, 3, 2}),
                  makeTensor(K::C64, {4}, {{1, 1}, {2, 0}, {9, 9}, {0, -1}}),
                  makeTensor(K::I64, {4}, {5, 5, -1, 0})});
  ASSERT_EQ(out.size(), 2u);
  expectTensor(out[0], K::F64, {2, 4}, {0, 3, 0, 0, 4, 0, 6, 5}, 0);
  expectTensor(out[1], K::C64, {2, 3}, {{0, -1}, 0, 0, 0, 0, {3, 1}}, 0);
}

TEST(EvaluatorScatter, IndexOutOfRangeIsNamed) {
  expectContains(runError(R"mlir(
    func.func @main(%v: tensor<1x2xf32>, %i: tensor<1x2xi64>) -> tensor<1x4xf32> {
      %0 = spectral.scatter %v, %i : tensor<1x2xf32>, tensor<1x2xi64> -> tensor<1x4xf32>
      return %0 : tensor<1x4xf32>
    })mlir",
                          {makeTensor(K::F32, {1, 2}, {1, 2}), makeTensor(K::I64, {1, 2}, {0, 4})}),
                 {"spectral.scatter", "index 4"});
}

const char *kSparseBinary = R"mlir(
  func.func @main(%av: tensor<2x3xf64>, %ai: tensor<2x3xi64>, %bv: tensor<2x2xf64>, %bi: tensor<2x2xi64>)
      -> (tensor<2x5xf64>, tensor<2x5xi64>, tensor<2x2xf64>, tensor<2x2xi64>) {
    %0:2 = spectral.sparse_add %av, %ai, %bv, %bi : tensor<2x3xf64>, tensor<2x2xf64>
    %1:2 = spectral.sparse_mul %av, %ai, %bv, %bi : tensor<2x3xf64>, tensor<2x2xf64>
    return %0#0, %0#1, %1#0, %1#1 : tensor<2x5xf64>, tensor<2x5xi64>, tensor<2x2xf64>, tensor<2x2xi64>
  })mlir";

TEST(EvaluatorSparse, AddIsUnionMulIsIntersectionPerRow) {
  // Row 0: {0: 1, 5: 2, 9: 3} and {5: 10, 7: 20}.
  // Row 1: {2: 4} (two empty slots) and {3: 7, 1: 8} (not sorted).
  auto out = run(kSparseBinary, {makeTensor(K::F64, {2, 3}, {1, 2, 3, 4, 0, 0}),
                                 makeTensor(K::I64, {2, 3}, {0, 5, 9, 2, -1, -1}),
                                 makeTensor(K::F64, {2, 2}, {10, 20, 7, 8}),
                                 makeTensor(K::I64, {2, 2}, {5, 7, 3, 1})});
  ASSERT_EQ(out.size(), 4u);
  // Union, sorted by index, 5 merged, then empty slots (-1, value 0) last.
  expectTensor(out[0], K::F64, {2, 5}, {1, 12, 20, 3, 0, 8, 4, 7, 0, 0}, 0);
  expectTensor(out[1], K::I64, {2, 5}, {0, 5, 7, 9, -1, 1, 2, 3, -1, -1}, 0);
  // Intersection: only index 5 of row 0; row 1 has none.
  expectTensor(out[2], K::F64, {2, 2}, {20, 0, 0, 0}, 0);
  expectTensor(out[3], K::I64, {2, 2}, {5, -1, -1, -1}, 0);
}

TEST(EvaluatorSparse, FlatComplexAndInteger) {
  auto out = run(R"mlir(
    func.func @main(%av: tensor<2xcomplex<f32>>, %ai: tensor<2xi64>, %bv: tensor<1xcomplex<f32>>, %bi: tensor<1xi64>,
                    %cv: tensor<2xi32>, %ci: tensor<2xi64>)
        -> (tensor<3xcomplex<f32>>, tensor<3xi64>, tensor<1xcomplex<f32>>, tensor<1xi64>, tensor<4xi32>, tensor<4xi64>) {
      %0:2 = spectral.sparse_add %av, %ai, %bv, %bi : tensor<2xcomplex<f32>>, tensor<1xcomplex<f32>>
      %1:2 = spectral.sparse_mul %av, %ai, %bv, %bi : tensor<2xcomplex<f32>>, tensor<1xcomplex<f32>>
      %2:2 = spectral.sparse_add %cv, %ci, %cv, %ci : tensor<2xi32>, tensor<2xi32>
      return %0#0, %0#1, %1#0, %1#1, %2#0, %2#1 : tensor<3xcomplex<f32>>, tensor<3xi64>,
          tensor<1xcomplex<f32>>, tensor<1xi64>, tensor<4xi32>, tensor<4xi64>
    })mlir",
                 {makeTensor(K::C64, {2}, {{5, 0}, {1, 1}}), makeTensor(K::I64, {2}, {40, 3}),
                  makeTensor(K::C64, {1}, {{2, -1}}), makeTensor(K::I64, {1}, {3}),
                  makeTensor(K::I32, {2}, {-3, 4}), makeTensor(K::I64, {2}, {6, 2})});
  ASSERT_EQ(out.size(), 6u);
  expectTensor(out[0], K::C64, {3}, {{3, 0}, {5, 0}, 0}, 0);
  expectTensor(out[1], K::I64, {3}, {3, 40, -1}, 0);
  // (1 + i)(2 - i) = 3 + i.
  expectTensor(out[2], K::C64, {1}, {{3, 1}}, 0);
  expectTensor(out[3], K::I64, {1}, {3}, 0);
  // Each index meets itself: values double, two empty slots at the end.
  expectTensor(out[4], K::I32, {4}, {8, -6, 0, 0}, 0);
  expectTensor(out[5], K::I64, {4}, {2, 6, -1, -1}, 0);
}

} // namespace
} // namespace spectral::reference::test
