// Sum of each block's 256 elements through static shared memory: a tree with
// one __syncthreads per level.
#define BLOCK 256

extern "C" __global__ void block_reduce(const float* in, float* out, int n) {
  __shared__ float partial[BLOCK];
  const int t = threadIdx.x;
  const int i = blockIdx.x * BLOCK + t;
  partial[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int half = BLOCK / 2; half > 0; half /= 2) {
    if (t < half) partial[t] += partial[t + half];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}
