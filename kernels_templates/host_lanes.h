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

/// The real and imaginary parts of V complex values, the one of lane l at
/// p[l] (a pair of T each), built in registers: each pair is moved whole
/// (its bits as one wider integer), never through a store and a wider load.
template <typename T>
__forceinline__ void gather_pairs(const T* const* p, wide_lanes<T>& re, wide_lanes<T>& im) {
  constexpr int V = wide_lanes<T>::size;
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "pairs of float or double");
  if constexpr (sizeof(T) == 4) {
    // A pair of floats is 8 bytes: V / 2 of them a vector of V floats.
    typedef long long words __attribute__((vector_size(V * sizeof(T))));
    long long w[V];
    for (int l = 0; l < V; ++l) __builtin_memcpy(&w[l], p[l], 8);
    words a, b;
    if constexpr (V == 8) {
      a = words{w[0], w[1], w[2], w[3]};
      b = words{w[4], w[5], w[6], w[7]};
    } else {
      a = words{w[0], w[1]};
      b = words{w[2], w[3]};
    }
    typename wide_lanes<T>::vector fa = (typename wide_lanes<T>::vector)a,
                                   fb = (typename wide_lanes<T>::vector)b;
    if constexpr (V == 8) {
      re.v = __builtin_shufflevector(fa, fb, 0, 2, 4, 6, 8, 10, 12, 14);
      im.v = __builtin_shufflevector(fa, fb, 1, 3, 5, 7, 9, 11, 13, 15);
    } else {
      re.v = __builtin_shufflevector(fa, fb, 0, 2, 4, 6);
      im.v = __builtin_shufflevector(fa, fb, 1, 3, 5, 7);
    }
  } else {  // a pair of doubles is a vector of two already: lane by lane
    for (int l = 0; l < V; ++l) {
      re[l] = p[l][0];
      im[l] = p[l][1];
    }
  }
}

/// The lanes of `a` in reverse order: lane l is lane V - 1 - l of `a`.
template <typename T>
__forceinline__ wide_lanes<T> reversed(const wide_lanes<T>& a) {
  wide_lanes<T> r;
  if constexpr (wide_lanes<T>::size == 8)
    r.v = __builtin_shufflevector(a.v, a.v, 7, 6, 5, 4, 3, 2, 1, 0);
  else if constexpr (wide_lanes<T>::size == 4)
    r.v = __builtin_shufflevector(a.v, a.v, 3, 2, 1, 0);
  else
    r.v = __builtin_shufflevector(a.v, a.v, 1, 0);
  return r;
}

/// Transposes V vectors of V lanes in place: lane j of r[l] becomes lane l
/// of r[j]. Only moves bits.
template <typename T>
__forceinline__ void transpose(wide_lanes<T>* r) {
  constexpr int V = wide_lanes<T>::size;
  using vec = typename wide_lanes<T>::vector;
  if constexpr (V == 8) {
    vec t[8], u[8];
    for (int p = 0; p < 4; ++p) {
      t[2 * p] = __builtin_shufflevector(r[2 * p].v, r[2 * p + 1].v, 0, 8, 1, 9, 4, 12, 5, 13);
      t[2 * p + 1] = __builtin_shufflevector(r[2 * p].v, r[2 * p + 1].v, 2, 10, 3, 11, 6, 14, 7, 15);
    }
    for (int h = 0; h < 8; h += 4) {
      u[h] = __builtin_shufflevector(t[h], t[h + 2], 0, 1, 8, 9, 4, 5, 12, 13);
      u[h + 1] = __builtin_shufflevector(t[h], t[h + 2], 2, 3, 10, 11, 6, 7, 14, 15);
      u[h + 2] = __builtin_shufflevector(t[h + 1], t[h + 3], 0, 1, 8, 9, 4, 5, 12, 13);
      u[h + 3] = __builtin_shufflevector(t[h + 1], t[h + 3], 2, 3, 10, 11, 6, 7, 14, 15);
    }
    for (int c = 0; c < 4; ++c) {
      r[c].v = __builtin_shufflevector(u[c], u[c + 4], 0, 1, 2, 3, 8, 9, 10, 11);
      r[c + 4].v = __builtin_shufflevector(u[c], u[c + 4], 4, 5, 6, 7, 12, 13, 14, 15);
    }
  } else if constexpr (V == 4) {
    const vec t0 = __builtin_shufflevector(r[0].v, r[1].v, 0, 4, 1, 5),
              t1 = __builtin_shufflevector(r[0].v, r[1].v, 2, 6, 3, 7),
              t2 = __builtin_shufflevector(r[2].v, r[3].v, 0, 4, 1, 5),
              t3 = __builtin_shufflevector(r[2].v, r[3].v, 2, 6, 3, 7);
    r[0].v = __builtin_shufflevector(t0, t2, 0, 1, 4, 5);
    r[1].v = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
    r[2].v = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
    r[3].v = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
  } else {
    static_assert(V == 2, "lanes of 2, 4 or 8");
    const vec t0 = r[0].v;
    r[0].v = __builtin_shufflevector(t0, r[1].v, 0, 2);
    r[1].v = __builtin_shufflevector(t0, r[1].v, 1, 3);
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
