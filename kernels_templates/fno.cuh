// fno.cuh - a 1-D Fourier neural operator layer in one kernel.
//
// The spectral convolution of an FNO layer, y = irfft(pad(channel_mix(
// slice(rfft(x)), w))), for one batch element per block: each of the CIN
// input channels (length N, even) goes to the frequency domain by the
// half-length packing of fft_real.cuh, only its first MODES bins are kept,
// they are mixed across channels mode by mode (Y[o][m] = sum_i X[i][m]
// W[i][o][m], complex), the bins beyond MODES are zero, and the COUT output
// channels come back to samples, all in shared memory. Nothing between the
// input and the output touches global memory: the layer reads x and the
// weights once and writes y once.
//
// Block (THREADS, ROWS) with ROWS = max(CIN, COUT): row r transforms channel
// r (rows beyond a side's channels transform values nobody reads);
// grid.x = the batch. Shared memory: ROWS * N/2 packed values, then the
// CIN x MODES kept bins and the COUT x MODES mixed ones.
//
// Host: no phased form yet (host_emulation.h, "Phased kernels"): kernels
// with its barriers run their CUDA threads as fibers.
#pragma once

#include "fft_real.cuh"

namespace spectral_fft {

/// Complex values of shared memory fno1d_layer needs.
template <int N, int CIN, int COUT, int MODES>
__host__ __device__ constexpr int fno1d_shared_values() {
  return (CIN > COUT ? CIN : COUT) * (N / 2) + (CIN + COUT) * MODES;
}

/// load(batch, channel, n) gives real x; weights(i, o, m) the complex
/// weight; `factor` multiplies every kept bin (the rfft's norm factor);
/// store(batch, channel, n, y) takes the unscaled c2r output (FFTW's).
template <int N, int THREADS, int CIN, int COUT, int MODES, typename T, typename Load,
          typename Weights, typename Store>
__device__ void fno1d_layer(cplx<T>* shared, const cplx<T>* __restrict__ half_twiddles,
                            const cplx<T>* __restrict__ twiddles_n, T factor, Load load,
                            Weights weights, Store store) {
  static_assert(N % 2 == 0, "fno1d_layer needs an even length");
  constexpr int H = N / 2, ROWS = CIN > COUT ? CIN : COUT;
  static_assert(MODES >= 1 && MODES <= H + 1, "MODES must lie in [1, N/2 + 1]");
  const int t = threadIdx.x, row = threadIdx.y, batch = blockIdx.x;
  const int flat = row * THREADS + t;
  cplx<T>* z = shared + row * H;
  cplx<T>* kept = shared + ROWS * H;  // [CIN][MODES]
  cplx<T>* mixed = kept + CIN * MODES;  // [COUT][MODES]

  for (int n = t; n < H; n += THREADS)  // rows past CIN transform zeros
    z[n] = row < CIN ? make_cplx<T>(load(batch, row, 2 * n), load(batch, row, 2 * n + 1))
                     : make_cplx<T>(T(0), T(0));
  __syncthreads();
  fft_shared<H, THREADS, true>(z, half_twiddles, t);  // ends with a barrier

  // The first MODES bins of each input channel (fft_r2c_batched's unpacking).
  if (row < CIN)
    for (int k = t; k < MODES; k += THREADS)
      kept[row * MODES + k] = scale(unpack_bin(z[k % H], z[(H - k) % H], twiddles_n[k]), factor);
  __syncthreads();

  // Mode-wise channel mixing, COUT x MODES sums over all the block's threads.
  for (int item = flat; item < COUT * MODES; item += ROWS * THREADS) {
    const int o = item / MODES, m = item - o * MODES;
    cplx<T> sum = make_cplx<T>(T(0), T(0));
    for (int i = 0; i < CIN; ++i) sum = sum + kept[i * MODES + m] * weights(i, o, m);
    mixed[item] = sum;
  }
  __syncthreads();

  // Each output channel's packed half spectrum (fft_c2r_batched's packing)
  // from its mixed bins, zero beyond MODES; DC and Nyquist taken as real.
  if (row < COUT)
    for (int k = t; k < H; k += THREADS) {
      cplx<T> a = k < MODES ? mixed[row * MODES + k] : make_cplx<T>(T(0), T(0));
      cplx<T> b = H - k < MODES ? mixed[row * MODES + H - k] : make_cplx<T>(T(0), T(0));
      if (k == 0) {
        a.im = T(0);
        b.im = T(0);
      }
      z[k] = pack_bins(a, b, twiddles_n[k]);
    }
  __syncthreads();  // the inverse's first stage reads values other threads packed
  fft_shared<H, THREADS, false>(z, half_twiddles, t);
  if (row < COUT)
    for (int n = t; n < H; n += THREADS) {
      store(batch, row, 2 * n, z[n].re);
      store(batch, row, 2 * n + 1, z[n].im);
    }
}

}  // namespace spectral_fft
