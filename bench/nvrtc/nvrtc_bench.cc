// spectral-nvrtc-bench [runs] - NVRTC cold compile time per kernel.
//
// The kernel cache is off (SPECTRAL_CACHE=off), so every call of
// NvrtcCompiler::compile is a full NVRTC compile (front end + ptxas for
// CUBIN). The first compile in a process pays a one-time start-up cost and is
// printed on its own; the table shows, per kernel and target, the median over
// `runs` further compiles (default 7) of wall time and of process CPU time
// (the CPU figure is the steadier one on a shared, busy machine).
#include "runtime/cache/kernel_cache.h"
#include "runtime/device/cuda/nvrtc_compiler.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

using namespace spectral;

namespace {

const std::vector<KernelSource> kKernels = {
    {R"(
extern "C" __global__ void saxpy(float* y, const float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
)", "saxpy"},
    {R"(
extern "C" __global__ void reverse_block(float* out, const float* in) {
  __shared__ float tile[256];
  unsigned base = blockIdx.x * 256;
  tile[threadIdx.x] = in[base + threadIdx.x];
  __syncthreads();
  out[base + threadIdx.x] = tile[255 - threadIdx.x];
}
)", "reverse_block"},
    {R"(
extern "C" __global__ void block_sum(float* out, const float* in, int n) {
  __shared__ float partial[32];
  float sum = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    sum += in[i];
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(~0u, sum, offset);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    sum = threadIdx.x < blockDim.x / 32 ? partial[threadIdx.x] : 0;
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(~0u, sum, offset);
    if (threadIdx.x == 0) atomicAdd(out, sum);
  }
}
)", "block_sum"},
    {R"(
template <int Tile>
__device__ void matmul_tile(float* c, const float* a, const float* b, int n) {
  __shared__ float as[Tile][Tile], bs[Tile][Tile];
  int row = blockIdx.y * Tile + threadIdx.y, col = blockIdx.x * Tile + threadIdx.x;
  float sum = 0;
  for (int k0 = 0; k0 < n; k0 += Tile) {
    as[threadIdx.y][threadIdx.x] = a[row * n + k0 + threadIdx.x];
    bs[threadIdx.y][threadIdx.x] = b[(k0 + threadIdx.y) * n + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < Tile; ++k) sum += as[threadIdx.y][k] * bs[k][threadIdx.x];
    __syncthreads();
  }
  c[row * n + col] = sum;
}
extern "C" __global__ void matmul_32(float* c, const float* a, const float* b, int n) {
  matmul_tile<32>(c, a, b, n);
}
)", "matmul_32"},
    {R"(
struct Complex { float re, im; };
__device__ Complex operator+(Complex a, Complex b) { return {a.re + b.re, a.im + b.im}; }
__device__ Complex operator*(Complex a, Complex b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
__device__ Complex unit(float turns) { float s, c; sincospif(2 * turns, &s, &c); return {c, s}; }

// Stockham autosort, radix R, one transform of length N per block in shared memory.
template <int N, int R>
__device__ Complex* stockham(Complex* x, Complex* y) {
  for (int stride = 1; stride < N; stride *= R) {
    for (int j = threadIdx.x; j < N / R; j += blockDim.x) {
      int k = j % stride;
      Complex v[R], w[R];
#pragma unroll
      for (int r = 0; r < R; ++r) v[r] = x[j + r * (N / R)] * unit(-float(k * r) / (stride * R));
#pragma unroll
      for (int q = 0; q < R; ++q) {
        w[q] = {0, 0};
#pragma unroll
        for (int r = 0; r < R; ++r) w[q] = w[q] + v[r] * unit(-float(q * r) / R);
      }
      int base = (j / stride) * stride * R + k;
#pragma unroll
      for (int q = 0; q < R; ++q) y[base + q * stride] = w[q];
    }
    __syncthreads();
    Complex* t = x; x = y; y = t;
  }
  return x;
}
extern "C" __global__ void fft_1024(Complex* data) {
  __shared__ Complex a[1024], b[1024];
  Complex* row = data + blockIdx.x * 1024;
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) a[i] = row[i];
  __syncthreads();
  Complex* result = stockham<1024, 4>(a, b);
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) row[i] = result[i];
}
)", "fft_1024"},
};

struct Target {
  const char* label;
  const char* arch;
  NvrtcOutput output;
};
const Target kTargets[] = {{"sm_80 cubin", "sm_80", NvrtcOutput::kCubin},
                           {"sm_90 cubin", "sm_90", NvrtcOutput::kCubin},
                           {"compute_80 ptx", "sm_80", NvrtcOutput::kPtx}};

double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

double cpu_milliseconds() {
  timespec now;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return now.tv_sec * 1e3 + now.tv_nsec * 1e-6;
}

struct Timing {
  double wall_ms = 0, cpu_ms = 0;
};

/// One compile's wall and CPU time; exits on a compile error.
Timing time_compile(const NvrtcCompiler& compiler, const KernelSource& kernel,
                    const NvrtcOptions& options, CompiledKernel* result = nullptr) {
  auto start = std::chrono::steady_clock::now();
  double cpu_start = cpu_milliseconds();
  StatusOr<CompiledKernel> compiled = compiler.compile(kernel, options);
  Timing timing{milliseconds_since(start), cpu_milliseconds() - cpu_start};
  if (!compiled) {
    std::fprintf(stderr, "%s\n", compiled.status().message().c_str());
    std::exit(1);
  }
  if (result) *result = std::move(*compiled);
  return timing;
}

double median(std::vector<double> values) {
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int runs = argc > 1 ? std::atoi(argv[1]) : 7;
  if (runs < 1) runs = 1;
  setenv("SPECTRAL_CACHE", "off", 1);
  if (KernelCache::global().options().mode != CacheMode::kOff) {
    std::fprintf(stderr, "the kernel cache did not turn off\n");
    return 1;
  }

  auto start = std::chrono::steady_clock::now();
  StatusOr<NvrtcCompiler> compiler = NvrtcCompiler::create();
  StatusOr<std::string> version = compiler ? compiler->version() : compiler.status();
  double load_ms = milliseconds_since(start);
  if (!version) {
    std::fprintf(stderr, "%s\n", version.status().message().c_str());
    return 1;
  }
  NvrtcOptions first_options;
  Timing first = time_compile(*compiler, kKernels[0], first_options);
  std::printf("%s (%s), cache off, median of %d runs per cell\n", version->c_str(),
              compiler->library_path().c_str(), runs);
  std::printf("find and load NVRTC (dlopen + version): %.1f ms\n", load_ms);
  std::printf("first compile in the process (%s, sm_80 cubin): %.1f ms wall, %.1f ms cpu\n\n",
              kKernels[0].entry.c_str(), first.wall_ms, first.cpu_ms);
  std::printf("milliseconds, wall/cpu\n");

  std::printf("%-14s", "kernel");
  for (const Target& target : kTargets) std::printf(" %15s", target.label);
  std::printf("   regs smem(sm_80)\n");
  for (const KernelSource& kernel : kKernels) {
    std::printf("%-14s", kernel.entry.c_str());
    CompiledKernel sm80;
    for (const Target& target : kTargets) {
      NvrtcOptions options;
      options.arch = target.arch;
      options.output = target.output;
      std::vector<double> wall, cpu;
      for (int run = 0; run < runs; ++run) {
        bool keep = target.output == NvrtcOutput::kCubin && !sm80.is_cubin;
        Timing timing = time_compile(*compiler, kernel, options, keep ? &sm80 : nullptr);
        wall.push_back(timing.wall_ms);
        cpu.push_back(timing.cpu_ms);
      }
      std::printf(" %7.1f/%-7.1f", median(wall), median(cpu));
    }
    const ResourceUsage* usage = sm80.usage_of(kernel.entry);
    std::printf("   %4lld %5lld\n", usage ? (long long)usage->registers : -1LL,
                usage ? (long long)usage->shared_bytes : -1LL);
  }
  return 0;
}
