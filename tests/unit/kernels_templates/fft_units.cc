// fft_units.cc - FFT instantiation units and their driver on HostDevice.
#include "tests/unit/kernels_templates/fft_units.h"

#include "compiler/Codegen/FftTables.h"
#include "tests/unit/kernels_templates/kernel_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace spectral::testing {
namespace {

using cfloat = std::complex<float>;

const char* const kPrelude =
    "#include \"common.cuh\"\n"
    "#include \"fft_io.cuh\"\n"
    "#include \"fft_stockham.cuh\"\n"
    "#include \"fft_bluestein.cuh\"\n"
    "#include \"fft_real.cuh\"\n"
    "#include \"pointwise.cuh\"\n"
    "using namespace spectral_fft;\n";

/// Block rows sharing one block: up to 256 threads and 32 KiB of shared memory.
uint32_t rows_for(int64_t threads, int64_t n) {
  int64_t rows = std::max<int64_t>(1, 256 / threads);
  return uint32_t(std::max<int64_t>(1, std::min<int64_t>(rows, 32768 / (8 * n))));
}

uint32_t blocks_for(int64_t batches, uint32_t rows) { return uint32_t((batches + rows - 1) / rows); }

/// One Stockham launch over `batches` lines of length n.
void run_stockham(int n, void* in, void* out, int batches, int in_inner, int out_inner,
                  bool forward) {
  int64_t threads = codegen::stockhamThreads(n);
  uint32_t rows = rows_for(threads, n);
  Buffer twiddles(to_float(codegen::fftTwiddles(n, n)));
  int direction = forward;
  launch(stockham_unit(n), {blocks_for(batches, rows), 1, 1}, {uint32_t(threads), rows, 1},
         size_t(rows) * n * sizeof(cfloat),
         {&in, &out, &twiddles.get(), &batches, &in_inner, &out_inner, &direction});
}

void run_bluestein(int n, void* data, int batches, int inner, bool forward) {
  int64_t m = codegen::bluesteinLength(n);
  codegen::BluesteinTables tables = codegen::bluesteinTables(n, m, forward);
  Buffer twiddles(to_float(codegen::fftTwiddles(m, m)));
  Buffer chirp(to_float(tables.chirp)), filter(to_float(tables.filter));
  launch(bluestein_unit(n), {uint32_t(batches), 1, 1}, {uint32_t(codegen::bluesteinThreads(m)), 1, 1},
         size_t(m) * sizeof(cfloat),
         {&data, &twiddles.get(), &chirp.get(), &filter.get(), &batches, &inner});
}

/// n = n1 * n2 with both factors Stockham lengths that fit a block, n1 as
/// close to sqrt(n) as possible; 0 when there is none.
int fourstep_split(int n) {
  for (int n1 = int(std::sqrt(double(n))); n1 >= 2; --n1)
    if (n % n1 == 0 && codegen::hasStockhamPlan(n1) && codegen::hasStockhamPlan(n / n1) &&
        n / n1 <= kMaxInBlockLength)
      return n1;
  return 0;
}

/// Four-step along an axis of [outer, n, inner], n = n1 * n2: column
/// transforms with the twiddle in place, then row transforms written in the
/// transposed order into `out`.
void run_fourstep(int n, void* data, void* out, int outer, int inner, bool forward) {
  int n1 = fourstep_split(n), n2 = n / n1;
  ASSERT_GT(n1, 0) << "no four-step split for " << n;
  int shift = 0;
  while ((int64_t(1) << (2 * shift)) < n) ++shift;
  std::vector<std::complex<double>> hi((n >> shift) + 1), lo(int64_t(1) << shift);
  std::vector<std::complex<double>> roots = codegen::fftTwiddles(n, n);
  for (size_t j = 0; j < hi.size(); ++j) hi[j] = roots[(int64_t(j) << shift) % n];
  for (size_t j = 0; j < lo.size(); ++j) lo[j] = roots[j % n];
  Buffer hi_table(to_float(hi)), lo_table(to_float(lo));
  Buffer twiddles1(to_float(codegen::fftTwiddles(n1, n1)));
  Buffer twiddles2(to_float(codegen::fftTwiddles(n2, n2)));
  int direction = forward;

  int64_t threads = codegen::stockhamThreads(n1);
  uint32_t rows = rows_for(threads, n1);
  int batches = outer * n2 * inner;
  launch(fourstep_unit(n1, n2), {blocks_for(batches, rows), 1, 1}, {uint32_t(threads), rows, 1},
         size_t(rows) * n1 * sizeof(cfloat),
         {&data, &twiddles1.get(), &hi_table.get(), &lo_table.get(), &shift, &batches, &inner,
          &direction});

  threads = codegen::stockhamThreads(n2);
  rows = rows_for(threads, n2);
  batches = outer * n1 * inner;
  launch(fourstep_rows_unit(n1, n2), {blocks_for(batches, rows), 1, 1},
         {uint32_t(threads), rows, 1}, size_t(rows) * n2 * sizeof(cfloat),
         {&data, &out, &twiddles2.get(), &batches, &inner, &direction});
}

}  // namespace

/// One of the three pointwise steps of a multi-pass Bluestein: entry(in,
/// out, table, count, n, m, inner) writes out[i] = Functor(in, table, ...)(i).
KernelSource bluestein_step_unit(const std::string& step) {
  std::map<std::string, std::string> values{{"$STEP", step}};
  std::string functor =
      step == "pad"      ? "BluesteinPadLoad<float>{in, table, n, m, inner}"
      : step == "filter" ? "BluesteinFilterLoad<float>{in, table, m}"
                         : "BluesteinFinishLoad<float>{in, table, n, m, inner}";
  return {fill(std::string(kPrelude) + R"(
extern "C" __global__ void fft_bluestein_$STEP(const cplx<float>* in, cplx<float>* out,
    const cplx<float>* table, long long count, int n, int m, int inner) {
  spectral_pointwise::pointwise_map<4, long long>(count, )" + functor + R"(,
      spectral_pointwise::Write<cplx<float>>{out});
}
)",
               values),
          fill("fft_bluestein_$STEP", values)};
}

namespace {

void run_pointwise_step(const std::string& step, void* in, void* out, void* table,
                        long long count, int n, int m, int inner) {
  uint32_t blocks = uint32_t(std::min<long long>((count + 1023) / 1024, 4096));
  launch(bluestein_step_unit(step), {std::max(blocks, 1u), 1, 1}, {256, 1, 1}, 0,
         {&in, &out, &table, &count, &n, &m, &inner});
}

/// Bluestein for lengths whose convolution does not fit a block: pad and
/// chirp into [lines, M], multi-pass FFT, filter, inverse multi-pass FFT,
/// chirp back into [outer, N, inner].
void run_bluestein_multipass(int n, void* data, int outer, int inner, bool forward) {
  int m = int(codegen::bluesteinLength(n));
  codegen::BluesteinTables tables = codegen::bluesteinTables(n, m, forward);
  Buffer chirp(to_float(tables.chirp)), filter(to_float(tables.filter));
  long long lines = (long long)outer * inner;
  std::vector<cfloat> zeros(size_t(lines) * m);
  Buffer scratch(zeros), spectrum(zeros);
  run_pointwise_step("pad", data, scratch.get(), chirp.get(), lines * m, n, m, inner);
  run_fourstep(m, scratch.get(), spectrum.get(), int(lines), 1, true);
  run_pointwise_step("filter", spectrum.get(), spectrum.get(), filter.get(), lines * m, n, m, 1);
  run_fourstep(m, spectrum.get(), scratch.get(), int(lines), 1, false);
  run_pointwise_step("finish", scratch.get(), data, chirp.get(), lines * n, n, m, inner);
}

}  // namespace

KernelSource stockham_unit(int n, bool double_precision) {
  std::map<std::string, std::string> values{
      {"$N", std::to_string(n)},
      {"$T", std::to_string(codegen::stockhamThreads(n))},
      {"$REAL", double_precision ? "double" : "float"}};
  return {fill(std::string(kPrelude) + R"(
extern "C" __global__ void fft_stockham_$REAL_$N(const cplx<$REAL>* in, cplx<$REAL>* out,
    const cplx<$REAL>* twiddles, int batches, int in_inner, int out_inner, int forward) {
  SPECTRAL_DYNAMIC_SHARED(cplx<$REAL>, shared);
  ComplexLoad<$REAL> load{in, AxisLayout{$N, in_inner}};
  ComplexStore<$REAL> store{out, AxisLayout{$N, out_inner}, $REAL(1)};
  if (forward)
    fft_batched<$N, $T, true>(shared, twiddles, batches, load, store);
  else
    fft_batched<$N, $T, false>(shared, twiddles, batches, load, store);
}
)",
               values),
          fill("fft_stockham_$REAL_$N", values)};
}

KernelSource bluestein_unit(int n) {
  int64_t m = codegen::bluesteinLength(n);
  std::map<std::string, std::string> values{{"$N", std::to_string(n)},
                                            {"$M", std::to_string(m)},
                                            {"$T", std::to_string(codegen::bluesteinThreads(m))}};
  return {fill(std::string(kPrelude) + R"(
extern "C" __global__ void fft_bluestein_$N(cplx<float>* data, const cplx<float>* twiddles_m,
    const cplx<float>* chirp, const cplx<float>* filter, int batches, int inner) {
  SPECTRAL_DYNAMIC_SHARED(cplx<float>, shared);
  AxisLayout layout{$N, inner};
  fft_bluestein_batched<$N, $M, $T>(shared, twiddles_m, chirp, filter, batches,
      ComplexLoad<float>{data, layout}, ComplexStore<float>{data, layout, 1.0f});
}
)",
               values),
          fill("fft_bluestein_$N", values)};
}

KernelSource fourstep_unit(int n1, int n2) {
  std::map<std::string, std::string> values{{"$N1", std::to_string(n1)},
                                            {"$N2", std::to_string(n2)},
                                            {"$T", std::to_string(codegen::stockhamThreads(n1))}};
  return {fill(std::string(kPrelude) + R"(
extern "C" __global__ void fft_fourstep_$N1x$N2(cplx<float>* data, const cplx<float>* twiddles,
    const cplx<float>* hi, const cplx<float>* lo, int shift, int batches, int inner, int forward) {
  SPECTRAL_DYNAMIC_SHARED(cplx<float>, shared);
  AxisLayout layout{$N1, $N2 * inner};
  ComplexLoad<float> load{data, layout};
  if (forward)
    fft_batched<$N1, $T, true>(shared, twiddles, batches, load,
        FourStepTwiddleStore<float, true>{data, layout, inner, hi, lo, shift});
  else
    fft_batched<$N1, $T, false>(shared, twiddles, batches, load,
        FourStepTwiddleStore<float, false>{data, layout, inner, hi, lo, shift});
}
)",
               values),
          fill("fft_fourstep_$N1x$N2", values)};
}

KernelSource fourstep_rows_unit(int n1, int n2) {
  std::map<std::string, std::string> values{{"$N1", std::to_string(n1)},
                                            {"$N2", std::to_string(n2)},
                                            {"$T", std::to_string(codegen::stockhamThreads(n2))}};
  return {fill(std::string(kPrelude) + R"(
extern "C" __global__ void fft_fourstep_rows_$N1x$N2(const cplx<float>* in, cplx<float>* out,
    const cplx<float>* twiddles, int batches, int inner, int forward) {
  SPECTRAL_DYNAMIC_SHARED(cplx<float>, shared);
  ComplexLoad<float> load{in, AxisLayout{$N2, inner}};
  FourStepTransposedStore<float> store{out, $N1, $N2, inner, 1.0f};
  if (forward)
    fft_batched<$N2, $T, true>(shared, twiddles, batches, load, store);
  else
    fft_batched<$N2, $T, false>(shared, twiddles, batches, load, store);
}
)",
               values),
          fill("fft_fourstep_rows_$N1x$N2", values)};
}

KernelSource real_step_unit(bool r2c) {
  std::map<std::string, std::string> values{{"$KIND", r2c ? "r2c" : "c2r"}};
  std::string functor = r2c ? "RealSpectrumFromHalfLoad<float>{in, twiddles_n, h}"
                            : "HalfFromRealSpectrumLoad<float>{in, twiddles_n, h}";
  return {fill(std::string(kPrelude) + R"(
extern "C" __global__ void fft_$KIND_unpack(const cplx<float>* in, cplx<float>* out,
    const cplx<float>* twiddles_n, long long count, int h) {
  spectral_pointwise::pointwise_map<4, long long>(count, )" + functor + R"(,
      spectral_pointwise::Write<cplx<float>>{out});
}
)",
               values),
          fill("fft_$KIND_unpack", values)};
}

namespace {

/// How a real transform of length n runs: packed into a complex FFT of n/2
/// (even n whose half has a Stockham plan), as a Stockham FFT of n, or
/// through Bluestein.
enum class RealStrategy { kPacked, kStockham, kBluestein, kPackedMultipass };

RealStrategy real_strategy(int n) {
  if (n % 2 == 0 && n / 2 > kMaxInBlockLength && fourstep_split(n / 2))
    return RealStrategy::kPackedMultipass;
  if (n % 2 == 0 && codegen::hasStockhamPlan(n / 2)) return RealStrategy::kPacked;
  return codegen::hasStockhamPlan(n) ? RealStrategy::kStockham : RealStrategy::kBluestein;
}

/// The complex transform length a real transform of length n runs.
int real_fft_length(int n) {
  switch (real_strategy(n)) {
    case RealStrategy::kPacked:
    case RealStrategy::kPackedMultipass: return n / 2;
    case RealStrategy::kStockham: return n;
    case RealStrategy::kBluestein: return int(codegen::bluesteinLength(n));
  }
  return n;
}

/// Threads of one block row of a real transform of length n.
int64_t real_threads(int n) {
  int length = real_fft_length(n);
  return real_strategy(n) == RealStrategy::kBluestein ? codegen::bluesteinThreads(length)
                                                      : codegen::stockhamThreads(length);
}

/// R2C (r2c) or C2R unit. Every strategy takes the same arguments:
/// entry(in, out, twiddles, twiddles_n, chirp, filter, batches); twiddles are
/// those of the complex length, the others may be null when unused.
KernelSource real_unit(int n, bool r2c) {
  RealStrategy strategy = real_strategy(n);
  int length = real_fft_length(n);
  std::map<std::string, std::string> values{
      {"$N", std::to_string(n)},       {"$H", std::to_string(n / 2 + 1)},
      {"$M", std::to_string(length)},  {"$T", std::to_string(real_threads(n))},
      {"$KIND", r2c ? "r2c" : "c2r"},  {"$IN", r2c ? "float" : "cplx<float>"},
      {"$OUT", r2c ? "cplx<float>" : "float"}};
  std::string load = r2c ? "RealAsComplexLoad<float>{in, AxisLayout{$N, 1}}"
                         : "HermitianLoad<float>{in, AxisLayout{$H, 1}, $N}";
  std::string store = r2c ? "TruncatingStore<float>{out, AxisLayout{$H, 1}, 1.0f}"
                          : "RealPartStore<float>{out, AxisLayout{$N, 1}, 1.0f}";
  std::string body;
  if (strategy == RealStrategy::kPacked)
    body = r2c ? "fft_r2c_batched<$N, $T>(shared, twiddles, twiddles_n, batches, "
                 "RealLoad<float>{in, AxisLayout{$N, 1}}, "
                 "ComplexStore<float>{out, AxisLayout{$H, 1}, 1.0f});"
               : "fft_c2r_batched<$N, $T>(shared, twiddles, twiddles_n, batches, "
                 "ComplexLoad<float>{in, AxisLayout{$H, 1}}, "
                 "RealStore<float>{out, AxisLayout{$N, 1}, 1.0f});";
  else if (strategy == RealStrategy::kStockham)
    body = std::string("fft_batched<$N, $T, ") + (r2c ? "true" : "false") +
           ">(shared, twiddles, batches, " + load + ", " + store + ");";
  else
    body = "fft_bluestein_batched<$N, $M, $T>(shared, twiddles, chirp, filter, batches, " + load +
           ", " + store + ");";
  return {fill(std::string(kPrelude) + R"(
extern "C" __global__ void fft_$KIND_$N(const $IN* in, $OUT* out, const cplx<float>* twiddles,
    const cplx<float>* twiddles_n, const cplx<float>* chirp, const cplx<float>* filter,
    int batches) {
  SPECTRAL_DYNAMIC_SHARED(cplx<float>, shared);
  )" + body + "\n}\n",
               values),
          fill("fft_$KIND_$N", values)};
}

/// Even lengths whose half needs a multi-pass FFT: pack, FFT, unpack.
template <typename Out, typename In>
std::vector<Out> run_real_multipass(bool r2c, const std::vector<In>& x, int batches, int n,
                                    int64_t out_count) {
  int h = n / 2;
  Buffer in(x), twiddles_n(to_float(codegen::fftTwiddles(n, h + 1)));
  std::vector<cfloat> zeros(size_t(batches) * h);
  Buffer half(zeros), transformed(zeros), out{std::vector<Out>(out_count)};
  long long count = (long long)batches * (r2c ? h + 1 : h);
  uint32_t blocks = uint32_t(std::min<long long>((count + 1023) / 1024, 4096));
  if (r2c) {
    run_fourstep(h, in.get(), transformed.get(), batches, 1, true);  // reals as pairs
    launch(real_step_unit(true), {blocks, 1, 1}, {256, 1, 1}, 0,
           {&transformed.get(), &out.get(), &twiddles_n.get(), &count, &h});
  } else {
    launch(real_step_unit(false), {blocks, 1, 1}, {256, 1, 1}, 0,
           {&in.get(), &half.get(), &twiddles_n.get(), &count, &h});
    run_fourstep(h, half.get(), out.get(), batches, 1, false);  // pairs as reals
  }
  return out.template read<Out>();
}

/// Launches the R2C or C2R unit of length n over `batches` lines.
template <typename Out, typename In>
std::vector<Out> run_real(bool r2c, const std::vector<In>& x, int batches, int n,
                          int64_t out_count) {
  if (real_strategy(n) == RealStrategy::kPackedMultipass)
    return run_real_multipass<Out>(r2c, x, batches, n, out_count);
  int length = real_fft_length(n);
  bool bluestein = real_strategy(n) == RealStrategy::kBluestein;
  int64_t threads = real_threads(n);
  uint32_t rows = bluestein ? 1 : rows_for(threads, length);
  codegen::BluesteinTables tables;
  if (bluestein) tables = codegen::bluesteinTables(n, length, r2c);
  Buffer in(x), out{std::vector<Out>(out_count)};
  Buffer twiddles(to_float(codegen::fftTwiddles(length, length)));
  Buffer twiddles_n(to_float(codegen::fftTwiddles(n, n / 2 + 1)));
  Buffer chirp(to_float(tables.chirp)), filter(to_float(tables.filter));
  launch(real_unit(n, r2c), {blocks_for(batches, rows), 1, 1}, {uint32_t(threads), rows, 1},
         size_t(rows) * length * sizeof(cfloat),
         {&in.get(), &out.get(), &twiddles.get(), &twiddles_n.get(), &chirp.get(), &filter.get(),
          &batches});
  return out.template read<Out>();
}

}  // namespace

KernelSource r2c_unit(int n) { return real_unit(n, true); }
KernelSource c2r_unit(int n) { return real_unit(n, false); }

std::vector<cfloat> run_r2c(const std::vector<float>& x, int batches, int n) {
  return run_real<cfloat>(true, x, batches, n, int64_t(batches) * (n / 2 + 1));
}

std::vector<float> run_c2r(const std::vector<cfloat>& x, int batches, int n) {
  return run_real<float>(false, x, batches, n, int64_t(batches) * n);
}

KernelSource dct_unit(int n, int type) {
  bool bluestein = !codegen::hasStockhamPlan(n);
  int length = bluestein ? int(codegen::bluesteinLength(n)) : n;
  std::map<std::string, std::string> values{{"$N", std::to_string(n)},
                                            {"$M", std::to_string(length)},
                                            {"$TYPE", std::to_string(type)},
                                            {"$T", std::to_string(bluestein ? codegen::bluesteinThreads(length)
                                                                            : codegen::stockhamThreads(length))}};
  std::string load = type == 2 ? "Dct2Load<float>{in, layout}"
                               : "Dct3Load<float>{in, layout, quarter}";
  std::string store = type == 2 ? "Dct2Store<float>{out, layout, quarter, 1.0f}"
                                : "Dct3Store<float>{out, layout, 1.0f}";
  std::string body =
      bluestein ? "fft_bluestein_batched<$N, $M, $T>(shared, twiddles, chirp, filter, batches, " +
                      load + ", " + store + ");"
                : std::string("fft_batched<$N, $T, ") + (type == 2 ? "true" : "false") +
                      ">(shared, twiddles, batches, " + load + ", " + store + ");";
  return {fill(std::string(kPrelude) + R"(
extern "C" __global__ void dct$TYPE_$N(const float* in, float* out, const cplx<float>* twiddles,
    const cplx<float>* quarter, const cplx<float>* chirp, const cplx<float>* filter,
    int batches) {
  SPECTRAL_DYNAMIC_SHARED(cplx<float>, shared);
  AxisLayout layout{$N, 1};
  )" + body + "\n}\n",
               values),
          fill("dct$TYPE_$N", values)};
}

std::vector<float> run_dct(const std::vector<float>& x, int batches, int n, int type) {
  bool bluestein = !codegen::hasStockhamPlan(n);
  int length = bluestein ? int(codegen::bluesteinLength(n)) : n;
  int64_t threads = bluestein ? codegen::bluesteinThreads(length) : codegen::stockhamThreads(length);
  uint32_t rows = bluestein ? 1 : rows_for(threads, n);
  codegen::BluesteinTables tables;
  if (bluestein) tables = codegen::bluesteinTables(n, length, type == 2);
  Buffer in(x), out{std::vector<float>(x.size())};
  Buffer twiddles(to_float(codegen::fftTwiddles(length, length)));
  Buffer quarter(to_float(codegen::fftTwiddles(4 * n, n)));
  Buffer chirp(to_float(tables.chirp)), filter(to_float(tables.filter));
  launch(dct_unit(n, type), {blocks_for(batches, rows), 1, 1}, {uint32_t(threads), rows, 1},
         size_t(rows) * length * sizeof(cfloat),
         {&in.get(), &out.get(), &twiddles.get(), &quarter.get(), &chirp.get(), &filter.get(),
          &batches});
  return out.read<float>();
}

std::vector<std::complex<double>> run_c2c_double(const std::vector<std::complex<double>>& x,
                                                 int batches, int n, bool forward) {
  int64_t threads = codegen::stockhamThreads(n);
  uint32_t rows = rows_for(threads, 2 * n);  // double the bytes per entry
  Buffer data(x), twiddles(codegen::fftTwiddles(n, n));
  int inner = 1, direction = forward;
  launch(stockham_unit(n, true), {blocks_for(batches, rows), 1, 1}, {uint32_t(threads), rows, 1},
         size_t(rows) * n * sizeof(std::complex<double>),
         {&data.get(), &data.get(), &twiddles.get(), &batches, &inner, &inner, &direction});
  return data.read<std::complex<double>>();
}

std::vector<cfloat> run_c2c(const std::vector<cfloat>& x, const std::vector<int>& shape,
                            const std::vector<int>& axes, bool forward) {
  std::vector<cfloat> data = x;
  for (int axis : axes) {
    int n = shape[axis], inner = 1, outer = 1;
    for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
    for (int d = 0; d < axis; ++d) outer *= shape[d];
    if (n == 1) continue;
    Buffer buffer(data);
    if (n <= kMaxInBlockLength && codegen::hasStockhamPlan(n)) {
      run_stockham(n, buffer.get(), buffer.get(), outer * inner, inner, inner, forward);
      data = buffer.read<cfloat>();
    } else if (codegen::bluesteinLength(n) <= kMaxInBlockBluestein) {
      run_bluestein(n, buffer.get(), outer * inner, inner, forward);
      data = buffer.read<cfloat>();
    } else if (!fourstep_split(n)) {
      run_bluestein_multipass(n, buffer.get(), outer, inner, forward);
      data = buffer.read<cfloat>();
    } else {
      Buffer out(data);
      run_fourstep(n, buffer.get(), out.get(), outer, inner, forward);
      data = out.read<cfloat>();
    }
  }
  return data;
}

}  // namespace spectral::testing
