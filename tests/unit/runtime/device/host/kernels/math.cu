// The math the templates lean on: sincospif/sincospi with exact reduction,
// the fast intrinsics, and integer/bit intrinsics.
#include "common.cuh"

extern "C" __global__ void math_functions(const float* x, float* out_float, double* out_double,
                                          unsigned int* out_bits, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s, c;
  sincospif(x[i], &s, &c);
  out_float[4 * i + 0] = s;
  out_float[4 * i + 1] = c;
  out_float[4 * i + 2] = __fdividef(__expf(x[i] * 0.001f), rsqrtf(4.0f));
  const float2 z = spectral::cmul(make_float2(x[i], 1.0f), make_float2(2.0f, x[i]));
  out_float[4 * i + 3] = z.x + z.y;
  double sd, cd;
  sincospi(double(x[i]), &sd, &cd);
  out_double[2 * i + 0] = sd;
  out_double[2 * i + 1] = cd;
  const unsigned int bits = __float_as_uint(x[i]);
  out_bits[3 * i + 0] = __popc(bits);
  out_bits[3 * i + 1] = __brev(bits);
  out_bits[3 * i + 2] = __clz(int(bits)) + 100u * __ffs(int(bits));
}
