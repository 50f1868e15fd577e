// Warp reductions: __shfl_down_sync (result in lane 0), an __shfl_xor_sync
// butterfly (result in every lane), an __shfl_up_sync inclusive scan and an
// __shfl_sync broadcast of lane 7.
extern "C" __global__ void warp_shuffle(const float* in, float* down_sums, float* xor_sums,
                                        int* scans, float* broadcast) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x % 32;
  const float v = in[i];

  float down = v;
  for (int offset = 16; offset > 0; offset /= 2) down += __shfl_down_sync(0xffffffffu, down, offset);
  if (lane == 0) down_sums[i / 32] = down;

  float butterfly = v;
  for (int mask = 1; mask < 32; mask *= 2) butterfly += __shfl_xor_sync(0xffffffffu, butterfly, mask);
  xor_sums[i] = butterfly;

  int scan = lane + 1;
  for (int offset = 1; offset < 32; offset *= 2) {
    const int other = __shfl_up_sync(0xffffffffu, scan, offset);
    if (lane >= offset) scan += other;
  }
  scans[i] = scan;

  broadcast[i] = __shfl_sync(0xffffffffu, v, 7);
}
