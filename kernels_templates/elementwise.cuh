// elementwise.cuh - the scalar semantics of the dialect's pointwise ops.
//
// Codegen renders a region of pointwise and index-map ops (broadcast,
// transpose, slice, pad, concat, reshape) as one expression per value, built
// from these functions; they match the reference evaluator
// (compiler/Reference/PointwiseOps.cpp) op for op:
// - integers wrap modulo 2^bits (arithmetic in unsigned, no overflow UB);
//   integer division truncates toward zero, and division by zero is reported
//   through an error word (as sparse.cuh's bad indices) and yields 0;
// - a NaN or infinity cast to an integer is reported the same way;
// - casts to i1 are "not zero" (NaN is true), complex to real keeps the real
//   part, real to complex sets the imaginary part to 0;
// - complex exp, log, sqrt and tanh take principal branches; relu keeps NaN.
#pragma once

#include "fft_complex.cuh"

namespace spectral_ew {

using spectral_fft::cplx;
using spectral_fft::make_cplx;

/// Records element `position` as failing: the word ends as ~(lowest such position).
__device__ __forceinline__ void report(unsigned long long* error, long long position) {
  if (error != nullptr) atomicMax(error, ~(unsigned long long)position);
}

// ---- special values (no <limits> or HUGE_VAL under NVRTC) ---------------------------------

template <typename T>
__device__ __forceinline__ T infinity();
template <>
__device__ __forceinline__ float infinity<float>() { return __int_as_float(0x7f800000); }
template <>
__device__ __forceinline__ double infinity<double>() {
  return __longlong_as_double(0x7ff0000000000000LL);
}
template <typename T>
__device__ __forceinline__ T quiet_nan();
template <>
__device__ __forceinline__ float quiet_nan<float>() { return __int_as_float(0x7fc00000); }
template <>
__device__ __forceinline__ double quiet_nan<double>() {
  return __longlong_as_double(0x7ff8000000000000LL);
}

// ---- arithmetic -------------------------------------------------------------------------

template <typename T>
__device__ __forceinline__ T add(T a, T b) { return a + b; }
template <typename T>
__device__ __forceinline__ T sub(T a, T b) { return a - b; }
template <typename T>
__device__ __forceinline__ T mul(T a, T b) { return a * b; }
template <typename T>
__device__ __forceinline__ cplx<T> div(cplx<T> a, cplx<T> b) {
  // Smith's algorithm: no overflow of |b|^2 for large b.
  if (fabs(b.re) >= fabs(b.im)) {
    T r = b.im / b.re, d = b.re + b.im * r;
    return make_cplx<T>((a.re + a.im * r) / d, (a.im - a.re * r) / d);
  }
  T r = b.re / b.im, d = b.re * r + b.im;
  return make_cplx<T>((a.re * r + a.im) / d, (a.im * r - a.re) / d);
}
__device__ __forceinline__ float div(float a, float b) { return a / b; }
__device__ __forceinline__ double div(double a, double b) { return a / b; }

__device__ __forceinline__ int add(int a, int b) { return (int)((unsigned)a + (unsigned)b); }
__device__ __forceinline__ int sub(int a, int b) { return (int)((unsigned)a - (unsigned)b); }
__device__ __forceinline__ int mul(int a, int b) { return (int)((unsigned)a * (unsigned)b); }
__device__ __forceinline__ long long add(long long a, long long b) {
  return (long long)((unsigned long long)a + (unsigned long long)b);
}
__device__ __forceinline__ long long sub(long long a, long long b) {
  return (long long)((unsigned long long)a - (unsigned long long)b);
}
__device__ __forceinline__ long long mul(long long a, long long b) {
  return (long long)((unsigned long long)a * (unsigned long long)b);
}

/// Integer division toward zero; b == 0 reports `position` and yields 0; the
/// one overflow (min / -1) wraps to min.
template <typename I>
__device__ __forceinline__ I int_div(I a, I b, unsigned long long* error, long long position) {
  if (b == 0) {
    report(error, position);
    return 0;
  }
  if (b == -1) return sub(I(0), a);
  return a / b;
}

template <typename T>
__device__ __forceinline__ T neg(T a) { return -a; }
template <typename T>
__device__ __forceinline__ cplx<T> neg(cplx<T> a) { return make_cplx<T>(-a.re, -a.im); }
__device__ __forceinline__ int neg(int a) { return sub(0, a); }
__device__ __forceinline__ long long neg(long long a) { return sub(0LL, a); }

// ---- real functions -----------------------------------------------------------------------

template <typename T>
__device__ __forceinline__ T relu(T x) { return isnan(x) || x > T(0) ? x : T(0); }
template <typename T>
__device__ __forceinline__ T gelu(T x) {
  return T(0.5) * x * (T(1) + erf(x * T(0.70710678118654752440)));
}
template <typename T>
__device__ __forceinline__ T sigmoid(T x) { return T(1) / (T(1) + exp(-x)); }
template <typename T>
__device__ __forceinline__ T abs_of(T x) { return fabs(x); }
__device__ __forceinline__ int abs_of(int x) { return x < 0 ? neg(x) : x; }
__device__ __forceinline__ long long abs_of(long long x) { return x < 0 ? neg(x) : x; }
template <typename T>
__device__ __forceinline__ T abs_of(cplx<T> z) { return hypot(z.re, z.im); }

template <typename T>
__device__ __forceinline__ T exp_of(T x) { return exp(x); }
template <typename T>
__device__ __forceinline__ T log_of(T x) { return log(x); }
template <typename T>
__device__ __forceinline__ T sqrt_of(T x) { return sqrt(x); }
template <typename T>
__device__ __forceinline__ T tanh_of(T x) { return tanh(x); }

// ---- complex functions (principal branches) --------------------------------------------------

template <typename T>
__device__ __forceinline__ cplx<T> exp_of(cplx<T> z) {
  T m = exp(z.re);
  return make_cplx<T>(m * cos(z.im), m * sin(z.im));
}
template <typename T>
__device__ __forceinline__ cplx<T> log_of(cplx<T> z) {
  return make_cplx<T>(log(hypot(z.re, z.im)), atan2(z.im, z.re));
}
template <typename T>
__device__ __forceinline__ cplx<T> sqrt_of(cplx<T> z) {
  T r = hypot(z.re, z.im);
  if (r == T(0)) return make_cplx<T>(T(0), z.im);
  T t = sqrt((r + fabs(z.re)) * T(0.5));
  if (z.re >= T(0)) return make_cplx<T>(t, z.im / (T(2) * t));
  return make_cplx<T>(fabs(z.im) / (T(2) * t), copysign(t, z.im));
}
/// tanh(a + ib) = (sinh 2a + i sin 2b) / (cosh 2a + cos 2b), with the limit
/// for large |a| where cosh overflows.
template <typename T>
__device__ __forceinline__ cplx<T> tanh_of(cplx<T> z) {
  if (fabs(z.re) > T(20)) {
    T e = exp(T(-2) * fabs(z.re));
    return make_cplx<T>(copysign(T(1), z.re), T(4) * sin(z.im) * cos(z.im) * e);
  }
  T d = cosh(T(2) * z.re) + cos(T(2) * z.im);
  return make_cplx<T>(sinh(T(2) * z.re) / d, sin(T(2) * z.im) / d);
}
template <typename T>
__device__ __forceinline__ cplx<T> conj_of(cplx<T> z) { return make_cplx<T>(z.re, -z.im); }
template <typename T>
__device__ __forceinline__ T real_of(cplx<T> z) { return z.re; }
template <typename T>
__device__ __forceinline__ T imag_of(cplx<T> z) { return z.im; }
template <typename T>
__device__ __forceinline__ cplx<T> complex_of(T re, T im) { return make_cplx<T>(re, im); }

// ---- casts ---------------------------------------------------------------------------------

/// Truncates toward zero and wraps modulo 2^BITS, as the evaluator's
/// roundToKind; a NaN or infinity reports `position` and yields 0.
template <typename I, int BITS>
__device__ __forceinline__ I wrap_to_int(double v, unsigned long long* error, long long position) {
  if (!isfinite(v)) {
    report(error, position);
    return I(0);
  }
  const double modulus = ldexp(1.0, BITS);
  double w = fmod(trunc(v), modulus);
  if (w >= modulus / 2) w -= modulus;
  else if (w < -modulus / 2) w += modulus;
  return (I)w;
}

template <typename To>
struct Cast;

template <>
struct Cast<bool> {
  template <typename T>
  __device__ __forceinline__ static bool from(T x, unsigned long long*, long long) { return x != T(0); }
  template <typename T>
  __device__ __forceinline__ static bool from(cplx<T> x, unsigned long long*, long long) {
    return x.re != T(0);
  }
};

template <typename I, int BITS>
struct IntCast {
  __device__ __forceinline__ static I from(bool x, unsigned long long*, long long) { return x ? 1 : 0; }
  __device__ __forceinline__ static I from(int x, unsigned long long*, long long) { return (I)x; }
  __device__ __forceinline__ static I from(long long x, unsigned long long*, long long) {
    return (I)(unsigned long long)x;  // wraps modulo 2^BITS
  }
  __device__ __forceinline__ static I from(float x, unsigned long long* e, long long p) {
    return wrap_to_int<I, BITS>(double(x), e, p);
  }
  __device__ __forceinline__ static I from(double x, unsigned long long* e, long long p) {
    return wrap_to_int<I, BITS>(x, e, p);
  }
  template <typename T>
  __device__ __forceinline__ static I from(cplx<T> x, unsigned long long* e, long long p) {
    return wrap_to_int<I, BITS>(double(x.re), e, p);
  }
};
template <>
struct Cast<int> : IntCast<int, 32> {};
template <>
struct Cast<long long> : IntCast<long long, 64> {};

template <typename R>
struct RealCast {
  template <typename T>
  __device__ __forceinline__ static R from(T x, unsigned long long*, long long) { return R(x); }
  __device__ __forceinline__ static R from(bool x, unsigned long long*, long long) { return x ? R(1) : R(0); }
  template <typename T>
  __device__ __forceinline__ static R from(cplx<T> x, unsigned long long*, long long) { return R(x.re); }
};
template <>
struct Cast<float> : RealCast<float> {};
template <>
struct Cast<double> : RealCast<double> {};

template <typename R>
struct Cast<cplx<R>> {
  template <typename T>
  __device__ __forceinline__ static cplx<R> from(T x, unsigned long long*, long long) {
    return make_cplx<R>(R(x), R(0));
  }
  __device__ __forceinline__ static cplx<R> from(bool x, unsigned long long*, long long) {
    return make_cplx<R>(x ? R(1) : R(0), R(0));
  }
  template <typename T>
  __device__ __forceinline__ static cplx<R> from(cplx<T> x, unsigned long long*, long long) {
    return make_cplx<R>(R(x.re), R(x.im));
  }
};

/// x converted to To; `error` and `position` take a failing integer cast.
template <typename To, typename From>
__device__ __forceinline__ To cast(From x, unsigned long long* error, long long position) {
  return Cast<To>::from(x, error, position);
}

}  // namespace spectral_ew
