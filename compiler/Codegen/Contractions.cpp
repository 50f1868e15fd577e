//===- Contractions.cpp - matmul and channel_mix --------------------------===//
//
// spectral.matmul is matmul.cuh's tiled product. Its operands are read
// through generated Load functors whose batch offset is numpy broadcasting
// with constant strides: the output's batch dims, size-1 dims dropped and
// neighbours that both operands step through alike merged, so
// [2,1,M,K] x [3,K,N] reads the lhs with stride (MK, 0) and the rhs with
// (0, KN) over the batch [2, 3], and any batch rank works. The tile is
// matmul.cuh's per element type (256 threads), a 32 x 32 one for small
// products. spectral.channel_mix (bixy,ioxy->boxy) is matmul.cuh's
// channel_mix over the flattened modes.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/CodegenUtil.h"

#include "dialects/spectral/IR/SpectralOps.h"

#include <algorithm>
#include <cstdint>

using namespace mlir;
namespace sp = mlir::spectral;

namespace spectral::codegen {
namespace {

/// matmul.cuh's (BM, BN, BK, TM, TN); every tile runs 256 threads.
struct Tile {
  int bm, bn, bk, tm, tn;
  int threads() const { return (bm / tm) * (bn / tn); }
  std::string text() const {
    return std::to_string(bm) + ", " + std::to_string(bn) + ", " + std::to_string(bk) + ", " +
           std::to_string(tm) + ", " + std::to_string(tn);
  }
};

/// The tiles matmul.cuh's tests hold to the register gate; complex<f64>
/// always takes the small one.
Tile tileFor(DType dtype, bool small) {
  bool wideK = dtype == DType::kFloat32 || dtype == DType::kInt32;
  if (small || dtype == DType::kComplex128) return {32, 32, wideK ? 16 : 8, 2, 2};
  return {64, 64, wideK ? 16 : 8, 4, 4};
}

/// One merged output batch dim and each operand's element stride along it
/// (0 where the operand broadcasts).
struct BatchDim {
  int64_t size, strideA, strideB;
};

/// The output batch dims with size 1 dropped and neighbours merged where
/// both operands step through them as one dim.
std::vector<BatchDim> batchDims(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b,
                                llvm::ArrayRef<int64_t> out, int64_t matrixA, int64_t matrixB) {
  size_t rank = out.size() - 2;
  auto strides = [&](llvm::ArrayRef<int64_t> shape, int64_t matrix) {
    std::vector<int64_t> aligned(rank, 1);
    size_t offset = rank - (shape.size() - 2);
    for (size_t d = 0; d + 2 < shape.size(); ++d) aligned[d + offset] = shape[d];
    std::vector<int64_t> result = rowMajorStrides(aligned);
    for (size_t d = 0; d < rank; ++d) result[d] = aligned[d] == 1 ? 0 : result[d] * matrix;
    return result;
  };
  std::vector<int64_t> sa = strides(a, matrixA), sb = strides(b, matrixB);
  std::vector<BatchDim> dims;
  for (size_t d = 0; d < rank; ++d) {
    if (out[d] == 1) continue;
    BatchDim dim{out[d], sa[d], sb[d]};
    if (!dims.empty() && dims.back().strideA == dim.strideA * dim.size &&
        dims.back().strideB == dim.strideB * dim.size) {
      dims.back().size *= dim.size;
      dims.back().strideA = dim.strideA;
      dims.back().strideB = dim.strideB;
    } else {
      dims.push_back(dim);
    }
  }
  return dims;
}

/// Statements of a body returning the operand offset of batch entry b.
std::string batchOffset(const std::vector<BatchDim> &dims, bool lhs) {
  std::string code = "    long long at = 0;\n";
  for (int d = int(dims.size()) - 1; d >= 0; --d) {
    int64_t stride = lhs ? dims[d].strideA : dims[d].strideB;
    if (d == 0) {
      if (stride != 0) code += "    at += b * " + lit(stride) + ";\n";
    } else {
      code += "    {\n      const long long q = b / " + lit(dims[d].size) + ";\n";
      if (stride != 0)
        code += "      at += (b - q * " + lit(dims[d].size) + ") * " + lit(stride) + ";\n";
      code += "      b = q;\n    }\n";
    }
  }
  return code + "    return at;\n";
}

llvm::Error lowerMatmul(CodegenContext &context, sp::MatmulOp op) {
  DType dtype = dtypeOf(op.getType());
  std::vector<int64_t> a = shapeOf(op.getLhs().getType()), b = shapeOf(op.getRhs().getType()),
                       out = shapeOf(op.getType());
  int64_t m = a[a.size() - 2], k = a.back(), n = b.back();
  int64_t batches = elementCount(llvm::ArrayRef(out).drop_back(2));
  int lhs = context.bufferOf(op.getLhs()), rhs = context.bufferOf(op.getRhs());
  int output = context.newResultBuffer(op.getResult());
  if (batches * m * n == 0) return llvm::Error::success();
  if (std::max({m, n, k}) > INT32_MAX)
    return CodegenContext::error(op, "matrix dims above 2^31 - 1 are not supported");

  std::vector<BatchDim> dims = batchDims(a, b, out, m * k, k * n);
  std::string name = std::string("matmul_") + shortName(dtype) + "_" + std::to_string(m) + "x" +
                     std::to_string(k) + "x" + std::to_string(n);
  if (!dims.empty()) {
    std::vector<int64_t> sizes, lhsSizes, rhsSizes;
    bool broadcast = false;
    for (const BatchDim &dim : dims) {
      sizes.push_back(dim.size);
      lhsSizes.push_back(dim.strideA ? dim.size : 1);
      rhsSizes.push_back(dim.strideB ? dim.size : 1);
      broadcast = broadcast || !dim.strideA || !dim.strideB;
    }
    name += "_batch" + shapeName(sizes);
    if (broadcast) name += "_lhs" + shapeName(lhsSizes) + "_rhs" + shapeName(rhsSizes);
  }
  bool small = m <= 32 || n <= 32 || batches * ceilDiv(m, 64) * ceilDiv(n, 64) < 64;
  Tile tile = tileFor(dtype, small);
  std::string v = cppType(dtype);
  std::string unit =
      "#include \"matmul.cuh\"\n\nnamespace {\n"
      "struct LoadA {\n  const " + v + "* a;\n"
      "  __device__ __forceinline__ long long batch(long long b) const {\n" +
      batchOffset(dims, true) + "  }\n"
      "  __device__ __forceinline__ " + v + " operator()(long long b, int r, int c) const {\n"
      "    return a[batch(b) + (long long)r * " + lit(k) + " + c];\n  }\n};\n"
      "struct LoadB {\n  const " + v + "* b;\n"
      "  __device__ __forceinline__ long long batch(long long b) const {\n" +
      batchOffset(dims, false) + "  }\n"
      "  __device__ __forceinline__ " + v + " operator()(long long e, int r, int c) const {\n"
      "    return b[batch(e) + (long long)r * " + lit(n) + " + c];\n  }\n};\n"
      "}  // namespace\n\n"
      "extern \"C\" __global__ void " + name + "(const " + v + "* __restrict__ a, const " + v +
      "* __restrict__ b, " + v + "* __restrict__ c) {\n"
      "  spectral_linalg::matmul<" + tile.text() + ", " + v + ">(" + std::to_string(m) + ", " +
      std::to_string(n) + ", " + std::to_string(k) + ", " + lit(batches) +
      ", LoadA{a}, LoadB{b}, spectral_linalg::MatrixStore<" + v + ">{c, " + std::to_string(m) +
      ", " + std::to_string(n) + "});\n}\n";
  std::string where = CodegenContext::describe(op);
  int kernel = context.builder.addKernel({unit, name}, where,
                                         bytesOf(dtype, elementCount(a) + elementCount(b)),
                                         bytesOf(dtype, elementCount(out)));
  int64_t tiles = batches * ceilDiv(m, tile.bm) * ceilDiv(n, tile.bn);
  context.builder.launch(kernel, {uint32_t(std::min<int64_t>(tiles, 65535)), 1, 1},
                         {uint32_t(tile.threads()), 1, 1}, 0,
                         {StepArg::of_buffer(lhs), StepArg::of_buffer(rhs),
                          StepArg::of_buffer(output)},
                         where);
  return llvm::Error::success();
}

/// out[b, o, s] = sum_i x[b, i, s] * w[i, o, s]: threads along the modes s,
/// each with a TB x TO block of (batch, out channel) results.
llvm::Error lowerChannelMix(CodegenContext &context, sp::ChannelMixOp op) {
  DType dtype = dtypeOf(op.getType());
  std::vector<int64_t> xs = shapeOf(op.getX().getType()), ws = shapeOf(op.getWeights().getType());
  int64_t batch = xs[0], in = xs[1], outChannels = ws[1];
  int64_t modes = elementCount(llvm::ArrayRef(xs).drop_front(2));
  int x = context.bufferOf(op.getX()), w = context.bufferOf(op.getWeights());
  int output = context.newResultBuffer(op.getResult());
  if (batch * outChannels * modes == 0) return llvm::Error::success();
  if (std::max({batch, in, outChannels}) > INT32_MAX)
    return CodegenContext::error(op, "batch or channel counts above 2^31 - 1 are not supported");
  int threads = modes <= 32 ? 32 : modes <= 64 ? 64 : 128;
  int tb = int(std::min<int64_t>(batch, 4)), to = int(std::min<int64_t>(outChannels, 4));
  std::string v = cppType(dtype);
  std::string name = std::string("channel_mix_") + shortName(dtype) + "_b" +
                     std::to_string(batch) + "_i" + std::to_string(in) + "_o" +
                     std::to_string(outChannels) + "_s" + std::to_string(modes);
  std::string unit =
      "#include \"matmul.cuh\"\n\n"
      "extern \"C\" __global__ void " + name + "(const " + v + "* __restrict__ x, const " + v +
      "* __restrict__ w, " + v + "* __restrict__ out) {\n"
      "  using namespace spectral_linalg;\n"
      "  channel_mix<" + std::to_string(threads) + ", " + std::to_string(tb) + ", " +
      std::to_string(to) + ", " + v + ">(" + std::to_string(batch) + ", " + std::to_string(in) +
      ", " + std::to_string(outChannels) + ", " + lit(modes) + ", ModeLoad<" + v + ">{x, " +
      std::to_string(in) + ", " + lit(modes) + "}, ModeLoad<" + v + ">{w, " +
      std::to_string(outChannels) + ", " + lit(modes) + "}, ModeStore<" + v + ">{out, " +
      std::to_string(outChannels) + ", " + lit(modes) + "});\n}\n";
  std::string where = CodegenContext::describe(op);
  int kernel = context.builder.addKernel({unit, name}, where,
                                         bytesOf(dtype, (batch * in + in * outChannels) * modes),
                                         bytesOf(dtype, batch * outChannels * modes));
  Dim3 grid{uint32_t(std::min<int64_t>(ceilDiv(modes, threads), 65535)),
            uint32_t(std::min<int64_t>(ceilDiv(outChannels, to), 65535)),
            uint32_t(std::min<int64_t>(ceilDiv(batch, tb), 65535))};
  context.builder.launch(kernel, grid, {uint32_t(threads), 1, 1}, 0,
                         {StepArg::of_buffer(x), StepArg::of_buffer(w),
                          StepArg::of_buffer(output)},
                         where);
  return llvm::Error::success();
}

} // namespace

llvm::Expected<bool> lowerContraction(CodegenContext &context, Operation *op) {
  if (auto matmul = dyn_cast<sp::MatmulOp>(op)) return lowered(lowerMatmul(context, matmul));
  if (auto mix = dyn_cast<sp::ChannelMixOp>(op)) return lowered(lowerChannelMix(context, mix));
  return false;
}

} // namespace spectral::codegen
