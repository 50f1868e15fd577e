// The pointwise template runs on HostDevice against double-precision loops
// written here: fused real and complex maps over a grid of lengths, and
// numpy broadcasting (ranks 1 to 6, broadcast and transposed inputs); every
// unit also compiles with NVRTC for sm_80 and sm_90 without spills.
#include "tests/unit/kernels_templates/kernel_test_util.h"

#include "runtime/device/cuda/nvrtc_compiler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace spectral::testing {
namespace {

const char* const kPrelude =
    "#include \"common.cuh\"\n"
    "#include \"fft_complex.cuh\"\n"
    "#include \"pointwise.cuh\"\n"
    "using namespace spectral_pointwise;\n"
    "using spectral_fft::cplx;\n";

/// Elements per thread and threads per block of every map here.
constexpr int kItems = 4;
constexpr uint32_t kBlock = 128;

std::map<std::string, std::string> values_for(const std::string& type, const std::string& name) {
  return {{"$TYPE", type}, {"$NAME", name}, {"$ITEMS", std::to_string(kItems)}};
}

/// y = alpha * a + tanh(b), int indices.
KernelSource real_map_unit(const std::string& type) {
  return {fill(std::string(kPrelude) + R"(
struct AxpyTanh {
  const $TYPE* a;
  const $TYPE* b;
  $TYPE alpha;
  __device__ $TYPE operator()(int i) const { return alpha * a[i] + tanh(b[i]); }
};

extern "C" __global__ void pointwise_axpy_tanh_$NAME(const $TYPE* a, const $TYPE* b, $TYPE* y,
    $TYPE alpha, int n) {
  pointwise_map<$ITEMS, int>(n, AxpyTanh{a, b, alpha}, Write<$TYPE>{y});
}
)",
               values_for(type, type)),
          "pointwise_axpy_tanh_" + type};
}

/// y = a * b + alpha * conj(a) on complex values, long long indices.
KernelSource complex_map_unit(const std::string& real) {
  return {fill(std::string(kPrelude) + R"(
struct MulConj {
  const cplx<$TYPE>* a;
  const cplx<$TYPE>* b;
  $TYPE alpha;
  __device__ cplx<$TYPE> operator()(long long i) const {
    cplx<$TYPE> x = a[i];
    return x * b[i] + scale(conj(x), alpha);
  }
};

extern "C" __global__ void pointwise_mul_conj_$NAME(const cplx<$TYPE>* a, const cplx<$TYPE>* b,
    cplx<$TYPE>* y, $TYPE alpha, long long n) {
  pointwise_map<$ITEMS, long long>(n, MulConj{a, b, alpha}, Write<cplx<$TYPE>>{y});
}
)",
               values_for(real, real)),
          "pointwise_mul_conj_" + real};
}

/// y = a * b - a over a rank-6 output, one unravel shared by both inputs;
/// b may be strided (b_strided != 0: b_strides are its element strides).
KernelSource broadcast6_unit() {
  return {fill(std::string(kPrelude) + R"(
struct MulSub {
  const float* a;
  const float* b;
  Shape<6> out;
  Strides<6> a_strides, b_strides;
  __device__ float operator()(long long i) const {
    long long coord[6];
    out.unravel(i, coord);
    float x = a[a_strides.offset(coord)];
    return x * b[b_strides.offset(coord)] - x;
  }
};

extern "C" __global__ void pointwise_broadcast6(const float* a, const float* b, float* y,
    Shape<6> out, Shape<6> a_shape, int a_rank, Shape<6> b_shape, int b_rank, Shape<6> b_strides,
    int b_strided, long long n) {
  const long long* no_strides = nullptr;
  MulSub f{a, b, out, broadcast_strides(out, a_rank, a_shape.dim, no_strides),
           broadcast_strides(out, b_rank, b_shape.dim, b_strided ? b_strides.dim : no_strides)};
  pointwise_map<$ITEMS, long long>(n, f, Write<float>{y});
}
)",
               values_for("float", "")),
          "pointwise_broadcast6"};
}

/// y = a + b over a rank-2 output, each input through BroadcastRead.
KernelSource broadcast2_unit() {
  return {fill(std::string(kPrelude) + R"(
struct Add {
  BroadcastRead<float, 2> a, b;
  __device__ float operator()(long long i) const { return a(i) + b(i); }
};

extern "C" __global__ void pointwise_broadcast2(const float* a, const float* b, float* y,
    Shape<2> out, Shape<2> a_shape, int a_rank, Shape<2> b_shape, int b_rank, long long n) {
  Add f{{a, make_broadcast_index(out, a_rank, a_shape.dim)},
        {b, make_broadcast_index(out, b_rank, b_shape.dim)}};
  pointwise_map<$ITEMS, long long>(n, f, Write<float>{y});
}
)",
               values_for("float", "")),
          "pointwise_broadcast2"};
}

uint32_t grid_for(int64_t n) {
  return uint32_t(std::clamp<int64_t>((n + kBlock * kItems - 1) / (kBlock * kItems), 1, 64));
}

template <typename T>
std::vector<T> random_values(int64_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(-2.0, 2.0);
  std::vector<T> x(count);
  for (T& v : x) v = T(uniform(rng));
  return x;
}

template <typename T> double tolerance() { return sizeof(T) == 4 ? 1e-5 : 1e-12; }
template <typename T> std::string real_type() { return sizeof(T) == 4 ? "float" : "double"; }

const std::vector<int64_t> kSizes{1, 7, 31, 32, 33, 255, 1024, 1025, 100000};

template <typename T>
void check_real_map() {
  for (int64_t n : kSizes) {
    SCOPED_TRACE("n " + std::to_string(n));
    std::vector<T> a = random_values<T>(n, n), b = random_values<T>(n, n + 1);
    Buffer a_buffer(a), b_buffer(b), y{std::vector<T>(n, T(12345))};
    T alpha = T(0.75);
    int count = int(n);
    launch(real_map_unit(real_type<T>()), {grid_for(n), 1, 1}, {kBlock, 1, 1}, 0,
           {&a_buffer.get(), &b_buffer.get(), &y.get(), &alpha, &count});
    std::vector<T> got = y.template read<T>();
    for (int64_t i = 0; i < n; ++i) {
      double want = 0.75 * double(a[i]) + std::tanh(double(b[i]));
      ASSERT_LE(std::abs(got[i] - want), tolerance<T>() * std::max(1.0, std::abs(want)))
          << "i " << i;
    }
  }
}

TEST(Pointwise, FloatMap) { check_real_map<float>(); }
TEST(Pointwise, DoubleMap) { check_real_map<double>(); }

template <typename T>
void check_complex_map() {
  using C = std::complex<T>;
  for (int64_t n : kSizes) {
    SCOPED_TRACE("n " + std::to_string(n));
    std::vector<T> ra = random_values<T>(2 * n, n), rb = random_values<T>(2 * n, n + 1);
    std::vector<C> a(n), b(n);
    for (int64_t i = 0; i < n; ++i) {
      a[i] = {ra[2 * i], ra[2 * i + 1]};
      b[i] = {rb[2 * i], rb[2 * i + 1]};
    }
    Buffer a_buffer(a), b_buffer(b), y{std::vector<C>(n, C(12345))};
    T alpha = T(-1.5);
    int64_t count = n;
    launch(complex_map_unit(real_type<T>()), {grid_for(n), 1, 1}, {kBlock, 1, 1}, 0,
           {&a_buffer.get(), &b_buffer.get(), &y.get(), &alpha, &count});
    std::vector<C> got = y.template read<C>();
    for (int64_t i = 0; i < n; ++i) {
      std::complex<double> x(a[i]), w(b[i]);
      std::complex<double> want = x * w - 1.5 * std::conj(x);
      ASSERT_LE(std::abs(std::complex<double>(got[i]) - want),
                tolerance<T>() * std::max(1.0, std::abs(want)))
          << "i " << i;
    }
  }
}

TEST(Pointwise, ComplexFloatMap) { check_complex_map<float>(); }
TEST(Pointwise, ComplexDoubleMap) { check_complex_map<double>(); }

/// The kernel-side Shape<R> / Strides<R>: R int64 values, passed by value.
template <int R>
struct Dims {
  int64_t d[R];
};

struct Operand {
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // empty: row-major
};

/// Element offset of output coordinate `coord` (rank R) in `in`, numpy's rule.
int64_t reference_offset(const std::vector<int64_t>& coord, const Operand& in) {
  int64_t offset = 0, row_major = 1;
  for (int k = int(in.shape.size()) - 1; k >= 0; --k) {
    int64_t c = in.shape[k] == 1 ? 0 : coord[coord.size() - in.shape.size() + k];
    offset += c * (in.strides.empty() ? row_major : in.strides[k]);
    row_major *= in.shape[k];
  }
  return offset;
}

/// Elements the storage of `in` must hold.
int64_t storage_of(const Operand& in) {
  std::vector<int64_t> last(in.shape.size());
  for (size_t k = 0; k < in.shape.size(); ++k) last[k] = in.shape[k] - 1;
  return reference_offset(last, in) + 1;
}

template <int R>
Dims<R> padded(const std::vector<int64_t>& values, int64_t fill_value) {
  Dims<R> dims;
  std::fill(dims.d, dims.d + R, fill_value);
  std::copy(values.begin(), values.end(), dims.d);
  return dims;
}

struct BroadcastCase {
  std::vector<int64_t> out;  // of rank <= R, padded with leading 1s
  Operand a, b;
};

/// y = op(a, b) over `out`, rank-R unit, against the reference offsets.
template <int R>
void check_broadcast(const BroadcastCase& c) {
  SCOPED_TRACE("rank " + std::to_string(c.out.size()) + " output, unit rank " + std::to_string(R));
  std::vector<int64_t> out(R - c.out.size(), 1);
  out.insert(out.end(), c.out.begin(), c.out.end());
  int64_t n = std::accumulate(out.begin(), out.end(), int64_t(1), std::multiplies<>());
  std::vector<float> a = random_values<float>(storage_of(c.a), n);
  std::vector<float> b = random_values<float>(storage_of(c.b), n + 1);
  Buffer a_buffer(a), b_buffer(b), y{std::vector<float>(n, 12345.0f)};
  Dims<R> out_dims = padded<R>(out, 1), a_shape = padded<R>(c.a.shape, 0),
          b_shape = padded<R>(c.b.shape, 0), b_strides = padded<R>(c.b.strides, 0);
  int a_rank = int(c.a.shape.size()), b_rank = int(c.b.shape.size());
  int b_strided = !c.b.strides.empty();
  if (R == 6) {
    launch(broadcast6_unit(), {grid_for(n), 1, 1}, {kBlock, 1, 1}, 0,
           {&a_buffer.get(), &b_buffer.get(), &y.get(), &out_dims, &a_shape, &a_rank, &b_shape,
            &b_rank, &b_strides, &b_strided, &n});
  } else {
    ASSERT_FALSE(b_strided);
    launch(broadcast2_unit(), {grid_for(n), 1, 1}, {kBlock, 1, 1}, 0,
           {&a_buffer.get(), &b_buffer.get(), &y.get(), &out_dims, &a_shape, &a_rank, &b_shape,
            &b_rank, &n});
  }
  std::vector<float> got = y.read<float>();
  std::vector<int64_t> coord(R);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t d = R - 1, rest = i; d >= 0; rest /= out[d], --d) coord[d] = rest % out[d];
    double x = a[reference_offset(coord, c.a)], w = b[reference_offset(coord, c.b)];
    double want = R == 6 ? x * w - x : x + w;
    ASSERT_LE(std::abs(got[i] - want), 1e-6 * std::max(1.0, std::abs(want))) << "i " << i;
  }
}

TEST(Pointwise, BroadcastRank6) {
  std::vector<BroadcastCase> cases{
      {{2, 3, 4, 5, 6, 7}, {{5, 1, 7}, {}}, {{2, 1, 4, 1, 1, 7}, {}}},
      {{3, 1000}, {{1000}, {}}, {{3, 1}, {}}},
      {{1000, 3}, {{1000, 1}, {}}, {{3}, {}}},
      {{7}, {{1}, {}}, {{7}, {}}},
      {{64, 4097}, {{64, 1}, {}}, {{4097}, {}}},
      {{33, 31}, {{33, 31}, {}}, {{33, 31}, {1, 33}}},       // b: a transposed [31, 33]
      {{4, 33, 31}, {{31}, {}}, {{1, 33, 31}, {0, 1, 33}}},  // broadcast and transposed
      {{1, 1, 1, 1, 1, 1}, {{1}, {}}, {{1, 1}, {}}},
      {{2, 1, 3, 1, 5, 1}, {{2, 1, 3, 1, 5, 1}, {}}, {{1}, {}}},
  };
  for (const BroadcastCase& c : cases) check_broadcast<6>(c);
}

TEST(Pointwise, BroadcastRank2) {
  std::vector<BroadcastCase> cases{
      {{33, 31}, {{33, 1}, {}}, {{31}, {}}},
      {{1, 1}, {{1}, {}}, {{1, 1}, {}}},
      {{255, 4}, {{4}, {}}, {{255, 1}, {}}},
      {{1025, 1}, {{1025, 1}, {}}, {{1}, {}}},
      {{100000}, {{100000}, {}}, {{1}, {}}},
  };
  for (const BroadcastCase& c : cases) check_broadcast<2>(c);
}

std::vector<KernelSource> pointwise_units() {
  return {real_map_unit("float"),     real_map_unit("double"), complex_map_unit("float"),
          complex_map_unit("double"), broadcast6_unit(),       broadcast2_unit()};
}

class PointwiseNvrtc : public ::testing::TestWithParam<std::string> {};

/// CUBIN for real GPUs, no spills, for every unit run above.
TEST_P(PointwiseNvrtc, CompilesToCubinWithoutSpills) {
  NvrtcOptions options;
  options.arch = GetParam();
  for (const KernelSource& unit : pointwise_units()) expect_clean_cubin(unit, options);
}

INSTANTIATE_TEST_SUITE_P(Archs, PointwiseNvrtc, ::testing::Values("sm_80", "sm_90"));

}  // namespace
}  // namespace spectral::testing
