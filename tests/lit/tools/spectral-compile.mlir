// spectral-compile writes a .spx artifact that spectral-run runs as it runs
// the .mlir: the same results, --validate against the graph kept in it, the
// same report; damaged files are errors naming the file.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: spectral-compile %s -o %t/g.spx 2>&1 | FileCheck %s --check-prefix=WROTE
// WROTE: wrote {{.*}}g.spx: @main, 1 kernel
// RUN: spectral-run %s --device=host --random-inputs --seed=3 > %t/from-mlir.txt
// RUN: spectral-run %t/g.spx --device=host --random-inputs --seed=3 > %t/from-spx.txt
// RUN: diff %t/from-mlir.txt %t/from-spx.txt
// RUN: spectral-run %t/g.spx --device=host --random-inputs --validate --report 2>&1 | FileCheck %s --check-prefix=SPX
// RUN: FileCheck %s --check-prefix=RESULT < %t/from-spx.txt
// SPX-DAG: # main: 1 kernel
// SPX-DAG: validate result #0 tensor<4x64xf32>: {{.*}}: PASS
// RESULT: result #0: tensor<4x64xf32>
//
// Another function, and the options that no longer apply.
// RUN: spectral-compile %s --function=twice -o %t/twice.spx --no-fuse 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: wrote {{.*}}twice.spx: @twice, 1 kernel
// RUN: not spectral-run %t/twice.spx --function=main --random-inputs 2>&1 | FileCheck %s --check-prefix=OTHER
// OTHER: error: {{.*}}twice.spx holds @twice, not @main
// RUN: spectral-run %t/twice.spx --no-fuse --device=host --random-inputs 2>&1 | FileCheck %s --check-prefix=IGNORED
// IGNORED: warning: --no-fuse has no effect on {{.*}}twice.spx: it is compiled already
//
// Damage: one byte short, one byte flipped, a newer format.
// RUN: head -c -1 %t/g.spx > %t/short.spx
// RUN: not spectral-run %t/short.spx --random-inputs 2>&1 | FileCheck %s --check-prefix=SHORT
// SHORT: error: {{.*}}short.spx: truncated or padded: the header says {{[0-9]+}} payload bytes, the file holds {{[0-9]+}}
// RUN: python3 -c "import sys; b = bytearray(open(sys.argv[1], 'rb').read()); b[-20] ^= 1; open(sys.argv[2], 'wb').write(b)" %t/g.spx %t/flipped.spx
// RUN: not spectral-run %t/flipped.spx --random-inputs 2>&1 | FileCheck %s --check-prefix=FLIPPED
// FLIPPED: error: {{.*}}flipped.spx: checksum mismatch: the file is corrupted
// RUN: python3 -c "import sys; b = bytearray(open(sys.argv[1], 'rb').read()); b[8] = 9; open(sys.argv[2], 'wb').write(b)" %t/g.spx %t/newer.spx
// RUN: not spectral-run %t/newer.spx --random-inputs 2>&1 | FileCheck %s --check-prefix=NEWER
// NEWER: error: {{.*}}newer.spx: artifact format 9.1, this runtime reads format 1.x: compile it again with this spectral (newer format)
//
// --emit: the graph after the passes, or every kernel's CUDA unit (stdout or -o).
// RUN: spectral-compile %s --emit=mlir | FileCheck %s --check-prefix=EMIT-MLIR
// EMIT-MLIR: spectral.fusion
// EMIT-MLIR: spectral.yield
// RUN: spectral-compile %s --emit=cuda -o %t/units.cu && FileCheck %s --check-prefix=EMIT-CUDA < %t/units.cu
// EMIT-CUDA: // ===== {{.*}}: spectral.rfft ({{.*}}spectral-compile.mlir:[[@LINE+20]]
// EMIT-CUDA: extern "C" __global__
// RUN: not spectral-compile %s --emit=spx 2>&1 | FileCheck %s --check-prefix=EMIT-SPX
// EMIT-SPX: spectral-compile: error: -o FILE.spx is required for --emit=spx
//
// --pass-pipeline replaces simplify and fuse (here: fuse only).
// RUN: spectral-compile %s --pass-pipeline='builtin.module(func.func(spectral-fuse))' --emit=mlir | FileCheck %s --check-prefix=PIPELINE
// PIPELINE: spectral.fusion
// RUN: not spectral-compile %s --pass-pipeline='func.func(spectral-fuse)' -o %t/p.spx 2>&1 | FileCheck %s --check-prefix=ANCHOR
// ANCHOR: must be anchored on builtin.module
// RUN: not spectral-compile %s --pass-pipeline='builtin.module(no-such-pass)' -o %t/p.spx 2>&1 | FileCheck %s --check-prefix=NOPASS
// NOPASS: 'no-such-pass' does not refer to a registered pass
//
// spectral-compile's own errors.
// RUN: not spectral-compile %s --function=none -o %t/none.spx 2>&1 | FileCheck %s --check-prefix=NOFUNC
// NOFUNC: spectral-compile: error: no function @none (there is: @main @twice)
// RUN: not spectral-compile %s -o %t/missing/dir/g.spx 2>&1 | FileCheck %s --check-prefix=NODIR
// NODIR: spectral-compile: error: {{.*}}missing/dir/g.spx: cannot write: No such file or directory

func.func @main(%x: tensor<4x64xf32>, %w: tensor<4x33xcomplex<f32>>) -> tensor<4x64xf32> {
  %f = spectral.rfft %x axes [1] : tensor<4x64xf32>
  %m = spectral.mul %f, %w : tensor<4x33xcomplex<f32>>, tensor<4x33xcomplex<f32>>
  %y = spectral.irfft %m axes [1] length 64 : tensor<4x33xcomplex<f32>>
  return %y : tensor<4x64xf32>
}

func.func @twice(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = spectral.add %x, %x : tensor<8xf32>, tensor<8xf32>
  return %y : tensor<8xf32>
}

// --target=sm_XX embeds every kernel's CUBIN and PTX; host adds nothing. The
// artifact still runs on the host, from its source, with the same results.
// RUN: spectral-compile %s -o %t/gpu.spx --target=sm_80 --target=sm_90 --target=host 2>&1 | FileCheck %s --check-prefix=TARGETS
// TARGETS: wrote {{.*}}gpu.spx: @main, 1 kernel, CUBIN and PTX for sm_80, sm_90
// RUN: spectral-run %t/gpu.spx --device=host --random-inputs --seed=3 > %t/from-gpu-spx.txt
// RUN: diff %t/from-mlir.txt %t/from-gpu-spx.txt
// RUN: spectral-run %t/gpu.spx --device=host --random-inputs --benchmark=1 2>&1 | FileCheck %s --check-prefix=HOSTLOAD
// HOSTLOAD: 1 kernel: 0 from the artifact's CUBIN/PTX
// RUN: spectral-run %t/gpu.spx --device=host --random-inputs --report 2>&1 | FileCheck %s --check-prefix=CARRIED
// CARRIED: GPU code carried: sm_80 CUBIN for 1, PTX for 1 of 1 kernel; sm_90 CUBIN for 1, PTX for 1 of 1 kernel
// RUN: spectral-run %t/g.spx --device=host --random-inputs --report 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: GPU code carried: none (a GPU compiles the kernels' source when it loads them)
// RUN: not spectral-compile %s -o %t/bad.spx --target=gfx90a 2>&1 | FileCheck %s --check-prefix=BADTARGET
// BADTARGET: spectral-compile: error: --target: unknown target 'gfx90a': expected host or a GPU architecture sm_XX (sm_80, sm_90, ...; arch-specific ones like sm_90a are not supported)
// RUN: not spectral-compile %s -o %t/bad.spx --target=sm_20 2>&1 | FileCheck %s --check-prefix=OLDTARGET
// OLDTARGET: spectral-compile: error: nvrtc {{[0-9.]+}} cannot build sm_20: it builds sm_{{[0-9]+}}
// RUN: not ls %t/bad.spx
//
// A file of format 1.0 (written before kernels carried GPU code) still runs.
// RUN: spectral-run %S/Inputs/format-1.0.spx --device=host --input=@%S/Inputs/format-1.0-x.npy --report 2>&1 | FileCheck %s --check-prefix=FORMAT10
// FORMAT10: GPU code carried: none
// FORMAT10: result #0: tensor<8xf32>
// FORMAT10-NEXT: [0, 2, 4, 6, 8, 10, 12, 14]
//
// --emit=ptx (sm_90 unless targets say otherwise) and --emit=cubin -o DIR.
// RUN: spectral-compile %s --emit=ptx | FileCheck %s --check-prefix=PTX90
// PTX90: // ===== {{.*}} (sm_90): spectral.rfft
// PTX90: .target sm_90
// PTX90: .entry rfft_
// RUN: spectral-compile %s --emit=ptx --target=sm_80 -o %t/k.ptx && FileCheck %s --check-prefix=PTX80 < %t/k.ptx
// PTX80: .target sm_80
// RUN: spectral-compile %s --emit=cubin -o %t/cubins --target=sm_80 --target=sm_90 2>&1 | FileCheck %s --check-prefix=CUBIN
// CUBIN: wrote 2 CUBIN files to {{.*}}cubins
// RUN: ls %t/cubins | FileCheck %s --check-prefix=CUBINS
// CUBINS: rfft_{{.*}}.sm_80.cubin
// CUBINS: rfft_{{.*}}.sm_90.cubin
// RUN: python3 -c "import glob, sys; sys.exit(any(open(f, 'rb').read(4) != b'\x7fELF' for f in glob.glob(sys.argv[1] + '/*.cubin')))" %t/cubins
// RUN: not spectral-compile %s --emit=cubin 2>&1 | FileCheck %s --check-prefix=CUBIN-DIR
// CUBIN-DIR: spectral-compile: error: -o DIR is required for --emit=cubin
// RUN: not spectral-compile %s --emit=ptx --target=host 2>&1 | FileCheck %s --check-prefix=PTX-HOST
// PTX-HOST: spectral-compile: error: --emit=ptx and --emit=cubin need a GPU target (--target=sm_XX), not host
