// Reverses each block's segment through dynamic shared memory, and counts the
// block's positive elements with __syncthreads_count.
#include "common.cuh"

extern "C" __global__ void reverse_segments(const float* in, float* out, int* positives) {
  SPECTRAL_DYNAMIC_SHARED(float, tile);
  const int t = threadIdx.x;
  const int base = blockIdx.x * blockDim.x;
  tile[t] = in[base + t];
  const int count = __syncthreads_count(tile[t] > 0.0f);
  out[base + t] = tile[blockDim.x - 1 - t];
  if (t == 0) positives[blockIdx.x] = count;
  const int all = __syncthreads_and(tile[t] > -1000.0f);
  const int any = __syncthreads_or(tile[t] > 1000.0f);
  if (t == 0 && (!all || any)) positives[blockIdx.x] = -1;
}
