// Global atomics from many blocks at once: an int histogram of bins, and a
// float sum and double sum of the values per bin.
extern "C" __global__ void histogram(const int* bins, const float* values, int n, int* counts,
                                     float* sums, double* double_sums, unsigned int* max_bin) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    atomicAdd(&counts[bins[i]], 1);
    atomicAdd(&sums[bins[i]], values[i]);
    atomicAdd(&double_sums[bins[i]], double(values[i]));
    atomicMax(max_bin, (unsigned int)bins[i]);
  }
}
