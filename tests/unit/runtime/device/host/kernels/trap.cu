// __trap in one thread of one block.
extern "C" __global__ void trap_in_block(int* out, int bad_block, int bad_thread) {
  if (int(blockIdx.x) == bad_block && int(threadIdx.x) == bad_thread) __trap();
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}
