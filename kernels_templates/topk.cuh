// topk.cuh - the k largest-magnitude entries of each row, or of a whole tensor.
//
// Order: |z|^2 descending, ties toward the lower index, so the result is
// deterministic; the k entries come out sorted by index, as values and int64
// indices (the dialect's sparse form; flat = one row over the whole tensor).
//
// Radix select. An entry's key is the bit pattern of |z|^2 in the element's
// precision, rounded explicitly (__fmul_rn/__fadd_rn: no FMA contraction, so
// host and GPU rank alike), sign cleared: for |z|^2 >= 0 the bits order like
// the values, and NaN ranks above +inf. Going down 8-bit digits, a histogram
// of the entries that match the digits found so far gives the next digit of
// the k-th largest key, the threshold. Every entry above the threshold is
// taken, and of those equal to it the `need` lowest-indexed. The digits stop
// early when the entries matching them are exactly the ones still needed
// (k = n takes one pass). A last pass writes the chosen entries in index order,
// a block-wide scan of their counts giving each its slot.
//
// Two forms:
// - topk_rows: one block per row, every pass in one launch; the keys can be
//   cached in dynamic shared memory (n keys) so the row is loaded once.
// - topk_grid_*: a row spread over many blocks (a flat top-k of a large
//   tensor): one launch per digit (block histograms added into global memory,
//   integer atomics, so exact), a count launch and a write launch that places
//   each block's entries after the counts of the blocks before it.
//
// Load is `load(row, i) -> V`, Store `store(row, slot, value, index)`;
// V is float, double, cplx<float> or cplx<double>. blockDim = (THREADS, 1, 1)
// with THREADS a multiple of 32.
//
// Host: topk_rows and the topk_grid_* steps have phased forms
// (host_emulation.h, "Phased kernels"): the block's select in one caller, the
// histograms, digits and slots as the threads' (counts are integers, and an
// entry's slot is the number taken before it in index order, however found).
#pragma once

#include "sparse.cuh"

namespace spectral_sparse {

/// A magnitude's key: its bits without the sign; every NaN the one largest
/// key (a NaN's payload and sign depend on the operands' order, which a CPU's
/// scalar and vector code need not share; a GPU gives one NaN anyway).
__device__ __forceinline__ unsigned int magnitude_bits(float m) {
  const unsigned int bits = __float_as_uint(m) & 0x7fffffffu;
  return bits > 0x7f800000u ? 0x7fffffffu : bits;
}
__device__ __forceinline__ unsigned long long magnitude_bits(double m) {
  const unsigned long long bits =
      (unsigned long long)__double_as_longlong(m) & 0x7fffffffffffffffull;
  return bits > 0x7ff0000000000000ull ? 0x7fffffffffffffffull : bits;
}

__device__ __forceinline__ unsigned int magnitude_key(float v) {
  return magnitude_bits(__fmul_rn(v, v));
}
__device__ __forceinline__ unsigned int magnitude_key(cplx<float> v) {
  return magnitude_bits(__fadd_rn(__fmul_rn(v.re, v.re), __fmul_rn(v.im, v.im)));
}
__device__ __forceinline__ unsigned long long magnitude_key(double v) {
  return magnitude_bits(__dmul_rn(v, v));
}
__device__ __forceinline__ unsigned long long magnitude_key(cplx<double> v) {
  return magnitude_bits(__dadd_rn(__dmul_rn(v.re, v.re), __dmul_rn(v.im, v.im)));
}

template <typename V>
using KeyOf = decltype(magnitude_key(V{}));

/// Digit passes of a full radix select: 4 for float magnitudes, 8 for double.
template <typename V>
__host__ __device__ constexpr int topk_passes() {
  return (int)sizeof(KeyOf<V>);
}

/// What the digits found so far say: entries whose key under `mask` is above
/// `prefix` are taken, and of those equal to it the `need` of lowest index.
template <typename Key>
struct Threshold {
  Key prefix, mask;
  long long need;
  bool exact;  // the entries equal to prefix number exactly `need`: stop
};

struct DigitChoice {
  int digit;
  long long above, count;  // entries in the bins above `digit`, and in it
};

/// By the 32 lanes of warp 0: the bin of `counts` (256 digits, counted from
/// the top) in which the running count reaches `need`. Lane l sums bins
/// 255 - 8l down to 248 - 8l; one lane writes `choice`.
template <typename Count>
__device__ __forceinline__ void choose_digit(const Count* counts, long long need, int lane,
                                             DigitChoice* choice) {
  long long sum = 0;
#pragma unroll
  for (int j = 0; j < 8; ++j) sum += (long long)counts[255 - 8 * lane - j];
  long long through = sum;  // inclusive over lanes 0..lane
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    long long other = __shfl_up_sync(0xffffffffu, through, d);
    if (lane >= d) through += other;
  }
  long long above = through - sum;
  if (above < need && need <= through) {
    for (int j = 0; j < 8; ++j) {
      const int bin = 255 - 8 * lane - j;
      const long long count = (long long)counts[bin];
      if (need <= above + count) {
        choice->digit = bin;
        choice->above = above;
        choice->count = count;
        break;
      }
      above += count;
    }
  }
}

template <typename Key>
__device__ __forceinline__ Threshold<Key> refine(Threshold<Key> th, DigitChoice choice, int shift) {
  th.prefix |= Key(choice.digit) << shift;
  th.mask |= Key(0xff) << shift;
  th.need -= choice.above;
  th.exact = choice.count == th.need;
  return th;
}

#if defined(SPECTRAL_HOST_EMULATION)
/// choose_digit's choice by one caller: the bin, from the top, in which the
/// running count reaches `need` (there is one: need <= the entries counted).
template <typename Count>
__forceinline__ DigitChoice choose_digit_phased(const Count* counts, long long need) {
  long long above = 0;
  for (int bin = 255; bin > 0; --bin) {
    const long long count = (long long)counts[bin];
    if (need <= above + count) return {bin, above, count};
    above += count;
  }
  return {0, above, (long long)counts[0]};
}

/// write_selected by one caller: the entries of [begin, end) the threshold
/// takes, in index order, each in the slot of the entries taken before it.
template <typename Key, typename KeyAt, typename Load, typename Store>
__forceinline__ void write_selected_phased(long long row, long long begin, long long end,
                                           Threshold<Key> th, long long k, long long gt,
                                           long long eq, KeyAt key_at, Load load, Store store) {
  for (long long i = begin; i < end && gt + (eq < th.need ? eq : th.need) < k; ++i) {
    const Key key = key_at(i) & th.mask;
    if (key > th.prefix) {
      store(row, gt + (eq < th.need ? eq : th.need), load(row, i), i);
      ++gt;
    } else if (key == th.prefix) {
      if (eq < th.need) store(row, gt + eq, load(row, i), i);
      ++eq;
    }
  }
}
#endif

/// Writes the entries of [begin, end) of `row` the threshold takes, in index
/// order, given the entries above (gt_before) and equal to (eq_before) the
/// threshold before `begin`: an entry's slot is the number taken before it.
/// A chunk of THREADS x 8 entries at a time, 8 consecutive ones per thread:
/// their counts (above | equal << 16) are scanned over the block (warp
/// shuffles, then per-warp totals). Stops once all k are written. Every
/// thread of the block calls it.
template <int THREADS, typename Key, typename KeyAt, typename Load, typename Store>
__device__ void write_selected(long long row, long long begin, long long end, Threshold<Key> th,
                               long long k, long long gt_before, long long eq_before,
                               KeyAt key_at, Load load, Store store) {
  constexpr int ITEMS = 8, WARPS = THREADS / 32;
  static_assert(THREADS * ITEMS < 65536, "a chunk's counts must fit 16 bits");
  __shared__ unsigned int warp_total[WARPS];
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  for (long long base = begin; base < end; base += (long long)THREADS * ITEMS) {
    if (gt_before + (eq_before < th.need ? eq_before : th.need) >= k) break;  // uniform
    const long long first = base + (long long)t * ITEMS;
    unsigned int above = 0, equal = 0;  // bit u: entry first + u
#pragma unroll
    for (int u = 0; u < ITEMS; ++u) {
      if (first + u < end) {
        const Key key = key_at(first + u) & th.mask;
        above |= (unsigned int)(key > th.prefix) << u;
        equal |= (unsigned int)(key == th.prefix) << u;
      }
    }
    const unsigned int counts = __popc(above) | (unsigned int)__popc(equal) << 16;
    unsigned int scan = counts;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const unsigned int other = __shfl_up_sync(0xffffffffu, scan, d);
      if (lane >= d) scan += other;
    }
    if (lane == 31) warp_total[warp] = scan;
    __syncthreads();
    unsigned int before = scan - counts, chunk = 0;
#pragma unroll
    for (int w = 0; w < WARPS; ++w) {
      if (w < warp) before += warp_total[w];
      chunk += warp_total[w];
    }
    long long gt_rank = gt_before + (before & 0xffffu), eq_rank = eq_before + (before >> 16);
#pragma unroll
    for (int u = 0; u < ITEMS; ++u) {
      if ((above >> u) & 1u) {
        store(row, gt_rank + (eq_rank < th.need ? eq_rank : th.need), load(row, first + u),
              first + u);
        ++gt_rank;
      } else if ((equal >> u) & 1u) {
        if (eq_rank < th.need) store(row, gt_rank + eq_rank, load(row, first + u), first + u);
        ++eq_rank;
      }
    }
    gt_before += chunk & 0xffffu;
    eq_before += chunk >> 16;
    __syncthreads();  // before the next chunk's totals
  }
}

/// Entry i's key in a row's digit pass: with CACHE_KEYS computed on the
/// first pass (and cached) and read from the cache after; else computed.
template <bool CACHE_KEYS, typename V, typename Load>
__device__ __forceinline__ KeyOf<V> row_key(long long row, long long i, bool first,
                                            KeyOf<V>* cached, const Load& load) {
  if (CACHE_KEYS && !first) return cached[i];
  const KeyOf<V> key = magnitude_key(load(row, i));
  if (CACHE_KEYS) cached[i] = key;
  return key;
}

/// Top-k of row `row` of [rows, n] by the whole block: with CACHE_KEYS,
/// `cached` holds n keys (shared memory) and the row is loaded once plus
/// once per entry taken; without, once per digit pass (`cached` unused).
/// Every thread of the block calls it.
template <int THREADS, bool CACHE_KEYS, typename V, typename Load, typename Store>
__device__ void topk_row(long long row, long long n, long long k, KeyOf<V>* cached, Load load,
                         Store store) {
  if (k <= 0 || n <= 0) return;  // uniform over the block: nothing to select
  if (k > n) k = n;
  using Key = KeyOf<V>;
  constexpr int BITS = 8 * (int)sizeof(Key);
  static_assert(THREADS % 32 == 0 && THREADS >= 32 && THREADS <= 1024, "THREADS: warps, <= 1024");
  __shared__ unsigned int histogram[256];
  __shared__ DigitChoice choice;
  const int t = threadIdx.x;
  Threshold<Key> th{Key(0), Key(0), k, false};
  for (int shift = BITS - 8; shift >= 0 && !th.exact; shift -= 8) {
    for (int b = t; b < 256; b += THREADS) histogram[b] = 0;
    __syncthreads();
    for (long long i = t; i < n; i += THREADS) {
      const Key key = row_key<CACHE_KEYS, V>(row, i, shift == BITS - 8, cached, load);
      if ((key & th.mask) == th.prefix) atomicAdd(&histogram[(key >> shift) & 0xff], 1u);
    }
    __syncthreads();
    if (t < 32) choose_digit(histogram, th.need, t, &choice);
    __syncthreads();
    th = refine(th, choice, shift);
  }
  write_selected<THREADS>(
      row, 0, n, th, k, 0, 0,
      [&](long long i) { return row_key<CACHE_KEYS, V>(row, i, false, cached, load); }, load,
      store);
}

#if defined(SPECTRAL_HOST_EMULATION)
/// topk_row by one caller: the same digit passes (histograms of the entries
/// matching the digits so far, the keys cached alike) and the same slots.
template <bool CACHE_KEYS, typename V, typename Load, typename Store>
__forceinline__ void topk_row_phased(long long row, long long n, long long k, KeyOf<V>* cached,
                                     Load load, Store store) {
  if (k <= 0 || n <= 0) return;
  if (k > n) k = n;
  using Key = KeyOf<V>;
  constexpr int BITS = 8 * (int)sizeof(Key);
  unsigned int histogram[256];
  Threshold<Key> th{Key(0), Key(0), k, false};
  for (int shift = BITS - 8; shift >= 0 && !th.exact; shift -= 8) {
    for (int b = 0; b < 256; ++b) histogram[b] = 0;
    for (long long i = 0; i < n; ++i) {
      const Key key = row_key<CACHE_KEYS, V>(row, i, shift == BITS - 8, cached, load);
      if ((key & th.mask) == th.prefix) ++histogram[(key >> shift) & 0xff];
    }
    th = refine(th, choose_digit_phased(histogram, th.need), shift);
  }
  write_selected_phased(
      row, 0, n, th, k, 0, 0,
      [&](long long i) { return row_key<CACHE_KEYS, V>(row, i, false, cached, load); }, load,
      store);
}
#endif

/// Top-k of each row of [rows, n], one block per row (strided over the
/// grid). With CACHE_KEYS the dynamic shared memory holds n keys
/// (n * sizeof(KeyOf<V>) bytes) and the row is loaded once plus once per
/// entry taken; without, once per digit pass.
template <int THREADS, bool CACHE_KEYS, typename V, typename Load, typename Store>
__device__ void topk_rows(long long rows, long long n, long long k, Load load, Store store) {
  SPECTRAL_DYNAMIC_SHARED(KeyOf<V>, cached);
#if defined(SPECTRAL_HOST_EMULATION)
  if (::spectral_host::take_whole_block()) {
    for (long long row = blockIdx.x; row < rows; row += gridDim.x)
      topk_row_phased<CACHE_KEYS, V>(row, n, k, cached, load, store);
    return;
  }
#endif
  for (long long row = blockIdx.x; row < rows; row += gridDim.x)
    topk_row<THREADS, CACHE_KEYS, V>(row, n, k, cached, load, store);
}

// ---- A row over many blocks ------------------------------------------------------------
//
// Grid (ceil(n / tile), rows): block x covers entries [x * tile, (x+1) * tile)
// of row y. `histograms` is [rows][topk_passes<V>()][256], zero before pass 0;
// `counts` is [rows][gridDim.x][2]. Launch topk_grid_histogram for pass = 0,
// 1, ..., topk_passes - 1 (a pass after the digits stopped returns at once),
// then topk_grid_count, then topk_grid_write, all with the same grid.

/// The threshold after the first `passes` digit histograms of a row,
/// replayed by every block. Every thread of the block calls it.
template <typename Key>
__device__ Threshold<Key> replay_threshold(const unsigned long long* histograms, int passes,
                                           long long k) {
  __shared__ DigitChoice choice;
  Threshold<Key> th{Key(0), Key(0), k, false};
#if defined(SPECTRAL_HOST_EMULATION)
  if (::spectral_host::take_whole_block()) {  // the caller's phased form
    for (int p = 0; p < passes && !th.exact; ++p)
      th = refine(th, choose_digit_phased(histograms + 256 * p, th.need),
                  8 * (int)sizeof(Key) - 8 - 8 * p);
    return th;
  }
#endif
  for (int p = 0; p < passes && !th.exact; ++p) {
    if (threadIdx.x < 32) choose_digit(histograms + 256 * p, th.need, threadIdx.x, &choice);
    __syncthreads();
    th = refine(th, choice, 8 * (int)sizeof(Key) - 8 - 8 * p);
    __syncthreads();
  }
  return th;
}

/// take_whole_block() on the host (the phased forms' call), false on a GPU;
/// called before any return, so that a phased call always takes its block.
__device__ __forceinline__ bool takes_whole_block() {
#if defined(SPECTRAL_HOST_EMULATION)
  return ::spectral_host::take_whole_block();
#else
  return false;
#endif
}

template <int THREADS, typename V, typename Load>
__device__ void topk_grid_histogram(int pass, long long n, long long k, long long tile,
                                    unsigned long long* histograms, Load load) {
  const bool whole = takes_whole_block();
  if (k <= 0 || n <= 0) return;  // uniform over the grid: nothing to select
  if (k > n) k = n;
  using Key = KeyOf<V>;
  constexpr int PASSES = (int)sizeof(Key);
  const long long row = blockIdx.y;
  unsigned long long* row_histograms = histograms + row * PASSES * 256;
  const Threshold<Key> th = replay_threshold<Key>(row_histograms, pass, k);
  if (th.exact) return;
  const int shift = 8 * (PASSES - 1 - pass);
  const long long begin = (long long)blockIdx.x * tile;
  const long long end = n - begin < tile ? n : begin + tile;
  const auto digit = [&](long long i, int* bin) {  // whether entry i matches, and its bin
    const Key key = magnitude_key(load(row, i));
    *bin = int((key >> shift) & 0xff);
    return (key & th.mask) == th.prefix;
  };
#if defined(SPECTRAL_HOST_EMULATION)
  if (whole) {
    unsigned int local[256] = {};
    for (long long i = begin; i < end; ++i) {
      int bin;
      if (digit(i, &bin)) ++local[bin];
    }
    for (int b = 0; b < 256; ++b)
      if (local[b] != 0) atomicAdd(&row_histograms[256 * pass + b], (unsigned long long)local[b]);
    return;
  }
#endif
  __shared__ unsigned int local[256];
  const int t = threadIdx.x;
  for (int b = t; b < 256; b += THREADS) local[b] = 0;
  __syncthreads();
  for (long long i = begin + t; i < end; i += THREADS) {
    int bin;
    if (digit(i, &bin)) atomicAdd(&local[bin], 1u);
  }
  __syncthreads();
  for (int b = t; b < 256; b += THREADS)
    if (local[b] != 0) atomicAdd(&row_histograms[256 * pass + b], (unsigned long long)local[b]);
}

template <int THREADS, typename V, typename Load>
__device__ void topk_grid_count(long long n, long long k, long long tile,
                                const unsigned long long* histograms, unsigned long long* counts,
                                Load load) {
  const bool whole = takes_whole_block();
  if (k <= 0 || n <= 0) return;  // uniform over the grid: nothing to select
  if (k > n) k = n;
  using Key = KeyOf<V>;
  constexpr int PASSES = (int)sizeof(Key);
  const long long row = blockIdx.y;
  const Threshold<Key> th = replay_threshold<Key>(histograms + row * PASSES * 256, PASSES, k);
  const long long begin = (long long)blockIdx.x * tile;
  const long long end = n - begin < tile ? n : begin + tile;
  unsigned long long* block_counts = counts + (row * gridDim.x + blockIdx.x) * 2;
  unsigned int gt = 0, eq = 0;
  const auto count = [&](long long i) {
    const Key key = magnitude_key(load(row, i)) & th.mask;
    gt += key > th.prefix;
    eq += key == th.prefix;
  };
#if defined(SPECTRAL_HOST_EMULATION)
  if (whole) {
    for (long long i = begin; i < end; ++i) count(i);
    block_counts[0] = gt;
    block_counts[1] = eq;
    return;
  }
#endif
  __shared__ unsigned int total[2];
  const int t = threadIdx.x;
  if (t < 2) total[t] = 0;
  __syncthreads();
  for (long long i = begin + t; i < end; i += THREADS) count(i);
  if (gt != 0) atomicAdd(&total[0], gt);
  if (eq != 0) atomicAdd(&total[1], eq);
  __syncthreads();
  if (t < 2) block_counts[t] = total[t];
}

template <int THREADS, typename V, typename Load, typename Store>
__device__ void topk_grid_write(long long n, long long k, long long tile,
                                const unsigned long long* histograms,
                                const unsigned long long* counts, Load load, Store store) {
  const bool whole = takes_whole_block();
  if (k <= 0 || n <= 0) return;  // uniform over the grid: nothing to select
  if (k > n) k = n;
  using Key = KeyOf<V>;
  constexpr int PASSES = (int)sizeof(Key);
  const long long row = blockIdx.y;
  const Threshold<Key> th = replay_threshold<Key>(histograms + row * PASSES * 256, PASSES, k);
  const unsigned long long* row_counts = counts + row * gridDim.x * 2;
  const long long begin = (long long)blockIdx.x * tile;
  const long long end = n - begin < tile ? n : begin + tile;
  const auto key_at = [&](long long i) { return magnitude_key(load(row, i)); };
#if defined(SPECTRAL_HOST_EMULATION)
  if (whole) {
    unsigned long long gt = 0, eq = 0;
    for (unsigned int b = 0; b < blockIdx.x; ++b) {
      gt += row_counts[2 * b];
      eq += row_counts[2 * b + 1];
    }
    write_selected_phased(row, begin, end, th, k, (long long)gt, (long long)eq, key_at, load,
                          store);
    return;
  }
#endif
  __shared__ unsigned long long before[2];
  const int t = threadIdx.x;
  if (t < 2) before[t] = 0;
  __syncthreads();
  unsigned long long gt = 0, eq = 0;
  for (unsigned int b = t; b < blockIdx.x; b += THREADS) {
    gt += row_counts[2 * b];
    eq += row_counts[2 * b + 1];
  }
  if (gt != 0) atomicAdd(&before[0], gt);
  if (eq != 0) atomicAdd(&before[1], eq);
  __syncthreads();
  write_selected<THREADS>(row, begin, end, th, k, (long long)before[0], (long long)before[1],
                          key_at, load, store);
}

}  // namespace spectral_sparse
