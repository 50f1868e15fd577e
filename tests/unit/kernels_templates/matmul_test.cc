// The transpose, matmul and channel-mix templates run on HostDevice against
// plain double-precision loops (transposes must match exactly); every unit
// also compiles with NVRTC for sm_80 and sm_90 without spills.
#include "tests/unit/kernels_templates/kernel_test_util.h"

#include "runtime/device/cuda/nvrtc_compiler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>

namespace spectral::testing {
namespace {

const char* const kPrelude =
    "#include \"common.cuh\"\n"
    "#include \"transpose.cuh\"\n"
    "#include \"matmul.cuh\"\n"
    "using namespace spectral_linalg;\n";

/// An element type as units spell it, and its matmul tile (BM, BN, BK, TM, TN).
template <typename T> struct Dtype;
template <> struct Dtype<float> {
  static constexpr const char *name = "float", *tag = "f32", *tile = "64, 64, 16, 4, 4";
};
template <> struct Dtype<double> {
  static constexpr const char *name = "double", *tag = "f64", *tile = "64, 64, 8, 4, 4";
};
template <> struct Dtype<std::complex<float>> {
  static constexpr const char *name = "cplx<float>", *tag = "c64", *tile = "64, 64, 8, 4, 4";
};
template <> struct Dtype<std::complex<double>> {
  static constexpr const char *name = "cplx<double>", *tag = "c128", *tile = "32, 32, 8, 2, 2";
};

template <typename T>
using Real = decltype(std::abs(T()));

/// `marks`: namespace-scope lines before the kernel (SPECTRAL_HOST_PHASED).
template <typename T>
KernelSource unit(const std::string& entry, const std::string& params, const std::string& body,
                  const std::string& marks = "") {
  std::map<std::string, std::string> values{
      {"$V", Dtype<T>::name}, {"$TILE", Dtype<T>::tile}, {"$E", entry + "_" + Dtype<T>::tag}};
  return {fill(std::string(kPrelude) + marks + "extern \"C\" __global__ void $E(" + params +
                   ") {\n" + body + "\n}\n",
               values),
          fill("$E", values)};
}

// ---- Units, written as codegen will --------------------------------------------------------

/// `shape` holds the input dims, then the permutation.
template <typename T>
KernelSource transpose_unit() {
  return unit<T>("transpose", "const $V* in, $V* out, const long long* shape, int rank",
                 "  const TransposePlan plan = make_transpose_plan(rank, shape, shape + rank);\n"
                 "  transpose<32, 8, $V>(plan, OffsetLoad<$V>{in}, OffsetStore<$V>{out});",
                 "SPECTRAL_HOST_PHASED;\n");
}

/// Codegen's form: the shape is a constant, and so is the plan.
KernelSource transpose_constant_unit() {
  return unit<float>("transpose_1024x3", "const $V* in, $V* out",
                     "  constexpr long long shape[] = {1024, 3, 1, 0};\n"
                     "  constexpr TransposePlan plan = make_transpose_plan(2, shape, shape + 2);\n"
                     "  static_assert(plan.tiled && plan.rows == 1024 && plan.cols == 3);\n"
                     "  transpose<32, 8, $V>(plan, OffsetLoad<$V>{in}, OffsetStore<$V>{out});",
                     "SPECTRAL_HOST_PHASED;\n");
}

/// Batch dims [batch0, batch1] with per-operand strides (0 broadcasts);
/// operands addressed by (row, column) strides, so B may be stored transposed.
template <typename T>
KernelSource matmul_unit() {
  return unit<T>(
      "matmul",
      "const $V* a, const $V* b, $V* c, int M, int N, int K, long long batch0, "
      "long long batch1, long long a_stride0, long long a_stride1, long long b_stride0, "
      "long long b_stride1, long long b_row_stride, long long b_col_stride",
      "  const BatchStrides a_batch{2, {batch0, batch1}, {a_stride0, a_stride1}};\n"
      "  const BatchStrides b_batch{2, {batch0, batch1}, {b_stride0, b_stride1}};\n"
      "  matmul<$TILE, $V>(M, N, K, batch0 * batch1, MatrixLoad<$V>{a, a_batch, K, 1},\n"
      "      MatrixLoad<$V>{b, b_batch, b_row_stride, b_col_stride}, MatrixStore<$V>{c, M, N});",
      "SPECTRAL_HOST_PHASED;\n");  // as codegen's: the host runs a block per call
}

template <typename T>
KernelSource channel_mix_unit() {
  return unit<T>("channel_mix",
                 "const $V* x, const $V* w, $V* out, int batch, int in_channels, "
                 "int out_channels, long long modes",
                 "  channel_mix<128, 4, 4, $V>(batch, in_channels, out_channels, modes,\n"
                 "      ModeLoad<$V>{x, in_channels, modes}, ModeLoad<$V>{w, out_channels, modes},\n"
                 "      ModeStore<$V>{out, out_channels, modes});",
                 "SPECTRAL_HOST_PHASED;\n");  // as codegen's: channel_mix has a phased form
}

/// BM = BN of Dtype<T>::tile; every tile there runs (BM/TM) * (BN/TN) = 256 threads.
template <typename T>
int64_t matmul_tile() {
  return std::is_same_v<T, std::complex<double>> ? 32 : 64;
}
constexpr uint32_t kMatmulThreads = 256;

template <typename T>
std::vector<T> random_values(int64_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<T> x(count);
  for (T& v : x) {
    if constexpr (std::is_floating_point_v<T>) {
      v = T(uniform(rng));
    } else {
      double re = uniform(rng);
      v = T(Real<T>(re), Real<T>(uniform(rng)));
    }
  }
  return x;
}

/// Checks |got - want| <= tolerance * bound elementwise, where bound is the
/// sum of |a||b| over the products that make the element (the scale of a
/// dot product's rounding error) and tolerance (terms + 4) * 2 unit roundoffs.
template <typename T>
void expect_close(const std::vector<T>& got, const std::vector<std::complex<double>>& want,
                  const std::vector<double>& bound, int64_t terms, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  const double tolerance = (terms + 4) * std::numeric_limits<Real<T>>::epsilon();
  for (size_t i = 0; i < want.size(); ++i) {
    const double error = std::abs(std::complex<double>(got[i]) - want[i]);
    ASSERT_LE(error, tolerance * bound[i] + 1e-300)
        << what << " at " << i << ": " << got[i] << " vs " << want[i];
  }
}

// ---- Transpose ---------------------------------------------------------------------------

struct TransposeCase {
  std::vector<int64_t> dims, perm;
};

template <typename T>
void check_transpose(const TransposeCase& c) {
  const int rank = int(c.dims.size());
  int64_t count = std::accumulate(c.dims.begin(), c.dims.end(), int64_t(1), std::multiplies<>());
  std::vector<T> x = random_values<T>(count, count + rank);
  // Reference: output element at multi-index i reads input sum_d i[d] * stride[perm[d]].
  std::vector<int64_t> in_strides(rank, 1), out_dims(rank);
  for (int d = rank - 2; d >= 0; --d) in_strides[d] = in_strides[d + 1] * c.dims[d + 1];
  for (int d = 0; d < rank; ++d) out_dims[d] = c.dims[c.perm[d]];
  std::vector<T> want(count);
  for (int64_t o = 0; o < count; ++o) {
    int64_t from = 0, rest = o;
    for (int d = rank - 1; d >= 0; --d) {
      from += (rest % out_dims[d]) * in_strides[c.perm[d]];
      rest /= out_dims[d];
    }
    want[o] = x[from];
  }
  std::vector<int64_t> shape = c.dims;
  shape.insert(shape.end(), c.perm.begin(), c.perm.end());
  Buffer in(x), out{std::vector<T>(count)}, shape_buffer(shape);
  uint32_t blocks = uint32_t(std::clamp<int64_t>(count / 1024, 1, 1024));
  launch(transpose_unit<T>(), {blocks, 1, 1}, {32, 8, 1}, 0,
         {&in.get(), &out.get(), &shape_buffer.get(), (void*)&rank});
  std::vector<T> got = out.read<T>();
  for (int64_t o = 0; o < count; ++o)
    ASSERT_EQ(std::memcmp(&got[o], &want[o], sizeof(T)), 0) << Dtype<T>::name << " at " << o;
}

class Transpose : public ::testing::TestWithParam<TransposeCase> {};

TEST_P(Transpose, Float32) { check_transpose<float>(GetParam()); }
TEST_P(Transpose, Float64) { check_transpose<double>(GetParam()); }
TEST_P(Transpose, Complex64) { check_transpose<std::complex<float>>(GetParam()); }
TEST_P(Transpose, Complex128) { check_transpose<std::complex<double>>(GetParam()); }

std::string transpose_name(const ::testing::TestParamInfo<TransposeCase>& info) {
  std::string name;
  for (size_t d = 0; d < info.param.dims.size(); ++d)
    name += (d ? "x" : "") + std::to_string(info.param.dims[d]);
  name += "_perm";
  for (int64_t p : info.param.perm) name += std::to_string(p);
  return name;
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, Transpose,
    ::testing::Values(TransposeCase{{1, 1}, {1, 0}}, TransposeCase{{33, 65}, {1, 0}},
                      TransposeCase{{1024, 3}, {1, 0}}, TransposeCase{{3, 1024}, {1, 0}},
                      TransposeCase{{5, 33, 65}, {0, 2, 1}}, TransposeCase{{7}, {0}},
                      TransposeCase{{4, 5, 6}, {1, 0, 2}},      // the last dim stays: a copy
                      TransposeCase{{64, 9, 40}, {1, 0, 2}},    // a copy over many threads
                      TransposeCase{{3, 4}, {0, 1}},            // identity
                      TransposeCase{{2, 3, 4, 5}, {2, 3, 0, 1}},  // merges into one 2-D plane
                      TransposeCase{{2, 3, 4, 5}, {3, 1, 0, 2}},
                      TransposeCase{{2, 3, 1, 4, 5, 3}, {5, 3, 1, 0, 4, 2}},
                      TransposeCase{{40, 1, 50}, {2, 1, 0}}),
    transpose_name);

/// The constant-plan unit codegen emits, on the same numbers.
TEST(Transpose, ConstantPlan) {
  std::vector<float> x = random_values<float>(3072, 3);
  Buffer in(x), out{std::vector<float>(3072)};
  launch(transpose_constant_unit(), {4, 1, 1}, {32, 8, 1}, 0, {&in.get(), &out.get()});
  std::vector<float> got = out.read<float>();
  for (int64_t r = 0; r < 1024; ++r)
    for (int64_t c = 0; c < 3; ++c) ASSERT_EQ(got[c * 1024 + r], x[r * 3 + c]);
}

// ---- Matmul ----------------------------------------------------------------------------

/// Batch layouts: [out batch dims] and each operand's strides in units of its matrix.
struct BatchCase {
  const char* name;
  int64_t dims[2];
  int64_t a[2], b[2];  // 0 broadcasts
};

constexpr BatchCase kBatchCases[] = {
    {"none", {1, 1}, {0, 0}, {0, 0}},
    {"batched", {1, 3}, {0, 1}, {0, 1}},
    {"broadcast_a", {1, 3}, {0, 0}, {0, 1}},       // [M, K] x [3, K, N]
    {"broadcast_both", {2, 3}, {1, 0}, {0, 1}},    // [2, 1, M, K] x [3, K, N]
};

template <typename T>
void check_matmul(int M) {
  const int sizes[] = {1, 7, 16, 33, 128};
  int combo = 0;
  for (int N : sizes)
    for (int K : sizes) {
      const BatchCase& batch = kBatchCases[combo % 4];
      const bool b_transposed = combo % 5 == 2;  // B stored [N, K]
      ++combo;
      const int64_t batches = batch.dims[0] * batch.dims[1];
      const int64_t a_count = (batch.a[0] ? batch.dims[0] : 1) * (batch.a[1] ? batch.dims[1] : 1);
      const int64_t b_count = (batch.b[0] ? batch.dims[0] : 1) * (batch.b[1] ? batch.dims[1] : 1);
      std::vector<T> a = random_values<T>(a_count * M * K, combo);
      std::vector<T> b = random_values<T>(b_count * K * N, combo + 1000);
      // Row-major strides of each operand's own batch dims, 0 where it broadcasts.
      int64_t a_strides[2] = {batch.a[0] * (batch.a[1] ? batch.dims[1] : 1) * M * K,
                              batch.a[1] * int64_t(M) * K};
      int64_t b_strides[2] = {batch.b[0] * (batch.b[1] ? batch.dims[1] : 1) * K * N,
                              batch.b[1] * int64_t(K) * N};
      int64_t b_row = b_transposed ? 1 : N, b_col = b_transposed ? K : 1;
      std::vector<std::complex<double>> want(batches * M * N);
      std::vector<double> bound(batches * M * N);
      for (int64_t t = 0; t < batches; ++t) {
        const int64_t i0 = t / batch.dims[1], i1 = t % batch.dims[1];
        const T* x = a.data() + i0 * a_strides[0] + i1 * a_strides[1];
        const T* y = b.data() + i0 * b_strides[0] + i1 * b_strides[1];
        for (int i = 0; i < M; ++i)
          for (int j = 0; j < N; ++j)
            for (int l = 0; l < K; ++l) {
              std::complex<double> u(x[i * K + l]), v(y[l * b_row + j * b_col]);
              want[(t * M + i) * N + j] += u * v;
              bound[(t * M + i) * N + j] += std::abs(u) * std::abs(v);
            }
      }
      Buffer da(a), db(b), dc{std::vector<T>(batches * M * N)};
      int64_t tile = matmul_tile<T>();
      int64_t tiles = batches * ((M + tile - 1) / tile) * ((N + tile - 1) / tile);
      int64_t d0 = batch.dims[0], d1 = batch.dims[1];
      launch(matmul_unit<T>(), {uint32_t(std::min<int64_t>(tiles, 1024)), 1, 1},
             {kMatmulThreads, 1, 1}, 0,
             {&da.get(), &db.get(), &dc.get(), &M, &N, &K, &d0, &d1, &a_strides[0], &a_strides[1],
              &b_strides[0], &b_strides[1], &b_row, &b_col});
      expect_close(dc.read<T>(), want, bound, K,
                   std::string(Dtype<T>::name) + " " + std::to_string(M) + "x" + std::to_string(N) +
                       "x" + std::to_string(K) + " " + batch.name +
                       (b_transposed ? " B transposed" : ""));
    }
}

class Matmul : public ::testing::TestWithParam<int> {};

TEST_P(Matmul, Float32) { check_matmul<float>(GetParam()); }
TEST_P(Matmul, Float64) { check_matmul<double>(GetParam()); }
TEST_P(Matmul, Complex64) { check_matmul<std::complex<float>>(GetParam()); }
TEST_P(Matmul, Complex128) { check_matmul<std::complex<double>>(GetParam()); }

INSTANTIATE_TEST_SUITE_P(RowsM, Matmul, ::testing::Values(1, 7, 16, 33, 128),
                         ::testing::PrintToStringParamName());

// ---- Channel mixing --------------------------------------------------------------------

struct MixCase {
  int batch, in, out;
  int64_t modes;
};

template <typename T>
void check_channel_mix(const MixCase& c) {
  std::vector<T> x = random_values<T>(c.batch * c.in * c.modes, c.modes);
  std::vector<T> w = random_values<T>(c.in * c.out * c.modes, c.modes + 1);
  std::vector<std::complex<double>> want(c.batch * c.out * c.modes);
  std::vector<double> bound(want.size());
  for (int b = 0; b < c.batch; ++b)
    for (int o = 0; o < c.out; ++o)
      for (int i = 0; i < c.in; ++i)
        for (int64_t s = 0; s < c.modes; ++s) {
          std::complex<double> u(x[(b * c.in + i) * c.modes + s]), v(w[(i * c.out + o) * c.modes + s]);
          want[(b * c.out + o) * c.modes + s] += u * v;
          bound[(b * c.out + o) * c.modes + s] += std::abs(u) * std::abs(v);
        }
  Buffer dx(x), dw(w), dout{std::vector<T>(want.size())};
  MixCase args = c;
  launch(channel_mix_unit<T>(),
         {uint32_t(std::min<int64_t>((c.modes + 127) / 128, 1024)), uint32_t((c.out + 3) / 4),
          uint32_t((c.batch + 3) / 4)},
         {128, 1, 1}, 0,
         {&dx.get(), &dw.get(), &dout.get(), &args.batch, &args.in, &args.out, &args.modes});
  expect_close(dout.read<T>(), want, bound, c.in, Dtype<T>::name);
}

class ChannelMix : public ::testing::TestWithParam<MixCase> {};

TEST_P(ChannelMix, Complex64) { check_channel_mix<std::complex<float>>(GetParam()); }
TEST_P(ChannelMix, Complex128) { check_channel_mix<std::complex<double>>(GetParam()); }
TEST_P(ChannelMix, Float32) { check_channel_mix<float>(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Shapes, ChannelMix,
                         ::testing::Values(MixCase{1, 1, 1, 1}, MixCase{2, 3, 5, 7},
                                           MixCase{4, 32, 32, 144}, MixCase{5, 8, 6, 300},
                                           MixCase{3, 20, 17, 1000}),
                         [](const ::testing::TestParamInfo<MixCase>& info) {
                           const MixCase& c = info.param;
                           return "b" + std::to_string(c.batch) + "_i" + std::to_string(c.in) +
                                  "_o" + std::to_string(c.out) + "_s" + std::to_string(c.modes);
                         });

// ---- NVRTC -----------------------------------------------------------------------------

std::vector<KernelSource> units_to_compile() {
  std::vector<KernelSource> units;
  auto add = [&](auto tag) {
    using T = decltype(tag);
    units.push_back(transpose_unit<T>());
    units.push_back(matmul_unit<T>());
  };
  add(float());
  add(double());
  add(std::complex<float>());
  add(std::complex<double>());
  units.push_back(transpose_constant_unit());
  units.push_back(channel_mix_unit<float>());
  units.push_back(channel_mix_unit<std::complex<float>>());
  units.push_back(channel_mix_unit<std::complex<double>>());
  return units;
}

class MatmulNvrtc : public ::testing::TestWithParam<std::string> {};

TEST_P(MatmulNvrtc, CompilesToCubinWithoutSpills) {
  NvrtcOptions options;
  options.arch = GetParam();
  for (const KernelSource& unit : units_to_compile()) expect_clean_cubin(unit, options);
}

INSTANTIATE_TEST_SUITE_P(Archs, MatmulNvrtc, ::testing::Values("sm_80", "sm_90"));

}  // namespace
}  // namespace spectral::testing
