// The FFT templates, planned by compiler/Planning and run on HostDevice,
// checked against FFTW (double) from the same float32 inputs; every unit the
// planner writes for these lengths also compiles with NVRTC for sm_80 and
// sm_90 and spills nothing. fft_planner_test.cc covers double precision,
// strided real and DCT axes, multi-pass DCTs, factors and errors.
#include "tests/unit/kernels_templates/fft_units.h"
#include "tests/unit/kernels_templates/kernel_test_util.h"

#include "runtime/device/cuda/nvrtc_compiler.h"

#include <fftw3.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <cmath>
#include <numeric>
#include <random>

namespace spectral::testing {
namespace {

using cfloat = std::complex<float>;

/// FFTW's unnormalized DFT of `x` over `axes` (double precision).
std::vector<std::complex<double>> fftw_reference(const std::vector<cfloat>& x,
                                                 const std::vector<int>& shape,
                                                 const std::vector<int>& axes, bool forward) {
  std::vector<std::complex<double>> data(x.begin(), x.end());
  std::vector<fftw_iodim> dims, loops;
  std::vector<int> strides(shape.size(), 1);
  for (int d = int(shape.size()) - 2; d >= 0; --d) strides[d] = strides[d + 1] * shape[d + 1];
  for (size_t d = 0; d < shape.size(); ++d) {
    fftw_iodim dim{shape[d], strides[d], strides[d]};
    (std::count(axes.begin(), axes.end(), int(d)) ? dims : loops).push_back(dim);
  }
  auto* p = reinterpret_cast<fftw_complex*>(data.data());
  fftw_plan plan = fftw_plan_guru_dft(int(dims.size()), dims.data(), int(loops.size()), loops.data(),
                                      p, p, forward ? FFTW_FORWARD : FFTW_BACKWARD, FFTW_ESTIMATE);
  fftw_execute(plan);
  fftw_destroy_plan(plan);
  return data;
}

/// Max |got - want| over max |want|; infinity when the sizes differ (a
/// failed run gives nothing).
double relative_error(const std::vector<cfloat>& got, const std::vector<std::complex<double>>& want) {
  if (got.size() != want.size()) return HUGE_VAL;
  double error = 0, scale = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    error = std::max(error, std::abs(std::complex<double>(got[i]) - want[i]));
    scale = std::max(scale, std::abs(want[i]));
  }
  return error / std::max(scale, 1e-300);
}

struct C2CCase {
  std::vector<int> shape;
  std::vector<int> axes;
  bool forward;
};

std::string case_name(const ::testing::TestParamInfo<C2CCase>& info) {
  std::string name = info.param.forward ? "fft" : "ifft";
  for (size_t d = 0; d < info.param.shape.size(); ++d) name += (d ? "x" : "_") + std::to_string(info.param.shape[d]);
  name += "_axes";
  for (int a : info.param.axes) name += std::to_string(a);
  return name;
}

class FftC2C : public ::testing::TestWithParam<C2CCase> {};

TEST_P(FftC2C, MatchesFftw) {
  const C2CCase& c = GetParam();
  int64_t count = std::accumulate(c.shape.begin(), c.shape.end(), int64_t(1), std::multiplies<>());
  std::vector<cfloat> x = random_complex(count, count * 31 + c.axes.size());
  std::vector<cfloat> y = run_c2c(x, c.shape, c.axes, c.forward);
  ASSERT_EQ(y.size(), x.size());
  EXPECT_LT(relative_error(y, fftw_reference(x, c.shape, c.axes, c.forward)), 1e-5);
}

std::vector<C2CCase> c2c_cases() {
  std::vector<int> lengths;
  for (int n = 1; n <= 64; ++n) lengths.push_back(n);
  for (int n : {97, 100, 128, 243, 1000, 1021, 1024, 2053, 4093, 4096, 4099, 65536, 1 << 20})
    lengths.push_back(n);
  std::vector<C2CCase> cases{
      {{1 << 22}, {0}, true},         // the four-step's stated reach
      {{10007}, {0}, true},           // a prime beyond one block: multi-pass Bluestein
      {{3, 65521, 2}, {1}, false}};   // the largest prime below 2^16, strided
  for (int n : lengths) {
    cases.push_back({{n}, {0}, true});
    cases.push_back({{n}, {0}, false});
    if (n >= 65536) {
      cases.push_back({{3, n}, {1}, true});   // batched
      cases.push_back({{n, 3}, {0}, false});  // strided four-step
      if (n == 65536) {
        cases.push_back({{n, 2}, {0, 1}, true});        // 2-D
        cases.push_back({{2, n, 3}, {0, 1, 2}, true});  // 3-D
      }
      continue;
    }
    if (n > 64 || n % 7 == 0 || n % 11 == 0 || n == 16 || n == 28) {
      cases.push_back({{n, 6}, {0, 1}, true});       // 2-D, strided axis first
      cases.push_back({{6, n}, {0, 1}, false});
      cases.push_back({{n, 3, 4}, {0, 1, 2}, true});  // 3-D
      cases.push_back({{3, n, 4}, {1}, true});        // one strided axis, batched
      cases.push_back({{3, 4, n}, {0, 2}, false});
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Lengths, FftC2C, ::testing::ValuesIn(c2c_cases()), case_name);

class FftDouble : public ::testing::TestWithParam<int> {};

/// complex<f64> through the same template: accurate to double precision.
TEST_P(FftDouble, MatchesFftw) {
  const int n = GetParam(), batches = 2;
  std::vector<cfloat> seed = random_complex(batches * n, n);
  std::vector<std::complex<double>> x(seed.begin(), seed.end());
  for (bool forward : {true, false}) {
    std::vector<std::complex<double>> got = run_c2c(x, {batches, n}, {1}, forward);
    std::vector<std::complex<double>> want =
        fftw_reference(seed, {batches, n}, {1}, forward);
    double error = 0, scale = 0;
    for (size_t i = 0; i < want.size(); ++i) {
      error = std::max(error, std::abs(got[i] - want[i]));
      scale = std::max(scale, std::abs(want[i]));
    }
    EXPECT_LT(error / scale, 1e-13) << (forward ? "forward" : "inverse");
  }
}

INSTANTIATE_TEST_SUITE_P(Lengths, FftDouble,
                         ::testing::Values(2, 3, 5, 7, 8, 12, 16, 60, 128, 343, 1000, 4096),
                         ::testing::PrintToStringParamName());

class FftReal : public ::testing::TestWithParam<int> {};

/// R2C against FFTW's r2c, then C2R of FFTW's spectrum against FFTW's c2r.
TEST_P(FftReal, MatchesFftw) {
  const int n = GetParam(), batches = 3, bins = n / 2 + 1;
  std::mt19937_64 rng(n);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> x(batches * n);
  for (float& v : x) v = uniform(rng);
  std::vector<double> xd(x.begin(), x.end());
  std::vector<std::complex<double>> spectrum(batches * bins);
  fftw_plan r2c = fftw_plan_many_dft_r2c(1, &n, batches, xd.data(), nullptr, 1, n,
                                         reinterpret_cast<fftw_complex*>(spectrum.data()),
                                         nullptr, 1, bins, FFTW_ESTIMATE);
  fftw_execute(r2c);
  fftw_destroy_plan(r2c);
  EXPECT_LT(relative_error(run_r2c(x, batches, n), spectrum), 1e-5);

  // A spectrum with non-zero imaginary DC/Nyquist parts: both must ignore them.
  std::vector<cfloat> y = random_complex(batches * bins, n + 1);
  std::vector<std::complex<double>> yd(y.begin(), y.end());
  std::vector<double> real(batches * n);
  fftw_plan c2r = fftw_plan_many_dft_c2r(1, &n, batches, reinterpret_cast<fftw_complex*>(yd.data()),
                                         nullptr, 1, bins, real.data(), nullptr, 1, n,
                                         FFTW_ESTIMATE);
  fftw_execute(c2r);
  fftw_destroy_plan(c2r);
  std::vector<float> got = run_c2r(y, batches, n);
  ASSERT_EQ(got.size(), real.size());
  double error = 0, scale = 0;
  for (size_t i = 0; i < real.size(); ++i) {
    error = std::max(error, std::abs(got[i] - real[i]));
    scale = std::max(scale, std::abs(real[i]));
  }
  EXPECT_LT(error / scale, 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Lengths, FftReal,
                         ::testing::Values(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 15, 16, 22, 27, 30,
                                           64, 97, 100, 128, 194, 243, 1000, 1024, 4096, 8192,
                                           65536, 1 << 20),
                         ::testing::PrintToStringParamName());

struct DctCase {
  int n;
  int type;
};

class FftDct : public ::testing::TestWithParam<DctCase> {};

/// DCT-II / DCT-III against FFTW's REDFT10 / REDFT01 (the same conventions).
TEST_P(FftDct, MatchesFftw) {
  const int n = GetParam().n, type = GetParam().type, batches = 3;
  std::mt19937_64 rng(n * 7 + type);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> x(batches * n);
  for (float& v : x) v = uniform(rng);
  std::vector<double> want(x.begin(), x.end());
  fftw_r2r_kind kind = type == 2 ? FFTW_REDFT10 : FFTW_REDFT01;
  fftw_plan plan = fftw_plan_many_r2r(1, &n, batches, want.data(), nullptr, 1, n, want.data(),
                                      nullptr, 1, n, &kind, FFTW_ESTIMATE);
  fftw_execute(plan);
  fftw_destroy_plan(plan);
  std::vector<float> got = run_dct(x, batches, n, 1, type);
  ASSERT_EQ(got.size(), want.size());
  double error = 0, scale = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    error = std::max(error, std::abs(got[i] - want[i]));
    scale = std::max(scale, std::abs(want[i]));
  }
  EXPECT_LT(error / scale, 1e-5);
}

std::vector<DctCase> dct_cases() {
  std::vector<DctCase> cases;
  for (int n : {1, 2, 3, 4, 5, 7, 8, 9, 11, 15, 16, 28, 64, 97, 100, 1000, 4096})
    for (int type : {2, 3}) cases.push_back({n, type});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Lengths, FftDct, ::testing::ValuesIn(dct_cases()),
                         [](const ::testing::TestParamInfo<DctCase>& info) {
                           return "dct" + std::to_string(info.param.type) + "_" +
                                  std::to_string(info.param.n);
                         });

/// The units the planner writes for the lengths the tests run: every
/// Stockham length to 64 and in-block Bluestein up to its largest (1021),
/// both directions; the four-step passes of 2^13, 2^16, 2^20 and 2^22;
/// multi-pass Bluestein (2053, 10007); real and DCT transforms in one block,
/// through four-step (6561, 8192), multi-pass Bluestein (5003) and packed
/// around a multi-pass FFT (16384); most of it in double precision too. Each
/// with the threads of its largest block.
std::vector<std::pair<KernelSource, int64_t>> units_to_compile() {
  using planning::FftKind;
  std::map<std::string, std::pair<KernelSource, int64_t>> units;
  auto add = [&](FftKind kind, int64_t n, bool wide) {
    StatusOr<Program> program = axis_program(kind, 1, n, 1, wide);
    if (!program) {
      ADD_FAILURE() << program.status().message();
      return;
    }
    for (auto& [unit, threads] : kernels_of(*program))
      units.emplace(unit.entry, std::pair{unit, threads});
  };
  for (bool wide : {false, true}) {
    std::vector<int64_t> complex{97, 100, 128, 243, 1000, 1021, 1024, 4096, 8192, 65536, 10007};
    if (!wide)
      for (int64_t n : {2053, 1 << 20, 1 << 22}) complex.push_back(n);
    for (int64_t n = 2; n <= (wide ? 16 : 64); ++n) complex.push_back(n);
    for (int64_t n : complex)
      for (FftKind kind : {FftKind::kForward, FftKind::kInverse}) add(kind, n, wide);
    for (int64_t n : {16, 27, 97, 194, 1000, 4096, 5003, 6561, 8192, 16384})
      for (FftKind kind :
           {FftKind::kRealForward, FftKind::kRealInverse, FftKind::kDct2, FftKind::kDct3})
        add(kind, n, wide);
  }
  std::vector<std::pair<KernelSource, int64_t>> list;
  for (auto& [entry, unit] : units) list.push_back(std::move(unit));
  return list;
}

class FftNvrtc : public ::testing::TestWithParam<std::string> {};

/// The static quality gate of KERNELS.md: CUBIN for real GPUs, no spills,
/// two blocks per SM.
TEST_P(FftNvrtc, CompilesToCubinWithoutSpills) {
  NvrtcOptions options;
  options.arch = GetParam();
  for (const auto& [unit, threads] : units_to_compile()) expect_clean_cubin(unit, options, threads);
}

INSTANTIATE_TEST_SUITE_P(Archs, FftNvrtc, ::testing::Values("sm_80", "sm_90"));

}  // namespace
}  // namespace spectral::testing
