// phased_test.cc - the host device's two schedules give the same bytes.
//
// A phased kernel (host_emulation.h, "Phased kernels") runs a whole block per
// call on the host, its templates looping over the threads; the rest of the
// suite runs that way. Here each planned FFT and reduction whose units say
// SPECTRAL_HOST_PHASED runs on two host devices of their own, whatever the
// test device: one phased, one with every CUDA thread a fiber (as on a GPU);
// the two results must be identical, bit for bit.
#include "tests/unit/kernels_templates/fft_units.h"
#include "tests/unit/kernels_templates/kernel_test_util.h"
#include "tests/unit/kernels_templates/reduce_units.h"

#include "runtime/device/host/host_device.h"
#include "runtime/device/host/host_pool.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>

namespace spectral::testing {
namespace {

using planning::FftKind;

/// A host device of the given schedule, with no checks whatever the
/// environment says, so the comparison runs under any test device.
HostDevice& host_device(HostSchedule schedule) {
  auto make = [](HostSchedule wanted) {
    StatusOr<std::unique_ptr<HostDevice>> created = HostDevice::create(host::HostChecks{}, wanted);
    if (!created) {
      std::fprintf(stderr, "host device: %s\n", created.status().message().c_str());
      std::abort();
    }
    return std::move(*created);
  };
  static std::unique_ptr<HostDevice> phased = make(HostSchedule::kPhased);
  static std::unique_ptr<HostDevice> fibers = make(HostSchedule::kFibers);
  return schedule == HostSchedule::kPhased ? *phased : *fibers;
}

/// Random values of T (uniform in [-1, 1)) with equal ones (maxima tie) and,
/// with `specials`, zeros of both signs, infinities and a NaN among the first
/// `special_span` of them; as bytes.
template <typename T>
std::vector<uint8_t> random_bytes(size_t count, unsigned seed, bool specials = false,
                                  size_t special_span = SIZE_MAX) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(-1, 1);
  std::vector<T> values(count);
  const double inf = HUGE_VAL;
  const double special[] = {0.0, -0.0, inf, -inf, inf - inf};
  for (size_t i = 0; i < count; ++i)
    values[i] = i % 17 == 3 ? T(0.75)
                : specials && i < special_span && i % 101 == 7 ? T(special[(i / 101) % 5])
                                           : T(uniform(rng));
  std::vector<uint8_t> bytes(count * sizeof(T));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

/// Whether `a` and `b` hold the same values of T: the same bits, or both NaN
/// (a NaN's payload and sign follow the operands' order, which the compiler
/// may pick differently for the phased forms' vector code and a thread's
/// scalar code; a GPU gives one NaN whatever the inputs).
template <typename T>
bool same_values(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, size_t* first) {
  const size_t count = a.size() / sizeof(T);
  for (*first = 0; *first < count; ++*first) {
    T x, y;
    std::memcpy(&x, a.data() + *first * sizeof(T), sizeof(T));
    std::memcpy(&y, b.data() + *first * sizeof(T), sizeof(T));
    if (std::memcmp(&x, &y, sizeof(T)) != 0 && !(std::isnan(x) && std::isnan(y))) return false;
  }
  return true;
}

/// How many lines make runs of 8 blocks of `rows` lines each on this
/// process's pool (host::run_length), plus `tail` more lines.
int lines_for_runs_of_8(int rows, int tail) {
  return 32 * (*host::HostPool::global())->threads() * rows + tail;
}

/// Runs `program` phased and with fibers on random input (with `specials`,
/// zeros of both signs, infinities and NaNs among its first 512 values: a
/// transform of a line with a NaN is NaN throughout, which same_values would
/// take as equal whatever the bits, so the other lines stay finite); both
/// results must be the same (NaNs aside: same_values), and at least one
/// kernel must be phased.
void expect_same_both_ways(const Program& program, bool specials = false) {
  int phased = 0;
  for (const auto& [source, threads] : kernels_of(program))
    phased += source.source.find("SPECTRAL_HOST_PHASED;") != std::string::npos;
  EXPECT_GT(phased, 0) << "no kernel of the program is phased";
  const BufferDesc& input = program.buffers[program.inputs[0]];
  const bool wide = input.dtype == DType::kFloat64 || input.dtype == DType::kComplex128;
  const size_t bytes = size_t(input.bytes());
  const HostTensor tensor{input.dtype, input.shape,
                          wide ? random_bytes<double>(bytes / sizeof(double), 7, specials, 512)
                               : random_bytes<float>(bytes / sizeof(float), 7, specials, 512)};
  const std::vector<uint8_t> loops =
      run_program(program, tensor, host_device(HostSchedule::kPhased));
  const std::vector<uint8_t> fibered =
      run_program(program, tensor, host_device(HostSchedule::kFibers));
  ASSERT_FALSE(loops.empty());
  ASSERT_EQ(loops.size(), fibered.size());
  size_t first = 0;
  if (wide ? same_values<double>(loops, fibered, &first)
           : same_values<float>(loops, fibered, &first))
    return;
  std::string kernels;
  for (const auto& [source, threads] : kernels_of(program)) kernels += " " + source.entry;
  ADD_FAILURE() << "the phased and the fiber runs differ from value " << first << " (of "
                << (wide ? 8 : 4) << " bytes) of " << loops.size() << " bytes (kernels" << kernels
                << ")";
}

Program axis(FftKind kind, int64_t outer, int64_t n, int64_t inner, bool wide,
             double factor = 1) {
  StatusOr<Program> program = axis_program(kind, outer, n, inner, wide, factor);
  EXPECT_TRUE(bool(program)) << program.status().message();
  return program ? std::move(*program) : Program{};
}

// Lengths with every radix (8, 4, 2, 3, 5, 7), rows per block that leave the
// last block part empty, and a strided axis (CI's time: not every mix).
TEST(PhasedSchedule, ComplexLinesMatchFibers) {
  for (bool wide : {false, true})
    for (bool forward : {true, false}) {
      SCOPED_TRACE(std::string(wide ? "f64" : "f32") + (forward ? " forward" : " inverse"));
      // A block of 8 rows, then 1: lanes (host_emulation.h's runs), then a line
      // alone; zeros of both signs, infinities and NaNs among the values.
      expect_same_both_ways(c2c_program({9, 256}, {1}, forward, wide), /*specials=*/true);
      if (!wide) expect_same_both_ways(c2c_program({11, 210}, {1}, forward, wide));
    }
  expect_same_both_ways(c2c_program({3, 1024}, {1}, true, false, 0.5));
  expect_same_both_ways(c2c_program({4, 12, 3}, {1}, false, true));
  // Enough blocks that a phased call runs 8 of them (host_emulation.h,
  // SPECTRAL_HOST_PHASED_RUNS) and takes their lines a SIMD lane each, the
  // last run's lines not filling the lanes: blocks of 2 rows and of 1 row.
  expect_same_both_ways(c2c_program({lines_for_runs_of_8(2, 9), 1024}, {1}, true, false));
  expect_same_both_ways(c2c_program({lines_for_runs_of_8(1, 5), 2048}, {1}, false, true), true);
  // The same lanes stored as runs (fft_stockham.cuh's store_lanes) with the
  // norm's scaling (inexact: 1/3).
  expect_same_both_ways(
      c2c_program({lines_for_runs_of_8(2, 3), 256}, {1}, false, false, 1.0 / 3));
  expect_same_both_ways(c2c_program({lines_for_runs_of_8(1, 5), 256}, {1}, false, true, 1.0 / 3));
  // Bluestein (97 is prime; its convolution has length 256) likewise.
  expect_same_both_ways(c2c_program({lines_for_runs_of_8(1, 5), 97}, {1}, true, false), true);
  expect_same_both_ways(c2c_program({lines_for_runs_of_8(1, 5), 97}, {1}, false, true));
}

// Two axes, and a length split in four-step passes of in-block transforms.
TEST(PhasedSchedule, ImagesAndFourStepMatchFibers) {
  expect_same_both_ways(c2c_program({2, 64, 48}, {1, 2}, true, false), /*specials=*/true);
  expect_same_both_ways(c2c_program({2, 65536}, {1}, true, false), /*specials=*/true);
  expect_same_both_ways(c2c_program({1, 65536}, {1}, false, true));
  expect_same_both_ways(c2c_program({1, 65536}, {1}, false, false, 1.0 / 3));  // scaled
  // Splits whose rows are not a multiple of the lanes: groups of lanes that
  // straddle two rows of a pass (50 x 100, 125 x 625), with at least two
  // lines so that such a group is a full one.
  expect_same_both_ways(c2c_program({2, 5000}, {1}, false, false, 1.0 / 3));
  expect_same_both_ways(c2c_program({3, 78125}, {1}, true, false));
  // Along a strided axis: the passes' lanes are not one row's neighbours.
  expect_same_both_ways(c2c_program({65536, 3}, {0}, true, false));
}

// R2C and C2R through the half-length packing, and the DCTs around a complex line.
TEST(PhasedSchedule, RealAndCosineLinesMatchFibers) {
  expect_same_both_ways(axis(FftKind::kRealForward, 9, 256, 1, false), /*specials=*/true);
  // Runs of blocks of 16 rows (blocks of the half length 128).
  expect_same_both_ways(axis(FftKind::kRealForward, 300, 256, 1, false));
  expect_same_both_ways(axis(FftKind::kRealInverse, 300, 256, 1, false), /*specials=*/true);
  expect_same_both_ways(axis(FftKind::kRealForward, 2, 60, 3, true));
  expect_same_both_ways(axis(FftKind::kRealInverse, 9, 256, 1, true));
  expect_same_both_ways(axis(FftKind::kRealInverse, 2, 60, 3, false));
  // Half lengths not a multiple of the lanes, along the last axis: runs,
  // then the bins or pairs past the last whole run one by one.
  expect_same_both_ways(axis(FftKind::kRealForward, 300, 60, 1, false), /*specials=*/true);
  expect_same_both_ways(axis(FftKind::kRealInverse, 300, 60, 1, false));
  expect_same_both_ways(axis(FftKind::kRealInverse, 300, 60, 1, true));
  // Longer than a block holds: the half-length four-step and the (un)packing
  // step between it and the spectrum (axis_map), with inner 1 and 3.
  expect_same_both_ways(axis(FftKind::kRealForward, 2, 65536, 1, false));
  expect_same_both_ways(axis(FftKind::kRealInverse, 2, 65536, 1, false, 0.25));  // scaled
  expect_same_both_ways(axis(FftKind::kRealForward, 2, 16384, 3, true));
  expect_same_both_ways(axis(FftKind::kRealInverse, 2, 16384, 3, true));
  expect_same_both_ways(axis(FftKind::kDct2, 5, 64, 1, false));
  expect_same_both_ways(axis(FftKind::kDct3, 5, 64, 1, false));
}

/// Launches `kernel` on `on` with (input, output of `out_bytes`, scalars...)
/// and `shared_bytes` of dynamic shared memory, and returns the output's bytes.
std::vector<uint8_t> run_kernel(Device& on, Kernel& kernel, Dim3 grid, Dim3 block,
                                const std::vector<uint8_t>& input, size_t out_bytes,
                                std::vector<void*> scalars, size_t shared_bytes = 0) {
  void* in = *on.allocate(input.size());
  void* out = *on.allocate(out_bytes);
  EXPECT_TRUE(on.copy_to_device(in, input.data(), input.size()).is_ok());
  EXPECT_TRUE(on.fill_zero(out, out_bytes).is_ok());
  std::vector<void*> args = {&in, &out};
  args.insert(args.end(), scalars.begin(), scalars.end());
  Status status = on.launch(kernel, grid, block, shared_bytes, args.data());
  EXPECT_TRUE(status.is_ok()) << status.message();
  std::vector<uint8_t> result(out_bytes);
  EXPECT_TRUE(on.copy_to_host(result.data(), out, out_bytes).is_ok());
  EXPECT_TRUE(on.release(in).is_ok());
  EXPECT_TRUE(on.release(out).is_ok());
  return result;
}

/// run_kernel of `source`, loaded on `on` for this run.
std::vector<uint8_t> run_unit(Device& on, const KernelSource& source, Dim3 grid, Dim3 block,
                              const std::vector<uint8_t>& input, size_t out_bytes,
                              std::vector<void*> scalars, size_t shared_bytes = 0) {
  StatusOr<std::shared_ptr<Kernel>> kernel = on.load(source);
  EXPECT_TRUE(bool(kernel)) << source.entry << ": " << kernel.status().message();
  if (!kernel) return {};
  return run_kernel(on, **kernel, grid, block, input, out_bytes, scalars, shared_bytes);
}

/// run_unit phased and with fibers: the same bytes.
void expect_unit_same_both_ways(const KernelSource& source, Dim3 grid, Dim3 block,
                                const std::vector<uint8_t>& input, size_t out_bytes,
                                std::vector<void*> scalars, size_t shared_bytes = 0) {
  ASSERT_NE(source.source.find("SPECTRAL_HOST_PHASED;"), std::string::npos) << source.entry;
  const std::vector<uint8_t> loops = run_unit(host_device(HostSchedule::kPhased), source, grid,
                                              block, input, out_bytes, scalars, shared_bytes);
  const std::vector<uint8_t> fibered = run_unit(host_device(HostSchedule::kFibers), source, grid,
                                                block, input, out_bytes, scalars, shared_bytes);
  ASSERT_EQ(loops.size(), fibered.size());
  size_t first = 0;
  while (first < loops.size() && loops[first] == fibered[first]) ++first;
  EXPECT_EQ(first, loops.size()) << source.entry << ": the phased and the fiber runs differ from byte "
                                 << first << " of " << loops.size();
}

// Every row block shape (sub-warp rows, a warp, two warps, a block per row),
// rows left over in the last block, and a grid smaller than the rows (each
// block takes several in turn).
template <typename T>
void reductions_both_ways(const std::vector<RowBlock>& shapes) {
  const std::string type = cuda_type<T>();
  for (const RowBlock& shape : shapes) {
    SCOPED_TRACE(type + " block " + std::to_string(shape.x) + "x" + std::to_string(shape.rows));
    long long rows = 3 * shape.rows + 5, n = 700;
    T scale = T(0.5);
    for (bool specials : {false, true}) {
      const std::vector<uint8_t> x = random_bytes<T>(size_t(rows * n), 11, specials);
      for (int op : {kSum, kMean, kMax})
        expect_unit_same_both_ways(reduce_rows_unit(type, shape), {2, 1, 1},
                                   {uint32_t(shape.x), uint32_t(shape.rows), 1}, x,
                                   size_t(rows) * sizeof(T), {&rows, &n, &scale, &op});
      for (int log_softmax : {0, 1})
        expect_unit_same_both_ways(softmax_unit(type, shape), {2, 1, 1},
                                   {uint32_t(shape.x), uint32_t(shape.rows), 1}, x,
                                   x.size(), {&rows, &n, &log_softmax});
    }
  }
  long long n = 100000, count = 7, total = n;
  const std::vector<uint8_t> x = random_bytes<T>(size_t(n), 12);
  for (int op : {kSum, kMean, kMax}) {
    expect_unit_same_both_ways(reduce_partials_unit(type), {uint32_t(count), 1, 1},
                               {kGridBlock, 1, 1}, x, size_t(count) * sizeof(T), {&n, &op});
    expect_unit_same_both_ways(reduce_final_unit(type), {1, 1, 1}, {kGridBlock, 1, 1}, x,
                               sizeof(T), {&count, &total, &op});
  }
}

/// Cross-entropy of rows: the logits, then int labels (one out of range,
/// a NaN loss) in the one input.
template <typename T>
void cross_entropy_both_ways(const std::vector<RowBlock>& shapes) {
  const std::string type = cuda_type<T>();
  for (const RowBlock& shape : shapes) {
    SCOPED_TRACE(type + " cross-entropy block " + std::to_string(shape.x) + "x" +
                 std::to_string(shape.rows));
    const std::map<std::string, std::string> values{{"$T", type},
                                                    {"$BX", std::to_string(shape.x)},
                                                    {"$ROWS", std::to_string(shape.rows)}};
    const KernelSource unit{fill(R"(#include "common.cuh"
#include "loss.cuh"
using namespace spectral_reduce;
SPECTRAL_HOST_PHASED;
extern "C" __global__ void cross_entropy_$T_$BXx$ROWS(const $T* x, $T* out, long long rows,
                                                    long long n) {
  cross_entropy_rows<$BX, $ROWS, $T>(rows, n, RowLoad<$T>{x, n},
                                     reinterpret_cast<const int*>(x + rows * n),
                                     FlatStore<$T>{out});
}
)",
                                 values),
                            fill("cross_entropy_$T_$BXx$ROWS", values)};
    long long rows = 3 * shape.rows + 5, n = 300;
    std::vector<uint8_t> x = random_bytes<T>(size_t(rows * n), 19, /*specials=*/true);
    for (long long row = 0; row < rows; ++row) {
      const int label = row == 4 ? int(n) : int(row * 7 % n);
      const uint8_t* bytes = reinterpret_cast<const uint8_t*>(&label);
      x.insert(x.end(), bytes, bytes + sizeof label);
    }
    expect_unit_same_both_ways(unit, {2, 1, 1}, {uint32_t(shape.x), uint32_t(shape.rows), 1}, x,
                               size_t(rows) * sizeof(T), {&rows, &n});
  }
}

/// Complex sums and means of rows (no maximum: complex numbers have no order).
template <typename R>
void complex_reductions_both_ways() {
  const std::string real = cuda_type<R>();
  for (const RowBlock& shape : std::vector<RowBlock>{{8, 32}, {512, 1}}) {
    SCOPED_TRACE("cplx<" + real + "> block " + std::to_string(shape.x) + "x" +
                 std::to_string(shape.rows));
    const KernelSource unit{
        fill(R"(#include "common.cuh"
#include "reduce.cuh"
using namespace spectral_reduce;
SPECTRAL_HOST_PHASED;
extern "C" __global__ void complex_rows_$R_$BXx$ROWS(const cplx<$R>* x, cplx<$R>* out,
    long long rows, long long n, int op) {
  RowLoad<cplx<$R>> load{x, n};
  FlatStore<cplx<$R>> store{out};
  if (op == 0) reduce_rows<$BX, $ROWS, cplx<$R>>(rows, n, Sum<cplx<$R>>(), load, store);
  else reduce_rows<$BX, $ROWS, cplx<$R>>(rows, n, Mean<cplx<$R>>(), load, store);
}
)",
             {{"$R", real}, {"$BX", std::to_string(shape.x)}, {"$ROWS", std::to_string(shape.rows)}}),
        fill("complex_rows_$R_$BXx$ROWS",
             {{"$R", real}, {"$BX", std::to_string(shape.x)}, {"$ROWS", std::to_string(shape.rows)}})};
    long long rows = 2 * shape.rows + 3, n = 300;
    const std::vector<uint8_t> x = random_bytes<R>(size_t(2 * rows * n), 13);
    for (int op : {kSum, kMean})
      expect_unit_same_both_ways(unit, {2, 1, 1}, {uint32_t(shape.x), uint32_t(shape.rows), 1}, x,
                                 size_t(rows) * sizeof(std::complex<R>), {&rows, &n, &op});
  }
}

TEST(PhasedSchedule, ReductionsAndSoftmaxMatchFibers) {
  reductions_both_ways<float>({{8, 32}, {32, 8}, {64, 4}, {256, 1}, {512, 1}});
  reductions_both_ways<double>({{32, 8}, {512, 1}});
  complex_reductions_both_ways<float>();
  complex_reductions_both_ways<double>();
  cross_entropy_both_ways<float>({{8, 32}, {256, 1}});
  cross_entropy_both_ways<double>({{32, 8}});
}

/// A matmul unit of tile (BM, BN, BK, TM, TN) = `tile` reading A [M, K]
/// and then B [K, N] from one input, the product [M, N] to the output.
KernelSource matmul_unit(const std::string& type, const std::string& tile, const std::string& tag) {
  const std::map<std::string, std::string> values{
      {"$V", type}, {"$TILE", tile}, {"$E", "phased_matmul_" + tag}};
  return {fill(R"(#include "common.cuh"
#include "matmul.cuh"
using namespace spectral_linalg;
SPECTRAL_HOST_PHASED;
extern "C" __global__ void $E(const $V* in, $V* out, int M, int N, int K) {
  const BatchStrides none{1, {1}, {0}};
  matmul<$TILE, $V>(M, N, K, 1, MatrixLoad<$V>{in, none, K, 1},
                    MatrixLoad<$V>{in + (long long)M * K, none, N, 1}, MatrixStore<$V>{out, M, N});
}
)",
               values),
          fill("$E", values)};
}

/// Products with partial tiles, K not a multiple of BK (the padded
/// multiply-adds of zeros turn a -0 sum into +0: both ways must), zeros,
/// infinities and NaNs among the values, and a grid smaller than the tiles.
template <typename T>
void matmul_both_ways(const std::string& type, const std::string& tile, const std::string& tag,
                      int reals_per_value) {
  for (auto [M, N, K] : {std::array<int, 3>{1, 10, 840}, {70, 33, 9}, {64, 64, 16}}) {
    SCOPED_TRACE(type + " " + std::to_string(M) + "x" + std::to_string(N) + "x" +
                 std::to_string(K));
    const size_t count = size_t(M * K + K * N) * reals_per_value;
    const std::vector<uint8_t> x = random_bytes<T>(count, 17, /*specials=*/M == 70);
    expect_unit_same_both_ways(matmul_unit(type, tile, tag), {2, 1, 1}, {256, 1, 1},
                               x, size_t(M * N) * reals_per_value * sizeof(T), {&M, &N, &K});
  }
}

// Top-k of complex values whose parts are NaNs of other payloads: the
// magnitudes' NaNs come out with either payload, whatever the form computes
// them in; every NaN must rank as one key (topk.cuh's magnitude_bits) for the
// phased select to take the entries the threads take.
TEST(PhasedSchedule, TopkOfNaNsMatchesFibers) {
  const KernelSource unit{R"(#include "common.cuh"
#include "topk.cuh"
using namespace spectral_sparse;
SPECTRAL_HOST_PHASED;
extern "C" __global__ void phased_topk_c64(const cplx<float>* x, unsigned char* out,
                                           long long rows, long long n, long long k) {
  topk_rows<128, false, cplx<float>>(
      rows, n, k, RowsLoad<cplx<float>>{x, n},
      SparseStore<cplx<float>>{reinterpret_cast<cplx<float>*>(out),
                               reinterpret_cast<long long*>(out + rows * k * sizeof(cplx<float>)),
                               k});
}
)",
                          "phased_topk_c64"};
  long long rows = 6, n = 300, k = 20;
  std::vector<float> values = [&] {
    std::vector<uint8_t> bytes = random_bytes<float>(size_t(2 * rows * n), 23, /*specials=*/true);
    std::vector<float> floats(bytes.size() / sizeof(float));
    std::memcpy(floats.data(), bytes.data(), bytes.size());
    return floats;
  }();
  for (size_t i = 0; i < values.size(); i += 14) {  // both parts NaNs, payloads apart
    uint32_t re = 0x7fc00000u | uint32_t(i), im = 0xffc00000u | uint32_t(3 * i + 1);
    std::memcpy(&values[i], &re, 4);
    std::memcpy(&values[i + 1], &im, 4);
  }
  std::vector<uint8_t> x(values.size() * sizeof(float));
  std::memcpy(x.data(), values.data(), x.size());
  expect_unit_same_both_ways(unit, {uint32_t(rows), 1, 1}, {128, 1, 1}, x,
                             size_t(rows * k) * (sizeof(std::complex<float>) + sizeof(long long)),
                             {&rows, &n, &k});
}

/// A four-step's first pass (16-point columns, 64 of them a line: N = 1024)
/// on `lines` lines, its twiddle tables after the data in the one input:
/// the column twiddles w_16^m, then hi (33 entries) and lo (32, shift 5).
template <typename T>
KernelSource four_step_columns_unit() {
  const std::map<std::string, std::string> values{{"$T", cuda_type<T>()}};
  return {fill(R"(#include "common.cuh"
#include "fft_stockham.cuh"
#include "fft_multipass.cuh"
using namespace spectral_fft;
SPECTRAL_HOST_PHASED;
SPECTRAL_HOST_PHASED_RUNS;
extern "C" __global__ void four_step_columns_$T(const cplx<$T>* in, cplx<$T>* out, int lines) {
  SPECTRAL_DYNAMIC_SHARED(cplx<$T>, shared);
  const cplx<$T>* twiddles = in + lines * 1024;
  const cplx<$T>* hi = twiddles + 16;
  const cplx<$T>* lo = hi + 33;
  fft_batched<16, 2, true>(shared, twiddles, lines * 64,
      FourStepColumnLoad<ComplexLoad<$T>>{ComplexLoad<$T>{in, AxisLayout{1024, 1}}, 64, 1},
      FourStepTwiddleStore<$T, true>{out, AxisLayout{16, 64}, 1, hi, lo, 5});
}
)",
               values),
          fill("four_step_columns_$T", values), {}};
}

/// The phased stores of a four-step's first pass take their twiddles from a
/// table made once per kernel (FourStepTwiddles); a run with other tables
/// (here, those of another length, or perturbed) must not reuse one made
/// from earlier tables: each run matches the fibers' (which compute every
/// twiddle from the tables), including the tables beyond the four a kernel
/// keeps, and the first tables again.
template <typename T>
void four_step_twiddles_both_ways() {
  const int lines = lines_for_runs_of_8(8, 0) / 64 + 1;
  const KernelSource unit = four_step_columns_unit<T>();
  const std::vector<uint8_t> data = random_bytes<T>(size_t(lines) * 1024 * 2, 21);
  const double pi = std::acos(-1.0);
  // Loaded once for every phased run: a kernel loaded anew makes its tables anew.
  StatusOr<std::shared_ptr<Kernel>> loaded = host_device(HostSchedule::kPhased).load(unit);
  ASSERT_TRUE(bool(loaded)) << loaded.status().message();
  for (int n : {1024, 2048, 1024, 4096, 8192, 1000, 999, 1024}) {
    SCOPED_TRACE(cuda_type<T>() + " tables of length " + std::to_string(n));
    std::vector<std::complex<T>> tables;
    for (int m = 0; m < 16; ++m) tables.emplace_back(std::polar(1.0, -2 * pi * m / 16));
    for (int j = 0; j <= 32; ++j) tables.emplace_back(std::polar(1.0, -2 * pi * (j << 5) / n));
    for (int j = 0; j < 32; ++j) tables.emplace_back(std::polar(1.0, -2 * pi * j / n));
    std::vector<uint8_t> input = data;
    const uint8_t* bytes = reinterpret_cast<const uint8_t*>(tables.data());
    input.insert(input.end(), bytes, bytes + tables.size() * sizeof(tables[0]));
    int count = lines;
    const Dim3 grid{uint32_t(lines * 64 / 8), 1, 1}, block{2, 8, 1};
    const size_t shared = 8 * 16 * sizeof(std::complex<T>);
    const std::vector<uint8_t> loops =
        run_kernel(host_device(HostSchedule::kPhased), **loaded, grid, block, input, data.size(),
                   {&count}, shared);
    const std::vector<uint8_t> fibered = run_unit(host_device(HostSchedule::kFibers), unit, grid,
                                                  block, input, data.size(), {&count}, shared);
    ASSERT_EQ(loops.size(), data.size());
    EXPECT_TRUE(loops == fibered) << "the phased and the fiber runs differ";
  }
}

TEST(PhasedSchedule, FourStepTwiddlesFollowTheirTables) {
  four_step_twiddles_both_ways<float>();
  four_step_twiddles_both_ways<double>();
}

TEST(PhasedSchedule, MatmulMatchesFibers) {
  matmul_both_ways<float>("float", "64, 64, 16, 4, 4", "f32", 1);  // lanes of floats
  matmul_both_ways<float>("float", "32, 32, 16, 2, 2", "f32_32", 1);  // PureFFT training's tile
  matmul_both_ways<double>("double", "64, 64, 8, 4, 4", "f64", 1);
  matmul_both_ways<float>("cplx<float>", "64, 64, 8, 4, 4", "c64", 2);  // a value at a time
}

}  // namespace
}  // namespace spectral::testing
