// host_emulation.h - CUDA C++ as plain C++17, so a kernel unit runs on the CPU.
//
// The host device force-includes this header (-include) before the unit and
// compiles it with the system C++ compiler into a shared object. It is longer
// than the house's 400 lines because it is the whole CUDA vocabulary in one
// place (qualifiers, types, built-in variables, barriers, warp intrinsics,
// atomics, math); splitting it would only scatter one list.
//
// Entry and launch convention
// ---------------------------
// A unit is plain CUDA C++: it includes templates and defines one
//     extern "C" __global__ void NAME(params...) { ... }
// with parameters passed by value, as CUDA requires. Nothing host-specific.
// When the host device compiles it, it appends one line after the unit:
//     SPECTRAL_HOST_ENTRY(NAME)
// which generates the .so's only export (declared in host_abi.h):
//     extern "C" int spectral_host_launch_NAME(const spectral_host_runtime* rt,
//         spectral_host_uint3 grid, spectral_host_uint3 block,
//         size_t dynamic_shared_bytes, void** args);
// `args` is CUDA's kernelParams: args[i] points at the value of parameter i.
// The export hands the runtime a per-thread trampoline; the runtime (not the
// .so) owns the thread pool, the fibers and the barriers and reaches them
// through the hooks in `rt`. So a kernel .so links nothing but libc and
// libstdc++ and compiles in a fraction of a second. Example, compiled by hand:
//     // saxpy.cu, a unit as codegen writes it
//     #include "common.cuh"
//     extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) {
//       const int i = blockIdx.x * blockDim.x + threadIdx.x;
//       if (i < n) y[i] = a * x[i] + y[i];
//     }
//     SPECTRAL_HOST_ENTRY(saxpy)   // the line the host device appends
// g++ -O2 -std=c++17 -fPIC -shared -fvisibility=hidden -include host_emulation.h \
//     -I kernels_templates -x c++ saxpy.cu -o saxpy.so  exports spectral_host_launch_saxpy.
//
// Execution: blocks run on a pool of OS threads, one block at a time per
// thread; a block's CUDA threads are fibers on that thread, switched at
// barriers. A .so whose code cannot reach any barrier or warp intrinsic (see
// "Barriers" below) runs each block's threads as a plain loop instead.
// A unit that says SPECTRAL_HOST_PHASED (see "Phased kernels" below) runs
// each block as one call, its templates looping over the block's threads
// between barriers: no fibers, and loops the compiler can vectorise.
//
// Semantics worth knowing:
// - Exited threads count as arrived at __syncthreads and at warp barriers.
// - A barrier that some live threads never reach fails the launch with a
//   "deadlock" error instead of hanging; __trap() fails it naming the thread.
// - __activemask() returns the lanes of the warp that reach it together: the
//   warp waits until every other live lane is at a barrier it cannot pass yet
//   or at the same call (a converged warp's lanes; not those that returned early
//   or took the other side of a branch).
// - Atomics are relaxed __atomic builtins on the same memory every OS thread
//   sees; __threadfence() is a full fence.
// - Math: the __fast intrinsics are the accurate libm functions; sincospi*,
//   sinpi*, cospi* reduce their argument exactly.
// - Not emulated: cooperative groups, __half/__nv_bfloat16, textures, clock(),
//   inline PTX, and float atomicMax (absent from CUDA too).
//
// Rules for code that must compile here and under NVRTC:
// - `extern __shared__` has no host form: use SPECTRAL_DYNAMIC_SHARED(type, name)
//   from common.cuh (included below).
// - `__shared__` becomes `static thread_local`: all CUDA threads of a block run
//   as fibers on one OS thread, so they share it, and blocks running at the same
//   time on other OS threads do not. Do not give __shared__ variables initializers
//   (CUDA forbids them too).
// - No C++ standard headers (NVRTC has none either): this header's macros and
//   its global float overloads (sqrt(float), ...) may collide with them.
// - Warp intrinsics take arithmetic types of up to 8 bytes, as in CUDA.
// - threadIdx, blockIdx, blockDim, gridDim are macros over the running thread's state.
// - SPECTRAL_HOST_EMULATION is defined; __CUDACC__ and __CUDA_ARCH__ are not.
#pragma once

#define SPECTRAL_HOST_EMULATION 1

#pragma GCC diagnostic ignored "-Wunknown-pragmas"  // CUDA's #pragma unroll

#include "host_abi.h"

// The C headers themselves, not libstdc++'s wrappers: <cmath> alone would
// triple the compile time of a small kernel. The float overloads CUDA code
// expects (sqrt(float), ...) are defined below.
#define _GLIBCXX_INCLUDE_NEXT_C_HEADERS
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#undef _GLIBCXX_INCLUDE_NEXT_C_HEADERS

// ---- Qualifiers ----------------------------------------------------------------------

#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __grid_constant__
#define __shared__ static thread_local
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)
// __restrict__ is a GCC/Clang keyword already.

// ---- Types ---------------------------------------------------------------------------

typedef spectral_host_uint3 uint3;

struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};

#define SPECTRAL_HOST_VEC1(T, N)                                                        \
  struct N##1 {                                                                         \
    T x;                                                                                \
  };                                                                                    \
  __forceinline__ N##1 make_##N##1(T x) { return N##1{x}; }
#define SPECTRAL_HOST_VEC2(T, N, A)                                                     \
  struct __attribute__((aligned(A))) N##2 {                                             \
    T x, y;                                                                             \
  };                                                                                    \
  __forceinline__ N##2 make_##N##2(T x, T y) { return N##2{x, y}; }
#define SPECTRAL_HOST_VEC3(T, N)                                                        \
  struct N##3 {                                                                         \
    T x, y, z;                                                                          \
  };                                                                                    \
  __forceinline__ N##3 make_##N##3(T x, T y, T z) { return N##3{x, y, z}; }
#define SPECTRAL_HOST_VEC4(T, N, A)                                                     \
  struct __attribute__((aligned(A))) N##4 {                                             \
    T x, y, z, w;                                                                       \
  };                                                                                    \
  __forceinline__ N##4 make_##N##4(T x, T y, T z, T w) { return N##4{x, y, z, w}; }
#define SPECTRAL_HOST_VECTORS(T, N, A2, A4) \
  SPECTRAL_HOST_VEC1(T, N) SPECTRAL_HOST_VEC2(T, N, A2) SPECTRAL_HOST_VEC3(T, N) SPECTRAL_HOST_VEC4(T, N, A4)

SPECTRAL_HOST_VECTORS(signed char, char, 2, 4)
SPECTRAL_HOST_VECTORS(unsigned char, uchar, 2, 4)
SPECTRAL_HOST_VECTORS(short, short, 4, 8)
SPECTRAL_HOST_VECTORS(unsigned short, ushort, 4, 8)
SPECTRAL_HOST_VECTORS(int, int, 8, 16)
SPECTRAL_HOST_VECTORS(float, float, 8, 16)
SPECTRAL_HOST_VEC1(unsigned int, uint)
SPECTRAL_HOST_VEC2(unsigned int, uint, 8)
SPECTRAL_HOST_VEC4(unsigned int, uint, 16)
__forceinline__ uint3 make_uint3(unsigned int x, unsigned int y, unsigned int z) {
  return uint3{x, y, z};
}
SPECTRAL_HOST_VEC1(long long, longlong)
SPECTRAL_HOST_VEC2(long long, longlong, 16)
SPECTRAL_HOST_VEC1(unsigned long long, ulonglong)
SPECTRAL_HOST_VEC2(unsigned long long, ulonglong, 16)
SPECTRAL_HOST_VEC1(double, double)
SPECTRAL_HOST_VEC2(double, double, 16)
SPECTRAL_HOST_VEC3(double, double)

// ---- The running thread ----------------------------------------------------------------

namespace spectral_host {
namespace detail {

#ifdef SPECTRAL_HOST_CHECK_ACCESSES
// Built for the race and init checks: loads and stores are instrumented
// (-fsanitize=thread's calls, answered by host_check_access.cc, which is not),
// and the running block is kept there, so that the only thread_local
// variables of the unit are its static __shared__ ones.
extern "C" __attribute__((visibility("hidden"))) spectral_host_block* spectral_host_check_block(void);
extern "C" __attribute__((visibility("hidden"))) void spectral_host_check_enter(spectral_host_block*);
__forceinline__ spectral_host_block* current_block() { return spectral_host_check_block(); }
__forceinline__ void enter_block(spectral_host_block* block) { spectral_host_check_enter(block); }
#else
/// The block running on this OS thread; set by each thread's trampoline.
[[maybe_unused]] static thread_local spectral_host_block* tls_block = nullptr;
__forceinline__ spectral_host_block* current_block() { return tls_block; }
__forceinline__ void enter_block(spectral_host_block* block) { tls_block = block; }
#endif

}  // namespace detail

__forceinline__ void* dynamic_shared() { return detail::current_block()->dynamic_shared; }
__forceinline__ unsigned int lane_id() { return detail::current_block()->linear_tid & 31u; }

}  // namespace spectral_host

// ---- Phased kernels ---------------------------------------------------------------------
//
// A unit whose kernel calls only templates with a phased form (each
// template's comment says whether it has one) may say, at namespace scope,
//     SPECTRAL_HOST_PHASED;
// (nothing under NVRTC). The host device then calls the kernel once per block
// with thread (0,0,0), and each template it calls asks take_whole_block():
// when true, it runs every thread of the block itself, each barrier-free
// phase as a loop over the threads, with the same arithmetic and results as
// its per-thread form. Code outside the templates runs once per block, so it
// must not depend on threadIdx. A launch where no template took the whole
// block fails. The checks (host_checks.h) and SPECTRAL_HOST_SCHEDULE=fibers
// run such kernels per thread, as any other.
//
// A phased unit whose templates all take runs of blocks (take_block_run) may
// also say
//     SPECTRAL_HOST_PHASED_RUNS;
// The host device then hands a phased call several consecutive blocks along x
// (blockIdx and the ones after it): a template can work on the rows of all of
// them together (fft_batched: V lines at once, a SIMD lane each, so that
// strided lines share cache lines). A template taking one block of a longer
// run fails the launch.

extern "C" const char spectral_host_phased_unit __attribute__((weak, visibility("hidden")));
extern "C" const char spectral_host_phased_runs_unit __attribute__((weak, visibility("hidden")));
#define SPECTRAL_HOST_PHASED \
  extern "C" __attribute__((visibility("hidden"))) const char spectral_host_phased_unit = 1
#define SPECTRAL_HOST_PHASED_RUNS \
  extern "C" __attribute__((visibility("hidden"))) const char spectral_host_phased_runs_unit = 1

namespace spectral_host {

/// True when this call runs the whole block (and records that a template took it).
__forceinline__ bool take_whole_block() {
  spectral_host_block* block = detail::current_block();
  if (block->whole_block == 0) return false;
  block->whole_block = 2;
  return true;
}

/// The number of blocks this call runs, blockIdx and those after it along x
/// (records that a template took them all, unless one took a single block:
/// that stays recorded, so a run where any template ran one block fails);
/// 0 when it runs one thread.
__forceinline__ int take_block_run() {
  spectral_host_block* block = detail::current_block();
  if (block->whole_block == 0) return 0;
  if (block->whole_block != 2) block->whole_block = 3;
  return int(block->run_blocks);
}

}  // namespace spectral_host

#define threadIdx (static_cast<const uint3&>(::spectral_host::detail::current_block()->thread_idx))
#define blockIdx (static_cast<const uint3&>(::spectral_host::detail::current_block()->block_idx))
#define blockDim (::dim3(::spectral_host::detail::current_block()->block_dim))
#define gridDim (::dim3(::spectral_host::detail::current_block()->grid_dim))
#define warpSize 32

// ---- Barriers and warp intrinsics ---------------------------------------------------------
//
// Every function that may suspend the calling thread is emitted, never inlined,
// into the section spectral_host_sync. The linker then defines
// __start_spectral_host_sync only in a .so that can reach a barrier; one that
// cannot runs its threads as a plain loop, without fibers.

#if defined(__has_attribute)
#if __has_attribute(noclone)
#define SPECTRAL_HOST_NOCLONE noclone,
#endif
#endif
#ifndef SPECTRAL_HOST_NOCLONE
#define SPECTRAL_HOST_NOCLONE
#endif
#define SPECTRAL_HOST_SYNC_FN \
  inline __attribute__((noinline, SPECTRAL_HOST_NOCLONE section("spectral_host_sync")))

extern "C" const char __start_spectral_host_sync[] __attribute__((weak, visibility("hidden")));

namespace spectral_host {
namespace detail {

inline bool uses_sync() { return __start_spectral_host_sync != nullptr; }

SPECTRAL_HOST_SYNC_FN int sync_block(int op, int predicate) {
  spectral_host_block* block = current_block();
  return block->rt->sync_block(block, op, predicate, __builtin_return_address(0));
}

SPECTRAL_HOST_SYNC_FN unsigned int active_mask() {
  spectral_host_block* block = current_block();
  return block->rt->warp_active_mask(block);
}

SPECTRAL_HOST_SYNC_FN const uint64_t* warp_exchange(unsigned int mask, uint64_t value,
                                                    unsigned int* arrived) {
  spectral_host_block* block = current_block();
  return block->rt->warp_exchange(block, mask, value, arrived, __builtin_return_address(0));
}

template <typename T> struct is_warp_type { static constexpr bool value = false; };
#define SPECTRAL_HOST_WARP_TYPE(T) \
  template <> struct is_warp_type<T> { static constexpr bool value = true; };
SPECTRAL_HOST_WARP_TYPE(bool) SPECTRAL_HOST_WARP_TYPE(char) SPECTRAL_HOST_WARP_TYPE(signed char)
SPECTRAL_HOST_WARP_TYPE(unsigned char) SPECTRAL_HOST_WARP_TYPE(short)
SPECTRAL_HOST_WARP_TYPE(unsigned short) SPECTRAL_HOST_WARP_TYPE(int)
SPECTRAL_HOST_WARP_TYPE(unsigned int) SPECTRAL_HOST_WARP_TYPE(long)
SPECTRAL_HOST_WARP_TYPE(unsigned long) SPECTRAL_HOST_WARP_TYPE(long long)
SPECTRAL_HOST_WARP_TYPE(unsigned long long) SPECTRAL_HOST_WARP_TYPE(float)
SPECTRAL_HOST_WARP_TYPE(double)

template <typename T>
__forceinline__ uint64_t to_bits(T value) {
  static_assert(is_warp_type<T>::value, "warp intrinsics take arithmetic types of up to 8 bytes");
  uint64_t bits = 0;
  memcpy(&bits, &value, sizeof(T));
  return bits;
}

template <typename T>
__forceinline__ T from_bits(uint64_t bits) {
  T value;
  memcpy(&value, &bits, sizeof(T));
  return value;
}

/// Exchanges `var` over the warp; returns the value of lane src(own lane, segment base).
template <typename T, typename Source>
__forceinline__ T shuffle(unsigned int mask, T var, int width, Source source) {
  unsigned int arrived;
  const uint64_t* values = warp_exchange(mask, to_bits(var), &arrived);
  const unsigned int lane = lane_id();
  const unsigned int base = lane & ~(unsigned(width) - 1u);
  return from_bits<T>(values[source(lane, base, unsigned(width)) & 31u]);
}

}  // namespace detail
}  // namespace spectral_host

__forceinline__ void __syncthreads() {
  ::spectral_host::detail::sync_block(SPECTRAL_HOST_SYNC_PLAIN, 0);
}
__forceinline__ int __syncthreads_count(int predicate) {
  return ::spectral_host::detail::sync_block(SPECTRAL_HOST_SYNC_COUNT, predicate);
}
__forceinline__ int __syncthreads_and(int predicate) {
  return ::spectral_host::detail::sync_block(SPECTRAL_HOST_SYNC_AND, predicate);
}
__forceinline__ int __syncthreads_or(int predicate) {
  return ::spectral_host::detail::sync_block(SPECTRAL_HOST_SYNC_OR, predicate);
}

__forceinline__ void __syncwarp(unsigned int mask = 0xffffffffu) {
  unsigned int arrived;
  ::spectral_host::detail::warp_exchange(mask, 0, &arrived);
}

/// The lanes that reach __activemask together: those of the warp that get there
/// before any lane of it could otherwise go on (a converged warp's lanes).
__forceinline__ unsigned int __activemask() { return ::spectral_host::detail::active_mask(); }

template <typename T>
__forceinline__ T __shfl_sync(unsigned int mask, T var, int src_lane, int width = 32) {
  return ::spectral_host::detail::shuffle(mask, var, width,
      [src_lane](unsigned int, unsigned int base, unsigned int w) {
        return base + (unsigned(src_lane) & (w - 1u));
      });
}
template <typename T>
__forceinline__ T __shfl_up_sync(unsigned int mask, T var, unsigned int delta, int width = 32) {
  return ::spectral_host::detail::shuffle(mask, var, width,
      [delta](unsigned int lane, unsigned int base, unsigned int) {
        return lane - base >= delta ? lane - delta : lane;
      });
}
template <typename T>
__forceinline__ T __shfl_down_sync(unsigned int mask, T var, unsigned int delta, int width = 32) {
  return ::spectral_host::detail::shuffle(mask, var, width,
      [delta](unsigned int lane, unsigned int base, unsigned int w) {
        return lane - base + delta < w ? lane + delta : lane;
      });
}
template <typename T>
__forceinline__ T __shfl_xor_sync(unsigned int mask, T var, int lane_mask, int width = 32) {
  // CUDA: a lane may read earlier segments but reads its own value for later ones.
  return ::spectral_host::detail::shuffle(mask, var, width,
      [lane_mask](unsigned int lane, unsigned int base, unsigned int w) {
        const unsigned int source = lane ^ unsigned(lane_mask);
        return source < base + w ? source : lane;
      });
}

__forceinline__ unsigned int __ballot_sync(unsigned int mask, int predicate) {
  unsigned int arrived;
  const uint64_t* values = ::spectral_host::detail::warp_exchange(mask, predicate != 0, &arrived);
  unsigned int ballot = 0;
  for (unsigned int lane = 0; lane < 32; ++lane) {
    if ((arrived & mask & (1u << lane)) && values[lane]) ballot |= 1u << lane;
  }
  return ballot;
}
__forceinline__ int __any_sync(unsigned int mask, int predicate) {
  return __ballot_sync(mask, predicate) != 0;
}
__forceinline__ int __all_sync(unsigned int mask, int predicate) {
  unsigned int arrived;
  const uint64_t* values = ::spectral_host::detail::warp_exchange(mask, predicate != 0, &arrived);
  for (unsigned int lane = 0; lane < 32; ++lane) {
    if ((arrived & mask & (1u << lane)) && !values[lane]) return 0;
  }
  return 1;
}

#define SPECTRAL_HOST_WARP_REDUCE(name, T, init, combine)                                 \
  __forceinline__ T name(unsigned int mask, T value) {                                   \
    unsigned int arrived;                                                                \
    const uint64_t* values = ::spectral_host::detail::warp_exchange(                     \
        mask, ::spectral_host::detail::to_bits(value), &arrived);                        \
    T result = init;                                                                     \
    for (unsigned int lane = 0; lane < 32; ++lane) {                                     \
      if (!(arrived & mask & (1u << lane))) continue;                                    \
      const T other = ::spectral_host::detail::from_bits<T>(values[lane]);               \
      result = combine;                                                                  \
    }                                                                                    \
    return result;                                                                       \
  }
SPECTRAL_HOST_WARP_REDUCE(__reduce_add_sync, unsigned int, 0u, result + other)
SPECTRAL_HOST_WARP_REDUCE(__reduce_add_sync, int, 0, int(unsigned(result) + unsigned(other)))
SPECTRAL_HOST_WARP_REDUCE(__reduce_min_sync, unsigned int, 0xffffffffu, other < result ? other : result)
SPECTRAL_HOST_WARP_REDUCE(__reduce_min_sync, int, 0x7fffffff, other < result ? other : result)
SPECTRAL_HOST_WARP_REDUCE(__reduce_max_sync, unsigned int, 0u, other > result ? other : result)
SPECTRAL_HOST_WARP_REDUCE(__reduce_max_sync, int, int(0x80000000u), other > result ? other : result)

/// Fails the launch with a message naming the block and thread.
[[noreturn]] __forceinline__ void __trap() {
  spectral_host_block* block = ::spectral_host::detail::current_block();
  block->rt->trap(block, "__trap() called");
  __builtin_unreachable();
}

// ---- Memory fences and atomics (global memory is shared by all OS threads) ----------------

__forceinline__ void __threadfence_block() { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
__forceinline__ void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
__forceinline__ void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

namespace spectral_host {
namespace detail {

/// old = *address; *address = update(old); atomically, for any 4- or 8-byte T.
template <typename T, typename Update>
__forceinline__ T atomic_update(T* address, Update update) {
  T old;
  __atomic_load(address, &old, __ATOMIC_RELAXED);
  T desired = update(old);
  while (!__atomic_compare_exchange(address, &old, &desired, true, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED)) {
    desired = update(old);
  }
  return old;
}

}  // namespace detail
}  // namespace spectral_host

#define SPECTRAL_HOST_ATOMIC_INT(T)                                                        \
  __forceinline__ T atomicAdd(T* a, T v) { return __atomic_fetch_add(a, v, __ATOMIC_RELAXED); } \
  __forceinline__ T atomicSub(T* a, T v) { return __atomic_fetch_sub(a, v, __ATOMIC_RELAXED); } \
  __forceinline__ T atomicAnd(T* a, T v) { return __atomic_fetch_and(a, v, __ATOMIC_RELAXED); } \
  __forceinline__ T atomicOr(T* a, T v) { return __atomic_fetch_or(a, v, __ATOMIC_RELAXED); }   \
  __forceinline__ T atomicXor(T* a, T v) { return __atomic_fetch_xor(a, v, __ATOMIC_RELAXED); } \
  __forceinline__ T atomicExch(T* a, T v) { return __atomic_exchange_n(a, v, __ATOMIC_RELAXED); } \
  __forceinline__ T atomicMin(T* a, T v) {                                                 \
    return ::spectral_host::detail::atomic_update(a, [v](T old) { return v < old ? v : old; }); \
  }                                                                                        \
  __forceinline__ T atomicMax(T* a, T v) {                                                 \
    return ::spectral_host::detail::atomic_update(a, [v](T old) { return v > old ? v : old; }); \
  }                                                                                        \
  __forceinline__ T atomicCAS(T* a, T compare, T v) {                                      \
    __atomic_compare_exchange_n(a, &compare, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED); \
    return compare;                                                                        \
  }
SPECTRAL_HOST_ATOMIC_INT(int)
SPECTRAL_HOST_ATOMIC_INT(unsigned int)
SPECTRAL_HOST_ATOMIC_INT(unsigned long long)
SPECTRAL_HOST_ATOMIC_INT(long long)

__forceinline__ float atomicAdd(float* a, float v) {
  return ::spectral_host::detail::atomic_update(a, [v](float old) { return old + v; });
}
__forceinline__ double atomicAdd(double* a, double v) {
  return ::spectral_host::detail::atomic_update(a, [v](double old) { return old + v; });
}
__forceinline__ float atomicExch(float* a, float v) {
  float old;
  __atomic_exchange(a, &v, &old, __ATOMIC_RELAXED);
  return old;
}
__forceinline__ unsigned int atomicInc(unsigned int* a, unsigned int limit) {
  return ::spectral_host::detail::atomic_update(
      a, [limit](unsigned int old) { return old >= limit ? 0u : old + 1u; });
}
__forceinline__ unsigned int atomicDec(unsigned int* a, unsigned int limit) {
  return ::spectral_host::detail::atomic_update(
      a, [limit](unsigned int old) { return old == 0u || old > limit ? limit : old - 1u; });
}

// ---- Loads -------------------------------------------------------------------------------

template <typename T>
__forceinline__ T __ldg(const T* p) { return *p; }
template <typename T>
__forceinline__ T __ldcg(const T* p) { return *p; }
template <typename T>
__forceinline__ T __ldcs(const T* p) { return *p; }
template <typename T>
__forceinline__ void __stcg(T* p, T v) { *p = v; }
template <typename T>
__forceinline__ void __stcs(T* p, T v) { *p = v; }

// ---- Math --------------------------------------------------------------------------------
//
// glibc declares __sinf, __expf, ... (without defining them): those are macros
// here, so they cannot clash.

namespace spectral_host {
namespace math {

/// sin(pi x) and cos(pi x) with exact argument reduction: x = n/2 + r, |r| <= 1/4.
inline void sincospi(double x, double* s, double* c) {
  if (!isfinite(x)) {
    *s = *c = x - x;
    return;
  }
  const double n = nearbyint(2.0 * x);
  const double r = x - 0.5 * n;
  const double pi = 3.14159265358979323846;
  const double sr = sin(pi * r), cr = cos(pi * r);
  switch (int(fmod(n, 4.0)) & 3) {  // two's complement & 3 maps -1..-3 to 3..1
    case 0: *s = sr; *c = cr; break;
    case 1: *s = cr; *c = -sr; break;
    case 2: *s = -sr; *c = -cr; break;
    default: *s = -cr; *c = sr; break;
  }
  if (x == 0.0) *s = x;  // keep the sign of zero
}
inline void sincospi(float x, float* s, float* c) {
  double sd, cd;
  sincospi(double(x), &sd, &cd);
  *s = float(sd);
  *c = float(cd);
}
inline double sinpi(double x) { double s, c; sincospi(x, &s, &c); return s; }
inline double cospi(double x) { double s, c; sincospi(x, &s, &c); return c; }
inline float sinpi(float x) { float s, c; sincospi(x, &s, &c); return s; }
inline float cospi(float x) { float s, c; sincospi(x, &s, &c); return c; }

}  // namespace math
}  // namespace spectral_host

// CUDA's float overloads of the C math functions.
#define SPECTRAL_HOST_FLOAT1(name) \
  inline float name(float x) { return name##f(x); }
#define SPECTRAL_HOST_FLOAT2(name) \
  inline float name(float x, float y) { return name##f(x, y); }
SPECTRAL_HOST_FLOAT1(fabs) SPECTRAL_HOST_FLOAT1(sqrt) SPECTRAL_HOST_FLOAT1(cbrt)
SPECTRAL_HOST_FLOAT1(exp) SPECTRAL_HOST_FLOAT1(exp2) SPECTRAL_HOST_FLOAT1(exp10)
SPECTRAL_HOST_FLOAT1(expm1) SPECTRAL_HOST_FLOAT1(log) SPECTRAL_HOST_FLOAT1(log2)
SPECTRAL_HOST_FLOAT1(log10) SPECTRAL_HOST_FLOAT1(log1p) SPECTRAL_HOST_FLOAT1(sin)
SPECTRAL_HOST_FLOAT1(cos) SPECTRAL_HOST_FLOAT1(tan) SPECTRAL_HOST_FLOAT1(asin)
SPECTRAL_HOST_FLOAT1(acos) SPECTRAL_HOST_FLOAT1(atan) SPECTRAL_HOST_FLOAT1(sinh)
SPECTRAL_HOST_FLOAT1(cosh) SPECTRAL_HOST_FLOAT1(tanh) SPECTRAL_HOST_FLOAT1(asinh)
SPECTRAL_HOST_FLOAT1(acosh) SPECTRAL_HOST_FLOAT1(atanh) SPECTRAL_HOST_FLOAT1(erf)
SPECTRAL_HOST_FLOAT1(erfc) SPECTRAL_HOST_FLOAT1(lgamma) SPECTRAL_HOST_FLOAT1(tgamma)
SPECTRAL_HOST_FLOAT1(floor) SPECTRAL_HOST_FLOAT1(ceil) SPECTRAL_HOST_FLOAT1(trunc)
SPECTRAL_HOST_FLOAT1(round) SPECTRAL_HOST_FLOAT1(rint) SPECTRAL_HOST_FLOAT1(nearbyint)
SPECTRAL_HOST_FLOAT1(logb)
SPECTRAL_HOST_FLOAT2(pow) SPECTRAL_HOST_FLOAT2(atan2) SPECTRAL_HOST_FLOAT2(fmod)
SPECTRAL_HOST_FLOAT2(fmin) SPECTRAL_HOST_FLOAT2(fmax) SPECTRAL_HOST_FLOAT2(hypot)
SPECTRAL_HOST_FLOAT2(copysign) SPECTRAL_HOST_FLOAT2(fdim) SPECTRAL_HOST_FLOAT2(remainder)
SPECTRAL_HOST_FLOAT2(nextafter)
inline float abs(float x) { return fabsf(x); }
inline double abs(double x) { return fabs(x); }
inline long abs(long x) { return labs(x); }
inline long long abs(long long x) { return llabs(x); }
inline float pow(float x, int n) { return powf(x, float(n)); }
inline float fma(float x, float y, float z) { return fmaf(x, y, z); }
inline float ldexp(float x, int e) { return ldexpf(x, e); }
inline float frexp(float x, int* e) { return frexpf(x, e); }
inline float modf(float x, float* i) { return modff(x, i); }
inline float scalbn(float x, int e) { return scalbnf(x, e); }
inline int ilogb(float x) { return ilogbf(x); }
inline long lrint(float x) { return lrintf(x); }
inline long lround(float x) { return lroundf(x); }
inline long long llrint(float x) { return llrintf(x); }
inline long long llround(float x) { return llroundf(x); }

inline void sincospif(float x, float* s, float* c) { ::spectral_host::math::sincospi(x, s, c); }
inline void sincospi(double x, double* s, double* c) { ::spectral_host::math::sincospi(x, s, c); }
inline void sincospi(float x, float* s, float* c) { ::spectral_host::math::sincospi(x, s, c); }
inline float sinpi(float x) { return ::spectral_host::math::sinpi(x); }
inline float cospi(float x) { return ::spectral_host::math::cospi(x); }
inline void sincos(float x, float* s, float* c) { sincosf(x, s, c); }
inline float rsqrt(float x) { return 1.0f / sqrtf(x); }
inline float rcbrtf(float x) { return 1.0f / cbrtf(x); }
inline double rcbrt(double x) { return 1.0 / cbrt(x); }
// C23 adds these to libc (glibc 2.41: sinpi, cospi; 2.42: rsqrt).
#if !(defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 41))
inline double sinpi(double x) { return ::spectral_host::math::sinpi(x); }
inline double cospi(double x) { return ::spectral_host::math::cospi(x); }
inline float sinpif(float x) { return ::spectral_host::math::sinpi(x); }
inline float cospif(float x) { return ::spectral_host::math::cospi(x); }
#endif
#if !(defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 42))
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
#endif

// CUDA's fast intrinsics; on the host the accurate functions serve.
#define __sinf(x) (::sinf(x))
#define __cosf(x) (::cosf(x))
#define __tanf(x) (::tanf(x))
#define __expf(x) (::expf(x))
#define __exp10f(x) (::exp10f(x))
#define __logf(x) (::logf(x))
#define __log2f(x) (::log2f(x))
#define __log10f(x) (::log10f(x))
#define __powf(x, y) (::powf((x), (y)))
#define __sincosf(x, s, c) (::sincosf((x), (s), (c)))
inline float __fdividef(float x, float y) { return x / y; }
inline float __saturatef(float x) { return x >= 1.0f ? 1.0f : (x > 0.0f ? x : 0.0f); }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __fsqrt_rn(float x) { return sqrtf(x); }
inline float __fadd_rn(float x, float y) { return x + y; }
inline float __fsub_rn(float x, float y) { return x - y; }
inline float __fmul_rn(float x, float y) { return x * y; }
inline float __fdiv_rn(float x, float y) { return x / y; }
inline float __fmaf_rn(float x, float y, float z) { return fmaf(x, y, z); }
inline double __dadd_rn(double x, double y) { return x + y; }
inline double __dmul_rn(double x, double y) { return x * y; }
inline double __fma_rn(double x, double y, double z) { return fma(x, y, z); }

// ---- Integer and conversion intrinsics ------------------------------------------------------

inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(unsigned(x)); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned int __brev(unsigned int x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  return __builtin_bswap32(x);
}
inline unsigned long long __brevll(unsigned long long x) {
  return ((unsigned long long)__brev(unsigned(x)) << 32) | __brev(unsigned(x >> 32));
}
inline int __mulhi(int x, int y) { return int(((long long)x * y) >> 32); }
inline unsigned int __umulhi(unsigned int x, unsigned int y) {
  return unsigned(((unsigned long long)x * y) >> 32);
}
inline long long __mul64hi(long long x, long long y) { return (long long)(((__int128)x * y) >> 64); }
inline unsigned long long __umul64hi(unsigned long long x, unsigned long long y) {
  return (unsigned long long)(((unsigned __int128)x * y) >> 64);
}

template <typename To, typename From>
__forceinline__ To spectral_host_bit_cast(From from) {
  static_assert(sizeof(To) == sizeof(From), "bit cast between different sizes");
  To to;
  memcpy(&to, &from, sizeof(To));
  return to;
}
inline int __float_as_int(float x) { return spectral_host_bit_cast<int>(x); }
inline unsigned int __float_as_uint(float x) { return spectral_host_bit_cast<unsigned int>(x); }
inline float __int_as_float(int x) { return spectral_host_bit_cast<float>(x); }
inline float __uint_as_float(unsigned int x) { return spectral_host_bit_cast<float>(x); }
inline long long __double_as_longlong(double x) { return spectral_host_bit_cast<long long>(x); }
inline double __longlong_as_double(long long x) { return spectral_host_bit_cast<double>(x); }

inline int __float2int_rn(float x) { return int(nearbyintf(x)); }
inline int __float2int_rz(float x) { return int(x); }
inline int __float2int_rd(float x) { return int(floorf(x)); }
inline int __float2int_ru(float x) { return int(ceilf(x)); }
inline unsigned int __float2uint_rn(float x) { return unsigned(nearbyintf(x)); }
inline unsigned int __float2uint_rz(float x) { return unsigned(x); }
inline long long __float2ll_rn(float x) { return (long long)nearbyintf(x); }
inline float __int2float_rn(int x) { return float(x); }
inline float __uint2float_rn(unsigned int x) { return float(x); }
inline float __double2float_rn(double x) { return float(x); }
inline int __double2int_rn(double x) { return int(nearbyint(x)); }
inline int __double2int_rz(double x) { return int(x); }

// CUDA's global min/max overloads.
#define SPECTRAL_HOST_MINMAX(R, A, B)                        \
  inline R min(A a, B b) { return static_cast<R>(a) < static_cast<R>(b) ? static_cast<R>(a) : static_cast<R>(b); } \
  inline R max(A a, B b) { return static_cast<R>(a) > static_cast<R>(b) ? static_cast<R>(a) : static_cast<R>(b); }
SPECTRAL_HOST_MINMAX(int, int, int)
SPECTRAL_HOST_MINMAX(unsigned int, unsigned int, unsigned int)
SPECTRAL_HOST_MINMAX(unsigned int, int, unsigned int)
SPECTRAL_HOST_MINMAX(unsigned int, unsigned int, int)
SPECTRAL_HOST_MINMAX(long, long, long)
SPECTRAL_HOST_MINMAX(unsigned long, unsigned long, unsigned long)
SPECTRAL_HOST_MINMAX(long long, long long, long long)
SPECTRAL_HOST_MINMAX(unsigned long long, unsigned long long, unsigned long long)
SPECTRAL_HOST_MINMAX(unsigned long long, long long, unsigned long long)
SPECTRAL_HOST_MINMAX(unsigned long long, unsigned long long, long long)
SPECTRAL_HOST_MINMAX(float, float, float)
SPECTRAL_HOST_MINMAX(double, double, double)
SPECTRAL_HOST_MINMAX(double, float, double)
SPECTRAL_HOST_MINMAX(double, double, float)
inline unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
inline unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
inline long long llmin(long long a, long long b) { return a < b ? a : b; }
inline long long llmax(long long a, long long b) { return a > b ? a : b; }

// ---- The entry ---------------------------------------------------------------------------

namespace spectral_host {
namespace detail {

template <size_t... I> struct index_list {};
template <size_t N, size_t... I> struct make_index_list : make_index_list<N - 1, N - 1, I...> {};
template <size_t... I> struct make_index_list<0, I...> { using type = index_list<I...>; };

// Kernel parameters are values (CUDA has no references there), and a
// function type carries no top-level const, so args[i] points at a Params_i.
template <typename... Params, size_t... I>
__forceinline__ void invoke_kernel(void (*kernel)(Params...), void** args, index_list<I...>) {
  (void)args;
  kernel(*static_cast<Params*>(args[I])...);
}

template <typename... Params>
__forceinline__ void invoke_kernel(void (*kernel)(Params...), void** args) {
  invoke_kernel(kernel, args, typename make_index_list<sizeof...(Params)>::type());
}

inline int launch(const spectral_host_runtime* rt, const char* name, spectral_host_thread_fn thread,
                  spectral_host_uint3 grid, spectral_host_uint3 block, size_t dynamic_shared_bytes,
                  void** args) {
  enter_block(nullptr);  // no CUDA thread runs (a failed block's may have been left)
  if (rt == nullptr || rt->abi_version != SPECTRAL_HOST_ABI_VERSION) return -1;
  const spectral_host_kernel kernel = {SPECTRAL_HOST_ABI_VERSION,
                                       (uses_sync() ? unsigned(SPECTRAL_HOST_KERNEL_USES_SYNC) : 0u) |
                                           (&spectral_host_phased_unit != nullptr
                                                ? unsigned(SPECTRAL_HOST_KERNEL_PHASED)
                                                : 0u) |
                                           (&spectral_host_phased_runs_unit != nullptr
                                                ? unsigned(SPECTRAL_HOST_KERNEL_PHASED_RUNS)
                                                : 0u),
                                       name, thread};
  const int result = rt->run_grid(rt, &kernel, grid, block, dynamic_shared_bytes, args);
  enter_block(nullptr);  // the launch's blocks are gone
  return result;
}

}  // namespace detail
}  // namespace spectral_host

/// The .so export for the kernel `name` (see the convention at the top).
#define SPECTRAL_HOST_ENTRY(name)                                                            \
  static void spectral_host_thread_##name(spectral_host_block* block, void** args) {         \
    ::spectral_host::detail::enter_block(block);                                              \
    ::spectral_host::detail::invoke_kernel(&name, args);                                      \
  }                                                                                           \
  extern "C" __attribute__((visibility("default"))) int spectral_host_launch_##name(         \
      const spectral_host_runtime* rt, spectral_host_uint3 grid, spectral_host_uint3 block,  \
      size_t dynamic_shared_bytes, void** args) {                                            \
    return ::spectral_host::detail::launch(rt, #name, &spectral_host_thread_##name, grid,     \
                                           block, dynamic_shared_bytes, args);               \
  }

#include "common.cuh"
