// The reduction, softmax and loss templates run on HostDevice against
// double-precision loops written here; every unit also compiles with NVRTC
// for sm_80 and sm_90 without spills. Sums are checked twice: random reals
// within a rounding bound, and small integers (every partial sum exact in
// float) for exact equality, which catches a lost or doubled element that a
// rounding bound would let through.
#include "tests/unit/kernels_templates/kernel_test_util.h"
#include "tests/unit/kernels_templates/reduce_units.h"

#include "runtime/device/cuda/nvrtc_compiler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <random>

namespace spectral::testing {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

/// Relative tolerance of a computation in T.
template <typename T> double tolerance() { return sizeof(T) == 4 ? 1e-5 : 1e-12; }

/// Uniform values in [-range, range), or integers in [-8, 8] when `integers`.
template <typename T>
std::vector<T> random_values(int64_t count, uint64_t seed, bool integers = false,
                             double range = 1.0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(-range, range);
  std::uniform_int_distribution<int> small(-8, 8);
  std::vector<T> x(count);
  for (T& v : x) v = integers ? T(small(rng)) : T(uniform(rng));
  return x;
}

/// got is want within bound; NaN and infinities must match exactly.
bool close(double got, double want, double bound) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::abs(got - want) <= bound;
}

double nan_max(double a, double b) { return (a > b || std::isnan(a)) ? a : b; }

struct Shape {
  int64_t rows, n;
};

std::string describe(Shape s, RowBlock b) {
  return std::to_string(s.rows) + "x" + std::to_string(s.n) + " block " + std::to_string(b.x) +
         "x" + std::to_string(b.rows);
}

/// The rows x n shapes every row kernel runs over.
const std::vector<Shape>& row_shapes() {
  static const std::vector<Shape> shapes{{1, 1},  {3, 1000}, {1000, 3}, {64, 4097}, {7, 33},
                                         {2, 1025}, {5, 32},  {1, 100000}};
  return shapes;
}

/// Whether codegen would run shape s with `block`: each thread folds at most
/// 2048 elements of its row (float sums of longer runs lose more than 1e-5).
bool suits(Shape s, RowBlock block) { return s.n <= 2048 * int64_t(block.x); }

/// Blocks for `rows` rows, at most 16 so the row loop runs more than once.
uint32_t row_grid(int64_t rows, RowBlock block) {
  return uint32_t(std::clamp<int64_t>((rows + block.rows - 1) / block.rows, 1, 16));
}

Dim3 row_block_dim(RowBlock block) { return {uint32_t(block.x), uint32_t(block.rows), 1}; }

// ---- Row reductions and whole-tensor reductions ----------------------------------------

template <typename T>
std::vector<T> run_reduce_rows(const std::vector<T>& x, Shape s, ReduceOp op, RowBlock block,
                               T scale) {
  Buffer in(x), out{std::vector<T>(s.rows, T(12345))};
  int64_t rows = s.rows, n = s.n;
  int op_arg = op;
  launch(reduce_rows_unit(cuda_type<T>(), block), {row_grid(rows, block), 1, 1},
         row_block_dim(block), 0, {&in.get(), &out.get(), &rows, &n, &scale, &op_arg});
  return out.template read<T>();
}

/// The two passes of a whole-tensor reduction (at most 40 partials).
template <typename T>
T run_reduce_all(const std::vector<T>& x, ReduceOp op) {
  int64_t n = x.size();
  int64_t count = std::clamp<int64_t>((n + kGridBlock - 1) / kGridBlock, 1, 40);
  Buffer in(x), partials{std::vector<T>(count)}, out{std::vector<T>(1)};
  int op_arg = op;
  launch(reduce_partials_unit(cuda_type<T>()), {uint32_t(count), 1, 1}, {kGridBlock, 1, 1}, 0,
         {&in.get(), &partials.get(), &n, &op_arg});
  launch(reduce_final_unit(cuda_type<T>()), {1, 1, 1}, {kGridBlock, 1, 1}, 0,
         {&partials.get(), &out.get(), &count, &n, &op_arg});
  return out.template read<T>()[0];
}

/// op over x[first, first + n) in double; `bound` gets the rounding bound
/// of a sum in T (tolerance times the sum of magnitudes).
template <typename T>
double reference_reduce(const T* x, int64_t n, ReduceOp op, double scale, double* bound) {
  double acc = op == kMax ? -kInf : 0.0, magnitude = 0;
  for (int64_t i = 0; i < n; ++i) {
    double v = scale * double(x[i]);
    acc = op == kMax ? nan_max(acc, v) : acc + v;
    magnitude += std::abs(v);
  }
  *bound = op == kMax ? 0.0 : tolerance<T>() * magnitude;
  if (op == kMean) {
    acc /= double(n);
    *bound /= double(n);
  }
  return acc;
}

template <typename T>
void check_reduce_rows(bool integers) {
  for (Shape s : row_shapes())
    for (RowBlock block : row_blocks(cuda_type<T>()))
      for (ReduceOp op : {kSum, kMean, kMax}) {
        if (!suits(s, block)) continue;
        SCOPED_TRACE(describe(s, block) + " op " + std::to_string(op));
        std::vector<T> x = random_values<T>(s.rows * s.n, s.rows * 7919 + s.n, integers);
        std::vector<T> got = run_reduce_rows(x, s, op, block, T(2));
        for (int64_t row = 0; row < s.rows; ++row) {
          double bound;
          double want = reference_reduce(x.data() + row * s.n, s.n, op, 2.0, &bound);
          // Integer sums are exact; their mean is one rounding of it.
          if (integers) bound = op == kMean ? std::abs(want) * 2e-7 : 0.0;
          ASSERT_TRUE(close(got[row], want, bound)) << "row " << row << ": " << got[row]
                                                    << " want " << want;
        }
      }
}

TEST(ReduceRows, FloatMatchesDoubleLoops) { check_reduce_rows<float>(false); }
TEST(ReduceRows, FloatIntegerSumsAreExact) { check_reduce_rows<float>(true); }
TEST(ReduceRows, DoubleMatchesDoubleLoops) { check_reduce_rows<double>(false); }

TEST(ReduceRows, EmptyRowsAndNonFiniteValues) {
  const RowBlock block{32, 8};
  std::vector<float> none = run_reduce_rows<float>({}, {3, 0}, kSum, block, 1.0f);
  EXPECT_EQ(none, std::vector<float>(3, 0.0f));
  EXPECT_TRUE(std::isnan(run_reduce_rows<float>({}, {1, 0}, kMean, block, 1.0f)[0]));
  EXPECT_EQ(run_reduce_rows<float>({}, {1, 0}, kMax, block, 1.0f)[0], -HUGE_VALF);
  const float inf = HUGE_VALF, nan = std::nanf("");
  std::vector<float> x{1, nan, 3, -inf, -inf, -inf, 5, inf, 2};
  std::vector<float> max = run_reduce_rows(x, {3, 3}, kMax, block, 1.0f);
  EXPECT_TRUE(std::isnan(max[0]));
  EXPECT_EQ(max[1], -inf);
  EXPECT_EQ(max[2], inf);
}

const std::vector<int64_t>& flat_sizes() {
  static const std::vector<int64_t> sizes{0, 1, 7, 31, 32, 33, 255, 1024, 1025, 100000};
  return sizes;
}

template <typename T>
void check_reduce_all(bool integers) {
  for (int64_t n : flat_sizes())
    for (ReduceOp op : {kSum, kMean, kMax}) {
      SCOPED_TRACE("n " + std::to_string(n) + " op " + std::to_string(op));
      std::vector<T> x = random_values<T>(n, n + 17, integers);
      double bound;
      double want = reference_reduce(x.data(), n, op, 1.0, &bound);
      if (integers) bound = op == kMean ? std::abs(want) * 2e-7 : 0.0;
      T got = run_reduce_all(x, op);
      EXPECT_TRUE(close(got, want, bound)) << got << " want " << want;
    }
}

TEST(ReduceAll, FloatMatchesDoubleLoops) { check_reduce_all<float>(false); }
TEST(ReduceAll, FloatIntegerSumsAreExact) { check_reduce_all<float>(true); }
TEST(ReduceAll, DoubleMatchesDoubleLoops) { check_reduce_all<double>(false); }

/// The same launch gives the same bits: no order depends on timing.
TEST(ReduceAll, IsDeterministic) {
  std::vector<float> x = random_values<float>(100000, 5, false, 1e3);
  float first = run_reduce_all(x, kSum);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(run_reduce_all(x, kSum), first);
}

// ---- Softmax -------------------------------------------------------------------------------

template <typename T>
std::vector<T> run_softmax(const std::vector<T>& x, Shape s, bool log, RowBlock block) {
  Buffer in(x), out{std::vector<T>(x.size(), T(12345))};
  int64_t rows = s.rows, n = s.n;
  int log_arg = log;
  launch(softmax_unit(cuda_type<T>(), block), {row_grid(rows, block), 1, 1}, row_block_dim(block),
         0, {&in.get(), &out.get(), &rows, &n, &log_arg});
  return out.template read<T>();
}

/// Softmax or log_softmax of one row, in double, the textbook way.
template <typename T>
std::vector<double> reference_softmax(const T* x, int64_t n, bool log) {
  double m = -kInf, s = 0;
  for (int64_t i = 0; i < n; ++i) m = nan_max(m, double(x[i]));
  for (int64_t i = 0; i < n; ++i) s += std::exp(double(x[i]) - m);
  std::vector<double> y(n);
  for (int64_t i = 0; i < n; ++i)
    y[i] = log ? double(x[i]) - m - std::log(s) : std::exp(double(x[i]) - m) / s;
  return y;
}

template <typename T>
void expect_softmax(const std::vector<T>& x, Shape s, RowBlock block) {
  for (bool log : {false, true}) {
    SCOPED_TRACE(describe(s, block) + (log ? " log_softmax" : " softmax"));
    std::vector<T> got = run_softmax(x, s, log, block);
    for (int64_t row = 0; row < s.rows; ++row) {
      std::vector<double> want = reference_softmax(x.data() + row * s.n, s.n, log);
      for (int64_t i = 0; i < s.n; ++i) {
        double bound = tolerance<T>() * (log ? std::max(1.0, std::abs(want[i])) : want[i]);
        ASSERT_TRUE(close(got[row * s.n + i], want[i], bound))
            << "row " << row << " i " << i << ": " << got[row * s.n + i] << " want " << want[i];
      }
    }
  }
}

template <typename T>
void check_softmax() {
  for (Shape s : row_shapes())
    for (RowBlock block : row_blocks(cuda_type<T>()))
      if (suits(s, block))
        expect_softmax(random_values<T>(s.rows * s.n, s.rows + 3 * s.n, false, 8.0), s, block);
}

TEST(Softmax, FloatMatchesDoubleLoops) { check_softmax<float>(); }
TEST(Softmax, DoubleMatchesDoubleLoops) { check_softmax<double>(); }

/// Masked (-inf) entries get 0 / -inf; a fully masked row, a NaN or a +inf
/// make the row NaN (as in PyTorch); large logits do not overflow.
TEST(Softmax, NonFiniteAndLargeLogits) {
  const int64_t n = 37;
  std::vector<float> x = random_values<float>(5 * n, 11, false, 4.0);
  for (int64_t i = 0; i < n; i += 3) x[i] = -HUGE_VALF;          // row 0: masked entries
  for (int64_t i = 0; i < n; ++i) x[n + i] = -HUGE_VALF;         // row 1: all masked
  x[2 * n + 5] = std::nanf("");                                   // row 2: a NaN
  x[3 * n + 36] = HUGE_VALF;                                      // row 3: a +inf
  for (int64_t i = 0; i < n; ++i) x[4 * n + i] = 1e4f + float(i);  // row 4: huge logits
  for (RowBlock block : row_blocks("float")) expect_softmax(x, {5, n}, block);
}

// ---- Cross-entropy, MSE, global norm ------------------------------------------------------

struct CrossEntropy {
  std::vector<double> losses;
  double mean;
};

template <typename T, typename L>
CrossEntropy run_cross_entropy(const std::vector<T>& logits, const std::vector<L>& labels, Shape s,
                               RowBlock block) {
  Buffer in(logits), label_buffer(labels), losses{std::vector<T>(s.rows, T(12345))};
  int64_t rows = s.rows, n = s.n;
  launch(cross_entropy_unit(cuda_type<T>(), cuda_type<L>(), block), {row_grid(rows, block), 1, 1},
         row_block_dim(block), 0, {&in.get(), &label_buffer.get(), &losses.get(), &rows, &n});
  std::vector<T> per_row = losses.template read<T>();
  CrossEntropy result{{per_row.begin(), per_row.end()}, double(run_reduce_all(per_row, kMean))};
  return result;
}

template <typename T, typename L>
void check_cross_entropy(RowBlock block) {
  for (Shape s : row_shapes()) {
    if (!suits(s, block)) continue;
    SCOPED_TRACE(describe(s, block));
    // Around 1000: a loss of the low bits of log(sum) would show.
    std::vector<T> logits = random_values<T>(s.rows * s.n, 3 * s.rows + s.n, false, 8.0);
    for (T& v : logits) v += T(1000);
    std::mt19937_64 rng(s.rows);
    std::vector<L> labels(s.rows);
    for (L& label : labels) label = L(std::uniform_int_distribution<int64_t>(0, s.n - 1)(rng));
    double mean = 0;
    std::vector<double> want(s.rows);
    for (int64_t row = 0; row < s.rows; ++row) {
      const T* x = logits.data() + row * s.n;
      double m = -kInf, sum = 0;
      for (int64_t i = 0; i < s.n; ++i) m = std::max(m, double(x[i]));
      for (int64_t i = 0; i < s.n; ++i) sum += std::exp(double(x[i]) - m);
      want[row] = m + std::log(sum) - double(x[labels[row]]);
      mean += want[row] / double(s.rows);
    }
    CrossEntropy got = run_cross_entropy(logits, labels, s, block);
    for (int64_t row = 0; row < s.rows; ++row)
      ASSERT_TRUE(close(got.losses[row], want[row], tolerance<T>() * std::max(1.0, want[row])))
          << "row " << row << ": " << got.losses[row] << " want " << want[row];
    EXPECT_TRUE(close(got.mean, mean, tolerance<T>() * std::max(1.0, mean)));

    // A label outside [0, n) makes its row (and so the mean) NaN, the others unchanged.
    const bool wide = sizeof(L) == 8 && s.rows > 2;
    labels[0] = L(s.n);
    if (s.rows > 1) labels[s.rows - 1] = L(-1);
    if (wide) labels[1] = L(int64_t(1) << (sizeof(L) * 8 - 24));  // 2^40: not truncated to int
    CrossEntropy bad = run_cross_entropy(logits, labels, s, block);
    EXPECT_TRUE(std::isnan(bad.losses[0]) && std::isnan(bad.losses[s.rows - 1]));
    if (wide) {
      EXPECT_TRUE(std::isnan(bad.losses[1]));
    }
    if (s.rows > 3) {
      EXPECT_EQ(bad.losses[2], got.losses[2]);
    }
    EXPECT_TRUE(std::isnan(bad.mean));
  }
}

/// Runs check_cross_entropy over the units of that logits and label type.
template <typename T, typename L>
void check_cross_entropy_units() {
  for (const CrossEntropyUnit& u : cross_entropy_units())
    if (u.type == cuda_type<T>() && u.label == cuda_type<L>()) check_cross_entropy<T, L>(u.block);
}

TEST(CrossEntropy, FloatInt32Labels) { check_cross_entropy_units<float, int32_t>(); }
TEST(CrossEntropy, FloatInt64Labels) { check_cross_entropy_units<float, int64_t>(); }
TEST(CrossEntropy, DoubleInt64Labels) { check_cross_entropy_units<double, int64_t>(); }

template <typename V, typename R>
R run_mse(const std::vector<V>& a, const std::vector<V>& b) {
  int64_t n = a.size();
  int64_t count = std::clamp<int64_t>((n + kGridBlock - 1) / kGridBlock, 1, 40);
  Buffer a_buffer(a), b_buffer(b), partials{std::vector<R>(count)}, out{std::vector<R>(1)};
  launch(mse_partials_unit(cuda_type<V>(), cuda_type<R>()), {uint32_t(count), 1, 1},
         {kGridBlock, 1, 1}, 0, {&a_buffer.get(), &b_buffer.get(), &partials.get(), &n});
  int op = kMean;
  launch(reduce_final_unit(cuda_type<R>()), {1, 1, 1}, {kGridBlock, 1, 1}, 0,
         {&partials.get(), &out.get(), &count, &n, &op});
  return out.template read<R>()[0];
}

/// Reals, or complex values built from pairs of reals.
template <typename V, typename R>
std::vector<V> values_of(int64_t count, uint64_t seed, bool integers) {
  std::vector<R> parts = random_values<R>(count * int64_t(sizeof(V) / sizeof(R)), seed, integers);
  std::vector<V> x(count);
  std::copy_n(reinterpret_cast<const V*>(parts.data()), count, x.data());
  return x;
}

template <typename V, typename R>
void check_mse() {
  for (bool integers : {false, true})
    for (int64_t n : flat_sizes()) {
      if (n == 0) continue;
      SCOPED_TRACE("n " + std::to_string(n) + (integers ? " integers" : ""));
      std::vector<V> a = values_of<V, R>(n, n, integers), b = values_of<V, R>(n, n + 1, integers);
      double want = 0;
      for (int64_t i = 0; i < n; ++i) {
        std::complex<double> d = std::complex<double>(a[i]) - std::complex<double>(b[i]);
        want += std::norm(d) / double(n);
      }
      EXPECT_TRUE(close(run_mse<V, R>(a, b), want, (integers ? 2e-7 : tolerance<R>()) * want));
    }
}

TEST(Mse, Float) { check_mse<float, float>(); }
TEST(Mse, Double) { check_mse<double, double>(); }
TEST(Mse, ComplexFloat) { check_mse<std::complex<float>, float>(); }
TEST(Mse, ComplexDouble) { check_mse<std::complex<double>, double>(); }

/// [norm, clip scale, square sum per tensor] of the norm's two passes.
template <typename T>
std::vector<T> run_norm(const std::vector<std::vector<T>>& tensors, T max_norm, int chunks) {
  struct Ref {
    const void* data;
    int64_t count;
  };
  std::vector<std::unique_ptr<Buffer>> buffers;
  std::vector<Ref> table;
  for (const std::vector<T>& t : tensors) {
    buffers.push_back(std::make_unique<Buffer>(t));
    table.push_back({buffers.back()->get(), int64_t(t.size())});
  }
  int count = int(tensors.size());
  Buffer table_buffer(table), partials{std::vector<T>(count * chunks)};
  Buffer out{std::vector<T>(2 + count)};
  launch(norm_partials_unit(cuda_type<T>()), {uint32_t(count), uint32_t(chunks), 1},
         {kGridBlock, 1, 1}, 0, {&table_buffer.get(), &partials.get()});
  launch(norm_final_unit(cuda_type<T>()), {1, 1, 1}, {kGridBlock, 1, 1}, 0,
         {&count, &chunks, &partials.get(), &max_norm, &out.get()});
  return out.template read<T>();
}

template <typename T>
void check_norm(bool integers) {
  std::vector<std::vector<T>> tensors;
  std::vector<double> sums;
  double total = 0;
  for (int64_t n : flat_sizes()) {
    tensors.push_back(random_values<T>(n, 100 + n, integers));
    double sum = 0;
    for (T v : tensors.back()) sum += double(v) * double(v);
    sums.push_back(sum);
    total += sum;
  }
  const double norm = std::sqrt(total);
  for (int chunks : {1, 3, 8})
    for (double max_norm : {norm / 4, norm * 2}) {
      SCOPED_TRACE("chunks " + std::to_string(chunks) + " max_norm " + std::to_string(max_norm));
      std::vector<T> got = run_norm<T>(tensors, T(max_norm), chunks);
      double tol = integers ? 2e-7 : tolerance<T>();
      EXPECT_TRUE(close(got[0], norm, tol * norm)) << got[0] << " want " << norm;
      EXPECT_TRUE(close(got[1], std::min(1.0, max_norm / norm), tol)) << got[1];
      for (size_t t = 0; t < sums.size(); ++t)
        EXPECT_TRUE(close(got[2 + t], sums[t], integers ? 0.0 : tol * sums[t]))
            << "tensor " << t << ": " << got[2 + t] << " want " << sums[t];
    }
}

TEST(GlobalNorm, FloatMatchesDoubleLoops) { check_norm<float>(false); }
TEST(GlobalNorm, FloatIntegerSquareSumsAreExact) { check_norm<float>(true); }
TEST(GlobalNorm, DoubleMatchesDoubleLoops) { check_norm<double>(false); }

/// All-zero gradients do not clip (scale 1, not 1/0); a NaN makes norm and scale NaN.
TEST(GlobalNorm, ZeroAndNaN) {
  std::vector<float> zero = run_norm<float>({std::vector<float>(100, 0.0f), {}}, 1.0f, 2);
  EXPECT_EQ(zero[0], 0.0f);
  EXPECT_EQ(zero[1], 1.0f);
  std::vector<float> with_nan(50, 1.0f);
  with_nan[17] = std::nanf("");
  std::vector<float> bad = run_norm<float>({std::vector<float>(10, 1.0f), with_nan}, 1.0f, 2);
  EXPECT_TRUE(std::isnan(bad[0]) && std::isnan(bad[1]));
  EXPECT_EQ(bad[2], 10.0f);
}

// ---- NVRTC ------------------------------------------------------------------------------------

class ReduceNvrtc : public ::testing::TestWithParam<std::string> {};

/// CUBIN for real GPUs, no spills, for every unit run above.
TEST_P(ReduceNvrtc, CompilesToCubinWithoutSpills) {
  NvrtcOptions options;
  options.arch = GetParam();
  for (const KernelSource& unit : reduce_units_to_compile()) expect_clean_cubin(unit, options);
}

INSTANTIATE_TEST_SUITE_P(Archs, ReduceNvrtc, ::testing::Values("sm_80", "sm_90"));

}  // namespace
}  // namespace spectral::testing
