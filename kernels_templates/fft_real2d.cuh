// fft_real2d.cuh - the 2-D real FFT of one image per block, its inverse, and
// mode truncation on the way.
//
// An image of H x W reals (W even) lies in the last two axes of its tensor;
// its spectrum has H x (W/2 + 1) bins. Forward: each row goes through the
// half-length packing of fft_real.cuh (an FFT of W/2 points), only its first
// KW bins are unpacked, into columns, and those KW columns are transformed
// (H points each). Bins past KW are never computed: a store that keeps low
// modes (an FNO layer's corners) costs KW column transforms, not W/2 + 1.
// Inverse: the first KW columns of the spectrum are loaded (the rest are
// zero) and transformed back, then each row is packed from them (its DC and
// Nyquist bins taken real, as a c2r does) and transformed back to W reals.
// Neither direction touches global memory between its load and its store.
//
// One flat block of THREADS threads per image (grid.x = images). The rows
// run ROWS_AT_ONCE at a time (THREADS / threads_for(W/2) thread groups), the
// columns COLS_AT_ONCE at a time; a group with no row or column left meets
// the barriers idle. Shared memory: the KW x H columns first (column k at
// k * H, so a store can read bin (r, k) at shared[k * H + r]), then the rows
// in flight (real2d_shared_values).
//
// Host: rfft2_block and irfft2_block have a phased form (host_emulation.h,
// "Phased kernels"): the rows, then the columns (the reverse for the
// inverse), a lane of host_lanes.h's wide_lanes per row or column
// (fft_lines), with the same packing, unpacking and stages as the threads'.
#pragma once

#include "fft_real.cuh"

namespace spectral_fft {

template <int H, int W, int KW, int THREADS>
struct Real2D {
  static_assert(W % 2 == 0, "a 2-D real FFT in one block needs an even row length");
  static_assert(KW >= 1 && KW <= W / 2 + 1, "KW must lie in [1, W/2 + 1]");
  static constexpr int HALF = W / 2;
  static constexpr int ROW_THREADS = threads_for(HALF), COL_THREADS = threads_for(H);
  static_assert(ROW_THREADS <= THREADS && COL_THREADS <= THREADS,
                "a block must hold one row's and one column's transform");
  static constexpr int ROWS_AT_ONCE = THREADS / ROW_THREADS < H ? THREADS / ROW_THREADS : H;
  static constexpr int COLS_AT_ONCE = THREADS / COL_THREADS;
  /// Complex values of shared memory a block needs.
  static constexpr int SHARED_VALUES = KW * H + ROWS_AT_ONCE * HALF;
};

/// Complex values of shared memory rfft2_block and irfft2_block need.
template <int H, int W, int KW, int THREADS>
__host__ __device__ constexpr int real2d_shared_values() {
  return Real2D<H, W, KW, THREADS>::SHARED_VALUES;
}

/// Row r of the kept columns as packed_bin's load: bin k, zero past KW.
template <int H, int KW, typename T>
struct KeptColumns {
  const cplx<T>* columns;
  int r;
  __device__ __forceinline__ cplx<T> operator()(int, int k) const {
    return k < KW ? columns[k * H + r] : make_cplx<T>(T(0), T(0));
  }
};

#if defined(SPECTRAL_HOST_EMULATION)
/// This OS thread's two buffers of lines for the phased forms (fft_lines
/// reads one and writes the other), long enough for rows and columns.
template <int H, int W, typename T>
using Real2DLines = LinesOf<(H > W / 2 ? H : W / 2), T>;
#endif

/// The forward transform of image blockIdx.x: load(image, r, c) gives the
/// real x[r][c]; the KW kept columns of its unscaled spectrum are left in
/// shared[k * H + r]; then store(image, e) is called for e in
/// [0, Store::ELEMENTS) by the block's threads to write what it keeps.
/// `half_twiddles` has W/2 entries of w_(W/2), `twiddles_n` W/2 + 1 of w_W,
/// `twiddles_h` H of w_H.
template <int H, int W, int KW, int THREADS, typename T, typename Load, typename Store>
__device__ void rfft2_block(cplx<T>* shared, const cplx<T>* __restrict__ half_twiddles,
                            const cplx<T>* __restrict__ twiddles_n,
                            const cplx<T>* __restrict__ twiddles_h, Load load, Store store) {
  using Shape = Real2D<H, W, KW, THREADS>;
  constexpr int HALF = Shape::HALF;
  const int image = blockIdx.x;
  cplx<T>* columns = shared;
  cplx<T>* rows = shared + KW * H;
#if defined(SPECTRAL_HOST_EMULATION)
  if (::spectral_host::take_whole_block()) {
    using L = ::spectral_host::wide_lanes<T>;
    constexpr int V = L::size;
    auto& [lines, other] = Real2DLines<H, W, T>::here();
    for (int r0 = 0; r0 < H; r0 += V) {  // V rows at once, a lane each (the last again past H)
      for (int n = 0; n < HALF; ++n)
        for (int l = 0; l < V; ++l) {
          const int r = r0 + l < H ? r0 + l : H - 1;
          set_lane(lines[n], l, make_cplx<T>(load(image, r, 2 * n), load(image, r, 2 * n + 1)));
        }
      const cplx<L>* z = fft_lines<HALF, true>(lines, other, half_twiddles);
      for (int k = 0; k < KW; ++k) {
        const cplx<T> w = twiddles_n[k];
        const cplx<L> bin = unpack_bin(z[k % HALF], z[(HALF - k) % HALF],
                                       make_cplx<L>(L(w.re), L(w.im)));
        for (int l = 0; l < V && r0 + l < H; ++l) columns[k * H + r0 + l] = lane_of(bin, l);
      }
    }
    columns_phased<H, KW, true>(columns, lines, other, twiddles_h);
    for (int e = 0; e < Store::ELEMENTS; ++e) store(image, e);
    return;
  }
#endif
  each_line<THREADS>(H, Shape::ROW_THREADS, Shape::ROWS_AT_ONCE, [&](int r, int t, bool active) {
    cplx<T>* z = rows + (active ? (r % Shape::ROWS_AT_ONCE) * HALF : 0);
    if (active)
      for (int n = t; n < HALF; n += Shape::ROW_THREADS)
        z[n] = make_cplx<T>(load(image, r, 2 * n), load(image, r, 2 * n + 1));
    __syncthreads();
    fft_shared<HALF, Shape::ROW_THREADS, true>(z, half_twiddles, t, active);  // ends with a barrier
    if (active)
      for (int k = t; k < KW; k += Shape::ROW_THREADS)
        columns[k * H + r] = unpack_bin(z[k % HALF], z[(HALF - k) % HALF], twiddles_n[k]);
    __syncthreads();  // the next rows overwrite these
  });
  each_line<THREADS>(KW, Shape::COL_THREADS, Shape::COLS_AT_ONCE, [&](int k, int t, bool active) {
    fft_shared<H, Shape::COL_THREADS, true>(columns + (active ? k * H : 0), twiddles_h, t, active);
  });
  for (int e = threadIdx.x; e < Store::ELEMENTS; e += THREADS) store(image, e);
}

/// The inverse transform of image blockIdx.x: load(image, r, k) gives bin
/// (r, k) for k < KW (the bins past KW are zero); store(image, r, c, x)
/// takes the unscaled c2r output (FFTW's, the imaginary parts of each row's
/// DC and Nyquist bins ignored). Tables as rfft2_block's. It does not end
/// with a barrier: a caller that reuses `shared` afterwards needs one first.
template <int H, int W, int KW, int THREADS, typename T, typename Load, typename Store>
__device__ void irfft2_block(cplx<T>* shared, const cplx<T>* __restrict__ half_twiddles,
                             const cplx<T>* __restrict__ twiddles_n,
                             const cplx<T>* __restrict__ twiddles_h, Load load, Store store) {
  using Shape = Real2D<H, W, KW, THREADS>;
  constexpr int HALF = Shape::HALF;
  const int image = blockIdx.x;
  cplx<T>* columns = shared;
  cplx<T>* rows = shared + KW * H;
#if defined(SPECTRAL_HOST_EMULATION)
  if (::spectral_host::take_whole_block()) {
    using L = ::spectral_host::wide_lanes<T>;
    constexpr int V = L::size;
    for (int e = 0; e < H * KW; ++e) {
      const int r = e / KW, k = e - r * KW;
      columns[k * H + r] = load(image, r, k);
    }
    auto& [lines, other] = Real2DLines<H, W, T>::here();
    columns_phased<H, KW, false>(columns, lines, other, twiddles_h);
    for (int r0 = 0; r0 < H; r0 += V) {  // V rows at once, a lane each (the last again past H)
      for (int k = 0; k < HALF; ++k)
        for (int l = 0; l < V; ++l) {
          const int r = r0 + l < H ? r0 + l : H - 1;
          set_lane(lines[k], l, packed_bin(KeptColumns<H, KW, T>{columns, r}, 0, k, HALF,
                                           twiddles_n[k]));
        }
      const cplx<L>* x = fft_lines<HALF, false>(lines, other, half_twiddles);
      for (int l = 0; l < V && r0 + l < H; ++l)
        for (int n = 0; n < HALF; ++n) {
          store(image, r0 + l, 2 * n, x[n].re[l]);
          store(image, r0 + l, 2 * n + 1, x[n].im[l]);
        }
    }
    return;
  }
#endif
  for (int e = threadIdx.x; e < H * KW; e += THREADS) {  // along rows: the loads coalesce
    const int r = e / KW, k = e - r * KW;
    columns[k * H + r] = load(image, r, k);
  }
  __syncthreads();
  each_line<THREADS>(KW, Shape::COL_THREADS, Shape::COLS_AT_ONCE, [&](int k, int t, bool active) {
    fft_shared<H, Shape::COL_THREADS, false>(columns + (active ? k * H : 0), twiddles_h, t, active);
  });
  each_line<THREADS>(H, Shape::ROW_THREADS, Shape::ROWS_AT_ONCE, [&](int r, int t, bool active) {
    cplx<T>* z = rows + (active ? (r % Shape::ROWS_AT_ONCE) * HALF : 0);
    if (active)
      for (int k = t; k < HALF; k += Shape::ROW_THREADS)
        z[k] = packed_bin(KeptColumns<H, KW, T>{columns, r}, 0, k, HALF, twiddles_n[k]);
    __syncthreads();  // the inverse's first stage reads values other threads packed
    fft_shared<HALF, Shape::ROW_THREADS, false>(z, half_twiddles, t, active);
    if (active)
      for (int n = t; n < HALF; n += Shape::ROW_THREADS) {
        store(image, r, 2 * n, z[n].re);
        store(image, r, 2 * n + 1, z[n].im);
      }
    // A thread packs the next row into the entries of z it just stored.
  });
}

}  // namespace spectral_fft
