// Kernels written wrong on purpose for the race and init checks
// (host_checks.h), each beside its correct version. On a GPU the wrong ones
// may well give the right answer; the checks must name the defect anyway.

#include "common.cuh"

// Reverses each block's slice of `in` through dynamic shared memory. Without
// the barrier, thread i reads the slot thread n-1-i writes in the same
// interval (race), before it is written (init).
extern "C" __global__ void reverse_missing_barrier(const float* in, float* out) {
  SPECTRAL_DYNAMIC_SHARED(float, tile);
  const unsigned int n = blockDim.x, i = threadIdx.x, base = blockIdx.x * n;
  tile[i] = in[base + i];
  out[base + i] = tile[n - 1 - i];
}

extern "C" __global__ void reverse(const float* in, float* out) {
  SPECTRAL_DYNAMIC_SHARED(float, tile);
  const unsigned int n = blockDim.x, i = threadIdx.x, base = blockIdx.x * n;
  tile[i] = in[base + i];
  __syncthreads();
  out[base + i] = tile[n - 1 - i];
}

// The same through a static __shared__ array (at most 64 threads).
extern "C" __global__ void reverse_static_missing_barrier(const float* in, float* out) {
  __shared__ float tile[64];
  const unsigned int n = blockDim.x, i = threadIdx.x, base = blockIdx.x * n;
  tile[i] = in[base + i];
  out[base + i] = tile[n - 1 - i];
}

extern "C" __global__ void reverse_static(const float* in, float* out) {
  __shared__ float tile[64];
  const unsigned int n = blockDim.x, i = threadIdx.x, base = blockIdx.x * n;
  tile[i] = in[base + i];
  __syncthreads();
  out[base + i] = tile[n - 1 - i];
}

// Two rounds through one tile: the barrier after the reads is what keeps the
// next round's writes from overwriting a slot another thread still reads.
// Only a second round executes that hazard.
extern "C" __global__ void rounds_missing_second_barrier(const float* in, float* out, int rounds) {
  SPECTRAL_DYNAMIC_SHARED(float, tile);
  const unsigned int n = blockDim.x, i = threadIdx.x;
  float sum = 0.0f;
  for (int round = 0; round < rounds; ++round) {
    tile[i] = in[round * n + i];
    __syncthreads();
    sum += tile[n - 1 - i];
  }
  out[i] = sum;
}

extern "C" __global__ void rounds(const float* in, float* out, int rounds) {
  SPECTRAL_DYNAMIC_SHARED(float, tile);
  const unsigned int n = blockDim.x, i = threadIdx.x;
  float sum = 0.0f;
  for (int round = 0; round < rounds; ++round) {
    tile[i] = in[round * n + i];
    __syncthreads();
    sum += tile[n - 1 - i];
    __syncthreads();
  }
  out[i] = sum;
}

// Every block writes out[0]: blocks of one launch are not ordered.
extern "C" __global__ void blocks_write_one_slot(float* out) {
  if (threadIdx.x == 0) out[0] = float(blockIdx.x);
}

// Each block writes its own slot; atomics from every block on one counter
// are not a race.
extern "C" __global__ void blocks_write_own_slots(float* out, int* counter) {
  if (threadIdx.x == 0) out[blockIdx.x] = float(blockIdx.x);
  atomicAdd(counter, 1);
}

// Sums `in` (n values, n <= blockDim.x) by a tree over blockDim.x slots, but
// fills only the first n: the slots past n are read unwritten.
extern "C" __global__ void tree_sum_unfilled(const float* in, float* out, int n) {
  SPECTRAL_DYNAMIC_SHARED(float, slots);
  const unsigned int i = threadIdx.x;
  if (i < unsigned(n)) slots[i] = in[i];
  __syncthreads();
  for (unsigned int half = blockDim.x / 2; half > 0; half /= 2) {
    if (i < half) slots[i] += slots[i + half];
    __syncthreads();
  }
  if (i == 0) out[0] = slots[0];
}

extern "C" __global__ void tree_sum(const float* in, float* out, int n) {
  SPECTRAL_DYNAMIC_SHARED(float, slots);
  const unsigned int i = threadIdx.x;
  slots[i] = i < unsigned(n) ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned int half = blockDim.x / 2; half > 0; half /= 2) {
    if (i < half) slots[i] += slots[i + half];
    __syncthreads();
  }
  if (i == 0) out[0] = slots[0];
}

// Copies `in` to `out`: reading device memory nothing wrote is caught when
// `in` was allocated and never filled.
extern "C" __global__ void copy(const float* in, float* out) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i];
}

// Thread 0 clears the tile with memset (a call the compiler leaves in the
// kernel); the others read it after the barrier. Without the barrier the
// reads race with the memset.
extern "C" __global__ void cleared_by_memset(float* out) {
  SPECTRAL_DYNAMIC_SHARED(float, tile);
  if (threadIdx.x == 0) memset(tile, 0, blockDim.x * sizeof(float));
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x];
}

extern "C" __global__ void cleared_by_memset_missing_barrier(float* out) {
  SPECTRAL_DYNAMIC_SHARED(float, tile);
  if (threadIdx.x == 0) memset(tile, 0, blockDim.x * sizeof(float));
  out[threadIdx.x] = tile[threadIdx.x];
}

// atomicExch sets a flag in memory nothing wrote before: a store, not a read.
extern "C" __global__ void set_flag(int* flag) {
  if (threadIdx.x == 0) atomicExch(flag, 1);
}

// Every thread counts its input's sign in shared counters with atomicAdd;
// thread 0 then reads the counts. Without the barrier its plain read races
// with the other threads' atomics (a histogram read too early).
extern "C" __global__ void count_signs(const float* in, int* out) {
  __shared__ int counts[2];
  if (threadIdx.x < 2) counts[threadIdx.x] = 0;
  __syncthreads();
  atomicAdd(&counts[in[threadIdx.x] < 0.0f], 1);
  __syncthreads();
  if (threadIdx.x == 0) out[0] = counts[0], out[1] = counts[1];
}

extern "C" __global__ void count_signs_missing_barrier(const float* in, int* out) {
  __shared__ int counts[2];
  if (threadIdx.x < 2) counts[threadIdx.x] = 0;
  __syncthreads();
  atomicAdd(&counts[in[threadIdx.x] < 0.0f], 1);
  if (threadIdx.x == 0) out[0] = counts[0], out[1] = counts[1];
}

// The counters are zeroed without a barrier before the atomics: another
// thread's add may land before the zero.
extern "C" __global__ void count_signs_unzeroed(const float* in, int* out) {
  __shared__ int counts[2];
  if (threadIdx.x < 2) counts[threadIdx.x] = 0;
  atomicAdd(&counts[in[threadIdx.x] < 0.0f], 1);
  __syncthreads();
  if (threadIdx.x == 0) out[0] = counts[0], out[1] = counts[1];
}

// The last thread to add reads the total without a barrier: the other adds
// are unordered with its read.
extern "C" __global__ void last_adder_reads(int* out, int reader) {
  __shared__ int total;
  if (threadIdx.x == 0) total = 0;
  __syncthreads();
  atomicAdd(&total, 1);
  if (int(threadIdx.x) == reader) out[0] = total;
}
