// softmax.cuh - softmax and log_softmax over the last axis of [rows, n].
//
// Numerically stable: with m = max_i x_i and s = sum_i exp(x_i - m),
// softmax_i = exp(x_i - m) / s and log_softmax_i = x_i - m - log(s); no
// exp ever sees a positive argument. m and s come from one read of the row
// (the online form: when the running maximum grows, the running sum is
// rescaled by exp(old - new)), the output from a second. Each block row
// handles one row, looping over it when it is longer than BLOCK_X; the block
// shapes are those of reduce.cuh (one block per long row, or several rows
// per block). IEEE cases follow PyTorch: -inf entries give 0 (or -inf), a
// row of only -inf or with a NaN gives NaN, a +inf gives NaN.
//
// Host: softmax_rows has a phased form (host_emulation.h, "Phased kernels"),
// through reduce.cuh's row_reduce_phased.
#pragma once

#include "reduce.cuh"

namespace spectral_reduce {

/// The running (max, sum of exp(x - max)) of a row.
template <typename A>
struct MaxSum {
  A max;
  A sum;
};

template <typename A>
__device__ __forceinline__ MaxSum<A> make_max_sum(A max, A sum) {
  MaxSum<A> v;
  v.max = max;
  v.sum = sum;
  return v;
}

template <typename A>
__device__ __forceinline__ MaxSum<A> shuffle_xor(MaxSum<A> value, int lane_mask) {
  return make_max_sum(shuffle_xor(value.max, lane_mask), shuffle_xor(value.sum, lane_mask));
}

/// exp(x - m) for a max m >= x, exact (1) when equal: an empty or all -inf
/// part (max -inf, sum 0) then weighs nothing instead of exp(NaN).
template <typename A>
__device__ __forceinline__ A exp_below(A x, A m) {
  return x == m ? A(1) : exp(x - m);
}

/// Combines running (max, sum) pairs: the op of row_reduce.
template <typename A>
struct MaxSumOp {
  __device__ __forceinline__ MaxSum<A> identity() const {
    return make_max_sum(Limits<A>::lowest(), A(0));
  }
  __device__ __forceinline__ MaxSum<A> operator()(MaxSum<A> a, MaxSum<A> b) const {
    const A m = Max<A>()(a.max, b.max);
    return make_max_sum(m, a.sum * exp_below(a.max, m) + b.sum * exp_below(b.max, m));
  }
  /// Adds one element.
  __device__ __forceinline__ MaxSum<A> push(MaxSum<A> a, A x) const {
    // exp(x - x): 1, or NaN for x = +inf (as the two-pass form gives).
    if (x > a.max) return make_max_sum(x, a.sum * exp(a.max - x) + (A(1) + (x - x)));
    if (x != a.max || x != Limits<A>::lowest()) a.sum += exp(x - a.max);  // NaN propagates
    return a;
  }
};

/// (max, sum of exp(x - max)) over load(row, i), i < n, for the block row's
/// row; every thread of the block row gets it. All threads of the block must
/// call it; inactive rows read nothing.
template <int BLOCK_X, int ROWS, typename A, typename Load>
__device__ __forceinline__ MaxSum<A> row_max_sum(long long row, bool active, long long n,
                                                 Load load) {
  MaxSumOp<A> op;
  MaxSum<A> acc = op.identity();
  if (active)
    acc = fold_strided(acc, threadIdx.x, n, BLOCK_X,
                       [&](MaxSum<A> a, A x) { return op.push(a, x); },
                       [&](long long i) { return A(load(row, i)); });
  return row_reduce<BLOCK_X, ROWS>(acc, op);
}

#if defined(SPECTRAL_HOST_EMULATION)
/// The phased form of row_max_sum (host_emulation.h) for one row: each of
/// the BLOCK_X threads' folds in turn, then row_reduce's tree as loops.
template <int BLOCK_X, typename A, typename Load>
__forceinline__ MaxSum<A> row_max_sum_phased(long long row, long long n, Load load) {
  MaxSumOp<A> op;
  MaxSum<A> values[BLOCK_X];
  fold_each_thread<BLOCK_X>(values, op.identity(), 0, n, BLOCK_X,
                            [&](MaxSum<A> a, A x) { return op.push(a, x); },
                            [&](long long i) { return A(load(row, i)); });
  return row_reduce_phased<BLOCK_X>(values, op);
}
#endif

/// log(sum_i exp(x_i)) from a row's (max, sum).
template <typename A>
__device__ __forceinline__ A logsumexp(MaxSum<A> v) {
  return v.max + log(v.sum);
}

/// Softmax (LOG = false) or log_softmax (LOG = true) of each row of
/// [rows, n]: store(row, i, y_i) for every i < n. Block (BLOCK_X, ROWS);
/// any grid (rows are grid-strided). A is the compute type.
template <int BLOCK_X, int ROWS, bool LOG, typename A, typename Load, typename Store>
__device__ void softmax_rows(long long rows, long long n, Load load, Store store) {
  // (x - max) - log(sum), not x - (max + log(sum)): max + log(sum) would
  // round away log(sum)'s low bits when |max| is large.
  auto write = [&](long long row, MaxSum<A> ms, long long first, long long step) {
    const A log_sum = log(ms.sum), scale = A(1) / ms.sum;
    for (long long i = first; i < n; i += step) {
      const A shifted = A(load(row, i)) - ms.max;
      store(row, i, LOG ? shifted - log_sum : exp(shifted) * scale);
    }
  };
#if defined(SPECTRAL_HOST_EMULATION)
  if (::spectral_host::take_whole_block()) {
    for_each_row_phased<ROWS>(rows, [&](long long row) {
      write(row, row_max_sum_phased<BLOCK_X, A>(row, n, load), 0, 1);
    });
    return;
  }
#endif
  for_each_block_rows<ROWS>(rows, [&](long long row, bool active) {
    const MaxSum<A> ms = row_max_sum<BLOCK_X, ROWS, A>(row, active, n, load);
    if (active) write(row, ms, threadIdx.x, BLOCK_X);
  });
}

/// store(row, i, value): data[row * n + i] = value, a contiguous [rows, n].
template <typename T>
struct RowStore {
  T* data;
  long long n;
  __device__ __forceinline__ void operator()(long long row, long long i, T value) const {
    data[row * n + i] = value;
  }
};

}  // namespace spectral_reduce
