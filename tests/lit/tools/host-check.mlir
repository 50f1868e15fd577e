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
// RUN: not spectral-run %s --random-inputs --check=bounds,race 2>&1 | FileCheck %s --check-prefix=RACE
// RACE: error: --check=bounds,race: the 'race' check is not built yet (available: bounds, sync)
// RUN: not spectral-run %s --random-inputs --check= 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: error: --check= names no check (available: bounds, sync)
// RUN: spectral-run %s --random-inputs --check=bounds,sync --validate 2>&1 | FileCheck %s --check-prefix=BOTH
// BOTH: spectral-run: on the host ({{[0-9]+}} threads, checking bounds,sync) (check mode: slower than a plain run)
// BOTH-COUNT-2: PASS
// RUN: not env SPECTRAL_HOST_CHECK=everything spectral-run %s --random-inputs --device=host 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BADENV
// BADENV: SPECTRAL_HOST_CHECK=everything: unknown check 'everything' (available: bounds, sync)
// RUN: not spectral-run %s --random-inputs --check=bounds --device=reference 2>&1 | FileCheck %s --check-prefix=REF
// REF: --check need a device that runs kernels

// A kernel built one element off (a wrapper compiler moves its store) is
// caught by the check: the error names the op and its location, the kernel,
// the block, the thread, the access and the allocation. Without the check
// the same run ends without a word (the write lands in the padding).
// RUN: rm -rf %t.cache
// RUN: env SPECTRAL_CACHE_DIR=%t.cache SPECTRAL_HOST_CXX="sh %S/Inputs/off-by-one-cxx.sh" \
// RUN:   not spectral-run %s --function=exp_1000 --random-inputs --check=bounds 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CAUGHT
// CAUGHT: error: spectral.exp ({{.*}}host-check.mlir:[[@LINE+7]]:8): kernel 'ew_exp_f32_1000' failed in block ({{[0-9]+}},0,0): bounds: thread ({{[0-9]+}},0,0) wrote 0x{{[0-9a-f]+}}, 0 bytes past the end of a 4000-byte device allocation at 0x{{[0-9a-f]+}}
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
