// fft_radix.cuh - DFT butterflies of radix 2, 3, 4, 5, 7 and 8 in registers.
//
// butterfly<R, FORWARD>(v) replaces v[0..R) by its R-point DFT
// (exp(-2 pi i jk/R) when FORWARD, exp(+2 pi i jk/R) otherwise). Indices into
// v are compile-time constants after unrolling, so v stays in registers.
// Radices 3, 5 and 7 use the symmetric form: pairs x_j +- x_{R-j} share one
// cosine and one sine, halving the multiplications of a direct DFT.
#pragma once

#include "fft_complex.cuh"

namespace spectral_fft {

/// cos(2 pi m / R) and sin(2 pi m / R) for m in [1, R/2], R in {3, 5, 7},
/// as double literals (rounded once to T by the caller).
template <int R>
__device__ __forceinline__ double unit_cos(int m) {
  if (R == 3) return -0.5;
  if (R == 5) return m == 1 ? 0.30901699437494745 : -0.80901699437494745;
  return m == 1 ? 0.62348980185873353 : m == 2 ? -0.22252093395631440 : -0.90096886790241913;
}

template <int R>
__device__ __forceinline__ double unit_sin(int m) {
  if (R == 3) return 0.86602540378443865;
  if (R == 5) return m == 1 ? 0.95105651629515357 : 0.58778525229247313;
  return m == 1 ? 0.78183148246802981 : m == 2 ? 0.97492791218182361 : 0.43388373911755812;
}

template <bool FORWARD, typename T>
__device__ __forceinline__ void butterfly2(cplx<T>& a, cplx<T>& b) {
  cplx<T> t = a - b;
  a = a + b;
  b = t;
}

template <bool FORWARD, typename T>
__device__ __forceinline__ void butterfly4(cplx<T>* v) {
  cplx<T> s02 = v[0] + v[2], d02 = v[0] - v[2];
  cplx<T> s13 = v[1] + v[3], d13 = quarter_turn<FORWARD>(v[1] - v[3]);
  v[0] = s02 + s13;
  v[1] = d02 + d13;
  v[2] = s02 - s13;
  v[3] = d02 - d13;
}

template <bool FORWARD, typename T>
__device__ __forceinline__ void butterfly8(cplx<T>* v) {
  // DFT8 = DFT4 of the even and of the odd entries, joined by w8^k.
  cplx<T> even[4] = {v[0], v[2], v[4], v[6]};
  cplx<T> odd[4] = {v[1], v[3], v[5], v[7]};
  butterfly4<FORWARD>(even);
  butterfly4<FORWARD>(odd);
  const T h = T(0.70710678118654752);  // 1/sqrt(2)
  // w8^1 = (1 -+ i)/sqrt(2), w8^2 = -+i, w8^3 = (-1 -+ i)/sqrt(2).
  cplx<T> o1 = odd[1], o3 = odd[3];
  odd[1] = scale(o1 + quarter_turn<FORWARD>(o1), h);
  odd[2] = quarter_turn<FORWARD>(odd[2]);
  odd[3] = scale(quarter_turn<FORWARD>(o3) - o3, h);
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    v[k] = even[k] + odd[k];
    v[k + 4] = even[k] - odd[k];
  }
}

/// Odd prime radix R by the symmetric form.
template <int R, bool FORWARD, typename T>
__device__ __forceinline__ void butterfly_odd(cplx<T>* v) {
  constexpr int H = (R - 1) / 2;
  cplx<T> sum[H], diff[H];
  cplx<T> y0 = v[0];
#pragma unroll
  for (int j = 1; j <= H; ++j) {
    sum[j - 1] = v[j] + v[R - j];
    diff[j - 1] = quarter_turn<FORWARD>(v[j] - v[R - j]);
    y0 = y0 + sum[j - 1];
  }
#pragma unroll
  for (int k = 1; k <= H; ++k) {
    cplx<T> c = v[0], s = make_cplx<T>(T(0), T(0));
#pragma unroll
    for (int j = 1; j <= H; ++j) {
      int m = (j * k) % R;  // angle 2 pi m / R; fold m > R/2 onto R - m
      bool mirrored = m > H;
      int folded = mirrored ? R - m : m;
      T cosine = T(unit_cos<R>(folded));
      T sine = T(unit_sin<R>(folded));
      c = c + scale(sum[j - 1], cosine);
      s = s + scale(diff[j - 1], mirrored ? -sine : sine);
    }
    v[k] = c + s;
    v[R - k] = c - s;
  }
  v[0] = y0;
}

template <int R, bool FORWARD, typename T>
__device__ __forceinline__ void butterfly(cplx<T>* v) {
  static_assert(R == 2 || R == 3 || R == 4 || R == 5 || R == 7 || R == 8,
                "radix must be 2, 3, 4, 5, 7 or 8");
  if constexpr (R == 2) {
    butterfly2<FORWARD>(v[0], v[1]);
  } else if constexpr (R == 4) {
    butterfly4<FORWARD>(v);
  } else if constexpr (R == 8) {
    butterfly8<FORWARD>(v);
  } else {
    butterfly_odd<R, FORWARD>(v);
  }
}

}  // namespace spectral_fft
