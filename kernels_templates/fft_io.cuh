// fft_io.cuh - Load and Store functors for the FFT templates.
//
// A transform along one axis of a row-major array sees it as
// [outer, n, inner]: batch entry b is the line (b / inner, :, b % inner), so
// neighbouring block rows (threadIdx.y) read neighbouring addresses when the
// axis is strided. Codegen fuses pointwise work by writing functors of its
// own with the same call shape; these are the plain ones.
#pragma once

#include "fft_complex.cuh"

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
};

/// Reads reals as complex numbers with a zero imaginary part.
template <typename T>
struct RealAsComplexLoad {
  const T* data;
  AxisLayout layout;
  __device__ __forceinline__ cplx<T> operator()(int batch, int i) const {
    return make_cplx<T>(data[layout.offset(batch, i)], T(0));
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
};

/// Writes the real part times factor (a C2R of odd length done as a C2C).
template <typename T>
struct RealPartStore {
  T* data;
  AxisLayout layout;
  T factor;
  __device__ __forceinline__ void operator()(int batch, int i, cplx<T> value) const {
    data[layout.offset(batch, i)] = value.re * factor;
  }
};

template <typename T>
struct RealStore {
  T* data;
  AxisLayout layout;
  T factor;
  __device__ __forceinline__ void operator()(int batch, int i, T value) const {
    data[layout.offset(batch, i)] = value * factor;
  }
};

/// Keeps bins i < limit (an R2C of odd length done as a C2C: limit = n/2+1).
template <typename T>
struct TruncatingStore {
  cplx<T>* data;
  AxisLayout layout;  // of the output, n = limit
  T factor;
  __device__ __forceinline__ void operator()(int batch, int i, cplx<T> value) const {
    if (i < layout.n) data[layout.offset(batch, i)] = scale(value, factor);
  }
};

/// Reads a half spectrum (n/2+1 bins) as the full Hermitian spectrum of
/// length n: bin i > n/2 is conj(bin n - i); the DC bin's imaginary part is
/// dropped (an odd-length C2R done as a C2C).
template <typename T>
struct HermitianLoad {
  const cplx<T>* data;
  AxisLayout layout;  // of the input, n = bins
  int length;         // the real length
  __device__ __forceinline__ cplx<T> operator()(int batch, int i) const {
    if (i == 0) return make_cplx<T>(data[layout.offset(batch, 0)].re, T(0));
    if (i < layout.n) return data[layout.offset(batch, i)];
    return conj(data[layout.offset(batch, length - i)]);
  }
};

/// The first pass of a four-step FFT of length N = N1 * N2 along an axis of
/// [outer, N1, N2, inner]: after the length-N1 transforms (stride N2 * inner),
/// multiply entry (k1, n2) by w_N^(k1 n2) (conjugated for the inverse) and
/// store in place. w_N^m = hi[m >> shift] * lo[m & (2^shift - 1)]: two small
/// tables instead of one of N entries.
template <typename T, bool FORWARD>
struct FourStepTwiddleStore {
  cplx<T>* data;
  AxisLayout layout;  // n = N1, inner = N2 * inner
  int inner;          // the axis' own stride
  const cplx<T>* hi;
  const cplx<T>* lo;
  int shift;
  __device__ __forceinline__ void operator()(int batch, int k1, cplx<T> value) const {
    long long m = (long long)k1 * ((batch % layout.inner) / inner);
    cplx<T> w = hi[m >> shift] * lo[m & ((1LL << shift) - 1)];
    data[layout.offset(batch, k1)] = value * (FORWARD ? w : conj(w));
  }
};

/// The second pass's store: batch entry b = (outer, k1, in) of the length-N2
/// transforms writes X[outer, k1 + N1 k2, in], the four-step's transposed
/// output order.
template <typename T>
struct FourStepTransposedStore {
  cplx<T>* data;
  int n1, n2, inner;
  T factor;
  __device__ __forceinline__ void operator()(int batch, int k2, cplx<T> value) const {
    int in = batch % inner, rest = batch / inner;
    int k1 = rest % n1;
    long long outer = rest / n1;
    data[((outer * n2 + k2) * n1 + k1) * inner + in] = scale(value, factor);
  }
};

// Bluestein beyond one block: the convolution's FFTs of length M run as
// multi-pass FFTs over a scratch array [lines, M]; these functors (for
// pointwise_map, index i over the scratch or the output) do the rest. The
// axis being transformed lies in [outer, N, inner]; line = outer * inner + in.

/// scratch[line, j] = j < N ? x[outer, j, in] * chirp[j] : 0.
template <typename T>
struct BluesteinPadLoad {
  const cplx<T>* data;
  const cplx<T>* chirp;
  int n, m, inner;
  __device__ __forceinline__ cplx<T> operator()(long long i) const {
    long long line = i / m;
    int j = int(i - line * m);
    if (j >= n) return make_cplx<T>(T(0), T(0));
    long long outer = line / inner, in = line - outer * inner;
    return data[(outer * n + j) * inner + in] * chirp[j];
  }
};

/// scratch[line, j] * filter[j].
template <typename T>
struct BluesteinFilterLoad {
  const cplx<T>* scratch;
  const cplx<T>* filter;
  int m;
  __device__ __forceinline__ cplx<T> operator()(long long i) const {
    return scratch[i] * filter[i % m];
  }
};

/// out[outer, j, in] = scratch[line, j] * chirp[j], for i over [lines, N]
/// in the output's own order.
template <typename T>
struct BluesteinFinishLoad {
  const cplx<T>* scratch;
  const cplx<T>* chirp;
  int n, m, inner;
  __device__ __forceinline__ cplx<T> operator()(long long i) const {
    long long in = i % inner, rest = i / inner;
    int j = int(rest % n);
    long long outer = rest / n;
    return scratch[(outer * inner + in) * m + j] * chirp[j];
  }
};

// DCTs through one complex FFT of the same length N (Makhoul), scipy's
// unnormalized conventions: DCT-II y_k = 2 sum_n x_n cos(pi k (2n+1) / 2N),
// DCT-III y_k = x_0 + 2 sum_(n>=1) x_n cos(pi n (2k+1) / 2N).
// `quarter` holds w_4N^k = exp(-i pi k / 2N) for k in [0, N).

/// DCT-II prologue: v_n = x_2n for n < ceil(N/2), v_(N-1-n) = x_2n+1.
template <typename T>
struct Dct2Load {
  const T* data;
  AxisLayout layout;
  __device__ __forceinline__ cplx<T> operator()(int batch, int i) const {
    int n = layout.n, source = i < (n + 1) / 2 ? 2 * i : 2 * (n - 1 - i) + 1;
    return make_cplx<T>(data[layout.offset(batch, source)], T(0));
  }
};

/// DCT-II epilogue: y_k = 2 Re(w_4N^k V_k), times factor.
template <typename T>
struct Dct2Store {
  T* data;
  AxisLayout layout;
  const cplx<T>* quarter;
  T factor;
  __device__ __forceinline__ void operator()(int batch, int k, cplx<T> value) const {
    data[layout.offset(batch, k)] = T(2) * (quarter[k] * value).re * factor;
  }
};

/// DCT-III prologue: V_k = conj(w_4N^k) (X_k - i X_(N-k)), X_N = 0.
template <typename T>
struct Dct3Load {
  const T* data;
  AxisLayout layout;
  const cplx<T>* quarter;
  __device__ __forceinline__ cplx<T> operator()(int batch, int k) const {
    T re = data[layout.offset(batch, k)];
    T im = k == 0 ? T(0) : -data[layout.offset(batch, layout.n - k)];
    return conj(quarter[k]) * make_cplx<T>(re, im);
  }
};

/// DCT-III epilogue after an unscaled inverse FFT: y_2n = Re v_n for
/// n < ceil(N/2), y_(2(N-1-n)+1) = Re v_n otherwise, times factor.
template <typename T>
struct Dct3Store {
  T* data;
  AxisLayout layout;
  T factor;
  __device__ __forceinline__ void operator()(int batch, int i, cplx<T> value) const {
    int n = layout.n, target = i < (n + 1) / 2 ? 2 * i : 2 * (n - 1 - i) + 1;
    data[layout.offset(batch, target)] = value.re * factor;
  }
};

}  // namespace spectral_fft
