// fft_complex.cuh - the complex number type of the transform kernels.
//
// A plain aggregate of two reals, templated on the precision, with the few
// operations butterflies need. Valid for NVRTC and for the host emulation
// header alike (no float2 dependence, no <complex>).
#pragma once

namespace spectral_fft {

template <typename T>
struct cplx {
  T re, im;
};

template <typename T>
__device__ __forceinline__ cplx<T> make_cplx(T re, T im) {
  cplx<T> z;
  z.re = re;
  z.im = im;
  return z;
}

template <typename T>
__device__ __forceinline__ cplx<T> operator+(cplx<T> a, cplx<T> b) {
  return make_cplx<T>(a.re + b.re, a.im + b.im);
}

template <typename T>
__device__ __forceinline__ cplx<T> operator-(cplx<T> a, cplx<T> b) {
  return make_cplx<T>(a.re - b.re, a.im - b.im);
}

template <typename T>
__device__ __forceinline__ cplx<T> operator*(cplx<T> a, cplx<T> b) {
  return make_cplx<T>(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}

template <typename T>
__device__ __forceinline__ cplx<T> scale(cplx<T> a, T s) {
  return make_cplx<T>(a.re * s, a.im * s);
}

template <typename T>
__device__ __forceinline__ cplx<T> conj(cplx<T> a) {
  return make_cplx<T>(a.re, -a.im);
}

/// a * (-i) when FORWARD, a * (+i) otherwise: the quarter turn of the DFT sign.
template <bool FORWARD, typename T>
__device__ __forceinline__ cplx<T> quarter_turn(cplx<T> a) {
  return FORWARD ? make_cplx<T>(a.im, -a.re) : make_cplx<T>(-a.im, a.re);
}

}  // namespace spectral_fft
