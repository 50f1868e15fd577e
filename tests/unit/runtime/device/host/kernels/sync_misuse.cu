// Kernels written wrong on purpose for the sync check (host_checks.h). Each
// runs without a word on a GPU and in the plain host mode (exited threads
// count as arrived). The barrier cases are undefined in CUDA; the warp masks
// naming absent lanes are defined while no value is read from those lanes,
// but NVIDIA advises against them, and the check is that strict.

// Thread 5 returns while threads 0 to 4 wait at the barrier.
extern "C" __global__ void exit_while_others_wait(int* out) {
  if (threadIdx.x == 5) return;
  __syncthreads();
  out[threadIdx.x] = 1;
}

// Thread 0 returns before any thread reaches the barrier.
extern "C" __global__ void barrier_after_exit(int* out) {
  if (threadIdx.x == 0) return;
  __syncthreads();
  out[threadIdx.x] = 1;
}

// A full-warp shuffle after lanes 16 to 31 returned (or in a block of 16
// threads, where they never existed).
extern "C" __global__ void shuffle_with_absent_lanes(int* out) {
  if (threadIdx.x >= 16) return;
  out[threadIdx.x] = __shfl_sync(0xffffffffu, int(threadIdx.x) + 100, 0);
}

// Lanes 0 to 15 return first; lane 16 then names them in a full-warp shuffle.
extern "C" __global__ void shuffle_after_lanes_exited(int* out) {
  if (threadIdx.x < 16) return;
  out[threadIdx.x] = __shfl_sync(0xffffffffu, int(threadIdx.x), 16);
}

// Thread 5 returns between two barriers: the others wait at the second.
extern "C" __global__ void exit_between_barriers(int* out) {
  __syncthreads();
  if (threadIdx.x == 5) return;
  __syncthreads();
  out[threadIdx.x] = 1;
}
