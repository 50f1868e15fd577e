// The top-k, gather and scatter templates run on HostDevice against plain
// loops: top-k against the exact index sets of a stable sort (ties toward the
// lower index, on data built to tie), scatter bit for bit against a
// sequential sum in slot order (it must be deterministic); every unit also
// compiles with NVRTC for sm_80 and sm_90 without spills.
#include "tests/unit/kernels_templates/kernel_test_util.h"

#include "runtime/device/cuda/nvrtc_compiler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <numeric>
#include <random>

namespace spectral::testing {
namespace {

const char* const kPrelude =
    "#include \"common.cuh\"\n"
    "#include \"topk.cuh\"\n"
    "using namespace spectral_sparse;\n";

/// The element types, as the test sees them and as units spell them.
template <typename T> struct Dtype;
template <> struct Dtype<float> { static constexpr const char *name = "float", *tag = "f32"; };
template <> struct Dtype<double> { static constexpr const char *name = "double", *tag = "f64"; };
template <> struct Dtype<std::complex<float>> {
  static constexpr const char *name = "cplx<float>", *tag = "c64";
};
template <> struct Dtype<std::complex<double>> {
  static constexpr const char *name = "cplx<double>", *tag = "c128";
};

/// `phased`: the body calls templates with a phased form only (top-k's,
/// scatter), so the unit says SPECTRAL_HOST_PHASED as codegen's does.
template <typename T>
KernelSource unit(const std::string& entry, const std::string& params, const std::string& body,
                  bool phased = false) {
  std::map<std::string, std::string> values{{"$V", Dtype<T>::name},
                                            {"$E", entry + "_" + Dtype<T>::tag}};
  return {fill(std::string(kPrelude) + (phased ? "SPECTRAL_HOST_PHASED;\n" : "") +
                   "extern \"C\" __global__ void $E(" + params + ") {\n" + body + "\n}\n",
               values),
          fill("$E", values),
          {}};
}

// ---- Units, written as codegen will --------------------------------------------------------

constexpr int kRowThreads = 128, kGridThreads = 256;

template <typename T>
KernelSource topk_rows_unit(bool cache) {
  return unit<T>(cache ? "topk_rows_cached" : "topk_rows",
                 "const $V* x, $V* values, long long* indices, long long rows, long long n, "
                 "long long k",
                 std::string("  topk_rows<128, ") + (cache ? "true" : "false") +
                     ", $V>(rows, n, k, RowsLoad<$V>{x, n}, SparseStore<$V>{values, indices, k});",
                 true);
}

template <typename T>
KernelSource topk_histogram_unit() {
  return unit<T>("topk_grid_histogram",
                 "const $V* x, unsigned long long* histograms, int pass, long long n, "
                 "long long k, long long tile",
                 "  topk_grid_histogram<256, $V>(pass, n, k, tile, histograms, RowsLoad<$V>{x, n});",
                 true);
}

template <typename T>
KernelSource topk_count_unit() {
  return unit<T>("topk_grid_count",
                 "const $V* x, const unsigned long long* histograms, unsigned long long* counts, "
                 "long long n, long long k, long long tile",
                 "  topk_grid_count<256, $V>(n, k, tile, histograms, counts, RowsLoad<$V>{x, n});",
                 true);
}

template <typename T>
KernelSource topk_write_unit() {
  return unit<T>("topk_grid_write",
                 "const $V* x, const unsigned long long* histograms, "
                 "const unsigned long long* counts, $V* values, long long* indices, long long n, "
                 "long long k, long long tile",
                 "  topk_grid_write<256, $V>(n, k, tile, histograms, counts, RowsLoad<$V>{x, n},\n"
                 "      SparseStore<$V>{values, indices, k});",
                 true);
}

const char* const kSparseParams =
    "const $V* x, const long long* indices, $V* out, long long rows, long long k, "
    "long long row_length, unsigned long long* error";

template <typename T>
KernelSource gather_unit() {
  return unit<T>("gather", kSparseParams,
                 "  gather<$V>(indices, rows, k, row_length, RowsLoad<$V>{x, row_length},\n"
                 "      RowsStore<$V>{out, k}, error);");
}

/// x is the sparse values here, out the dense result.
template <typename T>
KernelSource scatter_unit() {
  return unit<T>("scatter", kSparseParams,
                 "  scatter<256, 1024, $V>(indices, rows, k, row_length, RowsLoad<$V>{x, k},\n"
                 "      RowsStore<$V>{out, row_length}, error);",
                 /*phased=*/true);
}

template <typename T>
KernelSource scatter_sorted_unit() {
  return unit<T>("scatter_sorted", kSparseParams,
                 "  scatter_sorted<$V>(indices, x, rows, k, row_length,\n"
                 "      RowsStore<$V>{out, row_length}, error);");
}

/// A dense producer whose store gathers the sorted modes (a fused epilogue).
template <typename T>
KernelSource gather_by_store_unit() {
  return unit<T>("gather_by_store", kSparseParams,
                 "  SortedGatherStore<$V> store{out, indices, k};\n"
                 "  for (long long p = blockIdx.x * blockDim.x + threadIdx.x; p < rows * row_length;\n"
                 "       p += (long long)gridDim.x * blockDim.x)\n"
                 "    store(p / row_length, p % row_length, x[p]);");
}

/// Bytes of a radix-select key: the size of the element's real type.
template <typename T>
constexpr int key_bytes() {
  if constexpr (std::is_floating_point_v<T>)
    return sizeof(T);
  else
    return sizeof(typename T::value_type);
}

uint32_t blocks_for(int64_t count, int64_t threads) {
  return uint32_t(std::clamp<int64_t>((count + threads - 1) / threads, 1, 1024));
}

// ---- Top-k -----------------------------------------------------------------------------

/// |x|^2 rounded as the kernels round it (each product, then the sum).
float magnitude(float x) { return x * x; }
float magnitude(std::complex<float> z) {
  float re = z.real() * z.real(), im = z.imag() * z.imag();
  return re + im;
}
double magnitude(double x) { return x * x; }
double magnitude(std::complex<double> z) {
  double re = z.real() * z.real(), im = z.imag() * z.imag();
  return re + im;
}

/// The expected indices: by magnitude descending, ties toward the lower
/// index, the first k sorted ascending.
template <typename T>
std::vector<int64_t> expected_topk(const T* row, int64_t n, int64_t k) {
  std::vector<decltype(magnitude(row[0]))> m(n);
  for (int64_t i = 0; i < n; ++i) m[i] = magnitude(row[i]);
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  auto before = [&](int64_t a, int64_t b) { return m[a] > m[b] || (m[a] == m[b] && a < b); };
  std::nth_element(order.begin(), order.begin() + (k - 1), order.end(), before);
  order.resize(k);
  std::sort(order.begin(), order.end());
  return order;
}

template <typename T>
T random_value(std::mt19937_64& rng, bool ties) {
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::uniform_int_distribution<int> small(-2, 2);
  auto draw = [&] { return ties ? double(small(rng)) : uniform(rng); };
  if constexpr (std::is_floating_point_v<T>) {
    return T(draw());
  } else {
    using R = typename T::value_type;
    R re = R(draw());
    return T(re, R(draw()));
  }
}

template <typename T>
std::vector<T> random_values(int64_t count, uint64_t seed, bool ties) {
  std::mt19937_64 rng(seed);
  std::vector<T> x(count);
  for (T& v : x) v = random_value<T>(rng, ties);
  return x;
}

/// Per-row results: values [rows, k] and indices [rows, k].
template <typename T>
struct TopkResult {
  std::vector<T> values;
  std::vector<int64_t> indices;
};

/// One block per row (up to 1024), or `blocks` of them walking the rows.
template <typename T>
TopkResult<T> run_topk_rows(const std::vector<T>& x, int64_t rows, int64_t n, int64_t k,
                            bool cache, uint32_t blocks = 0) {
  Buffer in(x), values{std::vector<T>(rows * k)}, indices{std::vector<int64_t>(rows * k)};
  size_t shared = cache ? size_t(n) * key_bytes<T>() : 0;
  if (blocks == 0) blocks = uint32_t(std::min<int64_t>(rows, 1024));
  launch(topk_rows_unit<T>(cache), {blocks, 1, 1},
         {kRowThreads, 1, 1}, shared,
         {&in.get(), &values.get(), &indices.get(), (void*)&rows, (void*)&n, (void*)&k});
  return {values.read<T>(), indices.read<int64_t>()};
}

/// The grid form: passes of histograms, the counts, the write.
template <typename T>
TopkResult<T> run_topk_grid(const std::vector<T>& x, int64_t rows, int64_t n, int64_t k) {
  const int passes = key_bytes<T>();  // digits of 8 bits
  int64_t tile = n > 8192 ? 16384 : 1024;  // several blocks a row, not too many fibers
  uint32_t blocks = uint32_t((n + tile - 1) / tile);
  Buffer in(x), histograms{std::vector<uint64_t>(rows * passes * 256)};
  Buffer counts{std::vector<uint64_t>(rows * blocks * 2)};
  Buffer values{std::vector<T>(rows * k)}, indices{std::vector<int64_t>(rows * k)};
  Dim3 grid{blocks, uint32_t(rows), 1}, block{kGridThreads, 1, 1};
  for (int pass = 0; pass < passes; ++pass)
    launch(topk_histogram_unit<T>(), grid, block, 0,
           {&in.get(), &histograms.get(), &pass, (void*)&n, (void*)&k, &tile});
  launch(topk_count_unit<T>(), grid, block, 0,
         {&in.get(), &histograms.get(), &counts.get(), (void*)&n, (void*)&k, &tile});
  launch(topk_write_unit<T>(), grid, block, 0,
         {&in.get(), &histograms.get(), &counts.get(), &values.get(), &indices.get(), (void*)&n,
          (void*)&k, &tile});
  return {values.read<T>(), indices.read<int64_t>()};
}

template <typename T>
void expect_topk(const TopkResult<T>& got, const std::vector<T>& x, int64_t rows, int64_t n,
                 int64_t k, const std::string& what) {
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<int64_t> want = expected_topk(x.data() + r * n, n, k);
    std::vector<int64_t> indices(got.indices.begin() + r * k, got.indices.begin() + (r + 1) * k);
    ASSERT_EQ(indices, want) << what << " row " << r;
    for (int64_t j = 0; j < k; ++j)
      ASSERT_EQ(std::memcmp(&got.values[r * k + j], &x[r * n + want[j]], sizeof(T)), 0)
          << what << " row " << r << " slot " << j;
  }
}

struct TopkCase {
  int64_t n, k;
};

std::vector<TopkCase> topk_cases() {
  std::vector<TopkCase> cases;
  for (int64_t n : {1, 7, 64, 1000, 4097, 100000})
    for (int64_t k : {int64_t(1), int64_t(8), n})
      if (k <= n) cases.push_back({n, k});
  cases.erase(std::unique(cases.begin(), cases.end(),
                          [](const TopkCase& a, const TopkCase& b) { return a.n == b.n && a.k == b.k; }),
              cases.end());
  return cases;
}

template <typename T>
void check_topk(const TopkCase& c, bool all_forms) {
  const int64_t rows = 3;
  for (bool ties : {false, true}) {
    std::vector<T> x = random_values<T>(rows * c.n, c.n * 7 + c.k + ties, ties);
    std::string what = std::string(Dtype<T>::name) + (ties ? " ties" : " random");
    // Per row, one block each; keys cached when they fit 48 KiB.
    const bool fits = c.n * key_bytes<T>() <= 48 * 1024;
    if (all_forms || !fits)
      expect_topk(run_topk_rows(x, rows, c.n, c.k, false), x, rows, c.n, c.k, what + " rows");
    if (fits)
      expect_topk(run_topk_rows(x, rows, c.n, c.k, true), x, rows, c.n, c.k, what + " cached");
    // One block for every row: the barriers that keep a row's work from the
    // next row's (chunks, cached keys, digit passes) run between rows.
    if (fits && c.n <= 1000)
      expect_topk(run_topk_rows(x, rows, c.n, c.k, true, 1), x, rows, c.n, c.k,
                  what + " cached, one block");
    // Rows spread over blocks, and flat over the whole tensor.
    if (all_forms || c.n > 4096)
      expect_topk(run_topk_grid(x, rows, c.n, c.k), x, rows, c.n, c.k, what + " grid");
    int64_t flat_k = c.k == c.n ? rows * c.n : c.k;
    expect_topk(run_topk_grid(x, 1, rows * c.n, flat_k), x, 1, rows * c.n, flat_k, what + " flat");
  }
}

class Topk : public ::testing::TestWithParam<TopkCase> {};

TEST_P(Topk, Float32) { check_topk<float>(GetParam(), true); }
TEST_P(Topk, Complex64) { check_topk<std::complex<float>>(GetParam(), true); }
TEST_P(Topk, Float64) { check_topk<double>(GetParam(), false); }
TEST_P(Topk, Complex128) { check_topk<std::complex<double>>(GetParam(), false); }

INSTANTIATE_TEST_SUITE_P(Sizes, Topk, ::testing::ValuesIn(topk_cases()),
                         [](const ::testing::TestParamInfo<TopkCase>& info) {
                           return "n" + std::to_string(info.param.n) + "_k" +
                                  std::to_string(info.param.k);
                         });

/// NaN ranks above infinity, infinity above every finite value; zeros tie.
TEST(Topk, NonFiniteAndZeros) {
  float inf = INFINITY, nan = NAN;
  std::vector<float> x = {0.0f, -0.0f, 1.0f, inf, -2.0f, nan, -inf, 0.0f};
  TopkResult<float> got = run_topk_rows(x, 1, 8, 4, false);
  EXPECT_EQ(got.indices, (std::vector<int64_t>{3, 4, 5, 6}));
  got = run_topk_rows(x, 1, 8, 7, true);
  EXPECT_EQ(got.indices, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6}));
}

// ---- Gather and scatter ----------------------------------------------------------------

struct SparseCase {
  int64_t rows, row_length, k;
};

std::string sparse_case_name(const ::testing::TestParamInfo<SparseCase>& info) {
  return std::to_string(info.param.rows) + "x" + std::to_string(info.param.row_length) + "_k" +
         std::to_string(info.param.k);
}

/// Indices in [-1, row_length), often repeated (drawn from a narrow range).
std::vector<int64_t> random_indices(const SparseCase& c, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> any(-1, c.row_length - 1);
  std::uniform_int_distribution<int64_t> narrow(-1, std::min<int64_t>(c.row_length - 1, 3));
  std::vector<int64_t> indices(c.rows * c.k);
  for (size_t i = 0; i < indices.size(); ++i) indices[i] = i % 3 ? any(rng) : narrow(rng);
  return indices;
}

/// Each row's indices ascending with duplicates, empty slots last.
std::vector<int64_t> sorted_indices(const SparseCase& c, uint64_t seed) {
  std::vector<int64_t> indices = random_indices(c, seed);
  for (int64_t r = 0; r < c.rows; ++r) {
    auto begin = indices.begin() + r * c.k, end = begin + c.k;
    std::sort(begin, end, [](int64_t a, int64_t b) { return uint64_t(a) < uint64_t(b); });
  }
  return indices;
}

/// Launches a sparse unit: x, indices, out (of out_count), rows, k, row_length, error.
template <typename T>
std::vector<T> run_sparse(const KernelSource& unit, const std::vector<T>& x,
                          const std::vector<int64_t>& idx, const SparseCase& c, int64_t out_count,
                          uint32_t blocks, uint64_t* error_word) {
  Buffer in(x), indices(idx), out{std::vector<T>(out_count)}, error{std::vector<uint64_t>(1)};
  int64_t rows = c.rows, k = c.k, row_length = c.row_length;
  launch(unit, {blocks, 1, 1}, {256, 1, 1}, 0,
         {&in.get(), &indices.get(), &out.get(), &rows, &k, &row_length, &error.get()});
  *error_word = error.read<uint64_t>()[0];
  return out.read<T>();
}

template <typename T>
void expect_bitwise_equal(const std::vector<T>& got, const std::vector<T>& want,
                          const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(std::memcmp(&got[i], &want[i], sizeof(T)), 0)
        << what << " at " << i << ": " << got[i] << " != " << want[i];
}

template <typename T>
void check_gather(const SparseCase& c) {
  std::vector<T> x = random_values<T>(c.rows * c.row_length, c.row_length, false);
  std::vector<int64_t> idx = random_indices(c, c.k);
  std::vector<T> want(c.rows * c.k);
  for (int64_t p = 0; p < c.rows * c.k; ++p)
    if (idx[p] >= 0) want[p] = x[(p / c.k) * c.row_length + idx[p]];
  uint64_t error = 0;
  expect_bitwise_equal(run_sparse(gather_unit<T>(), x, idx, c, c.rows * c.k,
                                  blocks_for(c.rows * c.k, 256), &error),
                       want, "gather");
  EXPECT_EQ(error, 0u);

  // Dense -> sorted modes by a fused store.
  idx = sorted_indices(c, c.k + 1);
  for (int64_t p = 0; p < c.rows * c.k; ++p)
    want[p] = idx[p] >= 0 ? x[(p / c.k) * c.row_length + idx[p]] : T(0);
  expect_bitwise_equal(run_sparse(gather_by_store_unit<T>(), x, idx, c, c.rows * c.k,
                                  blocks_for(c.rows * c.row_length, 256), &error),
                       want, "gather by store");
}

/// The dense sum in slot order, the order the kernels must reproduce.
template <typename T>
std::vector<T> sequential_scatter(const std::vector<T>& values, const std::vector<int64_t>& idx,
                                  const SparseCase& c) {
  std::vector<T> dense(c.rows * c.row_length);
  for (int64_t p = 0; p < c.rows * c.k; ++p)
    if (idx[p] >= 0) dense[(p / c.k) * c.row_length + idx[p]] += values[p];
  return dense;
}

template <typename T>
void check_scatter(const SparseCase& c) {
  std::vector<T> values = random_values<T>(c.rows * c.k, c.k + 5, false);
  std::vector<int64_t> idx = random_indices(c, c.row_length);
  uint64_t error = 1;
  int64_t tiles = c.rows * ((c.row_length + 1023) / 1024);
  std::vector<T> want = sequential_scatter(values, idx, c);
  expect_bitwise_equal(run_sparse(scatter_unit<T>(), values, idx, c, c.rows * c.row_length,
                                  uint32_t(std::min<int64_t>(tiles, 1024)), &error),
                       want, "scatter");
  EXPECT_EQ(error, 0u);
  if (tiles >= 2) {  // one block walks every tile: the next tile reuses its shared memory
    expect_bitwise_equal(run_sparse(scatter_unit<T>(), values, idx, c, c.rows * c.row_length, 1,
                                    &error),
                         want, "scatter, one block");
    EXPECT_EQ(error, 0u);
  }
  if (c.k >= 4 * c.row_length) {  // many duplicates: another order would round differently
    std::vector<T> reversed(want.size());
    for (int64_t p = c.rows * c.k - 1; p >= 0; --p)
      if (idx[p] >= 0) reversed[(p / c.k) * c.row_length + idx[p]] += values[p];
    EXPECT_NE(std::memcmp(reversed.data(), want.data(), want.size() * sizeof(T)), 0);
  }

  idx = sorted_indices(c, c.row_length + 1);
  expect_bitwise_equal(run_sparse(scatter_sorted_unit<T>(), values, idx, c,
                                  c.rows * c.row_length, blocks_for(c.rows * c.row_length, 256),
                                  &error),
                       sequential_scatter(values, idx, c), "scatter sorted");
  EXPECT_EQ(error, 0u);
}

class Sparse : public ::testing::TestWithParam<SparseCase> {};

TEST_P(Sparse, GatherFloat32) { check_gather<float>(GetParam()); }
TEST_P(Sparse, GatherComplex64) { check_gather<std::complex<float>>(GetParam()); }
TEST_P(Sparse, GatherFloat64) { check_gather<double>(GetParam()); }
TEST_P(Sparse, ScatterFloat32) { check_scatter<float>(GetParam()); }
TEST_P(Sparse, ScatterComplex64) { check_scatter<std::complex<float>>(GetParam()); }
TEST_P(Sparse, ScatterFloat64) { check_scatter<double>(GetParam()); }

// Per row (FNO: a few modes per row, many duplicates when k > row_length),
// several tiles per row, and flat (one row over the whole tensor).
INSTANTIATE_TEST_SUITE_P(Shapes, Sparse,
                         ::testing::Values(SparseCase{1, 1, 1}, SparseCase{3, 7, 8},
                                           SparseCase{4, 64, 16}, SparseCase{3, 64, 1000},
                                           SparseCase{2, 5000, 300}, SparseCase{1, 30000, 3000}),
                         sparse_case_name);

/// Out-of-range indices are reported (the lowest position) and act as -1.
TEST(Sparse, ReportsTheFirstIndexOutOfRange) {
  SparseCase c{2, 10, 4};
  std::vector<float> x(20, 1.0f);
  std::vector<int64_t> idx = {0, -1, 3, 9, 10, 2, -2, 1};
  uint64_t error = 0;
  std::vector<float> got =
      run_sparse(gather_unit<float>(), x, idx, c, 8, 1, &error);
  EXPECT_EQ(got, (std::vector<float>{1, 0, 1, 1, 0, 1, 0, 1}));
  EXPECT_EQ(~error, 4u);
  got = run_sparse(scatter_unit<float>(), std::vector<float>(8, 1.0f), idx, c, 20, 2, &error);
  EXPECT_EQ(~error, 4u);
  EXPECT_EQ(std::accumulate(got.begin(), got.end(), 0.0f), 5.0f);
}

// ---- sparse_add and sparse_mul -----------------------------------------------------------

/// Rows of two sparse pairs [rows, k1] and [rows, k2], indices in [-1, range).
struct MergeCase {
  int64_t rows, k1, k2, range;
};

std::string merge_case_name(const ::testing::TestParamInfo<MergeCase>& info) {
  const MergeCase& c = info.param;
  return std::to_string(c.rows) + "x" + std::to_string(c.k1) + "_" + std::to_string(c.k2) +
         "_range" + std::to_string(c.range);
}

/// The workspace sides and block size, as codegen picks them (Sparse.cpp).
struct MergeShape {
  int64_t pa, pb, threads;
};

MergeShape merge_shape(const MergeCase& c) {
  auto power = [](int64_t n) {
    int64_t p = 2;
    while (p < n) p *= 2;
    return p;
  };
  const int64_t pa = power(c.k1), pb = power(c.k2);
  return {pa, pb, std::clamp<int64_t>(std::max(pa, pb) / 2, 32, 256)};
}

size_t merge_workspace(const MergeShape& s) { return size_t(20 * (s.pa + s.pb)); }

/// sparse_merge_rows with its workspace in dynamic shared memory, or in
/// `scratch` (a slice per block) when `global`.
template <typename T>
KernelSource merge_unit(const MergeShape& s, bool add, bool global) {
  const std::string shape = std::to_string(s.threads) + ", " + std::to_string(s.pa) + ", " +
                            std::to_string(s.pb);
  const std::map<std::string, std::string> values{
      {"$V", Dtype<T>::name},
      {"$S", shape},
      {"$U", add ? "true" : "false"},
      {"$W", global ? "unsigned char* workspace = scratch + (long long)blockIdx.x * "
                      "merge_workspace_bytes(" + std::to_string(s.pa) + ", " +
                      std::to_string(s.pb) + ");"
                    : "SPECTRAL_DYNAMIC_SHARED(unsigned char, workspace);"},
      {"$E", std::string(add ? "sparse_add_" : "sparse_mul_") + Dtype<T>::tag + "_t" +
                 std::to_string(s.threads) + "_pa" + std::to_string(s.pa) + "_pb" +
                 std::to_string(s.pb) + (global ? "_global" : "")}};
  return {fill("#include \"common.cuh\"\n"
               "#include \"sparse_ops.cuh\"\n"
               "SPECTRAL_HOST_PHASED;\n"  // as codegen's: the host runs a block per call
               "using namespace spectral_sparse;\n"
               "extern \"C\" __global__ void $E(const $V* a_values, const long long* a_indices,\n"
               "    long long k1, const $V* b_values, const long long* b_indices, long long k2,\n"
               "    long long rows, $V* values, long long* indices, long long capacity,\n"
               "    unsigned char* scratch, unsigned long long* error) {\n"
               "  $W\n"
               "  sparse_merge_rows<$S, $U, $V>(a_values, a_indices, k1, b_values, b_indices, k2,\n"
               "      rows, values, indices, capacity, workspace, error);\n}\n",
               values),
          fill("$E", values),
          {}};
}

template <typename T>
struct SparseRows {
  std::vector<T> values;
  std::vector<int64_t> indices;
};

/// The union (add) or intersection (mul) of each row, sequentially: each
/// side's duplicates summed in slot order from zero, indices ascending,
/// empty slots (-1, zero) after them. Indices below -1 count as -1.
template <typename T>
SparseRows<T> sequential_merge(const SparseRows<T>& a, const SparseRows<T>& b, const MergeCase& c,
                               int64_t capacity, bool add) {
  SparseRows<T> out{std::vector<T>(c.rows * capacity), std::vector<int64_t>(c.rows * capacity, -1)};
  auto sums = [](const SparseRows<T>& side, int64_t row, int64_t k) {
    std::map<int64_t, T> sum;
    for (int64_t j = 0; j < k; ++j)
      if (const int64_t index = side.indices[row * k + j]; index >= 0)
        sum.try_emplace(index, T{}).first->second += side.values[row * k + j];
    return sum;
  };
  for (int64_t row = 0; row < c.rows; ++row) {
    const std::map<int64_t, T> sa = sums(a, row, c.k1), sb = sums(b, row, c.k2);
    std::map<int64_t, T> merged;
    for (const auto& [index, value] : sa) {
      auto other = sb.find(index);
      if (other != sb.end())
        merged[index] = add ? value + other->second : value * other->second;
      else if (add)
        merged[index] = value;
    }
    if (add)
      for (const auto& [index, value] : sb) merged.try_emplace(index, value);
    int64_t slot = row * capacity;
    for (const auto& [index, value] : merged) {
      out.indices[slot] = index;
      out.values[slot++] = value;
    }
  }
  return out;
}

template <typename T>
SparseRows<T> random_sparse(int64_t rows, int64_t k, int64_t range, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> index(-1, range - 1);
  SparseRows<T> side{random_values<T>(rows * k, seed, false), std::vector<int64_t>(rows * k)};
  for (int64_t& i : side.indices) i = index(rng);
  return side;
}

/// Runs every form of one case (a block per row; one block walking every
/// row, so the barrier between rows runs; a global workspace) against the
/// sequential merge, bit for bit. Two bad indices: the lowest position is
/// reported.
template <typename T>
void check_merge(const MergeCase& c, bool add) {
  SparseRows<T> a = random_sparse<T>(c.rows, c.k1, c.range, uint64_t(c.k1 * 7 + c.rows));
  SparseRows<T> b = random_sparse<T>(c.rows, c.k2, c.range, uint64_t(c.k2 * 11 + c.range));
  a.indices[c.k1 - 1] = -5;                         // position k1 - 1
  b.indices[(c.rows - 1) * c.k2] = -2;              // a later position
  const int64_t capacity = add ? c.k1 + c.k2 : std::min(c.k1, c.k2);
  const SparseRows<T> want = sequential_merge(a, b, c, capacity, add);
  const MergeShape shape = merge_shape(c);
  struct Form {
    uint32_t blocks;
    bool global;
    const char* what;
  };
  for (const Form& form : {Form{uint32_t(c.rows), false, "a block per row"},
                           Form{1, false, "one block"}, Form{2, true, "global workspace"}}) {
    SCOPED_TRACE(std::string(add ? "add, " : "mul, ") + form.what);
    Buffer av(a.values), ai(a.indices), bv(b.values), bi(b.indices),
        values{std::vector<T>(c.rows * capacity, T(7))},
        indices{std::vector<int64_t>(c.rows * capacity, 7)},
        scratch{std::vector<unsigned char>(form.global ? form.blocks * merge_workspace(shape) : 1)},
        error{std::vector<uint64_t>(1)};
    int64_t k1 = c.k1, k2 = c.k2, rows = c.rows, cap = capacity;
    launch(merge_unit<T>(shape, add, form.global), {form.blocks, 1, 1},
           {uint32_t(shape.threads), 1, 1}, form.global ? 0 : merge_workspace(shape),
           {&av.get(), &ai.get(), &k1, &bv.get(), &bi.get(), &k2, &rows, &values.get(), &indices.get(),
            &cap, &scratch.get(), &error.get()});
    EXPECT_EQ(indices.read<int64_t>(), want.indices);
    expect_bitwise_equal(values.read<T>(), want.values, "values");
    EXPECT_EQ(error.read<uint64_t>()[0], ~uint64_t(c.k1 - 1));
  }
}

class SparseMerge : public ::testing::TestWithParam<MergeCase> {};

TEST_P(SparseMerge, AddFloat32) { check_merge<float>(GetParam(), true); }
TEST_P(SparseMerge, MulFloat32) { check_merge<float>(GetParam(), false); }
TEST_P(SparseMerge, AddComplex64) { check_merge<std::complex<float>>(GetParam(), true); }
TEST_P(SparseMerge, MulFloat64) { check_merge<double>(GetParam(), false); }

// One warp and a few entries, many duplicates; several warps (the scan's
// warp totals); a side of one slot; the largest block.
INSTANTIATE_TEST_SUITE_P(Shapes, SparseMerge,
                         ::testing::Values(MergeCase{3, 5, 4, 6}, MergeCase{4, 8, 8, 4},
                                           MergeCase{3, 100, 20, 150}, MergeCase{2, 2, 1, 3},
                                           MergeCase{2, 300, 200, 400}),
                         merge_case_name);

// ---- NVRTC -----------------------------------------------------------------------------

std::vector<KernelSource> units_to_compile() {
  std::vector<KernelSource> units;
  auto add = [&](auto tag) {
    using T = decltype(tag);
    for (bool cache : {false, true}) units.push_back(topk_rows_unit<T>(cache));
    units.push_back(topk_histogram_unit<T>());
    units.push_back(topk_count_unit<T>());
    units.push_back(topk_write_unit<T>());
    units.push_back(gather_unit<T>());
    units.push_back(scatter_unit<T>());
    units.push_back(scatter_sorted_unit<T>());
  };
  add(float());
  add(std::complex<float>());
  add(double());
  units.push_back(topk_rows_unit<std::complex<double>>(true));
  units.push_back(gather_by_store_unit<std::complex<float>>());
  for (const MergeShape& shape : {MergeShape{8, 4, 32}, MergeShape{512, 256, 256}})
    for (bool global : {false, true}) {
      units.push_back(merge_unit<float>(shape, true, global));
      units.push_back(merge_unit<std::complex<double>>(shape, false, global));
    }
  return units;
}

class SparseNvrtc : public ::testing::TestWithParam<std::string> {};

TEST_P(SparseNvrtc, CompilesToCubinWithoutSpills) {
  NvrtcOptions options;
  options.arch = GetParam();
  for (const KernelSource& unit : units_to_compile()) expect_clean_cubin(unit, options);
}

INSTANTIATE_TEST_SUITE_P(Archs, SparseNvrtc, ::testing::Values("sm_80", "sm_90"));

}  // namespace
}  // namespace spectral::testing
