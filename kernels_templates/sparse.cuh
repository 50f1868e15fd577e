// sparse.cuh - sparse spectral modes: gather, scatter, and their fusion functors.
//
// A sparse tensor is a pair (values, indices) of shape [rows, k] (the
// dialect's per-row form; the flat form is rows = 1 over the whole dense
// tensor). Index -1 marks an empty slot: gather yields 0 there, scatter skips
// it. An index outside [-1, row_length) is reported through an error word
// (see report_bad_index) and treated like -1, so the host can fail the op with
// the position instead of reading out of bounds.
//
// Scatter is deterministic: the values aimed at a dense element are added in
// slot order (j ascending), exactly the order of a sequential loop, so float
// results do not depend on scheduling (scatter_into's rounds on a GPU, the
// slots in turn in a phased host call, one element per thread in
// scatter_sorted). When the indices ascend (empty slots last, as topk and the
// sparse ops produce them) SortedScatterLoad / SortedGatherStore fuse the
// scatter into a consumer's loads and the gather into a producer's stores
// (e.g. an FFT's).
//
// Host: scatter has a phased form (host_emulation.h, "Phased kernels"): the
// slots in order, which is the order of scatter_into's rounds for each
// element (scatter_into_phased). gather and scatter_sorted have no barrier:
// their kernels run their threads as a plain loop, not in a phased unit.
#pragma once

#include "fft_complex.cuh"

namespace spectral_sparse {

using spectral_fft::cplx;

/// The index of an empty slot.
constexpr long long kEmptySlot = -1;

/// Records that position `position` (flat, into the indices) holds an index
/// out of range. The word starts at 0 (no error) and ends as ~(the lowest
/// such position), whatever the order the threads ran in.
__device__ __forceinline__ void report_bad_index(unsigned long long* error, long long position) {
  if (error != nullptr) atomicMax(error, ~(unsigned long long)position);
}

/// The lowest position reported in an error word, or -1 when there is none.
__host__ __device__ __forceinline__ long long first_bad_index_position(unsigned long long word) {
  return word == 0 ? -1 : (long long)~word;
}

// ---- Plain functors (codegen writes fused ones of the same shape) ----------------------

/// Dense rows: element i of row r at data[r * row_length + i].
template <typename V>
struct RowsLoad {
  const V* data;
  long long row_length;
  __device__ __forceinline__ V operator()(long long row, long long i) const {
    return data[row * row_length + i];
  }
};

template <typename V>
struct RowsStore {
  V* data;
  long long row_length;
  __device__ __forceinline__ void operator()(long long row, long long i, V value) const {
    data[row * row_length + i] = value;
  }
};

/// A sparse result [rows, k]: slot j of row r gets a value and its index.
template <typename V>
struct SparseStore {
  V* values;
  long long* indices;
  long long k;
  __device__ __forceinline__ void operator()(long long row, long long slot, V value,
                                             long long index) const {
    values[row * k + slot] = value;
    indices[row * k + slot] = index;
  }
};

/// The first slot of a row of ascending indices (empty slots last) whose
/// index is >= i.
__device__ __forceinline__ long long lower_bound_sorted(const long long* row_indices, long long k,
                                                        long long i) {
  long long lo = 0, hi = k;
  while (lo < hi) {
    long long mid = lo + (hi - lo) / 2;
    long long index = row_indices[mid];
    if (index >= 0 && index < i)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/// A scatter fused into a Load: the dense value at (row, i) is the sum, in
/// slot order, of the values whose index is i. Requires ascending indices
/// per row (empty slots last); one binary search per element.
template <typename V>
struct SortedScatterLoad {
  const V* values;
  const long long* indices;
  long long k;
  __device__ __forceinline__ V operator()(long long row, long long i) const {
    const long long* row_indices = indices + row * k;
    V sum = V{};
    for (long long j = lower_bound_sorted(row_indices, k, i); j < k && row_indices[j] == i; ++j)
      sum = sum + values[row * k + j];
    return sum;
  }
};

/// A gather fused into a Store: dense element (row, i) goes to every slot
/// whose index is i. Requires ascending indices per row; empty slots are not
/// written (the caller zeroes them when there can be any).
template <typename V>
struct SortedGatherStore {
  V* values;
  const long long* indices;
  long long k;
  __device__ __forceinline__ void operator()(long long row, long long i, V value) const {
    const long long* row_indices = indices + row * k;
    for (long long j = lower_bound_sorted(row_indices, k, i); j < k && row_indices[j] == i; ++j)
      values[row * k + j] = value;
  }
};

// ---- Kernels ---------------------------------------------------------------------------

/// out[r, j] = x[r, indices[r, j]] (0 for an empty or bad slot) over
/// rows x k slots: `load(row, index)` reads the dense tensor, `store(row,
/// slot, value)` writes the result. Any 1-D grid; one slot per thread.
template <typename V, typename Load, typename Store>
__device__ void gather(const long long* __restrict__ indices, long long rows, long long k,
                       long long row_length, Load load, Store store, unsigned long long* error) {
  const long long count = rows * k;
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < count; p += step) {
    long long row = p / k, index = indices[p];
    V value = V{};
    if (index >= 0 && index < row_length)
      value = load(row, index);
    else if (index != kEmptySlot)
      report_bad_index(error, p);
    store(row, p - row * k, value);
  }
}

/// Adds the slots of `row` (k of them) aimed at the dense elements [lo, lo +
/// width) of the row into sum[place(i - lo)], in slot order: slots aimed at
/// the same element are added in rounds, the lowest slot first (an
/// atomicMax on a stamp in owner[i - lo] picks it), so the sum is what a
/// sequential loop gives whatever the schedule. `sum` and `owner` (width
/// entries each, shared memory) start at zero; a bad index is reported by
/// the tile at lo = 0 only. Streams the slots THREADS at a time; every
/// thread of the block calls it. For k > 0 it ends with a barrier (the last
/// round's), after which every sum is visible.
template <int THREADS, typename V, typename Values, typename Place>
__device__ void scatter_into(const long long* __restrict__ indices, long long row, long long k,
                             long long row_length, long long lo, long long width, Values values,
                             V* sum, unsigned long long* owner, Place place,
                             unsigned long long* error) {
  static_assert(THREADS <= 1024, "a stamp holds 11 bits of thread");
  const int t = threadIdx.x;
  unsigned long long round = 0;
  for (long long base = 0; base < k; base += THREADS) {
    const long long j = base + t;
    long long local = -1;
    V value = V{};
    if (j < k) {
      const long long index = indices[row * k + j];
      if (index >= lo && index < lo + width) {
        local = index - lo;
        value = values(row, j);
      } else if ((index < kEmptySlot || index >= row_length) && lo == 0) {
        report_bad_index(error, row * k + j);  // by one tile of the row only
      }
    }
    bool pending = local >= 0;
    // Each round adds the lowest pending slot of every element; the barrier
    // of __syncthreads_or also publishes the previous round's sums.
    while (__syncthreads_or(pending)) {
      ++round;
      const unsigned long long stamp = (round << 11) | (unsigned long long)(2047 - t);
      if (pending) atomicMax(&owner[local], stamp);
      __syncthreads();
      if (pending && owner[local] == stamp) {
        sum[place(local)] = sum[place(local)] + value;
        pending = false;
      }
    }
  }
}

/// scatter_into by one caller (a phased host call): the slots in order, so
/// each element's slots are added in the order of scatter_into's rounds.
template <typename V, typename Values, typename Place>
__device__ void scatter_into_phased(const long long* __restrict__ indices, long long row,
                                    long long k, long long row_length, long long lo,
                                    long long width, Values values, V* sum, Place place,
                                    unsigned long long* error) {
  for (long long j = 0; j < k; ++j) {
    const long long index = indices[row * k + j];
    if (index >= lo && index < lo + width) {
      const long long at = place(index - lo);
      sum[at] = sum[at] + values(row, j);
    } else if ((index < kEmptySlot || index >= row_length) && lo == 0) {
      report_bad_index(error, row * k + j);
    }
  }
}

/// Where scatter_into adds a tile's element: at its offset in the tile.
struct InTileOrder {
  __device__ __forceinline__ long long operator()(long long local) const { return local; }
};

/// Dense [rows, row_length] = zeros with values[r, j] added at (r,
/// indices[r, j]); `values(row, j)` reads the sparse values, `store(row, i,
/// value)` writes every dense element once.
///
/// Block w of the grid (strided over rows x tiles) owns the TILE dense
/// elements [tile * TILE, ...) of one row, accumulated in shared memory by
/// scatter_into. Every block reads all k indices of its row, so the cost is
/// k x (tiles per row): right for rows of a few tiles (the FNO's k modes per
/// row); a flat scatter of many sorted entries is cheaper through
/// scatter_sorted. blockDim = (THREADS, 1, 1). A phased host call takes a
/// tile's slots in turn (scatter_into_phased).
template <int THREADS, int TILE, typename V, typename Values, typename Store>
__device__ void scatter(const long long* __restrict__ indices, long long rows, long long k,
                        long long row_length, Values values, Store store,
                        unsigned long long* error) {
  static_assert(THREADS <= 1024 && TILE % THREADS == 0, "TILE must be a multiple of THREADS");
  __shared__ V sum[TILE];
  __shared__ unsigned long long owner[TILE];  // the winning round << 11 | (2047 - thread)
  const long long tiles = (row_length + TILE - 1) / TILE;
#if defined(SPECTRAL_HOST_EMULATION)
  const bool whole = ::spectral_host::take_whole_block();  // a phased call: every element
#else
  constexpr bool whole = false;
#endif
  const int t = whole ? 0 : int(threadIdx.x), step = whole ? 1 : THREADS;
  for (long long w = blockIdx.x; w < rows * tiles; w += gridDim.x) {
    const long long row = w / tiles, lo = (w - row * tiles) * TILE;
    const long long width = row_length - lo < TILE ? row_length - lo : TILE;
    for (int c = t; c < TILE; c += step) {
      sum[c] = V{};
      owner[c] = 0;
    }
    if (whole)
      scatter_into_phased(indices, row, k, row_length, lo, width, values, sum, InTileOrder{},
                          error);
    else
      scatter_into<THREADS>(indices, row, k, row_length, lo, width, values, sum, owner,
                            InTileOrder{}, error);
    // Each thread stores the elements it zeroed: written by others only in
    // rounds, each ended by a barrier. It zeroes the same ones for the next
    // tile, whose first round starts with a barrier, so no barrier is needed
    // here (the race check agrees: tests run one block over many tiles).
    for (long long c = t; c < width; c += step) store(row, lo + c, sum[c]);
  }
}

/// Dense = the scatter of sorted sparse rows, one element per thread, by
/// SortedScatterLoad: the standalone form of the fused scatter. Any 1-D grid.
template <typename V, typename Store>
__device__ void scatter_sorted(const long long* __restrict__ indices, const V* __restrict__ values,
                               long long rows, long long k, long long row_length, Store store,
                               unsigned long long* error) {
  const SortedScatterLoad<V> load{values, indices, k};
  const long long count = rows * row_length;
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < count; p += step) {
    long long row = p / row_length;
    store(row, p - row * row_length, load(row, p - row * row_length));
  }
  for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < rows * k; p += step) {
    long long index = indices[p];
    if (index < kEmptySlot || index >= row_length) report_bad_index(error, p);
  }
}

}  // namespace spectral_sparse
