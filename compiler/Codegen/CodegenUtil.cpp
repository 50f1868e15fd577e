//===- CodegenUtil.cpp - small helpers the op families share --------------===//
#include "compiler/Codegen/CodegenUtil.h"

namespace spectral::codegen {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

std::string lit(int64_t value) { return std::to_string(value) + "LL"; }

int64_t elementCount(llvm::ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  return count;
}

int64_t elementCount(mlir::Value tensor) { return elementCount(shapeOf(tensor.getType())); }

std::vector<int64_t> rowMajorStrides(llvm::ArrayRef<int64_t> shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int d = int(shape.size()) - 2; d >= 0; --d) strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

int64_t bytesOf(DType dtype, int64_t elements) { return elements * dtype_size(dtype); }

int64_t bytesOf(const CodegenContext &context, int buffer) {
  return context.builder.program().buffers[buffer].bytes();
}

KernelSource boundedUnit(const std::string &include, const std::string &entry, int threads,
                         const std::string &params, const std::string &body,
                         const std::string &prelude, int blocksPerSm) {
  return {"#include \"common.cuh\"\n" +
              (include.empty() ? std::string() : "#include \"" + include + "\"\n") + "\n" +
              prelude + "extern \"C\" __global__ void __launch_bounds__(" +
              std::to_string(threads) + ", " + std::to_string(blocksPerSm) + ") " + entry + "(" + params + ") {\n" + body + "}\n",
          entry};
}

llvm::Expected<bool> lowered(llvm::Error error) {
  if (error) return error;
  return true;
}

} // namespace spectral::codegen
