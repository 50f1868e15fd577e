// fft_complex2d.cuh - the complex FFT of one image per block over its last
// one or two axes, with a top-k of its modes in the store or a scatter of
// sparse modes in the load.
//
// An image of H x W complex values (H = 1 for a transform along the last
// axis only) lies in the last two axes of its tensor. The block transforms
// each row (W points, ROWS_AT_ONCE at a time by thread groups, through a
// buffer of rows in flight), puts the row into the columns (column c at
// c * H, so the spectrum's bin (r, c) sits at shared[c * H + r]) and then
// transforms the columns (H points, COLS_AT_ONCE at a time). The inverse
// starts from the columns and ends with the rows. Neither touches global
// memory between its load and its store, so a sparse store or load costs
// what its k modes cost:
//
// - fft2_topk_block: the forward transform, then the k modes of the largest
//   magnitude of the image (the dialect's order: topk_modes of the image
//   flattened to H * W, ties to the lower index) are ranked in shared memory
//   by topk_row and only they are written, as values and flat indices.
// - fft2_gather_block: the forward transform, then only the modes at given
//   indices are written (gather's zero for an empty slot, an index outside
//   [-1, H * W) reported through the error word).
// - scatter_ifft2_block: the image is zeros with the k sparse values added
//   at their flat indices (scatter's sum in slot order, an index outside
//   [-1, H * W) reported through the error word), then transformed back.
//
// One flat block of THREADS threads per image (grid.x = images). Shared
// memory: complex2d_shared_bytes.
//
// Host: fft2_topk_block, fft2_gather_block and scatter_ifft2_block have a
// phased form (host_emulation.h, "Phased kernels"): the rows V at once, a
// lane each, then the columns V at once (fft_lines: fft_shared's stages),
// topk_row_phased, the slots in turn, scatter_into_phased.
#pragma once

#include "fft_stockham.cuh"
#include "sparse_ops.cuh"

namespace spectral_fft {

template <int H, int W, int THREADS>
struct Complex2D {
  static_assert(H >= 1 && W >= 2, "an image of at least one row of two points");
  static constexpr int ROW_THREADS = threads_for(W), COL_THREADS = threads_for(H);
  static_assert(ROW_THREADS <= THREADS && COL_THREADS <= THREADS,
                "a block must hold one row's and one column's transform");
  static constexpr int ROWS_AT_ONCE = THREADS / ROW_THREADS < H ? THREADS / ROW_THREADS : H;
  static constexpr int COLS_AT_ONCE = THREADS / COL_THREADS;
  /// Complex values of shared memory the transforms need: the image's
  /// columns, then the rows in flight.
  static constexpr int VALUES = H * W + ROWS_AT_ONCE * W;
};

/// Bytes of shared memory fft2_topk_block (SCATTER false) or
/// scatter_ifft2_block (SCATTER true) needs for complex values of T: the
/// scatter's stamps (8 bytes per element) take the place of the rows in
/// flight, which the inverse needs only once the modes are in.
template <int H, int W, int THREADS, typename T, bool SCATTER>
__host__ __device__ constexpr int complex2d_shared_bytes() {
  constexpr int rows = Complex2D<H, W, THREADS>::ROWS_AT_ONCE * W * (int)sizeof(cplx<T>);
  constexpr int stamps = SCATTER ? H * W * (int)sizeof(unsigned long long) : 0;
  return H * W * (int)sizeof(cplx<T>) + (rows > stamps ? rows : stamps);
}

/// The unscaled forward transform of image blockIdx.x: load(image, r, c)
/// gives x[r][c]; the spectrum is left in columns (shared[c * H + r]), a
/// barrier after it.
template <int H, int W, int THREADS, typename T, typename Load>
__device__ void fft2_into_columns(cplx<T>* shared, const cplx<T>* __restrict__ twiddles_w,
                                  const cplx<T>* __restrict__ twiddles_h, Load load) {
  using Shape = Complex2D<H, W, THREADS>;
  const int image = blockIdx.x;
  cplx<T>* columns = shared;
  cplx<T>* rows = shared + H * W;
  each_line<THREADS>(H, Shape::ROW_THREADS, Shape::ROWS_AT_ONCE, [&](int r, int t, bool active) {
    cplx<T>* z = rows + (active ? (r % Shape::ROWS_AT_ONCE) * W : 0);
    if (active)
      for (int c = t; c < W; c += Shape::ROW_THREADS) z[c] = load(image, r, c);
    __syncthreads();
    fft_shared<W, Shape::ROW_THREADS, true>(z, twiddles_w, t, active);  // ends with a barrier
    if (active)
      for (int c = t; c < W; c += Shape::ROW_THREADS) columns[c * H + r] = z[c];
    // A thread loads the next row into the entries of z it just read.
  });
  __syncthreads();  // the columns are complete before they are transformed
  // Each stage of the columns' FFTs ends with a barrier (with H = 1 there
  // are none, and the one above stands).
  each_line<THREADS>(W, Shape::COL_THREADS, Shape::COLS_AT_ONCE, [&](int c, int t, bool active) {
    fft_shared<H, Shape::COL_THREADS, true>(columns + (active ? c * H : 0), twiddles_h, t, active);
  });
}

/// The unscaled inverse of the spectrum in columns (shared[c * H + r],
/// written before a barrier): store(image, r, c, value) takes each output.
template <int H, int W, int THREADS, typename T, typename Store>
__device__ void ifft2_from_columns(cplx<T>* shared, const cplx<T>* __restrict__ twiddles_w,
                                   const cplx<T>* __restrict__ twiddles_h, Store store) {
  using Shape = Complex2D<H, W, THREADS>;
  const int image = blockIdx.x;
  cplx<T>* columns = shared;
  cplx<T>* rows = shared + H * W;
  each_line<THREADS>(W, Shape::COL_THREADS, Shape::COLS_AT_ONCE, [&](int c, int t, bool active) {
    fft_shared<H, Shape::COL_THREADS, false>(columns + (active ? c * H : 0), twiddles_h, t, active);
  });  // as in fft2_into_columns, a barrier stands after the columns
  each_line<THREADS>(H, Shape::ROW_THREADS, Shape::ROWS_AT_ONCE, [&](int r, int t, bool active) {
    cplx<T>* z = rows + (active ? (r % Shape::ROWS_AT_ONCE) * W : 0);
    if (active)
      for (int c = t; c < W; c += Shape::ROW_THREADS) z[c] = columns[c * H + r];
    __syncthreads();
    fft_shared<W, Shape::ROW_THREADS, false>(z, twiddles_w, t, active);  // ends with a barrier
    if (active)
      for (int c = t; c < W; c += Shape::ROW_THREADS) store(image, r, c, z[c]);
    // A thread loads the next row into the entries of z it just stored.
  });
}

#if defined(SPECTRAL_HOST_EMULATION)
/// This OS thread's two buffers of lines for the phased forms (fft_lines
/// reads one and writes the other), long enough for rows and columns.
template <int H, int W, typename T>
using Complex2DLines = LinesOf<(H > W ? H : W), T>;

/// fft2_into_columns by one caller (a phased host call): V rows at once, a
/// lane each (the last again past H), into the columns, then the columns.
template <int H, int W, typename T, typename Load>
__forceinline__ void fft2_into_columns_phased(cplx<T>* columns,
                                              const cplx<T>* __restrict__ twiddles_w,
                                              const cplx<T>* __restrict__ twiddles_h, Load load) {
  const int image = blockIdx.x;
  auto& [lines, other] = Complex2DLines<H, W, T>::here();
  each_line_phased<W, H, true>(
      lines, other, twiddles_w, [&](int r, int c) { return load(image, r, c); },
      [&](int r, int c, cplx<T> value) { columns[c * H + r] = value; });
  columns_phased<H, W, true>(columns, lines, other, twiddles_h);
}

/// ifft2_from_columns by one caller: the columns V at once, then V rows at
/// once, each output to store(image, r, c, value).
template <int H, int W, typename T, typename Store>
__forceinline__ void ifft2_from_columns_phased(cplx<T>* columns,
                                               const cplx<T>* __restrict__ twiddles_w,
                                               const cplx<T>* __restrict__ twiddles_h,
                                               Store store) {
  const int image = blockIdx.x;
  auto& [lines, other] = Complex2DLines<H, W, T>::here();
  columns_phased<H, W, false>(columns, lines, other, twiddles_h);
  each_line_phased<W, H, false>(
      lines, other, twiddles_w, [&](int r, int c) { return columns[c * H + r]; },
      [&](int r, int c, cplx<T> value) { store(image, r, c, value); });
}
#endif

/// Bin i (flat, r * W + c) of the spectrum in columns, scaled, ranked by
/// the dialect's magnitude.
template <int H, int W, typename T>
struct SpectrumModes {
  const cplx<T>* columns;
  T factor;
  __device__ __forceinline__ spectral_sparse::ByMagnitude<cplx<T>> operator()(long long,
                                                                              long long i) const {
    const int r = int(i / W), c = int(i - (long long)r * W);
    return spectral_sparse::ByMagnitude<cplx<T>>{scale(columns[c * H + r], factor)};
  }
};

/// The forward transform of image blockIdx.x scaled by `factor`, of which
/// only the k modes of the largest magnitude are written: store(image,
/// slot, ByMagnitude value, flat index) for slots 0..k-1 in index order
/// (spectral_sparse::ByMagnitudeStore). Tables: W entries of w_W, H of w_H.
template <int H, int W, int THREADS, typename T, typename Load, typename Store>
__device__ void fft2_topk_block(cplx<T>* shared, const cplx<T>* __restrict__ twiddles_w,
                                const cplx<T>* __restrict__ twiddles_h, T factor, long long k,
                                Load load, Store store) {
#if defined(SPECTRAL_HOST_EMULATION)
  if (::spectral_host::take_whole_block()) {
    // The keys cached (a magnitude is a hypot): read once, not once per digit pass.
    using Mode = spectral_sparse::ByMagnitude<cplx<T>>;
    static thread_local spectral_sparse::KeyOf<Mode> keys[H * W];
    fft2_into_columns_phased<H, W>(shared, twiddles_w, twiddles_h, load);
    spectral_sparse::topk_row_phased<true, Mode>(blockIdx.x, (long long)H * W, k, keys,
                                                 SpectrumModes<H, W, T>{shared, factor}, store);
    return;
  }
#endif
  fft2_into_columns<H, W, THREADS>(shared, twiddles_w, twiddles_h, load);
  spectral_sparse::topk_row<THREADS, false, spectral_sparse::ByMagnitude<cplx<T>>>(
      blockIdx.x, (long long)H * W, k, nullptr, SpectrumModes<H, W, T>{shared, factor}, store);
}

/// Where flat element i = r * W + c of an image lies in columns: its bin.
template <int H, int W>
struct InColumns {
  __device__ __forceinline__ long long operator()(long long i) const {
    const long long r = i / W;
    return (i - r * W) * H + r;
  }
};

/// The forward transform of image blockIdx.x scaled by `factor`, of which
/// only the modes at indices[image * k + j] (flat, r * W + c) are written:
/// store(image, j, value) for j in [0, k), zero for an empty slot (-1). An
/// index outside [-1, H * W) is reported through `error`
/// (spectral_sparse::report_bad_index) and gives zero. Tables as
/// fft2_topk_block's.
template <int H, int W, int THREADS, typename T, typename Load, typename Store>
__device__ void fft2_gather_block(cplx<T>* shared, const cplx<T>* __restrict__ twiddles_w,
                                  const cplx<T>* __restrict__ twiddles_h, T factor,
                                  const long long* __restrict__ indices, long long k, Load load,
                                  Store store, unsigned long long* error) {
#if defined(SPECTRAL_HOST_EMULATION)
  const bool whole = ::spectral_host::take_whole_block();  // a phased call: the slots in turn
  if (whole)
    fft2_into_columns_phased<H, W>(shared, twiddles_w, twiddles_h, load);
  else
    fft2_into_columns<H, W, THREADS>(shared, twiddles_w, twiddles_h, load);
#else
  const bool whole = false;
  fft2_into_columns<H, W, THREADS>(shared, twiddles_w, twiddles_h, load);
#endif
  const long long image = blockIdx.x;
  for (long long j = whole ? 0 : threadIdx.x; j < k; j += whole ? 1 : THREADS) {
    const long long index = indices[image * k + j];
    cplx<T> value = make_cplx<T>(T(0), T(0));
    if (index >= 0 && index < (long long)H * W)
      value = scale(shared[InColumns<H, W>{}(index)], factor);
    else if (index != spectral_sparse::kEmptySlot)
      spectral_sparse::report_bad_index(error, image * k + j);
    store(image, j, value);
  }
}

/// Image blockIdx.x is zeros with values(image, j) added at indices[image *
/// k + j] (flat, r * W + c; -1 skipped) for j in [0, k), transformed back
/// unscaled: store(image, r, c, value) takes each output. An index outside
/// [-1, H * W) is reported through `error` (spectral_sparse::report_bad_index)
/// and skipped. Tables as fft2_topk_block's.
template <int H, int W, int THREADS, typename T, typename Values, typename Store>
__device__ void scatter_ifft2_block(cplx<T>* shared, const long long* __restrict__ indices,
                                    long long k, const cplx<T>* __restrict__ twiddles_w,
                                    const cplx<T>* __restrict__ twiddles_h, Values values,
                                    Store store, unsigned long long* error) {
  cplx<T>* columns = shared;
#if defined(SPECTRAL_HOST_EMULATION)
  if (::spectral_host::take_whole_block()) {
    for (int e = 0; e < H * W; ++e) columns[e] = make_cplx<T>(T(0), T(0));
    spectral_sparse::scatter_into_phased(indices, blockIdx.x, k, (long long)H * W, 0,
                                         (long long)H * W, values, columns, InColumns<H, W>{},
                                         error);
    ifft2_from_columns_phased<H, W>(shared, twiddles_w, twiddles_h, store);
    return;
  }
#endif
  auto* owner = reinterpret_cast<unsigned long long*>(shared + H * W);  // where the rows go later
  for (int e = threadIdx.x; e < H * W; e += THREADS) {
    columns[e] = make_cplx<T>(T(0), T(0));
    owner[e] = 0;
  }
  __syncthreads();  // the zeros, when there are no slots (k = 0) and so no rounds
  spectral_sparse::scatter_into<THREADS>(indices, blockIdx.x, k, (long long)H * W, 0,
                                         (long long)H * W, values, columns, owner,
                                         InColumns<H, W>{}, error);  // ends with a barrier
  ifft2_from_columns<H, W, THREADS>(shared, twiddles_w, twiddles_h, store);
}

}  // namespace spectral_fft
