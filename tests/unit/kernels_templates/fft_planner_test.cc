// The FFT planner (compiler/Planning/FftPlanner.h): every path it writes,
// in float and double, on strided axes, with a norm factor, run on
// HostDevice against FFTW (double); the lengths it must refuse; and the
// agreement of its Stockham radices with the template's make_plan.
#include "tests/unit/kernels_templates/fft_units.h"
#include "tests/unit/kernels_templates/kernel_test_util.h"

#include "compiler/Planning/FftTables.h"
#include "compiler/Planning/FftUnits.h"
#include "runtime/device/host/host_device.h"

#include <fftw3.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <random>

namespace spectral::testing {
namespace {

using planning::FftKind;
using cdouble = std::complex<double>;

std::vector<double> random_reals(int64_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);  // exact in float
  std::vector<double> x(count);
  for (double& v : x) v = uniform(rng);
  return x;
}

// FFTW (double) along the middle axis of [outer, n, inner]: `in_length` and
// `out_length` are the lengths of the input and output along it.
struct Loops {
  fftw_iodim64 dim;
  fftw_iodim64 loops[2];
  Loops(int64_t outer, int64_t n, int64_t inner, int64_t in_length, int64_t out_length)
      : dim{n, inner, inner},
        loops{{outer, in_length * inner, out_length * inner}, {inner, 1, 1}} {}
};

/// The reference output of `kind` for input `x` (reals, or complex pairs).
std::vector<double> fftw_reference(FftKind kind, std::vector<double> x, int64_t outer, int64_t n,
                                   int64_t inner) {
  int64_t bins = n / 2 + 1;
  std::vector<double> y;
  fftw_plan plan = nullptr;
  auto* xc = reinterpret_cast<fftw_complex*>(x.data());
  switch (kind) {
    case FftKind::kForward:
    case FftKind::kInverse: {
      Loops l(outer, n, inner, n, n);
      y.resize(x.size());
      plan = fftw_plan_guru64_dft(
          1, &l.dim, 2, l.loops, xc, reinterpret_cast<fftw_complex*>(y.data()),
          kind == FftKind::kForward ? FFTW_FORWARD : FFTW_BACKWARD, FFTW_ESTIMATE);
      break;
    }
    case FftKind::kRealForward: {
      Loops l(outer, n, inner, n, bins);
      y.resize(2 * outer * bins * inner);
      plan = fftw_plan_guru64_dft_r2c(1, &l.dim, 2, l.loops, x.data(),
                                      reinterpret_cast<fftw_complex*>(y.data()), FFTW_ESTIMATE);
      break;
    }
    case FftKind::kRealInverse: {
      Loops l(outer, n, inner, bins, n);
      y.resize(outer * n * inner);
      plan = fftw_plan_guru64_dft_c2r(1, &l.dim, 2, l.loops, xc, y.data(), FFTW_ESTIMATE);
      break;
    }
    case FftKind::kDct2:
    case FftKind::kDct3: {
      Loops l(outer, n, inner, n, n);
      y.resize(x.size());
      fftw_r2r_kind r2r = kind == FftKind::kDct2 ? FFTW_REDFT10 : FFTW_REDFT01;
      plan = fftw_plan_guru64_r2r(1, &l.dim, 2, l.loops, x.data(), y.data(), &r2r, FFTW_ESTIMATE);
      break;
    }
  }
  fftw_execute(plan);
  fftw_destroy_plan(plan);
  return y;
}

/// max |got - want| / max |want| over reals (complex values as pairs).
template <typename T>
double relative_error(const std::vector<T>& got, const std::vector<double>& want, double factor) {
  if (got.size() != want.size()) return INFINITY;
  double error = 0, scale = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    error = std::max(error, std::abs(double(got[i]) - factor * want[i]));
    scale = std::max(scale, std::abs(factor * want[i]));
  }
  return error / std::max(scale, 1e-300);
}

/// Runs one planned axis in precision T on `x` (reals, complex as pairs).
template <typename T>
std::vector<T> run_reals(FftKind kind, const std::vector<double>& x, int64_t outer, int64_t n,
                         int64_t inner, double factor) {
  std::vector<T> xt(x.begin(), x.end());
  auto as_complex = [](const std::vector<T>& v) {
    std::vector<std::complex<T>> c(v.size() / 2);
    for (size_t i = 0; i < c.size(); ++i) c[i] = {v[2 * i], v[2 * i + 1]};
    return c;
  };
  auto as_reals = [](const std::vector<std::complex<T>>& c) {
    std::vector<T> v;
    for (const auto& z : c) v.insert(v.end(), {z.real(), z.imag()});
    return v;
  };
  switch (kind) {
    case FftKind::kForward:
    case FftKind::kInverse:
      return as_reals(run_c2c(as_complex(xt), {int(outer), int(n), int(inner)}, {1},
                              kind == FftKind::kForward, factor));
    case FftKind::kRealForward:
      return as_reals(run_r2c(xt, outer, n, inner, factor));
    case FftKind::kRealInverse:
      return run_c2r(as_complex(xt), outer, n, inner, factor);
    case FftKind::kDct2:
      return run_dct(xt, outer, n, inner, 2, factor);
    case FftKind::kDct3:
      return run_dct(xt, outer, n, inner, 3, factor);
  }
  return {};
}

struct PathCase {
  FftKind kind;
  int64_t outer, n, inner;
  const char* path;  // a piece of an entry name the plan must contain, % for f32 / f64
  double factor;
};

std::string case_name(const ::testing::TestParamInfo<PathCase>& info) {
  const PathCase& c = info.param;
  return std::string(planning::fftKindName(c.kind)) + "_" + std::to_string(c.outer) + "x" +
         std::to_string(c.n) + "x" + std::to_string(c.inner);
}

class FftPlannerPath : public ::testing::TestWithParam<PathCase> {};

/// One case in float (1e-5 of max |y|) and double (1e-12), after checking
/// that the plan takes the path the case is named for.
TEST_P(FftPlannerPath, MatchesFftwInFloatAndDouble) {
  const PathCase& c = GetParam();
  bool complex_in =
      c.kind == FftKind::kForward || c.kind == FftKind::kInverse || c.kind == FftKind::kRealInverse;
  int64_t in_length = c.kind == FftKind::kRealInverse ? c.n / 2 + 1 : c.n;
  std::vector<double> x =
      random_reals((complex_in ? 2 : 1) * c.outer * in_length * c.inner, c.n * 13 + c.inner);
  std::vector<double> want = fftw_reference(c.kind, x, c.outer, c.n, c.inner);
  for (bool wide : {false, true}) {
    StatusOr<Program> program = axis_program(c.kind, c.outer, c.n, c.inner, wide, c.factor);
    ASSERT_TRUE(program) << program.status().message();
    std::string entries;
    for (const KernelDesc& kernel : program->kernels) entries += kernel.source.entry + " ";
    std::string path = c.path;
    if (size_t at = path.find('%'); at != std::string::npos)
      path.replace(at, 1, wide ? "f64" : "f32");
    EXPECT_NE(entries.find(path), std::string::npos) << entries;
    double error =
        wide ? relative_error(run_reals<double>(c.kind, x, c.outer, c.n, c.inner, c.factor), want,
                              c.factor)
             : relative_error(run_reals<float>(c.kind, x, c.outer, c.n, c.inner, c.factor), want,
                              c.factor);
    EXPECT_LT(error, wide ? 1e-12 : 1e-5) << (wide ? "double: " : "float: ") << entries;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Paths, FftPlannerPath,
    ::testing::Values(
        // Complex: Stockham, in-block Bluestein, four-step, multi-pass Bluestein.
        PathCase{FftKind::kForward, 2, 60, 1, "fft_stockham", 1},
        PathCase{FftKind::kInverse, 1, 4096, 2, "ifft_stockham", 0.5},
        PathCase{FftKind::kForward, 2, 97, 3, "fft_bluestein", 1},
        PathCase{FftKind::kInverse, 1, 8192, 2, "ifft_fourstep", 0.25},
        PathCase{FftKind::kForward, 4, 8192, 1, "fft_fourstep", 1},  // chained, a line a part
        PathCase{FftKind::kForward, 1, 2053, 1, "fft_fourstep_%_n8192_rows_filter", 1},
        // Real: packed in one block, odd lengths as complex ones, packed
        // around a multi-pass FFT, odd multi-pass.
        PathCase{FftKind::kRealForward, 2, 128, 3, "rfft_packed", 1},
        PathCase{FftKind::kRealInverse, 2, 1000, 1, "irfft_packed", 0.001},
        PathCase{FftKind::kRealForward, 1, 243, 2, "rfft_stockham", 1},
        PathCase{FftKind::kRealForward, 2, 97, 1, "rfft_bluestein", 1},
        PathCase{FftKind::kRealInverse, 1, 97, 3, "irfft_bluestein", 1},
        PathCase{FftKind::kRealForward, 1, 16384, 2, "rfft_unpack", 0.5},
        PathCase{FftKind::kRealInverse, 1, 16384, 2, "irfft_pack", 1},
        PathCase{FftKind::kRealForward, 1, 6561, 1, "rfft_fourstep", 1},
        PathCase{FftKind::kRealInverse, 1, 6561, 2, "irfft_fourstep", 0.5},
        // DCT-II / III: in one block, through four-step and multi-pass Bluestein.
        PathCase{FftKind::kDct2, 2, 100, 3, "dct2_stockham", 1},
        PathCase{FftKind::kDct3, 1, 97, 2, "dct3_bluestein", 0.5},
        PathCase{FftKind::kDct2, 1, 8192, 2, "dct2_fourstep", 0.5},
        PathCase{FftKind::kDct3, 1, 8192, 1, "dct3_fourstep", 1},
        PathCase{FftKind::kDct2, 1, 5003, 1, "dct2_bluestein_%_n5003_cols", 1},
        PathCase{FftKind::kDct3, 1, 5003, 2, "dct3_bluestein_%_n5003_rows", 1}),
    case_name);

/// A four-step's two passes are chained a part per outer line where each
/// line's batches fill whole blocks (the host runs a line's passes on one
/// core: HostPool::run_chain), the intermediate local to the chain, and give
/// the same bits as unchained.
TEST(FftPlanner, FourStepPassesAreChainedALinePerOuterIndex) {
  struct Case {
    FftKind kind;
    int64_t outer, n, inner;
    int chains;  // launches chained in `outer` parts
  };
  // A host device that runs every chain part by part, whatever its threads.
  StatusOr<std::unique_ptr<HostDevice>> device = HostDevice::create(host::HostChecks{});
  ASSERT_TRUE(device.is_ok()) << device.status().message();
  HostDevice& chaining = **device;
  chaining.set_chains(HostChains::kAlways);
  for (const Case& c : {Case{FftKind::kForward, 4, 8192, 1, 1},
                        Case{FftKind::kForward, 4, 8192, 3, 1},
                        Case{FftKind::kRealForward, 6, 16384, 1, 1},
                        Case{FftKind::kDct3, 4, 5003, 1, 2},  // Bluestein: two four-steps
                        Case{FftKind::kForward, 1, 8192, 1, 0}}) {
    SCOPED_TRACE(std::string(planning::fftKindName(c.kind)) + " " + std::to_string(c.outer) +
                 "x" + std::to_string(c.n) + "x" + std::to_string(c.inner));
    StatusOr<Program> program = axis_program(c.kind, c.outer, c.n, c.inner, false);
    ASSERT_TRUE(program) << program.status().message();
    int chains = 0;
    for (const Step& step : program->steps)
      if (step.chain_parts != 0) {
        EXPECT_EQ(step.chain_parts, uint32_t(c.outer));
        ASSERT_GE(step.chain_local, 0);  // the intermediate
        EXPECT_EQ(program->buffers[size_t(step.chain_local)].shape[0], c.outer);
        ++chains;
      }
    EXPECT_EQ(chains, c.chains);
    Program unchained = *program;
    for (Step& step : unchained.steps) {
      step.chain_parts = 0;
      step.chain_local = -1;
    }
    const bool complex_in = c.kind == FftKind::kForward;
    std::vector<double> values = random_reals((complex_in ? 2 : 1) * c.outer * c.n * c.inner, 5);
    std::vector<float> floats(values.begin(), values.end());
    HostTensor input{complex_in ? DType::kComplex64 : DType::kFloat32,
                     {c.outer, c.n, c.inner},
                     std::vector<uint8_t>(floats.size() * 4)};
    std::memcpy(input.bytes.data(), floats.data(), input.bytes.size());
    const uint64_t before = chaining.chained_launches();
    std::vector<uint8_t> got = run_program(*program, input, chaining);
    EXPECT_EQ(chaining.chained_launches(), before + uint64_t(c.chains));
    EXPECT_FALSE(got.empty());
    EXPECT_TRUE(got == run_program(unchained, input, chaining))
        << "chained and unchained runs differ";
  }
}

/// In place (output = input), as codegen writes a donated C2C or DCT.
TEST(FftPlanner, RunsInPlace) {
  for (int64_t n : {97, 8192, 2053}) {
    codegen::ProgramBuilder builder("in_place");
    int x = builder.addBuffer("x", DType::kComplex64, {2, n}, BufferRole::kInput);
    planning::FftAxis axis{FftKind::kForward, n, 2, 1, false, 1, x, x, "test.fft"};
    Status planned = planning::planFftAxis(builder, axis);
    ASSERT_TRUE(planned) << planned.message();
    builder.program().outputs = {x};
    std::vector<double> values = random_reals(4 * n, n);
    HostTensor input{DType::kComplex64, {2, n}, std::vector<uint8_t>(values.size() * 4)};
    std::vector<float> floats(values.begin(), values.end());
    std::memcpy(input.bytes.data(), floats.data(), input.bytes.size());
    std::vector<uint8_t> bytes = run_program(builder.take(), input);
    std::vector<float> got(bytes.size() / 4);
    std::memcpy(got.data(), bytes.data(), bytes.size());
    EXPECT_LT(relative_error(got, fftw_reference(FftKind::kForward, values, 2, n, 1), 1), 1e-5)
        << n;
  }
}

/// The fusion seam: a prologue (x2) and an epilogue (x3) rendered as codegen
/// will, in place of the plain Load and Store, through a four-step FFT, a
/// multi-pass Bluestein DCT and a real FFT packed around a multi-pass one.
TEST(FftPlanner, FusesAPrologueAndAnEpilogue) {
  const char* definition = R"(template <typename Inner>
struct TestTwice {
  Inner inner;
  __device__ __forceinline__ auto operator()(int b, int i) const { auto v = inner(b, i); return v + v; }
};
template <typename Inner>
struct TestThrice {
  Inner inner;
  template <typename V>
  __device__ __forceinline__ void operator()(int b, int i, V v) const { inner(b, i, v + v + v); }
};)";
  for (auto [kind, n] : {std::pair{FftKind::kForward, int64_t(8192)},
                         {FftKind::kDct2, 5003},
                         {FftKind::kRealForward, 16384}}) {
    bool complex_in = kind == FftKind::kForward;
    int64_t bins = kind == FftKind::kRealForward ? n / 2 + 1 : n;
    codegen::ProgramBuilder builder("fused");
    planning::FftAxis axis{kind, n, 1, 2, false, 1, -1, -1, "test.fused"};
    axis.input = builder.addBuffer("x", complex_in ? DType::kComplex64 : DType::kFloat32, {1, n, 2},
                                   BufferRole::kInput);
    axis.output = builder.addBuffer(
        "y", kind == FftKind::kDct2 ? DType::kFloat32 : DType::kComplex64, {1, bins, 2});
    planning::AxisEnds ends = planning::plainEnds(axis);
    ends.load = planning::units::wrap("TestTwice", ends.load);
    ends.load.tag = "x2";
    ends.load.definition = definition;
    ends.store = planning::units::wrap("TestThrice", ends.store);
    ends.store.tag = "x3";
    ends.store.definition = definition;
    Status planned = planning::planFftAxisWith(builder, axis, ends);
    ASSERT_TRUE(planned) << planned.message();
    builder.program().outputs = {axis.output};
    std::string entries;
    for (const KernelDesc& kernel : builder.program().kernels) entries += kernel.source.entry + " ";
    EXPECT_NE(entries.find("_Lx2"), std::string::npos) << entries;
    EXPECT_NE(entries.find("_Sx3"), std::string::npos) << entries;

    std::vector<double> x = random_reals((complex_in ? 2 : 1) * n * 2, n);
    std::vector<float> floats(x.begin(), x.end());
    HostTensor input{complex_in ? DType::kComplex64 : DType::kFloat32,
                     {1, n, 2},
                     std::vector<uint8_t>(floats.size() * 4)};
    std::memcpy(input.bytes.data(), floats.data(), input.bytes.size());
    std::vector<uint8_t> bytes = run_program(builder.take(), input);
    std::vector<float> got(bytes.size() / 4);
    std::memcpy(got.data(), bytes.data(), bytes.size());
    EXPECT_LT(relative_error(got, fftw_reference(kind, x, 1, n, 2), 6), 1e-5) << entries;
  }
}

/// Every kind and precision has a plan for these lengths; none asks one
/// block for more than its shared memory or runs a one-block Bluestein
/// beyond its limit; and one entry name always means one unit text (the
/// ProgramBuilder deduplicates kernels by entry).
TEST(FftPlanner, EveryLengthFitsItsBlocks) {
  std::vector<int64_t> lengths;
  for (int64_t n = 1; n <= 160; ++n) lengths.push_back(n);
  for (int64_t n : {1021, 1024, 1025, 2047, 2048, 2049, 4093, 4096, 4097, 4099, 5003, 8191, 8192,
                    8193, 8194, 10007, 65536, 65537, 131074})
    lengths.push_back(n);
  std::map<std::string, std::string> sources;
  for (bool wide : {false, true})
    for (int64_t n : lengths)
      for (FftKind kind : {FftKind::kForward, FftKind::kInverse, FftKind::kRealForward,
                           FftKind::kRealInverse, FftKind::kDct2, FftKind::kDct3}) {
        StatusOr<Program> program = axis_program(kind, 1, n, 1, wide);
        ASSERT_TRUE(program) << program.status().message();
        int64_t bytes = wide ? 16 : 8;
        for (const KernelDesc& kernel : program->kernels) {
          auto [it, fresh] = sources.emplace(kernel.source.entry, kernel.source.source);
          EXPECT_TRUE(fresh || it->second == kernel.source.source) << kernel.source.entry;
        }
        for (const Step& step : program->steps) {
          EXPECT_LE(step.shared_bytes, planning::kMaxInBlockLength * bytes)
              << program->kernels[step.kernel].source.entry;
          const std::string& entry = program->kernels[step.kernel].source.entry;
          bool one_block_bluestein = entry.find("_bluestein_") != std::string::npos &&
                                     entry.find("_cols") == std::string::npos &&
                                     entry.find("_rows") == std::string::npos;
          if (one_block_bluestein) {
            EXPECT_LE(step.shared_bytes, planning::kMaxInBlockBluestein * bytes) << entry;
          }
        }
      }
}

/// Lengths and buffers the planner refuses, with a message naming them;
/// nothing is appended to the Program then.
TEST(FftPlanner, RefusesWhatItCannotPlan) {
  struct Refused {
    FftKind kind;
    int64_t n;
    const char* says;
  };
  for (const Refused& r : {Refused{FftKind::kForward, 0, "length 0"},
                           Refused{FftKind::kForward, (1 << 24) + 1, "16777217"},
                           Refused{FftKind::kDct2, (1 << 24) + 3, "16777219"},
                           Refused{FftKind::kRealForward, (1 << 25) + 2, "16777217"}}) {
    codegen::ProgramBuilder builder("refused");
    int64_t count = std::max<int64_t>(r.n, 1);
    DType in = r.kind == FftKind::kForward ? DType::kComplex64 : DType::kFloat32;
    DType out = r.kind == FftKind::kDct2 ? DType::kFloat32 : DType::kComplex64;
    int64_t out_count = r.kind == FftKind::kRealForward ? r.n / 2 + 1 : count;
    planning::FftAxis axis{r.kind,
                           r.n,
                           1,
                           1,
                           false,
                           1,
                           builder.addBuffer("x", in, {count}, BufferRole::kInput),
                           builder.addBuffer("y", out, {out_count}),
                           "test.op (a.mlir:1:2)"};
    Status error = planning::planFftAxis(builder, axis);
    ASSERT_FALSE(error) << r.n;
    const std::string& message = error.message();
    EXPECT_NE(message.find(r.says), std::string::npos) << message;
    EXPECT_NE(message.find("test.op (a.mlir:1:2)"), std::string::npos) << message;
    EXPECT_TRUE(builder.program().kernels.empty() && builder.program().steps.empty());
  }
  // A buffer of the wrong dtype or size.
  codegen::ProgramBuilder builder("mismatch");
  int x = builder.addBuffer("x", DType::kComplex64, {64}, BufferRole::kInput);
  int y = builder.addBuffer("y", DType::kFloat32, {64});
  Status error =
      planning::planFftAxis(builder, {FftKind::kForward, 64, 1, 1, false, 1, x, y, "test.fft"});
  ASSERT_FALSE(error);
  EXPECT_NE(error.message().find("'y'"), std::string::npos);
  Status wide = planning::planFftAxis(builder, {FftKind::kForward, 64, 1, 1, true, 1, x, x, ""});
  EXPECT_FALSE(wide);
}

/// The template computes its radices and thread counts at compile time
/// (fft_stockham.cuh, make_plan and threads_for); the planner's tables must
/// agree for every in-block length.
TEST(FftPlanner, StockhamRadicesAgreeWithTheTemplate) {
  constexpr int kCount = 4096, kRow = 34;
  KernelSource unit{R"(#include "common.cuh"
#include "fft_stockham.cuh"
extern "C" __global__ void fft_plan_radices(int* out, int count) {
  for (int n = 1; n <= count; ++n) {
    spectral_fft::Plan plan = spectral_fft::make_plan(n);
    int* row = out + (n - 1) * 34;
    row[0] = plan.count;
    row[1] = plan.count ? spectral_fft::threads_for(n) : 0;
    for (int i = 0; i < plan.count; ++i) row[2 + i] = plan.radix[i];
  }
}
)",
                    "fft_plan_radices"};
  Buffer out(std::vector<int>(kCount * kRow));
  int count = kCount;
  launch(unit, {1, 1, 1}, {1, 1, 1}, 0, {&out.get(), &count});
  std::vector<int> rows = out.read<int>();
  for (int n = 1; n <= kCount; ++n) {
    const int* row = rows.data() + (n - 1) * kRow;
    std::vector<int> radices = planning::stockhamRadices(n);
    ASSERT_EQ(std::vector<int>(row + 2, row + 2 + row[0]), radices) << n;
    if (!radices.empty()) {
      ASSERT_EQ(row[1], planning::stockhamThreads(n)) << n;
    }
  }
}

}  // namespace
}  // namespace spectral::testing
