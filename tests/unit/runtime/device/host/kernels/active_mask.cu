// __activemask() names the lanes that reach it together: not those that
// returned early, nor those that took the other side of a branch.
extern "C" __global__ void active_mask(unsigned int* out, int active) {
  if (int(threadIdx.x) >= active) return;
  out[threadIdx.x] = __activemask();
  if (threadIdx.x % 2 == 0) out[blockDim.x + threadIdx.x] = __activemask();
}
