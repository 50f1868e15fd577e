// loss.cuh - losses and the global gradient norm, all deterministic.
//
// Cross-entropy with integer labels: a row pass writes
// loss_row = logsumexp(logits_row) - logits_row[label] (NaN when the label is
// outside [0, n), so a bad label is seen, not silently read out of bounds),
// then reduce_partials/reduce_final of reduce.cuh with Mean take the mean.
// MSE is a Load functor (|a - b|^2, real or complex) for the same two passes.
// The global L2 norm reads a table of tensors (pointer, count), as
// multi-tensor apply does: pass one writes per-block partial square sums,
// pass two (one block) sums them per tensor and over the tensors in a fixed
// order, then the norm and the clipping scale min(1, max_norm / norm).
//
// Host: cross_entropy_rows has a phased form (host_emulation.h, "Phased
// kernels"), through softmax.cuh's row_max_sum_phased; so do the norm's two
// passes, through reduce.cuh's block_sum (each thread's fold in turn, then
// row_reduce's tree as loops).
#pragma once

#include "fft_complex.cuh"
#include "softmax.cuh"

namespace spectral_reduce {

using spectral_fft::cplx;

/// Cross-entropy per row of logits [rows, n]: store(row, logsumexp - logit
/// at labels[row]). L is int or long long. Block (BLOCK_X, ROWS); any grid.
template <int BLOCK_X, int ROWS, typename A, typename L, typename Load, typename Store>
__device__ void cross_entropy_rows(long long rows, long long n, Load load,
                                   const L* __restrict__ labels, Store store) {
  auto finish = [&](long long row, const MaxSum<A>& ms) {
    const long long label = (long long)labels[row];
    if (label < 0 || label >= n) {
      store(row, Limits<A>::nan());
      return;
    }
    store(row, (ms.max - A(load(row, label))) + log(ms.sum));  // exact first difference
  };
#if defined(SPECTRAL_HOST_EMULATION)
  if (::spectral_host::take_whole_block()) {
    for_each_row_phased<ROWS>(rows, [&](long long row) {
      finish(row, row_max_sum_phased<BLOCK_X, A>(row, n, load));
    });
    return;
  }
#endif
  for_each_block_rows<ROWS>(rows, [&](long long row, bool active) {
    const MaxSum<A> ms = row_max_sum<BLOCK_X, ROWS, A>(row, active, n, load);
    if (active && threadIdx.x == 0) finish(row, ms);
  });
}

/// |x|^2 of a real or complex value.
template <typename T>
__device__ __forceinline__ T magnitude2(T x) {
  return x * x;
}
template <typename T>
__device__ __forceinline__ T magnitude2(cplx<T> z) {
  return z.re * z.re + z.im * z.im;
}

/// load(i) = |a[i] - b[i]|^2, real or complex: MSE as a Mean reduction.
template <typename T>
struct SquaredErrorLoad {
  const T* a;
  const T* b;
  __device__ __forceinline__ auto operator()(long long i) const { return magnitude2(a[i] - b[i]); }
};

/// One tensor of a norm's table.
template <typename T>
struct TensorRef {
  const T* data;
  long long count;
};

/// First pass of the global L2 norm: grid (tensors, chunks), one-dimensional
/// blocks of BLOCK threads. Block (t, c) sums |x|^2 over tensor t's elements
/// c * BLOCK + k + j * chunks * BLOCK and writes partials[t * chunks + c].
template <int BLOCK, typename A, typename T>
__device__ void norm_partials(const TensorRef<T>* __restrict__ tensors, A* __restrict__ partials) {
  const TensorRef<T> tensor = tensors[blockIdx.x];
  const long long chunks = gridDim.y, step = chunks * BLOCK;
  Sum<A> op;
  const A acc = block_sum<BLOCK, A>([&](int t) {
    // t as unsigned, as threadIdx.x was: nvcc then knows it is small.
    const long long first = (long long)blockIdx.y * BLOCK + (unsigned)t;
    return fold_strided(op.identity(), first, tensor.count, step, op,
                        [&](long long i) { return A(magnitude2(tensor.data[i])); });
  });
  if (threadIdx.x == 0) partials[blockIdx.x * chunks + blockIdx.y] = acc;  // a phased call's too
}

/// The clipping factor: min(1, max_norm / norm); 1 for a zero norm, NaN
/// when the norm is NaN (so a diverged step is seen).
template <typename A>
__device__ __forceinline__ A clip_scale(A norm, A max_norm) {
  const A ratio = max_norm / norm;
  return ratio < A(1) || ratio != ratio ? ratio : A(1);
}

/// Second pass, one block of BLOCK threads over the partials of `tensors`
/// tensors (`chunks` each): store(0, norm), store(1, clip scale),
/// store(2 + t, sum of |x|^2 over tensor t).
template <int BLOCK, typename A, typename Store>
__device__ void norm_final(int tensors, int chunks, const A* __restrict__ partials, A max_norm,
                           Store store) {
  Sum<A> op;
  A total = A(0);  // thread 0's, in tensor order
  for (int t = 0; t < tensors; ++t) {
    const A* part = partials + (long long)t * chunks;
    const A acc = block_sum<BLOCK, A>([&](int thread) {
      return fold_strided(op.identity(), (long long)(unsigned)thread, (long long)chunks, BLOCK, op,
                          [&](long long c) { return part[c]; });
    });
    if (threadIdx.x == 0) {  // a phased call's too
      store(2LL + t, acc);
      total += acc;
    }
  }
  if (threadIdx.x == 0) {
    const A norm = sqrt(total);
    store(0LL, norm);
    store(1LL, clip_scale(norm, max_norm));
  }
}

}  // namespace spectral_reduce
