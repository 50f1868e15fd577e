// fft_io.cuh - Load and Store functors for the FFT templates.
//
// A transform along one axis of a row-major array sees it as
// [outer, n, inner]: batch entry b is the line (b / inner, :, b % inner), so
// neighbouring block rows (threadIdx.y) read neighbouring addresses when the
// axis is strided. A Load is `(batch, i) -> value`, a Store
// `(batch, i, value)`, both in these logical coordinates.
//
// The plain functors read and write one array (the Store scales by the
// norm's factor). The adapters below wrap a logical Load or Store to turn a
// complex transform into a real or DCT one: the planner composes them around
// the plain functors, and codegen will compose them around fused ones (a
// pointwise prologue as the innermost Load, an epilogue as the innermost
// Store) the same way.
#pragma once

#include "fft_complex.cuh"
#if defined(SPECTRAL_HOST_EMULATION)
#include <type_traits>
#include <utility>  // std::declval

#include "host_lanes.h"
#endif

namespace spectral_fft {

/// Where element i of batch entry b lives.
struct AxisLayout {
  int n;      // length of the axis
  int inner;  // product of the dims after it (its stride)
  __device__ __forceinline__ long long offset(int batch, int i) const {
    int outer = batch / inner, in = batch - outer * inner;
    return ((long long)outer * n + i) * inner + in;
  }
};

template <typename T>
struct ComplexLoad {
  const cplx<T>* data;
  AxisLayout layout;
  __device__ __forceinline__ cplx<T> operator()(int batch, int i) const {
    return data[layout.offset(batch, i)];
  }
  __device__ __forceinline__ const void* address(int batch, int i) const {
    return &data[layout.offset(batch, i)];
  }
};

template <typename T>
struct RealLoad {
  const T* data;
  AxisLayout layout;
  __device__ __forceinline__ T operator()(int batch, int i) const {
    return data[layout.offset(batch, i)];
  }
};

/// Writes value * factor (the norm's scaling; 1 for none).
template <typename T>
struct ComplexStore {
  cplx<T>* data;
  AxisLayout layout;
  T factor;
  __device__ __forceinline__ void operator()(int batch, int i, cplx<T> value) const {
    data[layout.offset(batch, i)] = scale(value, factor);
  }
#if defined(SPECTRAL_HOST_EMULATION)
  /// Whether a line's elements are side by side (put_run may be called).
  __forceinline__ bool runs() const { return layout.inner == 1; }
  /// The phased forms' V stores at once: lane l of `value` as element i + l
  /// of `batch`, scaled lane by lane (the same product: the same bits).
  template <typename L>
  __forceinline__ void put_run(int batch, int i, const cplx<L>& value) const {
    const cplx<L> v = scale(value, L(factor));
    ::spectral_host::store_pairs(&data[layout.offset(batch, i)].re, v.re, v.im);
  }
#endif
};

#if defined(SPECTRAL_HOST_EMULATION)
/// Whether a Store has runs() and put_run (ComplexStore's, a PairStore's of
/// a RealStore).
template <typename S, typename = void>
struct has_put_run {
  static constexpr bool value = false;
};
template <typename S>
struct has_put_run<S, decltype((void)std::declval<const S&>().runs())> {
  static constexpr bool value = true;
};
#endif

template <typename T>
struct RealStore {
  T* data;
  AxisLayout layout;
  T factor;
  __device__ __forceinline__ void operator()(int batch, int i, T value) const {
    data[layout.offset(batch, i)] = value * factor;
  }
};

// ---- Real transforms done as complex ones of the same length ---------------

/// Reals as complex numbers with a zero imaginary part (an R2C of odd length).
template <typename T, typename Load>
struct RealAsComplex {
  Load load;
  __device__ __forceinline__ cplx<T> operator()(int batch, int i) const {
    return make_cplx<T>(load(batch, i), T(0));
  }
};

/// Keeps outputs i < bins and drops the rest (an R2C's half spectrum).
template <typename T, typename Store>
struct FirstBins {
  Store store;
  int bins;
  __device__ __forceinline__ void operator()(int batch, int i, cplx<T> value) const {
    if (i < bins) store(batch, i, value);
  }
};

/// Reads a half spectrum (`bins` = n/2+1 values) as the full Hermitian
/// spectrum of length n: bin i >= bins is conj(bin n - i); the DC bin's
/// imaginary part is dropped (a C2R done as a C2C).
template <typename T, typename Load>
struct HermitianExtension {
  Load load;
  int bins, length;
  __device__ __forceinline__ cplx<T> operator()(int batch, int i) const {
    if (i == 0) return make_cplx<T>(load(batch, 0).re, T(0));
    if (i < bins) return load(batch, i);
    return conj(load(batch, length - i));
  }
};

/// The real part of each value (a C2R done as a C2C).
template <typename T, typename Store>
struct RealPart {
  Store store;
  __device__ __forceinline__ void operator()(int batch, int i, cplx<T> value) const {
    store(batch, i, value.re);
  }
};

/// Pairs of reals as one complex value, z_j = x_2j + i x_2j+1: an even-length
/// real line as a complex line of half the length.
template <typename T, typename Load>
struct PairLoad {
  Load load;
  __device__ __forceinline__ cplx<T> operator()(int batch, int j) const {
    return make_cplx<T>(load(batch, 2 * j), load(batch, 2 * j + 1));
  }
#if defined(SPECTRAL_HOST_EMULATION)
  /// Where z_j is (fft_stockham.cuh's has_address), for a plain RealLoad
  /// whose line's entries are side by side: x_2j and x_2j+1 are then z_j as
  /// a cplx<T>. nullptr for a strided line.
  template <typename L = Load,
            typename = typename std::enable_if<std::is_same<L, RealLoad<T>>::value>::type>
  __forceinline__ const void* address(int batch, int j) const {
    return load.layout.inner == 1 ? &load.data[load.layout.offset(batch, 2 * j)] : nullptr;
  }
#endif
};

/// The reverse: z_j is stored as x_2j = Re z_j, x_2j+1 = Im z_j.
template <typename T, typename Store>
struct PairStore {
  Store store;
  __device__ __forceinline__ void operator()(int batch, int j, cplx<T> value) const {
    store(batch, 2 * j, value.re);
    store(batch, 2 * j + 1, value.im);
  }
#if defined(SPECTRAL_HOST_EMULATION)
  /// As ComplexStore's (has_put_run), for a plain RealStore: a real line's
  /// entries side by side hold z_j's parts as a cplx<T> would, scaled lane
  /// by lane (the same products).
  template <typename S = Store,
            typename = typename std::enable_if<std::is_same<S, RealStore<T>>::value>::type>
  __forceinline__ bool runs() const {
    return store.layout.inner == 1;
  }
  template <typename L, typename S = Store,
            typename = typename std::enable_if<std::is_same<S, RealStore<T>>::value>::type>
  __forceinline__ void put_run(int batch, int j, const cplx<L>& value) const {
    const cplx<L> v = scale(value, L(store.factor));
    ::spectral_host::store_pairs(&store.data[store.layout.offset(batch, 2 * j)], v.re, v.im);
  }
#endif
};

// ---- DCTs through one complex FFT of the same length N (Makhoul) -----------
// scipy's unnormalized conventions: DCT-II y_k = 2 sum_n x_n cos(pi k (2n+1) / 2N),
// DCT-III y_k = x_0 + 2 sum_(n>=1) x_n cos(pi n (2k+1) / 2N).
// `quarter` holds w_4N^k = exp(-i pi k / 2N) for k in [0, N).

/// DCT-II prologue: v_i = x_2i for i < ceil(N/2), v_(N-1-i) = x_2i+1.
template <typename T, typename Load>
struct Dct2Prologue {
  Load load;
  int n;
  __device__ __forceinline__ cplx<T> operator()(int batch, int i) const {
    int source = i < (n + 1) / 2 ? 2 * i : 2 * (n - 1 - i) + 1;
    return make_cplx<T>(load(batch, source), T(0));
  }
};

/// DCT-II epilogue after a forward FFT: y_k = 2 Re(w_4N^k V_k).
template <typename T, typename Store>
struct Dct2Epilogue {
  Store store;
  const cplx<T>* quarter;
  __device__ __forceinline__ void operator()(int batch, int k, cplx<T> value) const {
    store(batch, k, T(2) * (quarter[k] * value).re);
  }
};

/// DCT-III prologue: V_k = conj(w_4N^k) (X_k - i X_(N-k)), X_N = 0.
template <typename T, typename Load>
struct Dct3Prologue {
  Load load;
  const cplx<T>* quarter;
  int n;
  __device__ __forceinline__ cplx<T> operator()(int batch, int k) const {
    T re = load(batch, k);
    T im = k == 0 ? T(0) : -load(batch, n - k);
    return conj(quarter[k]) * make_cplx<T>(re, im);
  }
};

/// DCT-III epilogue after an unscaled inverse FFT: y_2i = Re v_i for
/// i < ceil(N/2), y_(2(N-1-i)+1) = Re v_i otherwise.
template <typename T, typename Store>
struct Dct3Epilogue {
  Store store;
  int n;
  __device__ __forceinline__ void operator()(int batch, int i, cplx<T> value) const {
    int target = i < (n + 1) / 2 ? 2 * i : 2 * (n - 1 - i) + 1;
    store(batch, target, value.re);
  }
};

}  // namespace spectral_fft
