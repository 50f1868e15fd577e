// fft_stockham.cuh - one FFT of length N held in shared memory, per block row.
//
// Stockham autosort, mixed radix (8, 4, 2, 3, 5, 7; the plan is computed at
// compile time from N). Stage s with radix R and Ns = product of the earlier
// radices: work item j in [0, N/R) reads x[j + r N/R] (r < R), multiplies by
// the twiddle w^(r * (j mod Ns) * N/(Ns R)), runs the radix-R butterfly in
// registers and writes y[(j / Ns) Ns R + (j mod Ns) + r Ns]. Every work item
// of a stage is read before any is written (one barrier), so one buffer of N
// elements suffices; a second barrier closes the stage.
//
// Twiddles come from a table of N entries w_N^m = exp(-2 pi i m / N),
// computed in double on the host: accurate for any N, unlike sinf of large
// angles. The inverse transform uses their conjugates.
#pragma once

#include "fft_complex.cuh"
#include "fft_radix.cuh"

namespace spectral_fft {

/// The radices of a length: greedy 8s, then one 4 or 2, then 3, 5, 7.
/// count == 0 when N has a prime factor above 7 (Bluestein's case). The
/// planner's stockhamRadices (compiler/Planning/FftTables.h) must agree: a
/// test compares them for every length a block holds.
struct Plan {
  int count;
  int radix[32];
};

__host__ __device__ constexpr Plan make_plan(int n) {
  Plan plan{0, {}};
  while (n % 8 == 0 && n > 1) { plan.radix[plan.count++] = 8; n /= 8; }
  if (n % 4 == 0) { plan.radix[plan.count++] = 4; n /= 4; }
  if (n % 2 == 0) { plan.radix[plan.count++] = 2; n /= 2; }
  const int odd[3] = {3, 5, 7};
  for (int i = 0; i < 3; ++i)
    while (n % odd[i] == 0) { plan.radix[plan.count++] = odd[i]; n /= odd[i]; }
  if (n != 1) plan.count = 0;
  return plan;
}

__host__ __device__ constexpr bool has_plan(int n) { return n == 1 || make_plan(n).count > 0; }

/// Product of the radices before stage s.
__host__ __device__ constexpr int stride_before(const Plan& plan, int s) {
  int product = 1;
  for (int i = 0; i < s; ++i) product *= plan.radix[i];
  return product;
}

/// Threads one transform uses: N / (largest radix), at most 512 so that two
/// blocks fit an SM's 64K registers at up to 64 registers per thread; beyond
/// that each thread takes several work items per stage.
__host__ __device__ constexpr int threads_for(int n) {
  Plan plan = make_plan(n);
  int largest = 1;
  for (int i = 0; i < plan.count; ++i) largest = plan.radix[i] > largest ? plan.radix[i] : largest;
  return n / largest < 512 ? n / largest : 512;
}

/// One Stockham stage over `x` (N entries in shared memory), by the THREADS
/// threads t in [0, THREADS) of one transform. An inactive thread touches
/// nothing and only meets the barriers.
template <int N, int THREADS, int R, int NS, bool FORWARD, typename T>
__device__ __forceinline__ void stockham_stage(cplx<T>* x, const cplx<T>* __restrict__ twiddles,
                                               int t, bool active) {
  constexpr int W = N / R;                          // work items this stage
  constexpr int ITEMS = (W + THREADS - 1) / THREADS;  // per thread
  constexpr int TWIDDLE_STEP = N / (NS * R);
  cplx<T> v[ITEMS][R];
#pragma unroll
  for (int it = 0; it < ITEMS; ++it) {
    int j = t + it * THREADS;
    if (active && (ITEMS * THREADS == W || j < W)) {
#pragma unroll
      for (int r = 0; r < R; ++r) v[it][r] = x[j + r * W];
      if (NS > 1) {
        int k = j % NS;
#pragma unroll
        for (int r = 1; r < R; ++r) {
          cplx<T> w = twiddles[k * r * TWIDDLE_STEP];  // < N since k < NS, r < R
          v[it][r] = v[it][r] * (FORWARD ? w : conj(w));
        }
      }
      butterfly<R, FORWARD>(v[it]);
    }
  }
  __syncthreads();
#pragma unroll
  for (int it = 0; it < ITEMS; ++it) {
    int j = t + it * THREADS;
    if (active && (ITEMS * THREADS == W || j < W)) {
      int base = (j / NS) * NS * R + j % NS;
#pragma unroll
      for (int r = 0; r < R; ++r) x[base + r * NS] = v[it][r];
    }
  }
  __syncthreads();
}

template <int N, int THREADS, bool FORWARD, int S, typename T>
__device__ __forceinline__ void stockham_stages(cplx<T>* x, const cplx<T>* __restrict__ twiddles,
                                                int t, bool active) {
  constexpr Plan plan = make_plan(N);
  if constexpr (S < plan.count) {
    stockham_stage<N, THREADS, plan.radix[S], stride_before(plan, S), FORWARD>(x, twiddles, t,
                                                                               active);
    stockham_stages<N, THREADS, FORWARD, S + 1>(x, twiddles, t, active);
  }
}

/// In-place FFT of x[0, N) in shared memory by threads t in [0, THREADS);
/// every thread of the block must call it (it has barriers), those with
/// `active` false doing nothing else (a block running several transforms at
/// once, with fewer left than it has thread groups). Unscaled.
template <int N, int THREADS, bool FORWARD, typename T>
__device__ __forceinline__ void fft_shared(cplx<T>* x, const cplx<T>* __restrict__ twiddles, int t,
                                           bool active = true) {
  static_assert(has_plan(N), "N needs a prime factor above 7: use Bluestein");
  stockham_stages<N, THREADS, FORWARD, 0>(x, twiddles, t, active);
}

/// Runs `transform(k, t, active)` on the `count` lines of a phase, `at_once`
/// at a time by thread groups of `threads`; every thread of the block calls
/// `transform` the same number of times (the FFTs inside have barriers).
template <int THREADS, typename Transform>
__device__ __forceinline__ void each_line(int count, int threads, int at_once, Transform transform) {
  const int f = threadIdx.x, group = f / threads, t = f - group * threads;
  for (int base = 0; base < count; base += at_once) {
    const int line = base + group;
    transform(line, t, group < at_once && line < count);
  }
}

/// Batched C2C FFT: block row y (threadIdx.y) transforms batch entry
/// blockIdx.x * blockDim.y + threadIdx.y. `load(batch, i)` and
/// `store(batch, i, value)` are the fused prologue/epilogue: they decide
/// where data lives (strided axes, scaling, gathers). `shared` holds
/// blockDim.y * N entries. blockDim.x must be THREADS.
template <int N, int THREADS, bool FORWARD, typename T, typename Load, typename Store>
__device__ void fft_batched(cplx<T>* shared, const cplx<T>* __restrict__ twiddles, int batches,
                            Load load, Store store) {
  int t = threadIdx.x;
  int batch = blockIdx.x * blockDim.y + threadIdx.y;
  bool active = batch < batches;
  cplx<T>* x = shared + threadIdx.y * N;
  if (active)
    for (int i = t; i < N; i += THREADS) x[i] = load(batch, i);
  __syncthreads();
  fft_shared<N, THREADS, FORWARD>(x, twiddles, t, active);  // a row past the batch loaded nothing
  if (active)
    for (int i = t; i < N; i += THREADS) store(batch, i, x[i]);
}

/// A spectral filter in one block: each line is loaded, transformed,
/// filtered bin by bin (`filter(batch, k, X_k)` returns the new bin, with
/// whatever scaling it applies), transformed back (unscaled) and stored, so
/// the spectrum never leaves shared memory. Launched as fft_batched.
template <int N, int THREADS, typename T, typename Load, typename Filter, typename Store>
__device__ void fft_roundtrip_batched(cplx<T>* shared, const cplx<T>* __restrict__ twiddles,
                                      int batches, Load load, Filter filter, Store store) {
  int t = threadIdx.x;
  int batch = blockIdx.x * blockDim.y + threadIdx.y;
  bool active = batch < batches;
  cplx<T>* x = shared + threadIdx.y * N;
  if (active)
    for (int i = t; i < N; i += THREADS) x[i] = load(batch, i);
  __syncthreads();
  fft_shared<N, THREADS, true>(x, twiddles, t, active);  // ends with a barrier
  if (active)
    for (int k = t; k < N; k += THREADS) x[k] = filter(batch, k, x[k]);
  __syncthreads();  // the inverse's first stage reads bins other threads filtered
  fft_shared<N, THREADS, false>(x, twiddles, t, active);
  if (active)
    for (int i = t; i < N; i += THREADS) store(batch, i, x[i]);
}

}  // namespace spectral_fft
