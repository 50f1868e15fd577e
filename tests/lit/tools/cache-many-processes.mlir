// Eight processes compile the same graph into one fresh cache at once: all
// succeed with the same results, no temporary file is left, and a ninth in
// require mode finds every kernel.
// RUN: rm -rf %t && mkdir -p %t
// RUN: for i in 1 2 3 4 5 6 7 8; do \
// RUN:   (env SPECTRAL_CACHE_DIR=%t/cache spectral-run %s --device=host --random-inputs --seed=4 \
// RUN:      > %t/out.$i 2> %t/err.$i; echo $? > %t/rc.$i) & \
// RUN: done; wait
// RUN: cat %t/rc.* | sort | uniq -c | FileCheck %s --check-prefix=CODES
// CODES: 8 0
// RUN: for i in 2 3 4 5 6 7 8; do diff %t/out.1 %t/out.$i || exit 1; done
// RUN: find %t/cache -mindepth 1 -name '.*' | count 0
// RUN: env SPECTRAL_CACHE_DIR=%t/cache SPECTRAL_CACHE=require spectral-run %s --device=host \
// RUN:   --random-inputs --seed=4 | diff %t/out.1 -
func.func @main(%x: tensor<16x64xf32>) -> (tensor<16x33xcomplex<f32>>, tensor<16xf32>) {
  %f = spectral.rfft %x axes [1] : tensor<16x64xf32>
  %e = spectral.exp %x : tensor<16x64xf32>
  %s = spectral.reduce_sum %e axes [1] : tensor<16x64xf32>
  return %f, %s : tensor<16x33xcomplex<f32>>, tensor<16xf32>
}
