// fft_units.cc - FFT instantiation units and their driver on HostDevice.
#include "tests/unit/kernels_templates/fft_units.h"

#include "compiler/Codegen/FftTables.h"
#include "runtime/device/host/host_device.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>

namespace spectral::testing {
namespace {

using cfloat = std::complex<float>;

const char* const kPrelude =
    "#include \"common.cuh\"\n"
    "#include \"fft_io.cuh\"\n"
    "#include \"fft_stockham.cuh\"\n"
    "#include \"fft_bluestein.cuh\"\n"
    "using namespace spectral_fft;\n";

/// `text` with every "$KEY" replaced by its value.
std::string fill(std::string text, const std::map<std::string, std::string>& values) {
  for (const auto& [key, value] : values)
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at))
      text.replace(at, key.size(), value);
  return text;
}

HostDevice& device() {
  static std::unique_ptr<HostDevice> host = [] {
    StatusOr<std::unique_ptr<HostDevice>> created = HostDevice::create();
    if (!created) {
      ADD_FAILURE() << created.status().message();
      std::abort();
    }
    return std::move(*created);
  }();
  return *host;
}

/// Loads each unit once per process.
const Kernel& kernel(const KernelSource& source) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<Kernel>> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  std::shared_ptr<Kernel>& slot = loaded[source.entry];
  if (!slot) {
    StatusOr<std::shared_ptr<Kernel>> k = device().load(source);
    if (!k) {
      ADD_FAILURE() << source.entry << ": " << k.status().message();
      std::abort();
    }
    slot = *k;
  }
  return *slot;
}

/// A device copy of host values, released on scope exit.
class Buffer {
 public:
  template <typename T>
  explicit Buffer(const std::vector<T>& values) : bytes_(values.size() * sizeof(T)) {
    StatusOr<void*> memory = device().allocate(std::max<size_t>(bytes_, 1));
    EXPECT_TRUE(memory.is_ok()) << memory.status().message();
    pointer_ = *memory;
    EXPECT_TRUE(device().copy_to_device(pointer_, values.data(), bytes_).is_ok());
  }
  ~Buffer() { EXPECT_TRUE(device().release(pointer_).is_ok()); }
  void*& get() { return pointer_; }
  template <typename T>
  std::vector<T> read() const {
    std::vector<T> values(bytes_ / sizeof(T));
    EXPECT_TRUE(device().copy_to_host(values.data(), pointer_, bytes_).is_ok());
    return values;
  }

 private:
  size_t bytes_;
  void* pointer_ = nullptr;
};

std::vector<cfloat> to_float(const std::vector<std::complex<double>>& values) {
  return std::vector<cfloat>(values.begin(), values.end());
}

void launch(const KernelSource& source, Dim3 grid, Dim3 block, size_t shared_bytes,
            std::vector<void*> args) {
  Status status = device().launch(kernel(source), grid, block, shared_bytes, args.data());
  ASSERT_TRUE(status.is_ok()) << status.message();
}

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
  launch(bluestein_unit(n), {uint32_t(batches), 1, 1}, {uint32_t(codegen::stockhamThreads(m)), 1, 1},
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

/// Lines of length n = n1 n2, contiguous: column transforms with the
/// twiddle in place, then row transforms written transposed into `out`.
void run_fourstep(int n, void* data, void* out, int lines, bool forward) {
  int n1 = fourstep_split(n), n2 = n / n1;
  ASSERT_GT(n1, 0) << "no four-step split for " << n;
  int shift = 0;
  while ((int64_t(1) << (2 * shift)) < n) ++shift;
  std::vector<std::complex<double>> hi((n >> shift) + 1), lo(int64_t(1) << shift);
  std::vector<std::complex<double>> roots = codegen::fftTwiddles(n, n);
  for (size_t j = 0; j < hi.size(); ++j) hi[j] = roots[(int64_t(j) << shift) % n];
  for (size_t j = 0; j < lo.size(); ++j) lo[j] = roots[j % n];
  Buffer hi_table(to_float(hi)), lo_table(to_float(lo));
  Buffer twiddles(to_float(codegen::fftTwiddles(n1, n1)));
  int64_t threads = codegen::stockhamThreads(n1);
  uint32_t rows = rows_for(threads, n1);
  int batches = lines * n2, direction = forward;
  launch(fourstep_unit(n1, n2), {blocks_for(batches, rows), 1, 1}, {uint32_t(threads), rows, 1},
         size_t(rows) * n1 * sizeof(cfloat),
         {&data, &twiddles.get(), &hi_table.get(), &lo_table.get(), &shift, &batches, &direction});
  run_stockham(n2, data, out, lines * n1, 1, n1, forward);
}

}  // namespace

KernelSource stockham_unit(int n) {
  std::map<std::string, std::string> values{
      {"$N", std::to_string(n)}, {"$T", std::to_string(codegen::stockhamThreads(n))}};
  return {fill(std::string(kPrelude) + R"(
extern "C" __global__ void fft_stockham_$N(const cplx<float>* in, cplx<float>* out,
    const cplx<float>* twiddles, int batches, int in_inner, int out_inner, int forward) {
  SPECTRAL_DYNAMIC_SHARED(cplx<float>, shared);
  ComplexLoad<float> load{in, AxisLayout{$N, in_inner}};
  ComplexStore<float> store{out, AxisLayout{$N, out_inner}, 1.0f};
  if (forward)
    fft_batched<$N, $T, true>(shared, twiddles, batches, load, store);
  else
    fft_batched<$N, $T, false>(shared, twiddles, batches, load, store);
}
)",
               values),
          fill("fft_stockham_$N", values)};
}

KernelSource bluestein_unit(int n) {
  int64_t m = codegen::bluesteinLength(n);
  std::map<std::string, std::string> values{{"$N", std::to_string(n)},
                                            {"$M", std::to_string(m)},
                                            {"$T", std::to_string(codegen::stockhamThreads(m))}};
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
    const cplx<float>* hi, const cplx<float>* lo, int shift, int batches, int forward) {
  SPECTRAL_DYNAMIC_SHARED(cplx<float>, shared);
  AxisLayout layout{$N1, $N2};
  ComplexLoad<float> load{data, layout};
  if (forward)
    fft_batched<$N1, $T, true>(shared, twiddles, batches, load,
        FourStepTwiddleStore<float, true>{data, layout, hi, lo, shift});
  else
    fft_batched<$N1, $T, false>(shared, twiddles, batches, load,
        FourStepTwiddleStore<float, false>{data, layout, hi, lo, shift});
}
)",
               values),
          fill("fft_fourstep_$N1x$N2", values)};
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
    } else if (n <= kMaxInBlockLength || !fourstep_split(n)) {
      run_bluestein(n, buffer.get(), outer * inner, inner, forward);
      data = buffer.read<cfloat>();
    } else {
      EXPECT_EQ(inner, 1) << "four-step along a strided axis is not implemented";
      Buffer out(data);
      run_fourstep(n, buffer.get(), out.get(), outer, forward);
      data = out.read<cfloat>();
    }
  }
  return data;
}

}  // namespace spectral::testing
