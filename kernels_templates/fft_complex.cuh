// fft_complex.cuh - the complex number type of the transform kernels.
//
// A plain aggregate of two reals, templated on the precision, with the few
// operations butterflies need. Valid for NVRTC and for the host emulation
// header alike (no float2 dependence, no <complex>).
#pragma once

#if defined(SPECTRAL_HOST_EMULATION)
#include "host_lanes.h"
#endif

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

#if defined(SPECTRAL_HOST_EMULATION)
// The phased forms' lanes (host_lanes.h): cplx<lanes> holds V complex values.

/// Lane l of `value`.
template <typename L>
__forceinline__ auto lane_of(const cplx<L>& value, int l) {
  return make_cplx(value.re[l], value.im[l]);
}
template <typename T, int V>
__forceinline__ T lane_of(const ::spectral_host::lanes<T, V>& value, int l) {
  return value[l];
}

/// Sets lane l of `into` to `value`.
template <typename L, typename T>
__forceinline__ void set_lane(cplx<L>& into, int l, cplx<T> value) {
  into.re[l] = value.re;
  into.im[l] = value.im;
}
template <typename T, int V>
__forceinline__ void set_lane(::spectral_host::lanes<T, V>& into, int l, T value) {
  into[l] = value;
}

/// `value` in every lane (a twiddle shared by the lanes' work items).
template <typename L, typename T>
__forceinline__ cplx<L> broadcast(cplx<T> value) {
  return make_cplx<L>(L(value.re), L(value.im));
}
#endif

}  // namespace spectral_fft
