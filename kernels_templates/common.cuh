// common.cuh - what every template may use, valid for NVRTC and for the host.
//
// Under NVRTC/nvcc it relies on CUDA's builtins only (no standard headers);
// on the host, host_emulation.h (force-included by the host device) has
// already defined the CUDA vocabulary and includes this file itself.
#pragma once

// The block's dynamic shared memory (the launch's dynamic_shared_bytes) as a
// `type*` named `name`, 16-byte aligned at least. Use it instead of
// `extern __shared__`, which has no host equivalent:
//   SPECTRAL_DYNAMIC_SHARED(float, buffer);  buffer[threadIdx.x] = 0.0f;
#if defined(__CUDACC__)
#define SPECTRAL_DYNAMIC_SHARED(type, name)                                    \
  extern __shared__ __align__(16) unsigned char spectral_dynamic_shared_[];   \
  type* name = reinterpret_cast<type*>(spectral_dynamic_shared_)
#elif defined(SPECTRAL_HOST_EMULATION)
#define SPECTRAL_DYNAMIC_SHARED(type, name) \
  type* name = reinterpret_cast<type*>(::spectral_host::dynamic_shared())
#else
#error "common.cuh: compile with NVRTC/nvcc, or with host_emulation.h included first"
#endif

// SPECTRAL_HOST_PHASED; at namespace scope: the unit's kernel may run a whole
// block per call on the host (host_emulation.h, "Phased kernels");
// SPECTRAL_HOST_PHASED_RUNS; besides: several consecutive blocks per call.
#if defined(__CUDACC__)
#define SPECTRAL_HOST_PHASED static_assert(true, "")
#define SPECTRAL_HOST_PHASED_RUNS static_assert(true, "")
#endif

namespace spectral {

// Complex arithmetic on float2/double2 (x = real, y = imaginary).

__host__ __device__ __forceinline__ float2 cadd(float2 a, float2 b) {
  return make_float2(a.x + b.x, a.y + b.y);
}
__host__ __device__ __forceinline__ float2 csub(float2 a, float2 b) {
  return make_float2(a.x - b.x, a.y - b.y);
}
__host__ __device__ __forceinline__ float2 cmul(float2 a, float2 b) {
  return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
/// a * conj(b)
__host__ __device__ __forceinline__ float2 cmul_conj(float2 a, float2 b) {
  return make_float2(a.x * b.x + a.y * b.y, a.y * b.x - a.x * b.y);
}
__host__ __device__ __forceinline__ float2 cconj(float2 a) { return make_float2(a.x, -a.y); }
__host__ __device__ __forceinline__ float2 cscale(float2 a, float s) {
  return make_float2(a.x * s, a.y * s);
}
/// |a|^2
__host__ __device__ __forceinline__ float cabs2(float2 a) { return a.x * a.x + a.y * a.y; }

__host__ __device__ __forceinline__ double2 cadd(double2 a, double2 b) {
  return make_double2(a.x + b.x, a.y + b.y);
}
__host__ __device__ __forceinline__ double2 csub(double2 a, double2 b) {
  return make_double2(a.x - b.x, a.y - b.y);
}
__host__ __device__ __forceinline__ double2 cmul(double2 a, double2 b) {
  return make_double2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
__host__ __device__ __forceinline__ double2 cmul_conj(double2 a, double2 b) {
  return make_double2(a.x * b.x + a.y * b.y, a.y * b.x - a.x * b.y);
}
__host__ __device__ __forceinline__ double2 cconj(double2 a) { return make_double2(a.x, -a.y); }
__host__ __device__ __forceinline__ double2 cscale(double2 a, double s) {
  return make_double2(a.x * s, a.y * s);
}
__host__ __device__ __forceinline__ double cabs2(double2 a) { return a.x * a.x + a.y * a.y; }

/// e^(i*pi*x), accurate for large x (sincospi reduces exactly).
__device__ __forceinline__ float2 cexpipi(float x) {
  float s, c;
  sincospif(x, &s, &c);
  return make_float2(c, s);
}
__device__ __forceinline__ double2 cexpipi(double x) {
  double s, c;
  sincospi(x, &s, &c);
  return make_double2(c, s);
}

}  // namespace spectral
