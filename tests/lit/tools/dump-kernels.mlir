// spectral-run --dump-kernels: one .cu, .ptx and .ptxas.txt per kernel, and
// a summary (text and JSON) with launch shapes, registers, spills and bytes.

// RUN: rm -rf %t && spectral-run %s --device=host --random-inputs --no-fuse --dump-kernels=%t > /dev/null 2> %t.log
// RUN: FileCheck %s --check-prefix=SUMMARY < %t/summary.txt
// SUMMARY:      # main: 2 kernels, sm_90
// SUMMARY-NEXT: kernel{{ +}}grid{{ +}}block{{ +}}dyn_smem{{ +}}regs{{ +}}spills{{ +}}smem{{ +}}bytes_read{{ +}}bytes_written{{ +}}ops
// SUMMARY-NEXT: ew_add_f32_4x256{{ +}}1,1,1{{ +}}256,1,1{{ +}}0{{ +}}{{[1-9][0-9]*}}{{ +}}0{{ +}}0{{ +}}5120{{ +}}4096{{ +}}spectral.add ({{.*}}dump-kernels.mlir:[[@LINE+27]]:8)
// SUMMARY-NEXT: ew_gelu_f32_4x256{{ +}}1,1,1{{ +}}256,1,1{{ +}}0{{ +}}{{[1-9][0-9]*}}{{ +}}0{{ +}}0{{ +}}4096{{ +}}4096{{ +}}spectral.gelu ({{.*}}dump-kernels.mlir:[[@LINE+27]]:8)

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

// By default spectral-fuse makes the two ops one kernel.
// RUN: rm -rf %t.default && spectral-run %s --device=host --random-inputs --dump-kernels=%t.default > /dev/null 2>&1
// RUN: FileCheck %s --check-prefix=DEFAULT < %t.default/summary.txt
// DEFAULT:      # main: 1 kernel, sm_90
// DEFAULT:      ew_add_gelu_f32_4x256{{ +}}1,1,1{{ +}}256,1,1{{ +}}0{{ +}}{{[1-9][0-9]*}}{{ +}}0{{ +}}0{{ +}}5120{{ +}}4096{{ +}}spectral.add ({{.*}}), spectral.gelu ({{.*}})

func.func @main(%x: tensor<4x256xf32>, %b: tensor<256xf32>) -> tensor<4x256xf32> {
  %s = spectral.add %x, %b : tensor<4x256xf32>, tensor<256xf32>
  %g = spectral.gelu %s : tensor<4x256xf32>
  return %g : tensor<4x256xf32>
}

// Without NVRTC the units and the summary are still written; ptxas columns show "-".
// RUN: rm -rf %t.nonvrtc && env SPECTRAL_NVRTC_PATH=/nonexistent/libnvrtc.so spectral-run %s --device=host --random-inputs --no-fuse --dump-kernels=%t.nonvrtc > /dev/null 2>&1
// RUN: FileCheck %s --check-prefix=NONVRTC < %t.nonvrtc/summary.txt
// RUN: ls %t.nonvrtc | FileCheck %s --check-prefix=NONVRTC-FILES
// NONVRTC: # no PTX and no ptxas report (regs, spills and smem shown as -): NVRTC
// NONVRTC: ew_add_f32_4x256{{ +}}1,1,1{{ +}}256,1,1{{ +}}0{{ +}}-{{ +}}-{{ +}}-{{ +}}5120{{ +}}4096
// NONVRTC-FILES-NOT: .ptx
// NONVRTC-FILES: ew_add_f32_4x256.cu

// A kernel computing many ops lists them all on its own row, however long.
// RUN: rm -rf %t.fused && spectral-run %s --function=fused --device=host --random-inputs --dump-kernels=%t.fused > /dev/null 2>&1
// RUN: FileCheck %s --check-prefix=FUSED < %t.fused/summary.txt
// FUSED:      ew_add_exp_mul_sub_and3_f32_4x8 {{.*}} spectral.add ({{.*}}), spectral.exp ({{.*}}), spectral.mul ({{.*}}), spectral.sub ({{.*}}), spectral.neg ({{.*}}), spectral.tanh ({{.*}}), spectral.sigmoid ({{.*}}:[[@LINE+11]]:{{[0-9]+}}){{$}}
// FUSED-NEXT: ew_gelu_f32_4x8 {{.*}}:[[@LINE+13]]:{{[0-9]+}}){{$}}
func.func @fused(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = spectral.fusion %x : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %s = spectral.add %a, %a : tensor<4x8xf32>, tensor<4x8xf32>
    %e = spectral.exp %s : tensor<4x8xf32>
    %m = spectral.mul %e, %a : tensor<4x8xf32>, tensor<4x8xf32>
    %d = spectral.sub %m, %s : tensor<4x8xf32>, tensor<4x8xf32>
    %n = spectral.neg %d : tensor<4x8xf32>
    %t = spectral.tanh %n : tensor<4x8xf32>
    %g = spectral.sigmoid %t : tensor<4x8xf32>
    spectral.yield %g : tensor<4x8xf32>
  }
  %r = spectral.gelu %0 : tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
