// A kernel that fails on purpose: a barrier some threads never reach.
extern "C" __global__ void divergent_barrier(int* out) {
  if (threadIdx.x == 0) {
    __syncthreads();
  } else {
    __syncwarp();
  }
  out[threadIdx.x] = 1;
}
