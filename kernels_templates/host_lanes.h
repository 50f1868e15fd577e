// host_lanes.h - V reals of one type as one value, for the templates' phased
// forms on the host (host_emulation.h, "Phased kernels"). Host only.
//
// lanes<T, V> has the arithmetic the butterflies and complex operations use
// (+, -, *, unary -, and construction from a real, which fills every lane),
// each lane on its own. A template instantiated for cplx<lanes<T, V>> does
// the same operations, in the same order, as for cplx<T>, on V work items at
// once, so its results are the same bits (phased units are built with no
// contracted multiply-adds and no auto-vectorization: host_compiler.cc says
// why), a NaN's payload and sign aside: of two NaN operands x86 returns the
// first, and the compiler may order the operands of + and * one way here and
// another in a thread's scalar code. The compiler emits one SIMD instruction
// per operation for wide_lanes.
#pragma once

#if !defined(SPECTRAL_HOST_EMULATION)
#error "host_lanes.h is part of the host build only"
#endif

namespace spectral_host {

template <typename T, int V>
struct lanes {
  typedef T vector __attribute__((vector_size(V * sizeof(T))));
  static constexpr int size = V;
  vector v;

  lanes() = default;
  /// Every lane `value`, rounded to T once (as T(value) would be); -0 stays
  /// -0 (x - 0 is x for every x, where -0 + 0 would be +0).
  __forceinline__ lanes(double value) : v(T(value) - vector{}) {}

  __forceinline__ T& operator[](int lane) { return reinterpret_cast<T*>(&v)[lane]; }
  __forceinline__ T operator[](int lane) const { return reinterpret_cast<const T*>(&v)[lane]; }

  friend __forceinline__ lanes operator+(lanes a, lanes b) { return with(a.v + b.v); }
  friend __forceinline__ lanes operator-(lanes a, lanes b) { return with(a.v - b.v); }
  friend __forceinline__ lanes operator*(lanes a, lanes b) { return with(a.v * b.v); }
  friend __forceinline__ lanes operator-(lanes a) { return with(-a.v); }

 private:
  static __forceinline__ lanes with(vector v) {
    lanes result;
    result.v = v;
    return result;
  }
};

/// Lanes as wide as the machine's vectors the kernel is built for: 32
/// bytes with AVX (8 floats or 4 doubles), else 16 (SSE2, every x86-64).
#if defined(__AVX__)
constexpr int kLaneBytes = 32;
#else
constexpr int kLaneBytes = 16;
#endif
template <typename T>
using wide_lanes = lanes<T, int(kLaneBytes / sizeof(T))>;

/// The real and imaginary parts of the V complex values at `p` (pairs of T).
/// __builtin_shufflevector: GCC 12 and clang alike.
template <typename T>
__forceinline__ void load_pairs(const T* p, wide_lanes<T>& re, wide_lanes<T>& im) {
  typename wide_lanes<T>::vector a, b;
  __builtin_memcpy(&a, p, sizeof a);
  __builtin_memcpy(&b, p + wide_lanes<T>::size, sizeof b);
  if constexpr (wide_lanes<T>::size == 8) {
    re.v = __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14);
    im.v = __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15);
  } else if constexpr (wide_lanes<T>::size == 4) {
    re.v = __builtin_shufflevector(a, b, 0, 2, 4, 6);
    im.v = __builtin_shufflevector(a, b, 1, 3, 5, 7);
  } else {
    static_assert(wide_lanes<T>::size == 2, "lanes of 2, 4 or 8");
    re.v = __builtin_shufflevector(a, b, 0, 2);
    im.v = __builtin_shufflevector(a, b, 1, 3);
  }
}

/// Stores lanes `re` and `im` as V complex values at `p`.
template <typename T>
__forceinline__ void store_pairs(T* p, const wide_lanes<T>& re, const wide_lanes<T>& im) {
  typename wide_lanes<T>::vector a, b;
  if constexpr (wide_lanes<T>::size == 8) {
    a = __builtin_shufflevector(re.v, im.v, 0, 8, 1, 9, 2, 10, 3, 11);
    b = __builtin_shufflevector(re.v, im.v, 4, 12, 5, 13, 6, 14, 7, 15);
  } else if constexpr (wide_lanes<T>::size == 4) {
    a = __builtin_shufflevector(re.v, im.v, 0, 4, 1, 5);
    b = __builtin_shufflevector(re.v, im.v, 2, 6, 3, 7);
  } else {
    static_assert(wide_lanes<T>::size == 2, "lanes of 2, 4 or 8");
    a = __builtin_shufflevector(re.v, im.v, 0, 2);
    b = __builtin_shufflevector(re.v, im.v, 1, 3);
  }
  __builtin_memcpy(p, &a, sizeof a);
  __builtin_memcpy(p + wide_lanes<T>::size, &b, sizeof b);
}

}  // namespace spectral_host
