// Not a valid graph: the op's type is missing.
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = spectral.neg %x
  return %y : tensor<4xf32>
}
