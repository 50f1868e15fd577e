// sparse_ops.cuh - sparse_add / sparse_mul of sparse pairs, and top-k keys
// that rank as the dialect does.
//
// Ranking (for topk.cuh): topk_rows and topk_grid_* rank by magnitude_key of
// what the Load returns. For float and double that is |z|^2 rounded in the
// element's precision, which overflows above ~1.8e19 (float) and merges
// values the dialect tells apart. A Load returning ByMagnitude<T> ranks
// instead by the dialect's |x| exactly: the bits of |x| for reals and
// integers (32-bit keys for f32 and i32), the bits of hypot(re, im) in double
// for complex (64-bit keys), every NaN equal and above +inf.
//
// sparse_merge_rows: the union (sparse_add) or intersection (sparse_mul) of
// two sparse pairs [rows, k1] and [rows, k2], one block per row. Each side's
// (index, slot) pairs are bitonic-sorted in a workspace, so an index's
// duplicates lie together in slot order and are summed in that order (as a
// sequential loop does); a block-wide scan counts the distinct indices and
// those both sides hold, which gives every distinct index its output slot
// without a merge loop. Results come sorted by index, empty slots (-1, value
// 0) last. An index below -1 is reported through the error word (positions
// count the lhs indices, then the rhs ones) and treated as -1.
//
// The workspace is merge_workspace_bytes(PA, PB) per block: dynamic shared
// memory when it fits, else a global scratch slice per block. PA and PB are
// powers of two >= 2 and >= k1, k2. blockDim = (THREADS, 1, 1), THREADS a
// multiple of 32.
//
// Host: sparse_merge_rows has a phased form (host_emulation.h, "Phased
// kernels"): each of its loops takes every entry in turn (MergeThread), the
// scans sum in turn; the same sorts, marks, slots and sums in slot order.
#pragma once

#include "common.cuh"
#include "topk.cuh"

namespace spectral_sparse {

// ---- Ranking keys ------------------------------------------------------------------------

/// An element ranked by the dialect's magnitude (see the top of the file).
template <typename T>
struct ByMagnitude {
  T value;
};

__device__ __forceinline__ unsigned int magnitude_key(ByMagnitude<float> e) {
  const unsigned int bits = __float_as_uint(e.value) & 0x7fffffffu;
  return bits > 0x7f800000u ? 0x7fc00000u : bits;
}
__device__ __forceinline__ unsigned long long magnitude_key(ByMagnitude<double> e) {
  const unsigned long long bits =
      (unsigned long long)__double_as_longlong(e.value) & 0x7fffffffffffffffull;
  return bits > 0x7ff0000000000000ull ? 0x7ff8000000000000ull : bits;
}
__device__ __forceinline__ unsigned int magnitude_key(ByMagnitude<int> e) {
  return e.value < 0 ? 0u - (unsigned int)e.value : (unsigned int)e.value;
}
__device__ __forceinline__ unsigned long long magnitude_key(ByMagnitude<long long> e) {
  return e.value < 0 ? 0ull - (unsigned long long)e.value : (unsigned long long)e.value;
}
template <typename T>
__device__ __forceinline__ unsigned long long magnitude_key(ByMagnitude<cplx<T>> e) {
  const double re = (double)e.value.re, im = (double)e.value.im;
  if (re != re || im != im) return 0x7ff8000000000000ull;
  return (unsigned long long)__double_as_longlong(hypot(re, im));
}

/// Dense rows read as ByMagnitude<T>: element i of row r at data[r * row_length + i].
template <typename T>
struct ByMagnitudeLoad {
  const T* data;
  long long row_length;
  __device__ __forceinline__ ByMagnitude<T> operator()(long long row, long long i) const {
    return ByMagnitude<T>{data[row * row_length + i]};
  }
};

/// A sparse result [rows, k] of the ranked elements' values and indices.
template <typename T>
struct ByMagnitudeStore {
  T* values;
  long long* indices;
  long long k;
  __device__ __forceinline__ void operator()(long long row, long long slot, ByMagnitude<T> e,
                                             long long index) const {
    values[row * k + slot] = e.value;
    indices[row * k + slot] = index;
  }
};

// ---- Sums and products that wrap for integers ---------------------------------------------

template <typename V>
__device__ __forceinline__ V sparse_plus(V a, V b) {
  return a + b;
}
__device__ __forceinline__ int sparse_plus(int a, int b) {
  return (int)((unsigned int)a + (unsigned int)b);
}
__device__ __forceinline__ long long sparse_plus(long long a, long long b) {
  return (long long)((unsigned long long)a + (unsigned long long)b);
}
template <typename V>
__device__ __forceinline__ V sparse_times(V a, V b) {
  return a * b;
}
__device__ __forceinline__ int sparse_times(int a, int b) {
  return (int)((unsigned int)a * (unsigned int)b);
}
__device__ __forceinline__ long long sparse_times(long long a, long long b) {
  return (long long)((unsigned long long)a * (unsigned long long)b);
}

// ---- sparse_add / sparse_mul -------------------------------------------------------------

/// The key of an empty slot: after every index.
constexpr long long kEmptyKey = 0x7fffffffffffffffll;

/// Workspace bytes of one row: per side and entry a key, a scan word and a slot.
__host__ __device__ constexpr long long merge_workspace_bytes(int pa, int pb) {
  return 20LL * (pa + pb);
}

/// One side of a merge in the workspace: P entries sorted by (key, slot).
struct MergeSide {
  long long* key;
  unsigned long long* scan;  // heads | common heads << 32, then their exclusive prefix
  int* slot;
  int size;
  unsigned long long total;  // after the scan: heads | common heads << 32 over the side
};

/// The first position of `side` whose key is >= `key` (binary search).
__device__ __forceinline__ int merge_lower_bound(const MergeSide& side, long long key) {
  int lo = 0, hi = side.size;
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (side.key[mid] < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/// The scan word before position q (the side's total at its end).
__device__ __forceinline__ unsigned long long merge_prefix(const MergeSide& side, int q) {
  return q < side.size ? side.scan[q] : side.total;
}

/// The entries a thread takes in the merge's loops: first, first + step, ...
/// (threadIdx.x and THREADS; 0 and 1 in a phased host call, which takes them
/// all in turn).
struct MergeThread {
  int first, step;
};

/// One compare-and-swap stage of a bitonic sort of `side` by (key, slot).
__device__ __forceinline__ void bitonic_stage(const MergeSide& side, int size, int stride,
                                              MergeThread me) {
  for (int i = me.first; i < side.size; i += me.step) {
    const int j = i ^ stride;
    if (j <= i) continue;
    const long long ki = side.key[i], kj = side.key[j];
    const int si = side.slot[i], sj = side.slot[j];
    const bool greater = ki > kj || (ki == kj && si > sj);
    if (greater == ((i & size) == 0)) {
      side.key[i] = kj;
      side.key[j] = ki;
      side.slot[i] = sj;
      side.slot[j] = si;
    }
  }
}

/// Replaces side.scan[0, size) by its exclusive prefix sums and sets
/// side.total. Every thread of the block calls it; it ends with a barrier.
/// `whole`: a phased host call, which sums the entries in turn (integers:
/// the order of the additions does not matter).
template <int THREADS>
__device__ void merge_scan(MergeSide& side, bool whole) {
#if defined(SPECTRAL_HOST_EMULATION)
  if (whole) {
    unsigned long long running = 0;
    for (int i = 0; i < side.size; ++i) {
      const unsigned long long value = side.scan[i];
      side.scan[i] = running;
      running += value;
    }
    side.total = running;
    return;
  }
#else
  (void)whole;
#endif
  __shared__ unsigned long long warp_totals[THREADS / 32];
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  const int per = (side.size + THREADS - 1) / THREADS;
  const int begin = t * per < side.size ? t * per : side.size;
  const int end = begin + per < side.size ? begin + per : side.size;
  unsigned long long sum = 0;
  for (int i = begin; i < end; ++i) sum += side.scan[i];
  unsigned long long inclusive = sum;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const unsigned long long other = __shfl_up_sync(0xffffffffu, inclusive, d);
    if (lane >= d) inclusive += other;
  }
  if (lane == 31) warp_totals[warp] = inclusive;
  __syncthreads();
  unsigned long long running = inclusive - sum, total = 0;
#pragma unroll
  for (int w = 0; w < THREADS / 32; ++w) {
    if (w < warp) running += warp_totals[w];
    total += warp_totals[w];
  }
  for (int i = begin; i < end; ++i) {
    const unsigned long long value = side.scan[i];
    side.scan[i] = running;
    running += value;
  }
  side.total = total;
  __syncthreads();  // the prefixes are visible, warp_totals free for the next scan
}

/// Marks heads (the first entry of each distinct index) and the heads whose
/// index `other` holds too.
__device__ __forceinline__ void merge_mark(const MergeSide& side, const MergeSide& other,
                                           MergeThread me) {
  for (int p = me.first; p < side.size; p += me.step) {
    const long long key = side.key[p];
    const bool head = key != kEmptyKey && (p == 0 || side.key[p - 1] != key);
    bool common = false;
    if (head) {
      const int q = merge_lower_bound(other, key);
      common = q < other.size && other.key[q] == key;
    }
    side.scan[p] = (unsigned long long)head | (unsigned long long)common << 32;
  }
}

/// The values of the run of `key` starting at position p, summed in slot order from 0.
template <typename V>
__device__ __forceinline__ V merge_run_sum(const MergeSide& side, int p, const V* values) {
  const long long key = side.key[p];
  V sum = V{};
  for (int j = p; j < side.size && side.key[j] == key; ++j)
    sum = sparse_plus(sum, values[side.slot[j]]);
  return sum;
}

/// Loads one side's indices of a row: key = index (kEmptyKey for -1, for a
/// bad index and for the padding), slot = position.
__device__ __forceinline__ void merge_load(const MergeSide& side, const long long* indices,
                                           long long k, long long position,
                                           unsigned long long* error, MergeThread me) {
  for (int p = me.first; p < side.size; p += me.step) {
    long long key = kEmptyKey;
    if (p < k) {
      const long long index = indices[p];
      if (index >= 0)
        key = index;
      else if (index != kEmptySlot)
        report_bad_index(error, position + p);
    }
    side.key[p] = key;
    side.slot[p] = p;
  }
}

/// sparse_add (UNION) or sparse_mul of [rows, k1] and [rows, k2] into
/// [rows, capacity]; block b takes rows b, b + gridDim.x, ... with
/// `workspace` (merge_workspace_bytes(PA, PB) bytes) of its own.
template <int THREADS, int PA, int PB, bool UNION, typename V>
__device__ void sparse_merge_rows(const V* __restrict__ lhs_values,
                                  const long long* __restrict__ lhs_indices, long long k1,
                                  const V* __restrict__ rhs_values,
                                  const long long* __restrict__ rhs_indices, long long k2,
                                  long long rows, V* __restrict__ values,
                                  long long* __restrict__ indices, long long capacity,
                                  unsigned char* workspace, unsigned long long* error) {
  static_assert(THREADS % 32 == 0 && THREADS <= 1024, "THREADS: whole warps, <= 1024");
  static_assert(PA >= 2 && PB >= 2 && (PA & (PA - 1)) == 0 && (PB & (PB - 1)) == 0,
                "PA, PB: powers of two >= 2");
  constexpr int PMAX = PA > PB ? PA : PB;
  long long* keys = reinterpret_cast<long long*>(workspace);
  unsigned long long* scans = reinterpret_cast<unsigned long long*>(keys + PA + PB);
  int* slots = reinterpret_cast<int*>(scans + PA + PB);
  MergeSide a{keys, scans, slots, PA, 0}, b{keys + PA, scans + PA, slots + PA, PB, 0};
  const unsigned long long low = 0xffffffffull;
#if defined(SPECTRAL_HOST_EMULATION)
  const bool whole = ::spectral_host::take_whole_block();  // a phased call: every entry in turn
#else
  constexpr bool whole = false;
#endif
  const MergeThread me = whole ? MergeThread{0, 1} : MergeThread{int(threadIdx.x), THREADS};
  auto barrier = [whole] {
    if (!whole) __syncthreads();
  };

  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const V* av = lhs_values + row * k1;
    const V* bv = rhs_values + row * k2;
    merge_load(a, lhs_indices + row * k1, k1, row * k1, error, me);
    merge_load(b, rhs_indices + row * k2, k2, rows * k1 + row * k2, error, me);
    barrier();
    for (int size = 2; size <= PMAX; size <<= 1)
      for (int stride = size >> 1; stride > 0; stride >>= 1) {
        if (size <= PA) bitonic_stage(a, size, stride, me);
        if (size <= PB) bitonic_stage(b, size, stride, me);
        barrier();
      }
    merge_mark(a, b, me);
    merge_mark(b, a, me);
    barrier();
    merge_scan<THREADS>(a, whole);
    merge_scan<THREADS>(b, whole);

    const long long common = (long long)(a.total >> 32);
    const long long count =
        UNION ? (long long)(a.total & low) + (long long)(b.total & low) - common : common;
    V* out_values = values + row * capacity;
    long long* out_indices = indices + row * capacity;
    for (long long s = count + me.first; s < capacity; s += me.step) {
      out_values[s] = V{};
      out_indices[s] = kEmptySlot;
    }
    for (int p = me.first; p < PA; p += me.step) {
      const unsigned long long here = a.scan[p], flags = merge_prefix(a, p + 1) - here;
      if ((flags & low) == 0) continue;  // not a head
      const long long key = a.key[p];
      const bool shared = (flags >> 32) != 0;
      const V sum = merge_run_sum(a, p, av);
      const int q = shared || UNION ? merge_lower_bound(b, key) : 0;
      if (UNION) {
        const long long slot = (long long)(here & low) + (long long)(merge_prefix(b, q) & low) -
                               (long long)(here >> 32);
        out_values[slot] = shared ? sparse_plus(sum, merge_run_sum(b, q, bv)) : sum;
        out_indices[slot] = key;
      } else if (shared) {
        const long long slot = (long long)(here >> 32);
        out_values[slot] = sparse_times(sum, merge_run_sum(b, q, bv));
        out_indices[slot] = key;
      }
    }
    if (UNION) {
      for (int q = me.first; q < PB; q += me.step) {
        const unsigned long long here = b.scan[q], flags = merge_prefix(b, q + 1) - here;
        if ((flags & low) == 0 || (flags >> 32) != 0) continue;  // not a head, or written above
        const long long key = b.key[q];
        const long long slot = (long long)(here & low) +
                               (long long)(merge_prefix(a, merge_lower_bound(a, key)) & low) -
                               (long long)(here >> 32);
        out_values[slot] = merge_run_sum(b, q, bv);
        out_indices[slot] = key;
      }
    }
    barrier();  // before the next row reuses the workspace
  }
}

}  // namespace spectral_sparse
