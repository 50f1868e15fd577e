// SPECTRAL_DEVICE_MEMORY_LIMIT caps what a run allocates on the host device,
// as on a GPU: a graph needing more is an error naming the buffer, the bytes
// and the limit; a limit that does not parse is an error naming the variable.
// RUN: env SPECTRAL_DEVICE_MEMORY_LIMIT=20K \
// RUN:   not spectral-run %s --device=host --random-inputs 2>&1 | FileCheck %s --check-prefix=OVER
// OVER: error: allocating buffer '%0' (16384 bytes): device memory limit: allocating 16384 bytes with 16384 bytes in use would pass the limit of 20480 bytes (SPECTRAL_DEVICE_MEMORY_LIMIT) on host (
//
// RUN: env SPECTRAL_DEVICE_MEMORY_LIMIT=1x \
// RUN:   not spectral-run %s --device=host --random-inputs 2>&1 | FileCheck %s --check-prefix=INVALID
// INVALID: error: --device=host: SPECTRAL_DEVICE_MEMORY_LIMIT: invalid memory size '1x'
//
// RUN: env SPECTRAL_DEVICE_MEMORY_LIMIT=32K \
// RUN:   spectral-run %s --device=host --random-inputs --validate 2>&1 | FileCheck %s --check-prefix=WITHIN
// WITHIN: validate result #0 {{.*}}: PASS
func.func @main(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = spectral.exp %x : tensor<64x64xf32>
  %1 = spectral.add %0, %x : tensor<64x64xf32>, tensor<64x64xf32>
  return %1 : tensor<64x64xf32>
}
