// Each thread writes its linear block and thread index, from 3-D indices: the
// first kernel has no barrier (threads run as a loop), the second has one
// (threads run as fibers).
extern "C" __global__ void thread_index(unsigned int* out) {
  const unsigned int block =
      (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  const unsigned int thread =
      (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  const unsigned int per_block = blockDim.x * blockDim.y * blockDim.z;
  out[block * per_block + thread] = block * 100000u + thread;
}

extern "C" __global__ void thread_index_synced(unsigned int* out) {
  __shared__ unsigned int ids[1024];
  const unsigned int block =
      (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  const unsigned int thread =
      (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  const unsigned int per_block = blockDim.x * blockDim.y * blockDim.z;
  ids[thread] = block * 100000u + thread;
  __syncthreads();
  // Written by the mirror thread: wrong if any thread saw another's indices.
  out[block * per_block + per_block - 1 - thread] = ids[per_block - 1 - thread];
}
