// Kernels whose results depend on the order their threads run in, for the
// order check (host_checks.h), beside one that does not.

#include "common.cuh"

// Every thread writes its index into out[0]: the last one wins (a race, too).
extern "C" __global__ void last_writer_wins(int* out) { out[0] = int(threadIdx.x); }

// A block's sum by float atomics: the rounding follows the order of the adds.
extern "C" __global__ void atomic_float_sum(const float* in, float* out) {
  atomicAdd(out, in[threadIdx.x]);
}

// The same sum by a tree between barriers: every order gives the same bits.
extern "C" __global__ void tree_float_sum(const float* in, float* out) {
  SPECTRAL_DYNAMIC_SHARED(float, slots);
  const unsigned int i = threadIdx.x;
  slots[i] = in[i];
  __syncthreads();
  for (unsigned int half = blockDim.x / 2; half > 0; half /= 2) {
    if (i < half) slots[i] += slots[i + half];
    __syncthreads();
  }
  if (i == 0) out[0] = slots[0];
}

// Threads 0 and 1 write one slot after a barrier: the later one wins. The
// order check must start the interval after a barrier in its own order, not
// with the thread that released the barrier (forward: 1 wins).
extern "C" __global__ void two_writers_after_barrier(int* out) {
  __syncthreads();
  if (threadIdx.x < 2) out[0] = int(threadIdx.x);
}
