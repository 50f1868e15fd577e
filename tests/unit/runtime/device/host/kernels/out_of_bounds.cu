// Kernels written wrong on purpose for the bounds check (host_checks.h):
// each reaches one element past the end of its memory in one thread. Both
// have barriers, so their threads run as fibers.
#include "common.cuh"

// Each thread reads its right neighbour's input, the last one the element
// past the end of an input of blockDim.x values.
extern "C" __global__ void read_one_past_with_barrier(const float* in, float* out) {
  __shared__ float cell[256];
  cell[threadIdx.x] = in[threadIdx.x + 1];
  __syncthreads();
  out[threadIdx.x] = cell[(threadIdx.x + 1) % blockDim.x];
}

// Dynamic shared memory of blockDim.x floats: with shift 1 the last thread
// writes past it.
extern "C" __global__ void shared_one_past(float* out, int shift) {
  SPECTRAL_DYNAMIC_SHARED(float, cell);
  cell[threadIdx.x + shift] = float(threadIdx.x);
  __syncthreads();
  out[threadIdx.x] = cell[threadIdx.x];
}
