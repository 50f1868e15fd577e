// Text MLIR 19's parser would crash on (stack overflow, a 32 GiB allocation,
// a SEGV verifying a sparse literal) is an error at its location, from
// spectral-opt, spectral-run and the API alike (the API: tests/unit/api).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "n = 30000; print('func.func @main(%%x: ' + 'tensor<' * n + 'f32' + '>' * n + ') { return }')" > %t/types.mlir
// RUN: %python -c "n = 30000; print('func.func @main() { %%0 = spectral.constant dense<' + '[' * n + '1.0' + ']' * n + '> : tensor<f32> return }')" > %t/brackets.mlir
// RUN: %python -c "n = 30000; print('func.func @main() {' + ' \"test.op\"() ({' * n + '})' * n + ' return }')" > %t/regions.mlir
// RUN: not spectral-opt %t/types.mlir 2>&1 | FileCheck %s --check-prefix=DEEP
// RUN: not spectral-opt %t/brackets.mlir 2>&1 | FileCheck %s --check-prefix=DEEP
// RUN: not spectral-opt %t/regions.mlir 2>&1 | FileCheck %s --check-prefix=DEEP
// RUN: not spectral-run %t/types.mlir 2>&1 | FileCheck %s --check-prefix=DEEP
// DEEP: .mlir:1:{{[0-9]+}}: error: nesting deeper than 128 levels of (), [], {} and <> is not accepted
//
// RUN: %python -c "print('func.func @main(%%x: tensor<4xf32>) -> tensor<4xf32> {\n  %%0 = spectral.neg %%x : tensor<4xf32>\n  return %%0#2147483647 : tensor<4xf32>\n}')" > %t/result.mlir
// RUN: not spectral-opt %t/result.mlir 2>&1 | FileCheck %s --check-prefix=RESULT
// RUN: not spectral-run %t/result.mlir 2>&1 | FileCheck %s --check-prefix=RESULT
// RESULT: result.mlir:3:13: error: result number 2147483647 is beyond 65536
// The lexer takes "#N" as a token of its own: whitespace between changes nothing.
// RUN: %python -c "print('func.func @main(%%x: tensor<4xf32>) -> tensor<4xf32> {\n  %%0 = spectral.neg %%x : tensor<4xf32>\n  return %%0 #2147483647 : tensor<4xf32>\n}')" > %t/spaced.mlir
// RUN: not spectral-opt %t/spaced.mlir 2>&1 | FileCheck %s --check-prefix=SPACED
// SPACED: spaced.mlir:3:14: error: result number 2147483647 is beyond 65536
// Nor do many result numbers within the limit add up to gigabytes.
// RUN: %python -c "print('func.func @main(%%x: tensor<1xf32>) {'); [print('  %%r' + str(i) + ' = spectral.neg %%a' + str(i) + '#65536 : tensor<1xf32>') for i in range(70)]; print('  return\n}')" > %t/slots.mlir
// RUN: not spectral-opt %t/slots.mlir 2>&1 | FileCheck %s --check-prefix=SLOTS
// SLOTS: slots.mlir:65:{{[0-9]+}}: error: result numbers add up to more than 4194304 in one file
//
// Bytecode is refused: it keeps affine maps as text that the parser would
// read unchecked (bytes that look like 1,200 '(' in a row are data there).
// RUN: %python -c "print('func.func @main() -> tensor<301xi32> {\n  %%0 = spectral.constant dense<[' + '673720360, ' * 300 + '1]> : tensor<301xi32>\n  return %%0 : tensor<301xi32>\n}')" > %t/parens.mlir
// RUN: spectral-opt %t/parens.mlir --emit-bytecode -o %t/parens.mlirbc
// RUN: not spectral-opt %t/parens.mlirbc 2>&1 | FileCheck %s --check-prefix=BYTECODE
// RUN: not spectral-run %t/parens.mlirbc 2>&1 | FileCheck %s --check-prefix=BYTECODE
// BYTECODE: parens.mlirbc:0:0: error: MLIR bytecode is not accepted
//
// Nor before the '<' of a sparse literal; affine maps and sets (their
// expressions recurse in the parser without any bracket) are refused too.
// RUN: %python -c "print('func.func @main() -> tensor<4xf32> {\n  %%0 = spectral.constant sparse <[[0]], [1.0]> : tensor<4xf32>\n  return %%0 : tensor<4xf32>\n}')" > %t/sparse.mlir
// RUN: not spectral-opt %t/sparse.mlir 2>&1 | FileCheck %s --check-prefix=SPARSESPACED
// SPARSESPACED: sparse.mlir:2:26: error: sparse element literals are not accepted
// RUN: %python -c "print('#m = affine_map<(d0) -> (' + '-' * 2000000 + 'd0)>')" > %t/affine.mlir
// RUN: not spectral-opt %t/affine.mlir 2>&1 | FileCheck %s --check-prefix=AFFINE
// AFFINE: affine.mlir:1:6: error: affine maps and sets are not accepted
//
// RUN: not spectral-opt %s --split-input-file 2>&1 | FileCheck %s --check-prefix=SPARSE
// SPARSE: source-limits.mlir:[[@LINE+2]]:26: error: sparse element literals are not accepted (spectral constants are dense)
func.func @sparse() -> tensor<4xf32> {
  %0 = spectral.constant sparse<[[0]], [0xFFFFFFFFFFFFFFFF]> : tensor<4xf32>
  return %0 : tensor<4xf32>
}
