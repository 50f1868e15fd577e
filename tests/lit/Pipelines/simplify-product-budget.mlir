// A product whose tree of muls is a DAG of 40 squarings (2^40 factors
// unfolded) is looked into only so far: the pass ends at once (the RUN line
// above gives it a minute and 4 GiB), and no factor moves out here.
// RUN: (%limit_memory; timeout 60 spectral-opt %s --spectral-simplify) | FileCheck %s
// CHECK-LABEL: func.func @squarings
// CHECK-COUNT-41: spectral.mul
// CHECK-NEXT:    spectral.reduce_sum
func.func @squarings(%x: tensor<4x8xf32>, %s: tensor<1x8xf32>) -> tensor<8xf32> {
  %m0 = spectral.mul %x, %s : tensor<4x8xf32>, tensor<1x8xf32>
  %m1 = spectral.mul %m0, %m0 : tensor<4x8xf32>, tensor<4x8xf32>
  %m2 = spectral.mul %m1, %m1 : tensor<4x8xf32>, tensor<4x8xf32>
  %m3 = spectral.mul %m2, %m2 : tensor<4x8xf32>, tensor<4x8xf32>
  %m4 = spectral.mul %m3, %m3 : tensor<4x8xf32>, tensor<4x8xf32>
  %m5 = spectral.mul %m4, %m4 : tensor<4x8xf32>, tensor<4x8xf32>
  %m6 = spectral.mul %m5, %m5 : tensor<4x8xf32>, tensor<4x8xf32>
  %m7 = spectral.mul %m6, %m6 : tensor<4x8xf32>, tensor<4x8xf32>
  %m8 = spectral.mul %m7, %m7 : tensor<4x8xf32>, tensor<4x8xf32>
  %m9 = spectral.mul %m8, %m8 : tensor<4x8xf32>, tensor<4x8xf32>
  %m10 = spectral.mul %m9, %m9 : tensor<4x8xf32>, tensor<4x8xf32>
  %m11 = spectral.mul %m10, %m10 : tensor<4x8xf32>, tensor<4x8xf32>
  %m12 = spectral.mul %m11, %m11 : tensor<4x8xf32>, tensor<4x8xf32>
  %m13 = spectral.mul %m12, %m12 : tensor<4x8xf32>, tensor<4x8xf32>
  %m14 = spectral.mul %m13, %m13 : tensor<4x8xf32>, tensor<4x8xf32>
  %m15 = spectral.mul %m14, %m14 : tensor<4x8xf32>, tensor<4x8xf32>
  %m16 = spectral.mul %m15, %m15 : tensor<4x8xf32>, tensor<4x8xf32>
  %m17 = spectral.mul %m16, %m16 : tensor<4x8xf32>, tensor<4x8xf32>
  %m18 = spectral.mul %m17, %m17 : tensor<4x8xf32>, tensor<4x8xf32>
  %m19 = spectral.mul %m18, %m18 : tensor<4x8xf32>, tensor<4x8xf32>
  %m20 = spectral.mul %m19, %m19 : tensor<4x8xf32>, tensor<4x8xf32>
  %m21 = spectral.mul %m20, %m20 : tensor<4x8xf32>, tensor<4x8xf32>
  %m22 = spectral.mul %m21, %m21 : tensor<4x8xf32>, tensor<4x8xf32>
  %m23 = spectral.mul %m22, %m22 : tensor<4x8xf32>, tensor<4x8xf32>
  %m24 = spectral.mul %m23, %m23 : tensor<4x8xf32>, tensor<4x8xf32>
  %m25 = spectral.mul %m24, %m24 : tensor<4x8xf32>, tensor<4x8xf32>
  %m26 = spectral.mul %m25, %m25 : tensor<4x8xf32>, tensor<4x8xf32>
  %m27 = spectral.mul %m26, %m26 : tensor<4x8xf32>, tensor<4x8xf32>
  %m28 = spectral.mul %m27, %m27 : tensor<4x8xf32>, tensor<4x8xf32>
  %m29 = spectral.mul %m28, %m28 : tensor<4x8xf32>, tensor<4x8xf32>
  %m30 = spectral.mul %m29, %m29 : tensor<4x8xf32>, tensor<4x8xf32>
  %m31 = spectral.mul %m30, %m30 : tensor<4x8xf32>, tensor<4x8xf32>
  %m32 = spectral.mul %m31, %m31 : tensor<4x8xf32>, tensor<4x8xf32>
  %m33 = spectral.mul %m32, %m32 : tensor<4x8xf32>, tensor<4x8xf32>
  %m34 = spectral.mul %m33, %m33 : tensor<4x8xf32>, tensor<4x8xf32>
  %m35 = spectral.mul %m34, %m34 : tensor<4x8xf32>, tensor<4x8xf32>
  %m36 = spectral.mul %m35, %m35 : tensor<4x8xf32>, tensor<4x8xf32>
  %m37 = spectral.mul %m36, %m36 : tensor<4x8xf32>, tensor<4x8xf32>
  %m38 = spectral.mul %m37, %m37 : tensor<4x8xf32>, tensor<4x8xf32>
  %m39 = spectral.mul %m38, %m38 : tensor<4x8xf32>, tensor<4x8xf32>
  %m40 = spectral.mul %m39, %m39 : tensor<4x8xf32>, tensor<4x8xf32>
  %r = spectral.reduce_sum %m40 axes [0] : tensor<4x8xf32>
  return %r : tensor<8xf32>
}
