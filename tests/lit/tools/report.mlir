// spectral-run --report: per kernel bytes, nominal FLOPs and roofline
// estimates; in total bytes against the minimum, FLOPs, device memory with
// and without the memory plan's reuse.

// Op by op: four kernels; %e takes %f's bytes and the result %m's.
// RUN: spectral-run %s --device=host --random-inputs --no-fuse --report > /dev/null 2> %t.log
// RUN: FileCheck %s --check-prefix=UNFUSED < %t.log
// UNFUSED:      # main: 4 kernels, roofline estimates in microseconds
// UNFUSED-NEXT: kernel{{ +}}launches{{ +}}bytes{{ +}}flops{{ +}}flop/B{{ +}}A100{{ +}}H100 SXM{{ +}}ops
// 8 rows of 1024 points: 5 * 1024 * log2(1024) * 8 FLOPs; the table of
// 1024 complex<f32> twiddles is read with the 64 KiB operand and written.
// Its 8 blocks get 8/108 of an A100 and 8/132 of an H100.
// UNFUSED-NEXT: fft_stockham_f32_n1024{{ +}}1{{ +}}139264{{ +}}409600{{ +}}2.94{{ +}}2.42{{ +}}1.37{{ +}}spectral.fft ({{.*}}report.mlir:{{[0-9]+}}:8)
// A complex multiply is 6 FLOPs, a complex exp 8.
// UNFUSED-NEXT: ew_mul_c64_8x1024{{ +}}1{{ +}}196608{{ +}}49152{{ +}}0.25
// UNFUSED-NEXT: ew_exp_c64_8x1024{{ +}}1{{ +}}131072{{ +}}65536{{ +}}0.50
// UNFUSED-NEXT: ifft_stockham_f32_n1024{{ +}}1{{ +}}139264{{ +}}409600
// UNFUSED-NEXT: bytes moved per run: 606208; minimum 204800 (inputs 131072, constants 8192, results 65536); ratio 2.96x
// UNFUSED-NEXT: flops per run: 933888 (1.54 per byte moved)
// UNFUSED-NEXT: device memory: 270336 bytes of buffers (401408 without the memory plan's reuse)
// UNFUSED-NEXT: roofline per run (bandwidth and FLOPs only, a launch of fewer blocks than SMs getting their share; each launch also takes a few microseconds): A100 (1.555 TB/s, 19.5 TFLOP/s fp32, 108 SMs) 7.68 us, H100 SXM (3.35 TB/s, 67 TFLOP/s fp32, 132 SMs) 4.36 us

// RUN: spectral-run %s --device=host --random-inputs --no-fuse --no-buffer-reuse --report > /dev/null 2> %t.noreuse
// RUN: FileCheck %s --check-prefix=NOREUSE < %t.noreuse
// NOREUSE: device memory: 401408 bytes of buffers (401408 without the memory plan's reuse)

// Fused: the transform, the filter and the inverse are one kernel (a round
// trip): the same FLOPs, the least traffic.
// RUN: spectral-run %s --device=host --random-inputs --report > /dev/null 2> %t.fused
// RUN: FileCheck %s --check-prefix=FUSED < %t.fused
// FUSED:      # main: 1 kernel
// FUSED:      fft_roundtrip_f32_n1024_F{{[0-9a-f]+}}{{ +}}1{{ +}}204800{{ +}}933888
// FUSED:      bytes moved per run: 204800; minimum 204800 {{.*}}; ratio 1.00x
// FUSED-NEXT: flops per run: 933888

// Donated parameters and optimizer state: the step writes the new values
// over them (3 x 2560 bytes less to hold, less what reuse got before).
// RUN: spectral-run %S/../../e2e/donated_adam_step.mlir --device=host --random-inputs --seed=7 --report > /dev/null 2> %t.donated
// RUN: FileCheck %s --check-prefix=DONATED < %t.donated
// The results written in place still count in the minimum (review: they were left out).
// DONATED: bytes moved per run: 46132; minimum 23732 (inputs 16008, constants 40, results 7684); ratio 1.94x
// DONATED: device memory: 19908 bytes of buffers (28868 without the memory plan's reuse)
// RUN: sed 's/ {spectral.donated}//g' %S/../../e2e/donated_adam_step.mlir > %t.kept.mlir
// RUN: spectral-run %t.kept.mlir --device=host --random-inputs --seed=7 --report > /dev/null 2> %t.kept
// RUN: FileCheck %s --check-prefix=KEPT < %t.kept
// KEPT: device memory: 26308 bytes of buffers (28868 without the memory plan's reuse)

// The report needs kernels.
// RUN: not spectral-run %s --device=reference --random-inputs --report 2>&1 | FileCheck %s --check-prefix=REFERENCE
// REFERENCE: error: --validate, --benchmark, --report, --dump-kernels and --check need a device that runs kernels

func.func @main(%x: tensor<8x1024xcomplex<f32>>, %w: tensor<8x1024xcomplex<f32>>)
    -> tensor<8x1024xcomplex<f32>> {
  %f = spectral.fft %x axes [1] : tensor<8x1024xcomplex<f32>>
  %m = spectral.mul %f, %w : tensor<8x1024xcomplex<f32>>, tensor<8x1024xcomplex<f32>>
  %e = spectral.exp %m : tensor<8x1024xcomplex<f32>>
  %g = spectral.ifft %e axes [1] : tensor<8x1024xcomplex<f32>>
  return %g : tensor<8x1024xcomplex<f32>>
}
