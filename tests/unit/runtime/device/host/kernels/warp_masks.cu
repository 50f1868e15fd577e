// Warp rounds with different masks interleaving: lanes 0-15 exchange twice
// among themselves while lanes 16-31 have yet to read a full-warp exchange.
extern "C" __global__ void warp_masks(int* out) {
  const int lane = threadIdx.x % 32;
  int v = __shfl_up_sync(0xffffffffu, lane * 10, 1);
  if (lane < 16) {
    v += 1000 * __shfl_sync(0x0000ffffu, lane + 100, (lane + 1) % 16, 16);
    v += 1000000 * __shfl_sync(0x0000ffffu, lane + 200, (lane + 2) % 16, 16);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
