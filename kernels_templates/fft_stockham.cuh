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
//
// Host: fft_batched and fft_roundtrip_batched have a phased form
// (host_emulation.h, "Phased kernels"): fft_phased runs each stage as a loop
// over its work items, a SIMD width of them at once (host_lanes.h).
// Both take runs of blocks (SPECTRAL_HOST_PHASED_RUNS), as do fft_real.cuh's
// and fft_bluestein.cuh's forms: with at least a SIMD width of lines in the
// run they transform that many at once, a lane each (batches_as_lines,
// fft_lines), so that lines that are neighbours in memory (a strided axis,
// the four-step passes) are read and written together, and lines that are
// runs (a last axis) are read and written V entries a lane at once, turned
// between runs and lanes in registers (host_lanes.h's transpose).
#pragma once

#include "common.cuh"  // SPECTRAL_HOST_PHASED, for the units of the phased forms
#include "fft_complex.cuh"
#include "fft_radix.cuh"
#if defined(SPECTRAL_HOST_EMULATION)
#include <utility>  // std::declval

#include "fft_io.cuh"  // has_put_run
#include "host_lanes.h"
#endif

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

/// A Stockham work item's arithmetic: inputs v[r] times w[r] (conjugated for
/// the inverse) after the first stage, then the radix-R butterfly. T may be a
/// real or the phased form's lanes of reals (host_lanes.h).
template <int R, int NS, bool FORWARD, typename T>
__device__ __forceinline__ void twiddled_butterfly(cplx<T> (&v)[R], const cplx<T> (&w)[R]) {
  if (NS > 1) {
#pragma unroll
    for (int r = 1; r < R; ++r) v[r] = v[r] * (FORWARD ? w[r] : conj(w[r]));
  }
  butterfly<R, FORWARD>(v);
}

/// Work item j = g NS + k of a Stockham stage with radix R after NS: its R
/// inputs from `x`, twiddled, through the butterfly, into `v`.
template <int N, int R, int NS, bool FORWARD, typename T>
__device__ __forceinline__ void stockham_item(const cplx<T>* x,
                                              const cplx<T>* __restrict__ twiddles, int j, int k,
                                              cplx<T> (&v)[R]) {
  constexpr int W = N / R;
  constexpr int TWIDDLE_STEP = N / (NS * R);
  cplx<T> w[R];
#pragma unroll
  for (int r = 0; r < R; ++r) {
    v[r] = x[j + r * W];
    if (NS > 1 && r > 0) w[r] = twiddles[k * r * TWIDDLE_STEP];  // < N since k < NS, r < R
  }
  twiddled_butterfly<R, NS, FORWARD>(v, w);
}

/// Work item g NS + k's R outputs into `y`.
template <int R, int NS, typename T>
__device__ __forceinline__ void stockham_put(cplx<T>* y, int g, int k, const cplx<T> (&v)[R]) {
  int base = g * NS * R + k;
#pragma unroll
  for (int r = 0; r < R; ++r) y[base + r * NS] = v[r];
}

/// One Stockham stage over `x` (N entries in shared memory), by the THREADS
/// threads t in [0, THREADS) of one transform. An inactive thread touches
/// nothing and only meets the barriers.
template <int N, int THREADS, int R, int NS, bool FORWARD, typename T>
__device__ __forceinline__ void stockham_stage(cplx<T>* x, const cplx<T>* __restrict__ twiddles,
                                               int t, bool active) {
  constexpr int W = N / R;                          // work items this stage
  constexpr int ITEMS = (W + THREADS - 1) / THREADS;  // per thread
  cplx<T> v[ITEMS][R];
#pragma unroll
  for (int it = 0; it < ITEMS; ++it) {
    int j = t + it * THREADS;
    if (active && (ITEMS * THREADS == W || j < W))
      stockham_item<N, R, NS, FORWARD>(x, twiddles, j, j % NS, v[it]);
  }
  __syncthreads();
#pragma unroll
  for (int it = 0; it < ITEMS; ++it) {
    int j = t + it * THREADS;
    if (active && (ITEMS * THREADS == W || j < W)) stockham_put<R, NS>(x, j / NS, j % NS, v[it]);
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

#if defined(SPECTRAL_HOST_EMULATION)
/// What the phased form of length N keeps on each OS thread: the buffer it
/// writes every other stage into, and the twiddles of the stages after the
/// first laid out for lanes along k (stage S's entry (r - 1) NS + k is
/// twiddles[k r N / (NS R)], so neighbouring k read neighbouring entries).
/// The layout holds copies of the table's values: the same numbers.
template <int N, typename T>
struct PhasedFft {
  static constexpr int offset(int stage) {
    Plan plan = make_plan(N);
    int total = 0;
    for (int s = 1; s < stage; ++s) total += (plan.radix[s] - 1) * stride_before(plan, s);
    return total;
  }
  static constexpr int kStaged = offset(make_plan(N).count) > 0 ? offset(make_plan(N).count) : 1;

  cplx<T> scratch[N];
  cplx<T> staged[kStaged];

  /// Lays out `twiddles` (N entries) into `staged`.
  void stage(const cplx<T>* __restrict__ twiddles) {
    constexpr Plan plan = make_plan(N);
    for (int s = 1; s < plan.count; ++s) {
      const int radix = plan.radix[s], ns = stride_before(plan, s), step = N / (ns * radix);
      cplx<T>* out = staged + offset(s);
      for (int r = 1; r < radix; ++r)
        for (int k = 0; k < ns; ++k) out[(r - 1) * ns + k] = twiddles[k * r * step];
    }
  }
};

/// V work items of stage S (radix R after NS) at once, one per lane of
/// host_lanes.h's wide_lanes: lane l takes g0 + l DG, k0 + l DK. Their
/// inputs from x, outputs into y; the arithmetic is stockham_item's.
template <int N, int S, int R, int NS, bool FORWARD, int DG, int DK, typename T>
__forceinline__ void stockham_lanes(const cplx<T>* x, cplx<T>* y, const PhasedFft<N, T>& state,
                                    const cplx<T>* __restrict__ twiddles, int g0, int k0) {
  using L = ::spectral_host::wide_lanes<T>;
  constexpr int V = L::size, W = N / R, TWIDDLE_STEP = N / (NS * R);
  // Neighbouring lanes read neighbouring inputs along k, or along g in the
  // first stage; they write neighbouring outputs along k.
  constexpr bool CONTIGUOUS_IN = DK == 1 || NS == 1, CONTIGUOUS_OUT = DK == 1;
  cplx<L> v[R], w[R];
  for (int r = 0; r < R; ++r) {
    if constexpr (CONTIGUOUS_IN) {
      ::spectral_host::load_pairs(&x[g0 * NS + k0 + r * W].re, v[r].re, v[r].im);
    } else {
      for (int l = 0; l < V; ++l) {
        const cplx<T> a = x[(g0 + l) * NS + k0 + r * W];
        v[r].re[l] = a.re;
        v[r].im[l] = a.im;
      }
    }
    if constexpr (NS > 1 && DK == 1) {  // lanes along k: the staged layout
      if (r > 0) {
        const cplx<T>* staged = state.staged + PhasedFft<N, T>::offset(S) + (r - 1) * NS + k0;
        ::spectral_host::load_pairs(&staged->re, w[r].re, w[r].im);
      }
    } else if constexpr (NS > 1) {  // one k: one twiddle for every lane
      w[r] = broadcast<L>(twiddles[k0 * r * TWIDDLE_STEP]);
    }
  }
  twiddled_butterfly<R, NS, FORWARD>(v, w);
  for (int r = 0; r < R; ++r) {
    if constexpr (CONTIGUOUS_OUT) {
      ::spectral_host::store_pairs(&y[g0 * NS * R + k0 + r * NS].re, v[r].re, v[r].im);
    } else {
      for (int l = 0; l < V; ++l)
        y[(g0 + l) * NS * R + k0 + r * NS] = make_cplx<T>(v[r].re[l], v[r].im[l]);
    }
  }
}

/// The phased form of fft_shared (host_emulation.h): the whole transform of
/// x[0, N) by one caller, each stage a loop over its work items, reading one
/// buffer and writing the other (x and state.scratch). The same items,
/// twiddles and butterflies as fft_shared, so the same results; `state`
/// must have staged `twiddles`. Returns the buffer holding the transform.
template <int N, bool FORWARD, int S = 0, typename T>
__forceinline__ cplx<T>* fft_phased(cplx<T>* x, cplx<T>* other, const PhasedFft<N, T>& state,
                                    const cplx<T>* __restrict__ twiddles) {
  constexpr Plan plan = make_plan(N);
  if constexpr (S < plan.count) {
    constexpr int R = plan.radix[S], NS = stride_before(plan, S), G = N / (R * NS);
    constexpr int V = ::spectral_host::wide_lanes<T>::size;
    if constexpr (NS % V == 0) {  // V neighbouring k at once
      for (int g = 0; g < G; ++g)
        for (int k = 0; k < NS; k += V)
          stockham_lanes<N, S, R, NS, FORWARD, 0, 1>(x, other, state, twiddles, g, k);
    } else if constexpr (G % V == 0) {  // V neighbouring g at once
      for (int k = 0; k < NS; ++k)
        for (int g = 0; g < G; g += V)
          stockham_lanes<N, S, R, NS, FORWARD, 1, 0>(x, other, state, twiddles, g, k);
    } else {
      for (int g = 0; g < G; ++g) {
        for (int k = 0; k < NS; ++k) {
          cplx<T> v[R];
          stockham_item<N, R, NS, FORWARD>(x, twiddles, g * NS + k, k, v);
          stockham_put<R, NS>(other, g, k, v);
        }
      }
    }
    return fft_phased<N, FORWARD, S + 1>(other, x, state, twiddles);
  } else {
    return x;
  }
}

/// fft_phased of V lines at once (V = L::size): entry i of line l is lane l
/// of x[i] (lanes<T, V>). Each stage takes fft_shared's items, twiddles and
/// butterflies, lane by lane, so each lane's result is its line's
/// fft_shared result. Reads one buffer and writes the other (x and
/// `other`, N entries each); returns the buffer holding the transform.
template <int N, bool FORWARD, int S = 0, typename L, typename T>
__forceinline__ cplx<L>* fft_lines(cplx<L>* x, cplx<L>* other,
                                   const cplx<T>* __restrict__ twiddles) {
  static_assert(has_plan(N), "N needs a prime factor above 7: use Bluestein");
  constexpr Plan plan = make_plan(N);
  if constexpr (S < plan.count) {
    constexpr int R = plan.radix[S], NS = stride_before(plan, S), G = N / (R * NS), W = N / R;
    constexpr int TWIDDLE_STEP = N / (NS * R);
    for (int g = 0; g < G; ++g)
      for (int k = 0; k < NS; ++k) {
        cplx<L> v[R], w[R];
        for (int r = 0; r < R; ++r) {
          v[r] = x[g * NS + k + r * W];
          if (NS > 1 && r > 0) w[r] = broadcast<L>(twiddles[k * r * TWIDDLE_STEP]);
        }
        twiddled_butterfly<R, NS, FORWARD>(v, w);
        stockham_put<R, NS>(other, g, k, v);
      }
    return fft_lines<N, FORWARD, S + 1>(other, x, twiddles);
  } else {
    return x;
  }
}

/// This OS thread's PhasedFft of length N, `twiddles` staged into it.
template <int N, typename T>
__forceinline__ PhasedFft<N, T>& phased_state(const cplx<T>* __restrict__ twiddles) {
  static thread_local PhasedFft<N, T> state;
  state.stage(twiddles);
  return state;
}

/// This OS thread's two buffers of N entries of V lanes for fft_lines.
template <int N, typename T>
struct LinesOf {
  using L = ::spectral_host::wide_lanes<T>;
  cplx<L> lines[N], other[N];
  static LinesOf& here() {
    static thread_local LinesOf buffers;
    return buffers;
  }
};

/// The phased forms' transforms of a block's COUNT lines of N entries, V at
/// once, a lane each (the last line again past COUNT): entry i of line k is
/// get(k, i), and put(k, i, value) takes each result (a group's entries are
/// all read before its results are put, so a line may be transformed in
/// place); `lines` and `other` hold N entries each.
template <int N, int COUNT, bool FORWARD, typename T, typename L, typename Get, typename Put>
__forceinline__ void each_line_phased(cplx<L>* lines, cplx<L>* other,
                                      const cplx<T>* __restrict__ twiddles, Get get, Put put) {
  constexpr int V = L::size;
  for (int k0 = 0; k0 < COUNT; k0 += V) {
    for (int i = 0; i < N; ++i)
      for (int l = 0; l < V; ++l) {
        const int k = k0 + l < COUNT ? k0 + l : COUNT - 1;
        set_lane(lines[i], l, get(k, i));
      }
    const cplx<L>* y = fft_lines<N, FORWARD>(lines, other, twiddles);
    for (int l = 0; l < V && k0 + l < COUNT; ++l)
      for (int i = 0; i < N; ++i) put(k0 + l, i, lane_of(y[i], l));
  }
}

/// The column transforms of a block's image: the COLUMNS columns of
/// `columns` (column k at k * H), in place, through each_line_phased.
template <int H, int COLUMNS, bool FORWARD, typename T, typename L>
__forceinline__ void columns_phased(cplx<T>* columns, cplx<L>* lines, cplx<L>* other,
                                    const cplx<T>* __restrict__ twiddles_h) {
  each_line_phased<H, COLUMNS, FORWARD>(
      lines, other, twiddles_h, [&](int k, int r) { return columns[k * H + r]; },
      [&](int k, int r, cplx<T> value) { columns[k * H + r] = value; });
}

/// Whether F says where its elements are: address(batch, i), a batch's part
/// plus an element's, the element's linear in i with one stride for every
/// batch of a call (so batches whose element 0 are neighbours are so at
/// every element, and a line whose first and last entries are N - 1 entries
/// apart is a run: runs_of); a Load reads its value, a cplx<T>, from there
/// unchanged.
/// A Load may answer nullptr for every element of a call (its values are not
/// in memory as such there: a PairLoad of a strided real line).
template <typename F, typename = void>
struct has_address {
  static constexpr bool value = false;
};
template <typename F>
struct has_address<F, decltype((void)std::declval<const F&>().address(0, 0))> {
  static constexpr bool value = true;
};

/// Whether the V batches from b have their entries side by side in memory.
template <int V, typename T, typename F>
__forceinline__ bool side_by_side(const F& f, int b) {
  const uintptr_t first = reinterpret_cast<uintptr_t>(f.address(b, 0));
  for (int l = 1; l < V; ++l)
    if (reinterpret_cast<uintptr_t>(f.address(b + l, 0)) != first + l * sizeof(cplx<T>))
      return false;
  return true;
}

/// Whether a Load fills a group's lanes whole: fill_lanes<N>(batch, lines)
/// sets lane l of lines[i] to load(batch[l], i) for every i < N, the same
/// bits, and returns true, or returns false having set nothing where it
/// cannot. (Detected with lanes of float: a fill_lanes must take any
/// lanes type, as has_put_lanes' put_lanes must.)
template <typename F, typename = void>
struct has_fill_lanes {
  static constexpr bool value = false;
};
template <typename F>
struct has_fill_lanes<
    F, decltype((void)std::declval<const F&>().template fill_lanes<1>(
           (const int*)nullptr, (cplx<::spectral_host::wide_lanes<float>>*)nullptr))> {
  static constexpr bool value = true;
};

/// Whether a Store takes a group's lanes whole: put_lanes<N>(batch, y)
/// stores lane l of y[k] as store(batch[l], k, .) would for every k < N,
/// with the same arithmetic on the lanes (the same bits), and returns true,
/// or returns false having stored nothing where it cannot.
template <typename S, typename = void>
struct has_put_lanes {
  static constexpr bool value = false;
};
template <typename S>
struct has_put_lanes<
    S, decltype((void)std::declval<const S&>().template put_lanes<1>(
           (const int*)nullptr,
           (const cplx<::spectral_host::wide_lanes<float>>*)nullptr))> {
  static constexpr bool value = true;
};

/// The V x V block `in` turned (V = L::size): lane j of out[l] is lane l of
/// in[j], real and imaginary parts alike; lanes of V lines become V runs of
/// one line each, and back. Only moves bits, in registers.
template <typename L>
__forceinline__ void turned(const cplx<L>* in, cplx<L>* out) {
  L re[L::size], im[L::size];
  for (int j = 0; j < L::size; ++j) {
    re[j] = in[j].re;
    im[j] = in[j].im;
  }
  ::spectral_host::transpose(re);
  ::spectral_host::transpose(im);
  for (int j = 0; j < L::size; ++j) out[j] = make_cplx<L>(re[j], im[j]);
}

/// Whether each of the V lines `batch` names has its N entries side by side
/// (a run), for a Load that says where they are (has_address) with N a
/// multiple of V.
template <int N, typename T, typename F>
__forceinline__ bool runs_of(const F& f, const int* batch) {
  if constexpr (has_address<F>::value && N % ::spectral_host::wide_lanes<T>::size == 0) {
    for (int l = 0; l < ::spectral_host::wide_lanes<T>::size; ++l) {
      const uintptr_t first = reinterpret_cast<uintptr_t>(f.address(batch[l], 0));
      if (reinterpret_cast<uintptr_t>(f.address(batch[l], N - 1)) !=
          first + (N - 1) * sizeof(cplx<T>))
        return false;
    }
    return true;
  } else {
    return false;
  }
}

/// Lane l of y[k] into store(batch[l], k, .) for k < N, the first `valid`
/// lanes (batches_as_lines' usual end). A Store that takes the group whole
/// (has_put_lanes) does; one whose lines are runs (has_put_run: runs())
/// takes each lane's V neighbouring entries at once, turned from lanes to
/// runs in registers, up to the last whole run; the rest one by one.
template <int N, typename Store, typename L>
__forceinline__ void store_lanes(const Store& store, const int* batch, int valid,
                                 const cplx<L>* y) {
  constexpr int V = L::size;
  if constexpr (has_put_lanes<Store>::value)
    if (valid == V && store.template put_lanes<N>(batch, y)) return;
  int k = 0;
  if constexpr (has_put_run<Store>::value)
    if (store.runs())
      for (; k + V <= N; k += V) {
        cplx<L> runs[V];
        turned(y + k, runs);
        for (int l = 0; l < valid; ++l) store.put_run(batch[l], k, runs[l]);
      }
  if (valid == V) {
    for (; k < N; ++k)
#pragma GCC unroll 8
      for (int l = 0; l < L::size; ++l) store(batch[l], k, lane_of(y[k], l));
  } else {
    for (; k < N; ++k)
      for (int l = 0; l < valid; ++l) store(batch[l], k, lane_of(y[k], l));
  }
}

/// The batches [first, first + count) of a phased batched transform of N
/// entries a line, V at a time (V = L::size), a lane each: lane l takes batch
/// b + l (lanes past the end repeat the last batch). Each group's lines are
/// loaded, `transform(batch, lines, other)` (fft_lines steps reading one
/// buffer and writing the other; `batch` the lanes' batches) returns the
/// buffer holding the result, and `finish(batch, valid, result)` writes what
/// the first `valid` lanes give (store_lanes, for a Store).
/// Neighbouring batches' elements are read and written together: where they
/// are neighbours in memory (a strided axis, the four-step passes) they share
/// cache lines, and a load that says where they are (has_address) reads V
/// side by side as two vectors, and has the first lane's element PREFETCH
/// entries ahead prefetched: a strided line's cache lines are in no hardware
/// prefetcher's stride. Where each lane's line is a run (runs_of), V entries
/// of each are read as vectors and turned into lanes; elsewhere each lane's
/// entry is gathered in registers (gather_pairs). A Load that fills a group
/// whole (has_fill_lanes: C2R's packing) does so where it can. store_lanes
/// does the reverse for Stores that can (has_put_lanes, has_put_run).
template <int N, typename T, typename Load, typename Transform, typename Finish>
__forceinline__ void batches_as_lines(int first, int count, Load load, Transform transform,
                                      Finish finish) {
  using L = ::spectral_host::wide_lanes<T>;
  constexpr int V = L::size, PREFETCH = 16;
  auto& [lines, other] = LinesOf<N, T>::here();
  const int end = first + count;
  for (int b = first; b < end; b += V) {
    int batch[V];
    for (int l = 0; l < V; ++l) batch[l] = b + l < end ? b + l : end - 1;
    const bool full = b + V <= end;
    bool filled = false;  // by the Load itself (has_fill_lanes)
    if constexpr (has_fill_lanes<Load>::value)
      filled = full && load.template fill_lanes<N>(batch, lines);
    bool addressed = false;
    if constexpr (has_address<Load>::value) {
      addressed = !filled && load.address(b, 0) != nullptr;
      if (filled || !addressed) {
        // filled, or no address this call (a strided PairLoad): value by value below
      } else if (full && side_by_side<V, T>(load, b)) {
        for (int i = 0; i < N; ++i) {
          if (i + PREFETCH < N) __builtin_prefetch(load.address(b, i + PREFETCH));
          const cplx<T>* at = static_cast<const cplx<T>*>(load.address(b, i));
          ::spectral_host::load_pairs(&at->re, lines[i].re, lines[i].im);
        }
      } else if (full && runs_of<N, T>(load, batch)) {
        for (int i = 0; i < N; i += V) {  // runs_of: N is a multiple of V
          // Each lane's V entries from i as one run, turned into lanes.
          cplx<L> runs[V];
          for (int l = 0; l < V; ++l)
            ::spectral_host::load_pairs(
                &static_cast<const cplx<T>*>(load.address(batch[l], i))->re, runs[l].re,
                runs[l].im);
          turned(runs, lines + i);
        }
      } else {
        for (int i = 0; i < N; ++i) {
          if (i + PREFETCH < N) __builtin_prefetch(load.address(b, i + PREFETCH));
          const T* at[V];
          for (int l = 0; l < V; ++l)
            at[l] = &static_cast<const cplx<T>*>(load.address(batch[l], i))->re;
          ::spectral_host::gather_pairs(at, lines[i].re, lines[i].im);
        }
      }
    }
    if (!filled && !addressed)
      for (int i = 0; i < N; ++i) {
#pragma GCC unroll 8
        for (int l = 0; l < V; ++l) set_lane(lines[i], l, load(batch[l], i));
      }
    finish(batch, full ? V : end - b, transform(batch, lines, other));
  }
}

/// The batches of this phased call's run of blocks (SPECTRAL_HOST_PHASED_RUNS),
/// blockDim.y rows each: `first` and how many (the batches past `batches`
/// left out).
__forceinline__ int run_batches(int blocks, int batches, int* first) {
  *first = int(blockIdx.x * blockDim.y);
  const int rows = blocks * int(blockDim.y);
  return batches - *first < rows ? batches - *first : rows;
}

/// The phased forms' walk over batches one at a time: `line(batch, x,
/// state)` for each batch of [first, first + count), x being N entries of
/// `shared` (a block's shared memory holds a row's worth at least) and
/// `state` (one per OS thread) having staged `twiddles`; the line runs
/// fft_phased<N>(x, state.scratch, state, twiddles).
template <int N, typename T, typename Line>
__forceinline__ void each_batch_phased(cplx<T>* shared, const cplx<T>* __restrict__ twiddles,
                                       int first, int count, Line line) {
  PhasedFft<N, T>& state = phased_state<N>(twiddles);
  for (int batch = first; batch < first + count; ++batch) line(batch, shared, state);
}
#endif

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
#if defined(SPECTRAL_HOST_EMULATION)
  if (const int blocks = ::spectral_host::take_block_run()) {
    int first = 0;
    const int count = run_batches(blocks, batches, &first);
    if (count >= ::spectral_host::wide_lanes<T>::size) {
      batches_as_lines<N, T>(first, count, load, [&](const int*, auto* lines, auto* other) {
        return fft_lines<N, FORWARD>(lines, other, twiddles);
      }, [&](const int* batch, int valid, const auto* y) {
        store_lanes<N>(store, batch, valid, y);
      });
      return;
    }
    each_batch_phased<N>(shared, twiddles, first, count, [&](int batch, cplx<T>* x, auto& state) {
      for (int i = 0; i < N; ++i) x[i] = load(batch, i);
      const cplx<T>* y = fft_phased<N, FORWARD>(x, state.scratch, state, twiddles);
      for (int i = 0; i < N; ++i) store(batch, i, y[i]);
    });
    return;
  }
#endif
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
#if defined(SPECTRAL_HOST_EMULATION)
  if (const int blocks = ::spectral_host::take_block_run()) {
    int first = 0;
    const int count = run_batches(blocks, batches, &first);
    if (count >= ::spectral_host::wide_lanes<T>::size) {
      batches_as_lines<N, T>(first, count, load, [&](const int* batch, auto* lines, auto* other) {
        auto* X = fft_lines<N, true>(lines, other, twiddles);
        for (int k = 0; k < N; ++k)
          for (int l = 0; l < ::spectral_host::wide_lanes<T>::size; ++l)
            set_lane(X[k], l, filter(batch[l], k, lane_of(X[k], l)));
        return fft_lines<N, false>(X, X == lines ? other : lines, twiddles);
      }, [&](const int* batch, int valid, const auto* y) {
        store_lanes<N>(store, batch, valid, y);
      });
      return;
    }
    each_batch_phased<N>(shared, twiddles, first, count, [&](int batch, cplx<T>* x, auto& state) {
      for (int i = 0; i < N; ++i) x[i] = load(batch, i);
      cplx<T>* X = fft_phased<N, true>(x, state.scratch, state, twiddles);
      for (int k = 0; k < N; ++k) X[k] = filter(batch, k, X[k]);
      const cplx<T>* y = fft_phased<N, false>(X, X == x ? state.scratch : x, state, twiddles);
      for (int i = 0; i < N; ++i) store(batch, i, y[i]);
    });
    return;
  }
#endif
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
