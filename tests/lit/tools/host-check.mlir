// The host device's check mode from spectral-run (--check) and from the
// environment (SPECTRAL_HOST_CHECK): a graph whose kernels stay in bounds
// runs and validates with the bounds check on; what the check cannot do is
// refused with the reason. (The unit tests in tests/unit/runtime/device/host
// show kernels written out of bounds caught.)
//
// RUN: spectral-run %s --random-inputs --check=bounds --validate 2>&1 | FileCheck %s
// CHECK: spectral-run: on the host ({{[0-9]+}} threads, checking bounds) (check mode: slower than a plain run)
// CHECK-COUNT-2: PASS
//
// RUN: env SPECTRAL_HOST_CHECK=bounds spectral-run %s --random-inputs --device=host --validate 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ENV
// ENV-COUNT-2: PASS
// RUN: not spectral-run %s --random-inputs --check=bounds --device=cuda 2>&1 | FileCheck %s --check-prefix=CUDA
// CUDA: error: --check runs on the host device, not --device=cuda
// RUN: not spectral-run %s --random-inputs --check=bounds,racy 2>&1 | FileCheck %s --check-prefix=RACY
// RACY: error: --check=bounds,racy: unknown check 'racy' (available: bounds, sync, race, init, order[=reverse|SEED])
// RUN: not spectral-run %s --random-inputs --check= 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: error: --check= names no check (available: bounds, sync, race, init, order[=reverse|SEED])
// RUN: spectral-run %s --random-inputs --check=race,init,order --validate 2>&1 | FileCheck %s --check-prefix=ACCESS
// ACCESS: spectral-run: on the host ({{[0-9]+}} threads, checking race,init,order=1) (check mode: slower than a plain run)
// ACCESS-COUNT-2: PASS
// RUN: spectral-run %s --random-inputs --check=bounds,sync,order=reverse --validate 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REVERSE
// REVERSE: checking bounds,sync,order=reverse)
// REVERSE-COUNT-2: PASS
// RUN: spectral-run %s --random-inputs --check=bounds,sync --validate 2>&1 | FileCheck %s --check-prefix=BOTH
// BOTH: spectral-run: on the host ({{[0-9]+}} threads, checking bounds,sync) (check mode: slower than a plain run)
// BOTH-COUNT-2: PASS
// RUN: not env SPECTRAL_HOST_CHECK=everything spectral-run %s --random-inputs --device=host 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BADENV
// BADENV: SPECTRAL_HOST_CHECK=everything: unknown check 'everything' (available: bounds, sync, race, init, order[=reverse|SEED])
// RUN: not spectral-run %s --random-inputs --check=bounds --device=reference 2>&1 | FileCheck %s --check-prefix=REF
// REF: --check need a device that runs kernels

// The example graph's kernels built with every plain __syncthreads()
// deleted (a wrapper compiler edits a copy of the templates): the race check
// names the op, the kernel, both accesses and their template lines. With the
// templates as they are, the graph passes every check.
// RUN: rm -rf %t.nobarrier
// RUN: env SPECTRAL_CACHE_DIR=%t.nobarrier SPECTRAL_HOST_CXX="sh %S/Inputs/no-barriers-cxx.sh" \
// RUN:   not spectral-run %S/../../../examples/spectral_conv.mlir --random-inputs --check=race 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOBARRIER
// NOBARRIER: error: spectral.rfft ({{.*}}spectral_conv.mlir:10:15), {{.*}}: kernel 'fno1d_{{[A-Za-z0-9_]+}}' failed in block ({{[0-9]+}},0,0): race: thread ({{[0-9]+}},0,0) {{read|wrote}} {{[0-9]+}} byte(s) at offset {{[0-9]+}} of the block's {{[0-9]+}} bytes of dynamic shared memory (at {{[a-z_0-9]+}}.cuh:{{[0-9]+}}), and {{thread \([0-9]+,0,0\) (read|wrote)|other threads read}} it in the same barrier interval (at {{(e.g. )?}}{{[a-z_0-9]+}}.cuh:{{[0-9]+}}): no __syncthreads orders the two accesses
// RUN: env SPECTRAL_CACHE_DIR=%t.cache spectral-run %S/../../../examples/spectral_conv.mlir \
// RUN:   --random-inputs --check=bounds,sync,race,init,order --validate 2>&1 | FileCheck %s --check-prefix=EXAMPLE
// EXAMPLE: PASS

// A kernel built one element off (a wrapper compiler moves its store) is
// caught by the check: the error names the op and its location, the kernel,
// the block, the thread, the access and the allocation. Without the check
// the same run ends without a word (the write lands in the padding).
// RUN: rm -rf %t.cache
// RUN: env SPECTRAL_CACHE_DIR=%t.cache SPECTRAL_HOST_CXX="sh %S/Inputs/off-by-one-cxx.sh" \
// RUN:   not spectral-run %s --function=exp_1000 --random-inputs --check=bounds 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CAUGHT
// CAUGHT: error: spectral.exp ({{.*}}host-check.mlir:[[@LINE+7]]:8): kernel 'ew_exp_f32_1000' failed in block ({{[0-9]+}},0,0): bounds: thread ({{[0-9]+}},0,0) wrote 0x{{[0-9a-f]+}}, 0 bytes past the end of a 4000-byte device allocation at 0x{{[0-9a-f]+}} (at ew_exp_f32_1000.cu:{{[0-9]+}})
// RUN: env SPECTRAL_CACHE_DIR=%t.cache SPECTRAL_HOST_CXX="sh %S/Inputs/off-by-one-cxx.sh" \
// RUN:   spectral-run %s --function=exp_1000 --random-inputs --device=host 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNSEEN
// UNSEEN: result #0: tensor<1000xf32>
// UNSEEN-NOT: error
func.func @exp_1000(%x: tensor<1000xf32>) -> tensor<1000xf32> {
  %y = spectral.exp %x : tensor<1000xf32>
  return %y : tensor<1000xf32>
}

// A round trip through shared memory and a top-k in an FFT's store, with
// results of odd sizes (the allocations end at their guard pages).
func.func @main(%x: tensor<3x100xf32>, %y: tensor<2x6x10xcomplex<f32>>)
    -> (tensor<3x100xf32>, tensor<2x7xcomplex<f32>>) {
  %s = spectral.rfft %x axes [1] : tensor<3x100xf32>
  %h = spectral.mul %s, %s : tensor<3x51xcomplex<f32>>, tensor<3x51xcomplex<f32>>
  %b = spectral.irfft %h axes [1] length 100 : tensor<3x51xcomplex<f32>>
  %f = spectral.fft %y axes [1, 2] : tensor<2x6x10xcomplex<f32>>
  %rows = spectral.reshape %f : tensor<2x6x10xcomplex<f32>> -> tensor<2x60xcomplex<f32>>
  %v, %i = spectral.topk_modes %rows k 7 : tensor<2x60xcomplex<f32>>
  return %b, %v : tensor<3x100xf32>, tensor<2x7xcomplex<f32>>
}
