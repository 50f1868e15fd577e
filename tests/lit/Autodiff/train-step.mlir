// spectral-train-step adds @<function>_step: the loss, the updated
// parameters and optimizer state (donated: updated in place), the learning
// rate an input (lr_from).
// RUN: spectral-opt %s --spectral-train-step='params=2,3' | FileCheck %s --check-prefix=ADAM
// RUN: spectral-opt %s --spectral-train-step='params=3 optimizer=sgd' | FileCheck %s --check-prefix=SGD
// RUN: spectral-opt %s --spectral-train-step='params=2,3 optimizer=sgd momentum=0.9 nesterov=true clip=0.5 name=train' | FileCheck %s --check-prefix=MOMENTUM
// RUN: not spectral-opt %s --spectral-train-step='optimizer=adam' 2>&1 | FileCheck %s --check-prefix=NOPARAMS
// RUN: not spectral-opt %s --spectral-train-step='params=2 optimizer=lion' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not spectral-opt %s --spectral-train-step='params=1' 2>&1 | FileCheck %s --check-prefix=LABELS
//
// The step compiles to a few kernels and matches the reference evaluator.
// RUN: spectral-opt %s --spectral-train-step='params=2,3 optimizer=adamw weight-decay=0.01 clip=1.0' -o %t.mlir
// RUN: spectral-run %t.mlir --function=main_step --device=host --random-inputs --seed=7 --validate --report 2>&1 | FileCheck %s --check-prefix=STEPRUN
// STEPRUN-COUNT-8: validate result #{{[0-9]}} {{.*}}: PASS
// RUN: spectral-run %t.mlir --function=main_step --device=host --random-inputs --seed=7 --report 2>&1 | FileCheck %s --check-prefix=KERNELS
// KERNELS: # main_step: {{[1-7]}} kernels
// KERNELS: adamw_f32_2tensors_{{[0-9a-f]+}} 1
// Plain SGD too: its zero velocities are literals, never read; one launch.
// RUN: spectral-opt %s --spectral-train-step='params=2,3 optimizer=sgd' -o %t.sgd.mlir
// RUN: spectral-run %t.sgd.mlir --function=main_step --device=host --random-inputs --seed=7 --validate --report 2>&1 | FileCheck %s --check-prefix=SGDSTEP
// SGDSTEP: sgd_f32_2tensors_{{[0-9a-f]+}} 1
// SGDSTEP-COUNT-3: validate result #{{[0-9]}} {{.*}}: PASS

// ADAM-LABEL: func.func @main_step(%arg0: tensor<16x8xf32>, %arg1: tensor<16xi32>,
// ADAM-SAME: %arg2: tensor<8x10xf32> {spectral.donated}, %arg3: tensor<10xf32> {spectral.donated},
// ADAM-SAME: %arg4: tensor<f32>,
// ADAM-SAME: %arg5: tensor<8x10xf32> {spectral.donated}, %arg6: tensor<8x10xf32> {spectral.donated},
// ADAM-SAME: %arg7: tensor<10xf32> {spectral.donated}, %arg8: tensor<10xf32> {spectral.donated},
// ADAM-SAME: %arg9: tensor<i64>)
// ADAM-SAME: -> (tensor<f32>, tensor<8x10xf32>, tensor<10xf32>, tensor<8x10xf32>, tensor<8x10xf32>, tensor<10xf32>, tensor<10xf32>)
// ADAM: spectral.adam_step %arg2, %{{.*}}, %arg5, %arg6, %arg9 lr_from(%arg4 : tensor<f32>) : tensor<8x10xf32>, tensor<8x10xf32>, tensor<i64>
// ADAM: spectral.adam_step %arg3, %{{.*}}, %arg7, %arg8, %arg9 lr_from(%arg4 : tensor<f32>) : tensor<10xf32>, tensor<10xf32>, tensor<i64>

// Plain SGD keeps no state.
// SGD-LABEL: func.func @main_step(
// SGD-SAME: %arg3: tensor<10xf32> {spectral.donated}, %arg4: tensor<f32>)
// SGD-SAME: -> (tensor<f32>, tensor<10xf32>)
// SGD: spectral.sgd_step %arg3, %{{.*}}, %{{.*}} lr_from(%arg4 : tensor<f32>) : tensor<10xf32>

// MOMENTUM-LABEL: func.func @train(
// MOMENTUM-SAME: %arg4: tensor<f32>, %arg5: tensor<8x10xf32> {spectral.donated}, %arg6: tensor<10xf32> {spectral.donated})
// MOMENTUM-SAME: -> (tensor<f32>, tensor<8x10xf32>, tensor<10xf32>, tensor<8x10xf32>, tensor<10xf32>, tensor<f32>)
// MOMENTUM: spectral.clip_global_norm %{{.*}}, %{{.*}} max_norm 5.000000e-01
// MOMENTUM: spectral.sgd_step %arg2, %{{.*}}, %arg5 lr_from(%arg4 : tensor<f32>) momentum 9.000000e-01 nesterov : tensor<8x10xf32>

// NOPARAMS: error: a training step needs parameters: list their argument numbers
// UNKNOWN: error: spectral-train-step: unknown optimizer 'lion' (sgd, adam or adamw)
// LABELS: error: argument #1 ('tensor<16xi32>') is not differentiable

func.func @main(%x: tensor<16x8xf32>, %labels: tensor<16xi32>, %w: tensor<8x10xf32>, %b: tensor<10xf32>) -> tensor<f32> {
  %logits = spectral.matmul %x, %w : tensor<16x8xf32>, tensor<8x10xf32>
  %z = spectral.add %logits, %b : tensor<16x10xf32>, tensor<10xf32>
  %loss = spectral.cross_entropy %z, %labels : tensor<16x10xf32>, tensor<16xi32>
  return %loss : tensor<f32>
}
