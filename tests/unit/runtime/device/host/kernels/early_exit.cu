// Threads at or past `active` return before the barriers; CUDA counts exited
// threads as arrived. The rest sum their values through shared memory and
// vote in their (partial) warps.
#define BLOCK 256

extern "C" __global__ void early_exit(const float* in, int active, float* sums,
                                      unsigned int* ballots) {
  __shared__ float partial[BLOCK];
  const int t = threadIdx.x;
  if (t >= active) return;
  partial[t] = in[blockIdx.x * BLOCK + t];
  __syncthreads();
  if (t == 0) {
    float sum = 0.0f;
    for (int k = 0; k < active; ++k) sum += partial[k];
    sums[blockIdx.x] = sum;
  }
  const unsigned int votes = __ballot_sync(__activemask(), partial[t] > 0.0f);
  if (t % 32 == 0) ballots[blockIdx.x * (BLOCK / 32) + t / 32] = votes;
  __syncthreads();
}
