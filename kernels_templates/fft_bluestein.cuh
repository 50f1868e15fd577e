// fft_bluestein.cuh - FFT of any length N in one block, by the chirp-z trick.
//
// X_k = c_k * sum_n (x_n c_n) conj(c_(k-n)) with c_n = exp(-+ pi i n^2 / N):
// a convolution, done as FFT_M, a pointwise product with the spectrum of the
// chirp filter, and an inverse FFT_M, with M >= 2N - 1 a length that has a
// Stockham plan (compiler/Planning picks M and the threads). The host
// computes in double: `chirp` (N entries, already conjugated for the inverse
// direction) and `filter` (M entries: the FFT_M of conj(c) laid out
// circularly, divided by M so the inverse needs no scaling).
//
// Host: fft_bluestein_batched has a phased form that takes runs of blocks
// (host_emulation.h, "Phased kernels"): its lines V at a time, a lane each
// (fft_lines), or one at a time (fft_phased), with the threads' products.
#pragma once

#include "fft_stockham.cuh"

namespace spectral_fft {

/// Batched FFT of length N through Bluestein, one transform per block row;
/// `shared` holds blockDim.y * M entries, blockDim.x must be THREADS (the
/// threads of the length-M transform). Same Load/Store contract as
/// fft_batched. The direction is baked into `chirp` and `filter`.
template <int N, int M, int THREADS, typename T, typename Load, typename Store>
__device__ void fft_bluestein_batched(cplx<T>* shared, const cplx<T>* __restrict__ twiddles_m,
                                      const cplx<T>* __restrict__ chirp,
                                      const cplx<T>* __restrict__ filter, int batches, Load load,
                                      Store store) {
  static_assert(M >= 2 * N - 1, "M must be at least 2N - 1");
#if defined(SPECTRAL_HOST_EMULATION)
  if (const int blocks = ::spectral_host::take_block_run()) {
    int first = 0;
    const int count = run_batches(blocks, batches, &first);
    const auto padded = [&](int batch, int i) {
      return i < N ? load(batch, i) * chirp[i] : make_cplx<T>(T(0), T(0));
    };
    if (count >= ::spectral_host::wide_lanes<T>::size) {
      using L = ::spectral_host::wide_lanes<T>;
      batches_as_lines<M, T>(first, count, padded, [&](const int*, auto* lines, auto* other) {
        auto* X = fft_lines<M, true>(lines, other, twiddles_m);
        for (int k = 0; k < M; ++k) X[k] = X[k] * broadcast<L>(filter[k]);
        return fft_lines<M, false>(X, X == lines ? other : lines, twiddles_m);
      }, [&](const int* batch, int valid, const auto* y) {
        store_lanes<N>([&](int b, int i, cplx<T> value) { store(b, i, value * chirp[i]); }, batch,
                       valid, y);
      });
      return;
    }
    each_batch_phased<M>(shared, twiddles_m, first, count, [&](int batch, cplx<T>* a, auto& state) {
      for (int i = 0; i < M; ++i) a[i] = padded(batch, i);
      cplx<T>* X = fft_phased<M, true>(a, state.scratch, state, twiddles_m);
      for (int k = 0; k < M; ++k) X[k] = X[k] * filter[k];
      const cplx<T>* y = fft_phased<M, false>(X, X == a ? state.scratch : a, state, twiddles_m);
      for (int i = 0; i < N; ++i) store(batch, i, y[i] * chirp[i]);
    });
    return;
  }
#endif
  int t = threadIdx.x;
  int batch = blockIdx.x * blockDim.y + threadIdx.y;
  bool active = batch < batches;
  cplx<T>* a = shared + threadIdx.y * M;
  for (int i = t; i < M; i += THREADS)
    a[i] = active && i < N ? load(batch, i) * chirp[i] : make_cplx<T>(T(0), T(0));
  // Both barriers before an fft_shared are redundant while M is a power of
  // two (its first stage has each thread read back only what it wrote here;
  // the race check finds no race without them); kept so that this code does
  // not rest on fft_shared's inner layout.
  __syncthreads();
  fft_shared<M, THREADS, true>(a, twiddles_m, t);
  for (int i = t; i < M; i += THREADS) a[i] = a[i] * filter[i];
  __syncthreads();
  fft_shared<M, THREADS, false>(a, twiddles_m, t);
  if (active)
    for (int i = t; i < N; i += THREADS) store(batch, i, a[i] * chirp[i]);
}

}  // namespace spectral_fft
