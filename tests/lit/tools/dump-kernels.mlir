// spectral-run --dump-kernels: one .cu, .ptx and .ptxas.txt per kernel, and
// a summary (text and JSON) with launch shapes, registers, spills and bytes.

// RUN: rm -rf %t && spectral-run %s --device=host --random-inputs --dump-kernels=%t > /dev/null 2> %t.log
// RUN: FileCheck %s --check-prefix=SUMMARY < %t/summary.txt
// SUMMARY:      # main: 2 kernels, sm_90
// SUMMARY-NEXT: kernel{{ +}}grid{{ +}}block{{ +}}dyn_smem{{ +}}regs{{ +}}spills{{ +}}smem{{ +}}bytes_read{{ +}}bytes_written{{ +}}ops
// SUMMARY-NEXT: ew_add_f32_4x256{{ +}}1,1,1{{ +}}256,1,1{{ +}}0{{ +}}{{[1-9][0-9]*}}{{ +}}0{{ +}}0{{ +}}5120{{ +}}4096{{ +}}spectral.add ({{.*}}dump-kernels.mlir:[[@LINE+21]]:8)
// SUMMARY-NEXT: ew_gelu_f32_4x256{{ +}}1,1,1{{ +}}256,1,1{{ +}}0{{ +}}{{[1-9][0-9]*}}{{ +}}0{{ +}}0{{ +}}4096{{ +}}4096{{ +}}spectral.gelu ({{.*}}dump-kernels.mlir:[[@LINE+21]]:8)

// RUN: FileCheck %s --check-prefix=JSON < %t/summary.json
// JSON: "arch": "sm_90"
// JSON: {"entry": "ew_add_f32_4x256", "ops": "spectral.add ({{.*}}dump-kernels.mlir:{{[0-9]+}}:8)", "grid": [1,1,1], "block": [256,1,1], "dynamic_shared_bytes": 0, "launches": 1, "registers": {{[1-9][0-9]*}}, "spill_store_bytes": 0, "spill_load_bytes": 0,

// RUN: FileCheck %s --check-prefix=UNIT < %t/ew_gelu_f32_4x256.cu
// UNIT: #include "elementwise.cuh"
// UNIT: spectral_ew::gelu(in0[i])
// UNIT: extern "C" __global__ void ew_gelu_f32_4x256(const float* __restrict__ in0, float* __restrict__ out0, unsigned long long* error)

// RUN: FileCheck %s --check-prefix=PTX < %t/ew_gelu_f32_4x256.ptx
// PTX: .visible .entry ew_gelu_f32_4x256(
// RUN: FileCheck %s --check-prefix=PTXAS < %t/ew_gelu_f32_4x256.ptxas.txt
// PTXAS: Compiling entry function 'ew_gelu_f32_4x256' for 'sm_90'

// The summary also goes to stderr.
// RUN: FileCheck %s --check-prefix=SUMMARY < %t.log

func.func @main(%x: tensor<4x256xf32>, %b: tensor<256xf32>) -> tensor<4x256xf32> {
  %s = spectral.add %x, %b : tensor<4x256xf32>, tensor<256xf32>
  %g = spectral.gelu %s : tensor<4x256xf32>
  return %g : tensor<4x256xf32>
}
