// y = a*x + y over a 2-D grid of 2-D blocks, grid-stride; no barrier (loop mode).
extern "C" __global__ void saxpy_2d(int n, float a, const float* __restrict__ x,
                                    float* __restrict__ y) {
  const int per_block = blockDim.x * blockDim.y;
  const int block = blockIdx.y * gridDim.x + blockIdx.x;
  const int stride = per_block * gridDim.x * gridDim.y;
  for (int i = block * per_block + threadIdx.y * blockDim.x + threadIdx.x; i < n; i += stride) {
    y[i] = a * x[i] + y[i];
  }
}
