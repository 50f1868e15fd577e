// Written wrong on purpose for the bounds check (host_checks.h), alone in
// its unit so that it has no barrier and its threads run as a plain loop:
// element n of an n-element output, by thread n of the grid.
extern "C" __global__ void write_one_past(float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) out[i] = 1.0f;
}
