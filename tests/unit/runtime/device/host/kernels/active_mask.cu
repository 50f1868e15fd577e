// __activemask() of every thread. Alone in a unit it has no barrier and runs
// as a loop (each thread its own lane); with a barrier in the unit, as fibers
// (the warp's live lanes).
extern "C" __global__ void active_mask(unsigned int* out, int active) {
  if (int(threadIdx.x) >= active) return;
  out[threadIdx.x] = __activemask();
}
