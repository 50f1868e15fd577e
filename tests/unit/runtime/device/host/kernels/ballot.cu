// Warp votes over (in > 0): __ballot_sync per warp, __any_sync and __all_sync.
extern "C" __global__ void ballot(const float* in, unsigned int* ballots, int* any, int* all) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int predicate = in[i] > 0.0f;
  const unsigned int votes = __ballot_sync(0xffffffffu, predicate);
  const int some = __any_sync(0xffffffffu, predicate);
  const int every = __all_sync(0xffffffffu, predicate);
  if (threadIdx.x % 32 == 0) {
    ballots[i / 32] = votes;
    any[i / 32] = some;
    all[i / 32] = every;
  }
}
