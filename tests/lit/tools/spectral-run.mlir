// spectral-run: printing, .npy round trips, and every user error it reports.

// RUN: spectral-run %s --function=constants | FileCheck %s --check-prefix=PRINT
// PRINT:      result #0: tensor<2x3xf32>
// PRINT-NEXT: {{\[}}[1, 2, 3],
// PRINT-NEXT:  [4, 5, 6]]
// PRINT-NEXT: result #1: tensor<2xcomplex<f64>>
// PRINT-NEXT: [1+2j, 0-1.5j]
// PRINT-NEXT: result #2: tensor<i1>
// PRINT-NEXT: True
func.func @constants() -> (tensor<2x3xf32>, tensor<2xcomplex<f64>>, tensor<i1>) {
  %a = spectral.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = spectral.constant dense<[(1.0, 2.0), (0.0, -1.5)]> : tensor<2xcomplex<f64>>
  %c = spectral.constant dense<true> : tensor<i1>
  return %a, %b, %c : tensor<2x3xf32>, tensor<2xcomplex<f64>>, tensor<i1>
}

// Long tensors print their first and last three entries per dim.
// RUN: spectral-run %s --function=long | FileCheck %s --check-prefix=LONG
// LONG: result #0: tensor<2000xf32>
// LONG-NEXT: [1, 1, 1, ..., 1, 1, 1]
func.func @long() -> tensor<2000xf32> {
  %a = spectral.constant dense<1.0> : tensor<2000xf32>
  return %a : tensor<2000xf32>
}

// Random inputs are reproducible, written to .npy, and read back unchanged.
// RUN: rm -rf %t && mkdir -p %t
// RUN: spectral-run %s --function=double --random-inputs --seed=3 > %t/printed.txt
// RUN: spectral-run %s --function=identity --random-inputs --seed=3 --output=@%t/x.npy
// RUN: spectral-run %s --function=double --input=@%t/x.npy | diff - %t/printed.txt
// RUN: spectral-run %s --function=identity --input=@%t/x.npy --output=@%t/y.npy
// RUN: cmp %t/x.npy %t/y.npy
func.func @identity(%x: tensor<3x4xcomplex<f32>>) -> tensor<3x4xcomplex<f32>> {
  return %x : tensor<3x4xcomplex<f32>>
}
func.func @double(%x: tensor<3x4xcomplex<f32>>) -> tensor<3x4xcomplex<f32>> {
  %y = spectral.add %x, %x : tensor<3x4xcomplex<f32>>, tensor<3x4xcomplex<f32>>
  return %y : tensor<3x4xcomplex<f32>>
}

// RUN: not spectral-run %s --function=double --input=@%t/x.npy --input=@%t/x.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=COUNT
// COUNT: spectral-run: error: @double takes 1 argument but 2 --input were given

// RUN: not spectral-run %s --function=double 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: @double takes 1 argument but 0 --input were given (or use --random-inputs)

// RUN: not spectral-run %s --function=double --input=%t/x.npy 2>&1 | FileCheck %s --check-prefix=AT
// AT: --input={{.*}}x.npy for argument #0: expected @FILE.npy

// RUN: not spectral-run %s --function=wide --input=@%t/x.npy 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: argument #0 must be tensor<3x4xcomplex<f64>> (numpy complex128), but {{.*}}x.npy holds complex64 of shape (3, 4)
func.func @wide(%x: tensor<3x4xcomplex<f64>>) -> tensor<3x4xcomplex<f64>> {
  return %x : tensor<3x4xcomplex<f64>>
}

// A 16 GiB file (sparse) for a 3 x 4 argument is refused from its header,
// before its data is read (4 GiB of address space and a minute allowed).
// RUN: %python %S/Inputs/sparse_npy.py %t/huge.npy 4294967296
// RUN: (%limit_memory; not timeout 60 spectral-run %s --function=wide --input=@%t/huge.npy 2>&1) \
// RUN:   | FileCheck %s --check-prefix=HUGE
// HUGE: argument #0 must be tensor<3x4xcomplex<f64>> (numpy complex128), but {{.*}}huge.npy holds float32 of shape (4294967296)

// RUN: not spectral-run %s --function=double --input=@%t/nothing.npy 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: argument #0: {{.*}}nothing.npy: {{.*}}No such file or directory

// RUN: not spectral-run %s --function=nope 2>&1 | FileCheck %s --check-prefix=NOFUNC
// NOFUNC: has no function @nope (it has: @constants @long @identity @double @wide @out_of_range @scatter_out_of_range @giant @beyond @wide_ints @ints_back @huge_integer)

// RUN: not spectral-run %s --function=double --random-inputs --output=@%t/a.npy --output=@%t/b.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OUTS
// OUTS: @double returns 1 result but 2 --output were given

// Errors at run time name the op and its location, in the evaluator and in kernels.
// RUN: not spectral-run %s --function=out_of_range --device=reference 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: spectral-run.mlir:[[@LINE+6]]:{{[0-9]+}}: 'spectral.gather': index 9 is out of range [0, 4)
// RUN: not spectral-run %s --function=out_of_range --device=host 2>&1 | FileCheck %s --check-prefix=RANGE-HOST
// RANGE-HOST: error: spectral.gather ({{.*}}spectral-run.mlir:[[@LINE+4]]:8): index out of range [0, 4) (-1 marks an empty slot) (at position 0)
func.func @out_of_range() -> tensor<1xf32> {
  %x = spectral.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %i = spectral.constant dense<[9]> : tensor<1xi64>
  %y = spectral.gather %x[%i] : tensor<4xf32>, tensor<1xi64>
  return %y : tensor<1xf32>
}

// A scatter built in the load of the inverse FFT it feeds (one kernel) reports
// its bad index from there, at the first position (row 1, slot 0).
// RUN: not spectral-run %s --function=scatter_out_of_range --random-inputs --device=host 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SCATTER
// SCATTER: error: spectral.scatter ({{.*}}spectral-run.mlir:[[@LINE+3]]:8), spectral.reshape ({{.*}}), spectral.ifft ({{.*}}): index out of range [0, 16) (-1 marks an empty slot) (at position 3)
func.func @scatter_out_of_range(%v: tensor<2x3xcomplex<f32>>) -> tensor<2x4x4xcomplex<f32>> {
  %i = spectral.constant dense<[[0, 5, -1], [16, 2, -7]]> : tensor<2x3xi64>
  %d = spectral.scatter %v, %i : tensor<2x3xcomplex<f32>>, tensor<2x3xi64> -> tensor<2x16xcomplex<f32>>
  %g = spectral.reshape %d : tensor<2x16xcomplex<f32>> -> tensor<2x4x4xcomplex<f32>>
  %y = spectral.ifft %g axes [1, 2] : tensor<2x4x4xcomplex<f32>>
  return %y : tensor<2x4x4xcomplex<f32>>
}

// Devices, validation and benchmarks.
// RUN: not spectral-run %s --function=double --random-inputs --device=bogus 2>&1 | FileCheck %s --check-prefix=DEVICE
// DEVICE: spectral-run: error: --device=bogus: expected auto, cuda, host or reference
// RUN: not spectral-run %s --function=double --random-inputs --device=reference --validate 2>&1 | FileCheck %s --check-prefix=REFVALIDATE
// REFVALIDATE: --validate, --benchmark, --report, --dump-kernels and --check need a device that runs kernels
// RUN: spectral-run %s --function=double --random-inputs --device=host --validate --benchmark=3 2>&1 | FileCheck %s --check-prefix=BENCH
// BENCH: compile: {{[0-9.]+}} ms (codegen {{[0-9.]+}} ms, load {{[0-9.]+}} ms); 1 kernel: 0 from the artifact's CUBIN/PTX, {{[0-9]+}} from the memory cache, {{[0-9]+}} from the disk cache, {{[0-9]+}} compiled
// BENCH: run on host ({{[0-9]+}} threads): min {{[0-9.]+}} ms, median {{[0-9.]+}} ms over 3 runs; 192 bytes moved per run
// BENCH-NEXT: steps on the device: min {{[0-9.]+}} ms, median {{[0-9.]+}} ms ({{[0-9.]+}} GB/s at the min), 1 step run as one list of 1 operation
// RUN: spectral-run %s --function=double --random-inputs --device=host --benchmark=2 --no-graphs 2>&1 | FileCheck %s --check-prefix=NOGRAPHS
// NOGRAPHS: 1 step run one by one (graphs off)
// BENCH: validate result #0 tensor<3x4xcomplex<f32>>: max abs error 0, relative 0 (tolerance 0.0001): PASS

// RUN: not spectral-run %S/Inputs/bad-syntax.mlir 2>&1 | FileCheck %s --check-prefix=SYNTAX
// SYNTAX: bad-syntax.mlir:3:{{[0-9]+}}: error:

// A tensor too large for the evaluator is refused, not allocated.
// RUN: not spectral-run %s --function=giant --random-inputs 2>&1 | FileCheck %s --check-prefix=GIANT
// GIANT: argument #0: more than 67108864 elements, too many for the reference evaluator
func.func @giant(%x: tensor<4611686018427387904x4xf32>) -> tensor<4611686018427387904x4xf32> {
  return %x : tensor<4611686018427387904x4xf32>
}

// A value too large for a buffer is refused at its op, before codegen.
// RUN: not spectral-run %s --function=beyond --device=host 2>&1 | FileCheck %s --check-prefix=BEYOND
// BEYOND: spectral-run.mlir:[[@LINE+3]]:8: 'spectral.{{broadcast|constant}}': its result has more than 2^58 elements, beyond what a buffer holds
func.func @beyond() -> tensor<f32> {
  %x = spectral.constant dense<1.0> : tensor<4xf32>
  %b = spectral.broadcast %x : tensor<4xf32> -> tensor<4611686018427387904x4xf32>
  %s = spectral.reduce_sum %b axes [0, 1] : tensor<4611686018427387904x4xf32>
  return %s : tensor<f32>
}

// Integers beyond 2^53 are exact on devices: printed, written to .npy and
// read back as they are (the reference evaluator, in double precision,
// refuses them as inputs).
// RUN: spectral-run %s --function=wide_ints --device=host --random-inputs --seed=5 | FileCheck %s --check-prefix=WIDE
// WIDE:      result #0: tensor<2xi64>
// WIDE-NEXT: {{\[}}[[#A:]], [[#B:]]]
// WIDE-NEXT: result #1: tensor<2xi64>
// WIDE-NEXT: {{\[}}[[#A+9007199254740993]], [[#B+9007199254740993]]]
// RUN: spectral-run %s --function=wide_ints --device=host --random-inputs --seed=5 --output=@%t/small.npy --output=@%t/wide.npy
// RUN: spectral-run %s --function=ints_back --device=host --input=@%t/wide.npy --input=@%t/small.npy | FileCheck %s --check-prefix=BACK
// BACK:      result #0: tensor<2xi64>
// BACK-NEXT: [9007199254740993, 9007199254740993]
// RUN: not spectral-run %s --function=ints_back --device=reference --input=@%t/wide.npy --input=@%t/small.npy 2>&1 | FileCheck %s --check-prefix=BACKREF
// BACKREF: error: argument #0: element 0 (90071992547409{{[0-9]+}}) is beyond 2^53; the reference evaluator holds integers exactly only below that
// RUN: not spectral-run %s --function=ints_back --device=host --validate --benchmark=1 --input=@%t/wide.npy --input=@%t/small.npy 2>&1 | FileCheck %s --check-prefix=BACKVALIDATE
// BACKVALIDATE-NOT: compile:
// BACKVALIDATE: error: --validate: argument #0: element 0 ({{[0-9]+}}) is beyond 2^53
func.func @wide_ints(%x: tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi64>) {
  %c = spectral.constant dense<9007199254740993> : tensor<2xi64>
  %y = spectral.add %x, %c : tensor<2xi64>, tensor<2xi64>
  return %x, %y : tensor<2xi64>, tensor<2xi64>
}
func.func @ints_back(%y: tensor<2xi64>, %x: tensor<2xi64>) -> tensor<2xi64> {
  %d = spectral.sub %y, %x : tensor<2xi64>, tensor<2xi64>
  return %d : tensor<2xi64>
}

// Flags are checked before anything runs or is written.
// RUN: not spectral-run %s --function=double --random-inputs --validate --validate-tolerance=nan 2>&1 | FileCheck %s --check-prefix=TOLNAN
// TOLNAN: error: --validate-tolerance must be a number of at least 0, got nan
// RUN: rm -rf %t/arch && not spectral-run %s --function=double --random-inputs --dump-kernels=%t/arch --dump-arch=bogus 2>&1 | FileCheck %s --check-prefix=ARCH
// RUN: not ls %t/arch
// ARCH: error: --dump-arch=bogus: expected sm_XX of sm_75 or newer (sm_80, sm_90, sm_90a, ...)

// The reference evaluator computes in doubles: an integer constant beyond
// 2^53 would mostly change value there, so --validate refuses it at the
// constant (the device computes it exactly); -2^53 and powers of two are exact.
// RUN: not spectral-run %s --function=huge_integer --random-inputs --validate 2>&1 | FileCheck %s --check-prefix=HUGEINT
// RUN: spectral-run %s --function=huge_integer --random-inputs | FileCheck %s --check-prefix=HUGEDEVICE
// HUGEINT: error: --validate: the reference evaluator failed: {{.*}}spectral-run.mlir:[[@LINE+4]]:8: 'spectral.constant': holds the integer 9007199254740993, which the reference evaluator (double precision) cannot represent exactly
// HUGEDEVICE: result #0: tensor<2xi64>
// HUGEDEVICE-NEXT: [9007199254740993, -9007199254740992]
func.func @huge_integer(%x: tensor<2xi64>) -> tensor<2xi64> {
  %c = spectral.constant dense<[9007199254740993, -9007199254740992]> : tensor<2xi64>
  return %c : tensor<2xi64>
}
