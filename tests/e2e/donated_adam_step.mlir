// One AdamW step of a linear softmax classifier whose parameters and
// optimizer state are donated ({spectral.donated}): the memory plan writes
// the new weights and moments over the old ones (the step is their last
// reader), so the run holds one copy of the model and its state.
//
//   spectral-run tests/e2e/donated_adam_step.mlir --random-inputs --seed=7 --validate --report
func.func @main(%x: tensor<32x64xf32>, %labels: tensor<32xi32>,
                %w: tensor<64x10xf32> {spectral.donated}, %m: tensor<64x10xf32> {spectral.donated},
                %v: tensor<64x10xf32> {spectral.donated}, %step: tensor<i64>)
    -> (tensor<f32>, tensor<64x10xf32>, tensor<64x10xf32>, tensor<64x10xf32>) {
  %logits = spectral.matmul %x, %w : tensor<32x64xf32>, tensor<64x10xf32>
  %loss = spectral.cross_entropy %logits, %labels : tensor<32x10xf32>, tensor<32xi32>
  %p = spectral.softmax %logits axis 1 : tensor<32x10xf32>
  %classes = spectral.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]> : tensor<10xi32>
  %column = spectral.reshape %labels : tensor<32xi32> -> tensor<32x1xi32>
  %hit = spectral.cmp eq %column, %classes : tensor<32x1xi32>, tensor<10xi32>
  %onehot = spectral.cast %hit : tensor<32x10xi1> to tensor<32x10xf32>
  %diff = spectral.sub %p, %onehot : tensor<32x10xf32>, tensor<32x10xf32>
  %scale = spectral.constant dense<0.03125> : tensor<f32>
  %dlogits = spectral.mul %diff, %scale : tensor<32x10xf32>, tensor<f32>
  %xt = spectral.transpose %x perm [1, 0] : tensor<32x64xf32>
  %grad = spectral.matmul %xt, %dlogits : tensor<64x32xf32>, tensor<32x10xf32>
  %w2, %m2, %v2 = spectral.adam_step %w, %grad, %m, %v, %step lr 1.0e-2 weight_decay 1.0e-2 decoupled
      : tensor<64x10xf32>, tensor<64x10xf32>, tensor<i64>
  return %loss, %w2, %m2, %v2 : tensor<f32>, tensor<64x10xf32>, tensor<64x10xf32>, tensor<64x10xf32>
}
