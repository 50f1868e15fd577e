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
// Host: fno1d_layer has a phased form (host_emulation.h, "Phased kernels"):
// the input channels one by one, the mixing, then the output channels, each
// transform fft_phased, with the same packing, unpacking and sums.
#pragma once

#include "fft_real.cuh"

namespace spectral_fft {

/// Complex values of shared memory fno1d_layer needs.
template <int N, int CIN, int COUT, int MODES>
__host__ __device__ constexpr int fno1d_shared_values() {
  return (CIN > COUT ? CIN : COUT) * (N / 2) + (CIN + COUT) * MODES;
}

/// Output channel `row`'s mixed modes as packed_bin's load: mode k, zero
/// past MODES.
template <int MODES, typename T>
struct MixedModes {
  const cplx<T>* mixed;
  int row;
  __device__ __forceinline__ cplx<T> operator()(int, int k) const {
    return k < MODES ? mixed[row * MODES + k] : make_cplx<T>(T(0), T(0));
  }
};

/// Mode m of output channel o: sum_i kept[i][m] * weights(i, o, m), i ascending.
template <int CIN, int MODES, typename T, typename Weights>
__device__ __forceinline__ cplx<T> mix_mode(const cplx<T>* kept, const Weights& weights, int o,
                                            int m) {
  cplx<T> sum = make_cplx<T>(T(0), T(0));
  for (int i = 0; i < CIN; ++i) sum = sum + kept[i * MODES + m] * weights(i, o, m);
  return sum;
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
#if defined(SPECTRAL_HOST_EMULATION)
  if (::spectral_host::take_whole_block()) {
    PhasedFft<H, T>& state = phased_state<H>(half_twiddles);
    for (int c = 0; c < CIN; ++c) {  // rows past CIN transform zeros nobody reads
      for (int n = 0; n < H; ++n)
        z[n] = make_cplx<T>(load(batch, c, 2 * n), load(batch, c, 2 * n + 1));
      const cplx<T>* y = fft_phased<H, true>(z, state.scratch, state, half_twiddles);
      for (int k = 0; k < MODES; ++k)
        kept[c * MODES + k] = scale(unpack_bin(y[k % H], y[(H - k) % H], twiddles_n[k]), factor);
    }
    for (int item = 0; item < COUT * MODES; ++item)
      mixed[item] = mix_mode<CIN, MODES>(kept, weights, item / MODES, item % MODES);
    for (int o = 0; o < COUT; ++o) {
      for (int k = 0; k < H; ++k)
        z[k] = packed_bin(MixedModes<MODES, T>{mixed, o}, 0, k, H, twiddles_n[k]);
      const cplx<T>* y = fft_phased<H, false>(z, state.scratch, state, half_twiddles);
      for (int n = 0; n < H; ++n) {
        store(batch, o, 2 * n, y[n].re);
        store(batch, o, 2 * n + 1, y[n].im);
      }
    }
    return;
  }
#endif

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
    mixed[item] = mix_mode<CIN, MODES>(kept, weights, o, m);
  }
  __syncthreads();

  // Each output channel's packed half spectrum (fft_c2r_batched's packing)
  // from its mixed bins, zero beyond MODES; DC and Nyquist taken as real.
  if (row < COUT)
    for (int k = t; k < H; k += THREADS)
      z[k] = packed_bin(MixedModes<MODES, T>{mixed, row}, 0, k, H, twiddles_n[k]);
  __syncthreads();  // the inverse's first stage reads values other threads packed
  fft_shared<H, THREADS, false>(z, half_twiddles, t);
  if (row < COUT)
    for (int n = t; n < H; n += THREADS) {
      store(batch, row, 2 * n, z[n].re);
      store(batch, row, 2 * n + 1, z[n].im);
    }
}

}  // namespace spectral_fft
