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
// RACE: error: --check=bounds,race: SPECTRAL_HOST_CHECK=bounds,race: the 'race' check is not built yet (available: bounds)
// RUN: not env SPECTRAL_HOST_CHECK=everything spectral-run %s --random-inputs --device=host 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BADENV
// BADENV: SPECTRAL_HOST_CHECK=everything: unknown check 'everything' (available: bounds)
// RUN: not spectral-run %s --random-inputs --check=bounds --device=reference 2>&1 | FileCheck %s --check-prefix=REF
// REF: --check need a device that runs kernels

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
