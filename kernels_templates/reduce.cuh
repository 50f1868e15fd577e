// reduce.cuh - reductions: warp, block row, whole rows and whole tensors.
//
// The block shape is (BLOCK_X, ROWS): the BLOCK_X threads of block row
// threadIdx.y reduce one row together: a long row spans warps (BLOCK_X a
// multiple of 32; ROWS = 1 is one block per row), short rows take a warp or
// part of one (BLOCK_X a power of two up to 32, many rows). Inside a warp,
// shuffles; across the warps of a row, shared memory and a second round of
// shuffles. Every order is fixed by the launch shape, never by timing: the
// same launch gives the same bits, so training is reproducible. Whole-tensor
// reductions take two launches (partials per block, then one block) instead
// of float atomics for the same reason.
//
// Each thread first folds its strided share of the elements in order, in
// the accumulator type: for float, codegen keeps that share under ~2048
// elements (BLOCK_X or the grid large enough) so a sum stays within 1e-5.
//
// Ops are small structs: identity(), operator()(a, b) (associative and
// commutative) and finish(acc, count) (the mean's division). Values are
// read through a Load functor and results written through a Store functor:
// the fusion hooks, as in the FFT templates. Sum and Mean also take
// cplx<T> accumulators (complex sums shuffle their two parts).
//
// Host: reduce_rows, reduce_partials and reduce_final have a phased form
// (host_emulation.h, "Phased kernels"): each thread's fold in turn, then
// row_reduce's shuffle tree as loops (row_reduce_phased), the same operations
// on the same operands. So do the block programs' block_threads,
// block_barrier and block_sum, and the row programs' block_rows and
// block_row_reduce (below).
#pragma once

#include "common.cuh"  // SPECTRAL_HOST_PHASED, for the units of the phased forms
#include "fft_complex.cuh"

namespace spectral_reduce {

using spectral_fft::cplx;

constexpr unsigned int kFullWarp = 0xffffffffu;

/// The extremes of an accumulator type, without <limits> (NVRTC has none).
template <typename T>
struct Limits;
template <>
struct Limits<float> {
  __device__ static __forceinline__ float infinity() { return __int_as_float(0x7f800000); }
  __device__ static __forceinline__ float nan() { return __int_as_float(0x7fffffff); }
  __device__ static __forceinline__ float lowest() { return -infinity(); }
};
template <>
struct Limits<double> {
  __device__ static __forceinline__ double infinity() {
    return __longlong_as_double(0x7ff0000000000000LL);
  }
  __device__ static __forceinline__ double nan() {
    return __longlong_as_double(0x7ff8000000000000LL);
  }
  __device__ static __forceinline__ double lowest() { return -infinity(); }
};
template <>
struct Limits<int> {
  __device__ static __forceinline__ int lowest() { return int(0x80000000u); }
};
template <>
struct Limits<long long> {
  __device__ static __forceinline__ long long lowest() { return (long long)(1ULL << 63); }
};

template <typename A>
struct Sum {
  __device__ __forceinline__ A identity() const { return A(0); }
  __device__ __forceinline__ A operator()(A a, A b) const { return a + b; }
  __device__ __forceinline__ A finish(A acc, long long) const { return acc; }
};

/// The sum divided by the count of reduced elements (NaN for none).
template <typename A>
struct Mean : Sum<A> {
  __device__ __forceinline__ A finish(A acc, long long count) const { return acc / A(count); }
};

/// Complex sums: zero and the mean's division per part (cplx is an aggregate).
template <typename T>
struct Sum<cplx<T>> {
  __device__ __forceinline__ cplx<T> identity() const {
    return spectral_fft::make_cplx(T(0), T(0));
  }
  __device__ __forceinline__ cplx<T> operator()(cplx<T> a, cplx<T> b) const { return a + b; }
  __device__ __forceinline__ cplx<T> finish(cplx<T> acc, long long) const { return acc; }
};
template <typename T>
struct Mean<cplx<T>> : Sum<cplx<T>> {
  __device__ __forceinline__ cplx<T> finish(cplx<T> acc, long long count) const {
    return spectral_fft::make_cplx(acc.re / T(count), acc.im / T(count));
  }
};

/// Maximum that propagates NaN (as numpy and PyTorch do); -inf for no elements.
template <typename A>
struct Max {
  __device__ __forceinline__ A identity() const { return Limits<A>::lowest(); }
  __device__ __forceinline__ A operator()(A a, A b) const { return (a > b || a != a) ? a : b; }
  __device__ __forceinline__ A finish(A acc, long long) const { return acc; }
};

/// __shfl_xor_sync over the full warp; a reduced type made of several values
/// overloads it (see MaxSum in softmax.cuh).
template <typename V>
__device__ __forceinline__ V shuffle_xor(V value, int lane_mask) {
  return __shfl_xor_sync(kFullWarp, value, lane_mask);
}
template <typename T>
__device__ __forceinline__ cplx<T> shuffle_xor(cplx<T> value, int lane_mask) {
  return spectral_fft::make_cplx(shuffle_xor(value.re, lane_mask),
                                 shuffle_xor(value.im, lane_mask));
}

/// Reduces `value` over aligned groups of WIDTH lanes (a power of two up to
/// 32); every lane gets its group's result. The whole warp must call it.
template <int WIDTH, typename V, typename Op>
__device__ __forceinline__ V warp_reduce(V value, Op op) {
  static_assert(WIDTH >= 1 && WIDTH <= 32 && (WIDTH & (WIDTH - 1)) == 0,
                "WIDTH is a power of two up to 32");
#pragma unroll
  for (int lane_mask = WIDTH / 2; lane_mask > 0; lane_mask /= 2)
    value = op(value, shuffle_xor(value, lane_mask));
  return value;
}

/// Checks a (BLOCK_X, ROWS) block shape at compile time.
template <int BLOCK_X, int ROWS>
__host__ __device__ constexpr bool valid_row_block() {
  return BLOCK_X >= 1 && ROWS >= 1 && BLOCK_X * ROWS <= 1024 && (BLOCK_X * ROWS) % 32 == 0 &&
         (BLOCK_X <= 32 ? (BLOCK_X & (BLOCK_X - 1)) == 0 : BLOCK_X % 32 == 0);
}

/// Reduces `value` over the BLOCK_X threads of each block row; every thread
/// of the row gets the result. All threads of the block must call it (it
/// has barriers when a row spans several warps).
template <int BLOCK_X, int ROWS, typename V, typename Op>
__device__ __forceinline__ V row_reduce(V value, Op op) {
  static_assert(valid_row_block<BLOCK_X, ROWS>(),
                "block (BLOCK_X, ROWS): BLOCK_X a power of two <= 32 or a multiple of 32, "
                "BLOCK_X * ROWS a multiple of 32 and at most 1024");
  value = warp_reduce<(BLOCK_X < 32 ? BLOCK_X : 32)>(value, op);
  if constexpr (BLOCK_X > 32) {
    constexpr int WARPS = BLOCK_X / 32;  // per row; ROWS * WARPS <= 32
    __shared__ V partials[ROWS * WARPS];
    const int lane = threadIdx.x & 31, first = threadIdx.y * WARPS;
    if (lane == 0) partials[first + (threadIdx.x >> 5)] = value;
    __syncthreads();
    value = warp_reduce<32>(lane < WARPS ? partials[first + lane] : op.identity(), op);
    __syncthreads();  // the next call may overwrite partials
  }
  return value;
}

#if defined(SPECTRAL_HOST_EMULATION)
/// The phased form of row_reduce (host_emulation.h) for one block row:
/// `values` holds its BLOCK_X threads' values (and is overwritten); returns
/// the row's result. In a warp_reduce, lane l < m combines its value with
/// lane l + m's for each lane mask m from the top: the loops below are those
/// operations, in order, up to lane 0's result. Every lane of a row ends with
/// the same value (each pair of lanes combines the same two values, and the
/// ops are commutative; only a maximum of +0 and -0, or of two NaNs, may
/// differ in the zero's sign or the NaN's payload), so lane 0's stands for
/// the row's.
template <int BLOCK_X, typename V, typename Op>
__forceinline__ V row_reduce_phased(V* values, Op op) {
  constexpr int WIDTH = BLOCK_X < 32 ? BLOCK_X : 32;
  for (int base = 0; base < BLOCK_X; base += WIDTH)
    for (int m = WIDTH / 2; m > 0; m /= 2)
      for (int lane = 0; lane < m; ++lane)
        values[base + lane] = op(values[base + lane], values[base + lane + m]);
  if constexpr (BLOCK_X > 32) {
    constexpr int WARPS = BLOCK_X / 32;
    V partials[32];
    for (int lane = 0; lane < 32; ++lane)
      partials[lane] = lane < WARPS ? values[32 * lane] : op.identity();
    for (int m = 16; m > 0; m /= 2)
      for (int lane = 0; lane < m; ++lane) partials[lane] = op(partials[lane], partials[lane + m]);
    return partials[0];
  }
  return values[0];
}
#endif

/// acc = fold(acc, get(i)) for i = first, first + step, ... < end, in that
/// order; loads are issued four at a time.
template <typename V, typename Fold, typename Get>
__device__ __forceinline__ V fold_strided(V acc, long long first, long long end, long long step,
                                          Fold fold, Get get) {
  long long i = first;
  for (; i + 3 * step < end; i += 4 * step) {
    auto v0 = get(i), v1 = get(i + step), v2 = get(i + 2 * step), v3 = get(i + 3 * step);
    acc = fold(fold(fold(fold(acc, v0), v1), v2), v3);
  }
  for (; i < end; i += step) acc = fold(acc, get(i));
  return acc;
}

#if defined(SPECTRAL_HOST_EMULATION)
/// The phased forms' first phase: values[t] = thread t's fold_strided from
/// `init` over first + t, first + t + step, ... < end, for t < THREADS.
template <int THREADS, typename V, typename Fold, typename Get>
__forceinline__ void fold_each_thread(V* values, V init, long long first, long long end,
                                      long long step, Fold fold, Get get) {
  for (int t = 0; t < THREADS; ++t) values[t] = fold_strided(init, first + t, end, step, fold, get);
}
#endif

/// The rows of this block, row = first + threadIdx.y, for every `first` a
/// multiple of ROWS: grid-stride, and the same count of iterations for every
/// thread of the block (the body may have barriers).
template <int ROWS, typename Body>
__device__ __forceinline__ void for_each_block_rows(long long rows, Body body) {
  for (long long first = (long long)blockIdx.x * ROWS; first < rows;
       first += (long long)gridDim.x * ROWS) {
    const long long row = first + threadIdx.y;
    body(row, row < rows);
  }
}

#if defined(SPECTRAL_HOST_EMULATION)
/// The phased form of for_each_block_rows: body(row) for each row of the
/// block below `rows`, in the order the block rows take them.
template <int ROWS, typename Body>
__forceinline__ void for_each_row_phased(long long rows, Body body) {
  for (long long first = (long long)blockIdx.x * ROWS; first < rows;
       first += (long long)gridDim.x * ROWS)
    for (long long row = first; row < first + ROWS && row < rows; ++row) body(row);
}
#endif

/// Row reduction of [rows, n]: store(row, op.finish(op over load(row, i), n)).
/// Block (BLOCK_X, ROWS); any grid (rows are grid-strided). A is the
/// accumulator type; load's values are converted to it.
template <int BLOCK_X, int ROWS, typename A, typename Op, typename Load, typename Store>
__device__ void reduce_rows(long long rows, long long n, Op op, Load load, Store store) {
#if defined(SPECTRAL_HOST_EMULATION)
  if (::spectral_host::take_whole_block()) {
    for_each_row_phased<ROWS>(rows, [&](long long row) {
      A values[BLOCK_X];
      fold_each_thread<BLOCK_X>(values, op.identity(), 0, n, BLOCK_X, op,
                                [&](long long i) { return A(load(row, i)); });
      store(row, op.finish(row_reduce_phased<BLOCK_X>(values, op), n));
    });
    return;
  }
#endif
  for_each_block_rows<ROWS>(rows, [&](long long row, bool active) {
    A acc = op.identity();
    if (active)
      acc = fold_strided(acc, threadIdx.x, n, BLOCK_X, op,
                         [&](long long i) { return A(load(row, i)); });
    acc = row_reduce<BLOCK_X, ROWS>(acc, op);
    if (active && threadIdx.x == 0) store(row, op.finish(acc, n));
  });
}

/// First pass of a whole-tensor reduction of load(i), i < n: block b reduces
/// i = b * BLOCK + t + k * gridDim.x * BLOCK and calls store(b, partial)
/// (unfinished: no mean division). One-dimensional blocks of BLOCK threads.
template <int BLOCK, typename A, typename Op, typename Load, typename Store>
__device__ void reduce_partials(long long n, Op op, Load load, Store store) {
  const long long step = (long long)gridDim.x * BLOCK;
#if defined(SPECTRAL_HOST_EMULATION)
  if (::spectral_host::take_whole_block()) {
    A values[BLOCK];
    fold_each_thread<BLOCK>(values, op.identity(), (long long)blockIdx.x * BLOCK, n, step, op,
                            [&](long long i) { return A(load(i)); });
    store((long long)blockIdx.x, row_reduce_phased<BLOCK>(values, op));
    return;
  }
#endif
  A acc = fold_strided(op.identity(), (long long)blockIdx.x * BLOCK + threadIdx.x, n, step, op,
                       [&](long long i) { return A(load(i)); });
  acc = row_reduce<BLOCK, 1>(acc, op);
  if (threadIdx.x == 0) store((long long)blockIdx.x, acc);
}

/// Second pass (or the only one, when one block is enough): one block of
/// BLOCK threads reduces load(i), i < count, and calls
/// store(0, op.finish(acc, total)), `total` being the elements behind the
/// partials (the mean's divisor).
template <int BLOCK, typename A, typename Op, typename Load, typename Store>
__device__ void reduce_final(long long count, long long total, Op op, Load load, Store store) {
#if defined(SPECTRAL_HOST_EMULATION)
  if (::spectral_host::take_whole_block()) {
    A values[BLOCK];
    fold_each_thread<BLOCK>(values, op.identity(), 0, count, BLOCK, op,
                            [&](long long i) { return A(load(i)); });
    store(0LL, op.finish(row_reduce_phased<BLOCK>(values, op), total));
    return;
  }
#endif
  A acc = fold_strided(op.identity(), (long long)threadIdx.x, count, BLOCK, op,
                       [&](long long i) { return A(load(i)); });
  acc = row_reduce<BLOCK, 1>(acc, op);
  if (threadIdx.x == 0) store(0LL, op.finish(acc, total));
}

// ---- Block programs ---------------------------------------------------------------------
//
// Codegen's block programs (FusedBlockProgram.cpp) run their stages with
// these three: each stage's threads write their own outputs and read only
// what earlier stages wrote, so a phased host call (host_emulation.h) runs a
// stage as a loop over the block's threads, with no barrier between stages.

/// body(t) for this thread, t = threadIdx.x; in a phased host call,
/// body(t) for t = 0 .. BLOCK - 1 in turn.
template <int BLOCK, typename Body>
__device__ __forceinline__ void block_threads(Body body) {
#if defined(SPECTRAL_HOST_EMULATION)
  if (::spectral_host::take_whole_block()) {
    for (int t = 0; t < BLOCK; ++t) body(t);
    return;
  }
#endif
  body(int(threadIdx.x));
}

/// body(y) for this thread's block row, y = threadIdx.y; in a phased host
/// call, body(y) for y = 0 .. ROWS - 1 in turn (so a row's stages must not
/// read another row's results).
template <int ROWS, typename Body>
__device__ __forceinline__ void block_rows(Body body) {
#if defined(SPECTRAL_HOST_EMULATION)
  if (::spectral_host::take_whole_block()) {
    for (int y = 0; y < ROWS; ++y) body(y);
    return;
  }
#endif
  body(int(threadIdx.y));
}

/// op over the BLOCK_X threads of this block row of total(x), thread x's
/// share, by row_reduce's tree (row_reduce_phased in a phased host call);
/// every thread of the row gets it. Every thread of the block calls it.
template <int BLOCK_X, int ROWS, typename V, typename Op, typename Total>
__device__ __forceinline__ V block_row_reduce(Op op, Total total) {
#if defined(SPECTRAL_HOST_EMULATION)
  if (::spectral_host::take_whole_block()) {
    V values[BLOCK_X];
    for (int x = 0; x < BLOCK_X; ++x) values[x] = total(x);
    return row_reduce_phased<BLOCK_X>(values, op);
  }
#endif
  return row_reduce<BLOCK_X, ROWS>(total(int(threadIdx.x)), op);
}

/// __syncthreads(), but for a phased host call, whose stages run in order.
__device__ __forceinline__ void block_barrier() {
#if defined(SPECTRAL_HOST_EMULATION)
  if (::spectral_host::take_whole_block()) return;
#endif
  __syncthreads();
}

/// The sum over the block's threads of total(t), thread t's share, by
/// row_reduce's tree (row_reduce_phased in a phased host call); every
/// thread gets it. One-dimensional blocks of BLOCK threads.
template <int BLOCK, typename T, typename Total>
__device__ __forceinline__ T block_sum(Total total) {
#if defined(SPECTRAL_HOST_EMULATION)
  if (::spectral_host::take_whole_block()) {
    T values[BLOCK];
    for (int t = 0; t < BLOCK; ++t) values[t] = total(t);
    return row_reduce_phased<BLOCK>(values, Sum<T>{});
  }
#endif
  return row_reduce<BLOCK, 1>(total(int(threadIdx.x)), Sum<T>{});
}

/// load(i) = data[i].
template <typename T>
struct FlatLoad {
  const T* data;
  __device__ __forceinline__ T operator()(long long i) const { return data[i]; }
};

/// load(row, i) = data[row * n + i]: a contiguous [rows, n].
template <typename T>
struct RowLoad {
  const T* data;
  long long n;
  __device__ __forceinline__ T operator()(long long row, long long i) const {
    return data[row * n + i];
  }
};

/// store(i, value): data[i] = value.
template <typename T>
struct FlatStore {
  T* data;
  __device__ __forceinline__ void operator()(long long i, T value) const { data[i] = value; }
};

}  // namespace spectral_reduce
