// fft_real.cuh - real-input and real-output FFTs of even length N through a
// complex FFT of length H = N/2 (the half-length packing trick).
//
// R2C: z_n = x_2n + i x_2n+1, Z = FFT_H(z), then for k in [0, H]
//   X_k = E_k + w_N^k O_k,  E_k = (Z_k + conj Z_(H-k)) / 2,
//   O_k = (Z_k - conj Z_(H-k)) / 2i   (indices mod H).
// C2R (FFTW's unnormalized c2r: x_n = sum_k X_k e^(+2 pi i kn/N) over the
// Hermitian extension; the imaginary parts of X_0 and X_H are ignored):
//   Z_k = (X_k + conj X_(H-k)) + i w_N^-k (X_k - conj X_(H-k)), z = IFFT_H(Z),
//   x_2n = Re z_n, x_2n+1 = Im z_n.
// `half_twiddles` is the H-entry table of w_H; `twiddles_n` holds w_N^k for
// k in [0, H]. Odd lengths go through a complex FFT of length N instead.
//
// Host: fft_r2c_batched, fft_c2r_batched and fft_real_roundtrip_batched have a
// phased form that takes runs of blocks (host_emulation.h, "Phased kernels"):
// a SIMD width of lines at once, a lane each (fft_lines, the packing in
// lanes), or a line at a time around fft_phased. Lines of the last axis are
// read and written as runs, turned between runs and lanes in registers
// (PairLoad's address, unpack_bins_lanes, store_pairs_lanes).
#pragma once

#include "fft_io.cuh"
#include "fft_stockham.cuh"

namespace spectral_fft {

/// Bin k of a real line of length N = 2H from z_k and z_(H-k) (indices mod
/// H) of the FFT of its packed pairs; w = w_N^k.
template <typename T>
__device__ __forceinline__ cplx<T> unpack_bin(cplx<T> zk, cplx<T> zm, cplx<T> w) {
  const cplx<T> a = zk, b = conj(zm);
  return scale(a + b, T(0.5)) + w * quarter_turn<true>(scale(a - b, T(0.5)));
}

/// Z_k of the packed half-length inverse FFT from bins X_k and X_(H-k) of a
/// Hermitian half spectrum (DC and Nyquist taken real by the caller); w = w_N^k.
template <typename T>
__device__ __forceinline__ cplx<T> pack_bins(cplx<T> xk, cplx<T> xm, cplx<T> w) {
  const cplx<T> b = conj(xm);
  return (xk + b) + quarter_turn<false>(conj(w) * (xk - b));
}

/// Z_k (k in [0, h)) of the packed inverse from bins k and h - k of a half
/// spectrum that `load(batch, k)` gives; DC and Nyquist are taken as real,
/// as a Hermitian spectrum has them. w = w_N^k.
template <typename T, typename Load>
__device__ __forceinline__ cplx<T> packed_bin(const Load& load, int batch, int k, int h,
                                              cplx<T> w) {
  cplx<T> a = load(batch, k), b = load(batch, h - k);
  if (k == 0) {
    a.im = T(0);
    b.im = T(0);
  }
  return pack_bins(a, b, w);
}

#if defined(SPECTRAL_HOST_EMULATION)
/// The C2R forms' load: Z_k of the packed inverse (packed_bin) for k < H.
/// fill_lanes (fft_stockham.cuh's batches_as_lines) packs V lines at once
/// where `load` says where its bins are and each line's H + 1 bins are a
/// run: bins k to k + V - 1, and H - k - V + 1 to H - k, of each line read as
/// vectors and turned into lanes, then packed lane by lane (packed_bin's
/// arithmetic: the same bits, a NaN's payload and sign aside, as
/// host_lanes.h says).
template <typename T, typename Load>
struct PackedBins {
  Load load;
  const cplx<T>* twiddles_n;
  int h;
  __forceinline__ cplx<T> operator()(int batch, int k) const {
    return packed_bin(load, batch, k, h, twiddles_n[k]);
  }
  /// Lane l of lines[k] = (*this)(batch[l], k) for every k < N (N = H),
  /// or false having written nothing.
  template <int N, typename L>
  __forceinline__ bool fill_lanes(const int* batch, cplx<L>* lines) const {
    constexpr int V = L::size;
    if constexpr (has_address<Load>::value && N % V == 0) {
      const cplx<T>* line[V];
      for (int l = 0; l < V; ++l) {
        line[l] = static_cast<const cplx<T>*>(load.address(batch[l], 0));
        if (line[l] == nullptr || load.address(batch[l], N) != line[l] + N) return false;
      }
      for (int k = 0; k < N; k += V) {
        cplx<L> runs[V], ahead[V], mirrored[V];
        for (int l = 0; l < V; ++l)
          ::spectral_host::load_pairs(&line[l][k].re, runs[l].re, runs[l].im);
        turned(runs, ahead);  // ahead[j]: bin k + j
        for (int l = 0; l < V; ++l)
          ::spectral_host::load_pairs(&line[l][N - k - V + 1].re, runs[l].re, runs[l].im);
        turned(runs, mirrored);  // mirrored[j]: bin N - k - V + 1 + j
        for (int j = 0; j < V; ++j) {
          cplx<L> a = ahead[j], b = mirrored[V - 1 - j];  // bins k + j and N - (k + j)
          if (k + j == 0) {
            a.im = L(0);
            b.im = L(0);
          }
          lines[k + j] = pack_bins(a, b, broadcast<L>(twiddles_n[k + j]));
        }
      }
      return true;
    } else {
      return false;
    }
  }
};

/// The C2R forms' end for lanes: lane l of x_n is the real pair 2n, 2n + 1
/// of batch[l], for the first `valid` lanes: store_lanes through a PairStore
/// (whose put_run writes V pairs of a plain RealStore's last axis at once).
template <int H, typename Store, typename L>
__forceinline__ void store_pairs_lanes(const Store& store, const int* batch, int valid,
                                       const cplx<L>* x) {
  using T = decltype(lane_of(x[0].re, 0));
  store_lanes<H>(PairStore<T, Store>{store}, batch, valid, x);
}

/// The R2C forms' end for lanes: bins k in [0, H] of the line of batch[l]
/// from lane l of Z, the FFT of its packed pairs, for the first `valid`
/// lanes. Where the Store's lines are runs (has_put_run), V bins of a lane
/// at once, turned from lanes to runs in registers.
template <int H, typename Store, typename L, typename T>
__forceinline__ void unpack_bins_lanes(const Store& store, const int* batch, int valid,
                                       const cplx<L>* Z, const cplx<T>* __restrict__ twiddles_n) {
  constexpr int V = L::size;
  const auto bin = [&](int k) {
    return unpack_bin(Z[k % H], Z[(H - k) % H], broadcast<L>(twiddles_n[k]));
  };
  int k = 0;
  if constexpr (has_put_run<Store>::value)
    if (store.runs())
      for (; k + V <= H + 1; k += V) {
        cplx<L> bins[V], runs[V];
        for (int j = 0; j < V; ++j) bins[j] = bin(k + j);
        turned(bins, runs);
        for (int l = 0; l < valid; ++l) store.put_run(batch[l], k, runs[l]);
      }
  for (; k <= H; ++k) {
    const cplx<L> value = bin(k);
    for (int l = 0; l < valid; ++l) store(batch[l], k, lane_of(value, l));
  }
}
#endif

/// Batched R2C of even length N: load(batch, n) gives real x_n,
/// store(batch, k, X_k) takes bins k in [0, N/2]. `shared` holds
/// blockDim.y * N/2 entries; blockDim.x must be THREADS (for length N/2).
template <int N, int THREADS, typename T, typename Load, typename Store>
__device__ void fft_r2c_batched(cplx<T>* shared, const cplx<T>* __restrict__ half_twiddles,
                                const cplx<T>* __restrict__ twiddles_n, int batches, Load load,
                                Store store) {
  static_assert(N % 2 == 0, "fft_r2c_batched needs an even length");
  constexpr int H = N / 2;
#if defined(SPECTRAL_HOST_EMULATION)
  if (const int blocks = ::spectral_host::take_block_run()) {
    int first = 0;
    const int count = run_batches(blocks, batches, &first);
    const PairLoad<T, Load> pairs{load};  // says where a last axis' pairs are
    using L = ::spectral_host::wide_lanes<T>;
    if (count >= L::size) {
      batches_as_lines<H, T>(first, count, pairs, [&](const int*, auto* lines, auto* other) {
        return fft_lines<H, true>(lines, other, half_twiddles);
      }, [&](const int* batch, int valid, const cplx<L>* Z) {
        unpack_bins_lanes<H>(store, batch, valid, Z, twiddles_n);
      });
      return;
    }
    each_batch_phased<H>(shared, half_twiddles, first, count,
                         [&](int batch, cplx<T>* z, auto& state) {
      for (int n = 0; n < H; ++n) z[n] = pairs(batch, n);
      const cplx<T>* Z = fft_phased<H, true>(z, state.scratch, state, half_twiddles);
      for (int k = 0; k <= H; ++k)
        store(batch, k, unpack_bin(Z[k % H], Z[(H - k) % H], twiddles_n[k]));
    });
    return;
  }
#endif
  int t = threadIdx.x;
  int batch = blockIdx.x * blockDim.y + threadIdx.y;
  bool active = batch < batches;
  cplx<T>* z = shared + threadIdx.y * H;
  if (active)
    for (int n = t; n < H; n += THREADS) z[n] = make_cplx<T>(load(batch, 2 * n), load(batch, 2 * n + 1));
  __syncthreads();
  fft_shared<H, THREADS, true>(z, half_twiddles, t, active);
  if (!active) return;
  for (int k = t; k <= H; k += THREADS)
    store(batch, k, unpack_bin(z[k % H], z[(H - k) % H], twiddles_n[k]));
}

/// Batched C2R of even length N: load(batch, k) gives X_k for k in [0, N/2],
/// store(batch, n, x_n) takes the real outputs, unnormalized as FFTW's c2r.
template <int N, int THREADS, typename T, typename Load, typename Store>
__device__ void fft_c2r_batched(cplx<T>* shared, const cplx<T>* __restrict__ half_twiddles,
                                const cplx<T>* __restrict__ twiddles_n, int batches, Load load,
                                Store store) {
  static_assert(N % 2 == 0, "fft_c2r_batched needs an even length");
  constexpr int H = N / 2;
#if defined(SPECTRAL_HOST_EMULATION)
  if (const int blocks = ::spectral_host::take_block_run()) {
    int first = 0;
    const int count = run_batches(blocks, batches, &first);
    const PackedBins<T, Load> packed{load, twiddles_n, H};
    using L = ::spectral_host::wide_lanes<T>;
    if (count >= L::size) {
      batches_as_lines<H, T>(first, count, packed, [&](const int*, auto* lines, auto* other) {
        return fft_lines<H, false>(lines, other, half_twiddles);
      }, [&](const int* batch, int valid, const cplx<L>* x) {
        store_pairs_lanes<H>(store, batch, valid, x);
      });
      return;
    }
    each_batch_phased<H>(shared, half_twiddles, first, count,
                         [&](int batch, cplx<T>* z, auto& state) {
      for (int k = 0; k < H; ++k) z[k] = packed(batch, k);
      const cplx<T>* x = fft_phased<H, false>(z, state.scratch, state, half_twiddles);
      for (int n = 0; n < H; ++n) {
        store(batch, 2 * n, x[n].re);
        store(batch, 2 * n + 1, x[n].im);
      }
    });
    return;
  }
#endif
  int t = threadIdx.x;
  int batch = blockIdx.x * blockDim.y + threadIdx.y;
  bool active = batch < batches;
  cplx<T>* z = shared + threadIdx.y * H;
  if (active)
    for (int k = t; k < H; k += THREADS) z[k] = packed_bin(load, batch, k, H, twiddles_n[k]);
  __syncthreads();
  fft_shared<H, THREADS, false>(z, half_twiddles, t, active);
  if (active)
    for (int n = t; n < H; n += THREADS) {
      store(batch, 2 * n, z[n].re);
      store(batch, 2 * n + 1, z[n].im);
    }
}

/// filter_pair on z_k and z_(h-k mod h) themselves (the same entry when k is
/// 0 or h/2): reads both, then writes z_k, and z_(h-k) when it is another.
template <typename T, typename Filter>
__device__ __forceinline__ void filter_pair_of(cplx<T>& z_k, cplx<T>& z_m, int batch, int k, int h,
                                               const cplx<T>* __restrict__ twiddles_n,
                                               const Filter& filter) {
  const int m = h - k;  // the partner bin; h (Nyquist) when k == 0
  const cplx<T> zk = z_k, zm = z_m;
  const cplx<T> xk = unpack_bin(zk, zm, twiddles_n[k]);
  const cplx<T> xm = unpack_bin(zm, zk, twiddles_n[m]);
  cplx<T> yk = filter(batch, k, xk);
  cplx<T> ym = m == k ? yk : filter(batch, m, xm);
  if (k == 0) {  // DC and Nyquist are real in a Hermitian spectrum
    yk.im = T(0);
    ym.im = T(0);
  }
  z_k = pack_bins(yk, ym, twiddles_n[k]);
  if (k != 0 && m != k) z_m = pack_bins(ym, yk, twiddles_n[m]);
}

/// fft_real_roundtrip_batched's middle for the pair of bins k and h - k
/// (k in [0, h/2]): unpacked from z, filtered, packed back into z[k] and
/// z[h - k]; it reads and writes only those two entries.
template <typename T, typename Filter>
__device__ __forceinline__ void filter_pair(cplx<T>* z, int batch, int k, int h,
                                            const cplx<T>* __restrict__ twiddles_n,
                                            const Filter& filter) {
  filter_pair_of(z[k], z[(h - k) % h], batch, k, h, twiddles_n, filter);
}

/// A real spectral filter in one block: R2C, `filter(batch, k, X_k)` over
/// the bins k in [0, N/2], C2R (unscaled, FFTW's c2r: the imaginary parts of
/// the filtered DC and Nyquist bins are dropped), all in shared memory.
/// Unpacking bins k and H - k, filtering them and packing them again reads
/// and writes only z[k] and z[H - k], so one thread owns each such pair and
/// one barrier before the inverse suffices. Launched as fft_r2c_batched.
template <int N, int THREADS, typename T, typename Load, typename Filter, typename Store>
__device__ void fft_real_roundtrip_batched(cplx<T>* shared,
                                           const cplx<T>* __restrict__ half_twiddles,
                                           const cplx<T>* __restrict__ twiddles_n, int batches,
                                           Load load, Filter filter, Store store) {
  static_assert(N % 2 == 0, "fft_real_roundtrip_batched needs an even length");
  constexpr int H = N / 2;
#if defined(SPECTRAL_HOST_EMULATION)
  if (const int blocks = ::spectral_host::take_block_run()) {
    int first = 0;
    const int count = run_batches(blocks, batches, &first);
    const PairLoad<T, Load> pairs{load};  // says where a last axis' pairs are
    using L = ::spectral_host::wide_lanes<T>;
    // Lanes are the faster at H = 128 and 512 (10-25%), a line at a time at
    // H = 2048 (8%; examples/spectral_filter.mlir), on a 2-core x86-64.
    if constexpr (H <= 1024) {
      if (count >= L::size) {
        batches_as_lines<H, T>(first, count, pairs,
                               [&](const int* batch, auto* lines, auto* other) {
          auto* Z = fft_lines<H, true>(lines, other, half_twiddles);
          for (int k = 0; k <= H / 2; ++k)
            for (int l = 0; l < L::size; ++l) {
              cplx<T> z_k = lane_of(Z[k], l), z_m = lane_of(Z[(H - k) % H], l);
              filter_pair_of(z_k, z_m, batch[l], k, H, twiddles_n, filter);
              set_lane(Z[k], l, z_k);
              if (k != 0 && H - k != k) set_lane(Z[H - k], l, z_m);
            }
          return fft_lines<H, false>(Z, Z == lines ? other : lines, half_twiddles);
        }, [&](const int* batch, int valid, const cplx<L>* x) {
          store_pairs_lanes<H>(store, batch, valid, x);
        });
        return;
      }
    }
    each_batch_phased<H>(shared, half_twiddles, first, count,
                         [&](int batch, cplx<T>* z, auto& state) {
      for (int n = 0; n < H; ++n) z[n] = pairs(batch, n);
      cplx<T>* Z = fft_phased<H, true>(z, state.scratch, state, half_twiddles);
      for (int k = 0; k <= H / 2; ++k) filter_pair(Z, batch, k, H, twiddles_n, filter);
      const cplx<T>* x = fft_phased<H, false>(Z, Z == z ? state.scratch : z, state, half_twiddles);
      for (int n = 0; n < H; ++n) {
        store(batch, 2 * n, x[n].re);
        store(batch, 2 * n + 1, x[n].im);
      }
    });
    return;
  }
#endif
  int t = threadIdx.x;
  int batch = blockIdx.x * blockDim.y + threadIdx.y;
  bool active = batch < batches;
  cplx<T>* z = shared + threadIdx.y * H;
  if (active)
    for (int n = t; n < H; n += THREADS)
      z[n] = make_cplx<T>(load(batch, 2 * n), load(batch, 2 * n + 1));
  __syncthreads();
  fft_shared<H, THREADS, true>(z, half_twiddles, t, active);  // ends with a barrier
  if (active)
    for (int k = t; k <= H / 2; k += THREADS) filter_pair(z, batch, k, H, twiddles_n, filter);
  __syncthreads();  // the inverse's first stage reads pairs other threads packed
  fft_shared<H, THREADS, false>(z, half_twiddles, t, active);
  if (active)
    for (int n = t; n < H; n += THREADS) {
      store(batch, 2 * n, z[n].re);
      store(batch, 2 * n + 1, z[n].im);
    }
}

// Even lengths whose half does not fit a block: the same packing around a
// multi-pass complex FFT of length H (PairLoad / PairStore of fft_io.cuh at
// its ends). Unpacking reads bins k and H - k together, so it is a step of
// its own: these are the `value` functors of axis_map (fft_multipass.cuh).

#if defined(SPECTRAL_HOST_EMULATION)
/// The (un)packing's operands for V bins at once (V = L::size): bins k
/// onwards (the run at `forward`), their mirrors h - k downwards (the run at
/// `mirrors` ends at bin h - k: reversed) and the twiddles w_N^k onwards.
template <typename L, typename T>
__forceinline__ void mirrored_lanes(const cplx<T>* forward, const cplx<T>* mirrors,
                                    const cplx<T>* twiddles, cplx<L>& a, cplx<L>& b,
                                    cplx<L>& w) {
  cplx<L> m;
  ::spectral_host::load_pairs(&forward->re, a.re, a.im);
  ::spectral_host::load_pairs(&mirrors->re, m.re, m.im);
  b = make_cplx<L>(::spectral_host::reversed(m.re), ::spectral_host::reversed(m.im));
  ::spectral_host::load_pairs(&twiddles->re, w.re, w.im);
}
#endif

/// R2C after the FFT: X_k for k in [0, H] from Z, the FFT of the packed
/// pairs, held as [outer, H, inner].
template <typename T>
struct RealSpectrumFromHalf {
  const cplx<T>* z;
  AxisLayout layout;          // of z: n = H
  const cplx<T>* twiddles_n;  // w_N^k, k in [0, H]
  __device__ __forceinline__ cplx<T> operator()(int batch, int k) const {
    const int h = layout.n;
    return unpack_bin(z[layout.offset(batch, k % h)], z[layout.offset(batch, (h - k) % h)],
                      twiddles_n[k]);
  }
#if defined(SPECTRAL_HOST_EMULATION)
  /// The phased axis_map's V bins at once (fft_multipass.cuh), which it
  /// asks for on a last axis (z's lines runs too): bins k to k + V - 1 lane
  /// by lane, operator()'s arithmetic (the same bits), where 1 <= k and
  /// k + V <= h (lanes_at): z_k onwards read forwards, z_(h-k) downwards
  /// backwards.
  using Lanes = ::spectral_host::wide_lanes<T>;
  __forceinline__ bool lanes_at(int, int k) const {
    return k >= 1 && k + Lanes::size <= layout.n;
  }
  __forceinline__ cplx<Lanes> lanes(int batch, int k) const {
    const cplx<T>* line = &z[layout.offset(batch, 0)];
    cplx<Lanes> zk, zm, w;
    mirrored_lanes(&line[k], &line[layout.n - k - (Lanes::size - 1)], &twiddles_n[k], zk, zm, w);
    return unpack_bin(zk, zm, w);
  }
#endif
};

/// C2R before the inverse FFT: Z_k for k in [0, H) from the half spectrum
/// read through `load` (bins [0, H]; DC and Nyquist taken as real).
template <typename T, typename Load>
struct HalfFromRealSpectrum {
  Load load;
  const cplx<T>* twiddles_n;
  int h;
  __device__ __forceinline__ cplx<T> operator()(int batch, int k) const {
    return packed_bin(load, batch, k, h, twiddles_n[k]);
  }
#if defined(SPECTRAL_HOST_EMULATION)
  /// The phased axis_map's V bins at once (fft_multipass.cuh), which it
  /// asks for on a last axis: Z_k to Z_(k+V-1) lane by lane, operator()'s
  /// arithmetic (the same bits), where the load is a plain one that says
  /// where its bins are (has_address: a ComplexLoad, whose line is a run
  /// there) and 1 <= k, k + V <= h (lanes_at).
  using Lanes = ::spectral_host::wide_lanes<T>;
  __forceinline__ bool lanes_at(int, int k) const {
    return has_address<Load>::value && k >= 1 && k + Lanes::size <= h;
  }
  __forceinline__ cplx<Lanes> lanes(int batch, int k) const {
    cplx<Lanes> a, b, w;
    if constexpr (has_address<Load>::value)
      mirrored_lanes(static_cast<const cplx<T>*>(load.address(batch, k)),
                     static_cast<const cplx<T>*>(load.address(batch, h - k - (Lanes::size - 1))),
                     &twiddles_n[k], a, b, w);
    return pack_bins(a, b, w);
  }
#endif
};

}  // namespace spectral_fft
