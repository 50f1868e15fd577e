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
// Both Loads give an operand's element at its row-major offset i, and the
// Store writes the result's element i, through ElementEnds
// (FusedReductions.h): a buffer, or a fused group of elementwise ops
// (FusedContractions.cpp), whose tags the entry name carries.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/CodegenUtil.h"
#include "compiler/Codegen/FusedContractions.h"

#include "dialects/spectral/IR/SpectralOps.h"

#include <algorithm>
#include <array>
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

/// The tiles: 64 x 64 (4 x 4 per thread), or 32 x 32 (2 x 2) for small
/// products; complex<f64> always takes the small one. A small 32-bit tile
/// steps through K in up to 64 at a time (K rounded up to 16): a long K then
/// waits at a quarter of the barriers (PureFFT's class scores, 64 x 840 x
/// 10: 14 steps, not 53; its training epoch on the host 4.3 -> 3.4 s), and
/// its tiles fill up to 17 KB (tests/unit/compiler/codegen/ContractionCodegenTest.cpp
/// runs and gates each BK).
Tile tileFor(DType dtype, bool small, int64_t k) {
  bool wideK = dtype == DType::kFloat32 || dtype == DType::kInt32;
  if (small && wideK) return {32, 32, int(std::clamp<int64_t>((k + 15) / 16 * 16, 16, 64)), 2, 2};
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

// ---- units over ends ----------------------------------------------------------------------

/// The ends of a contraction: its operands' Loads and its result's Store.
struct Ends {
  const ElementEnd &lhs, &rhs, &store;
  std::array<const ElementEnd *, 3> all() const { return {&lhs, &rhs, &store}; }
};

/// struct `name` over `end` (after the members `extra`): `signature` binds
/// the flat offset i to `offset`, then returns the Load's element there or
/// runs the Store's statements.
std::string functor(const std::string &name, const ElementEnd &end, bool load,
                    const std::string &signature, const std::string &offset,
                    const std::string &extra = "") {
  return "struct " + name + " {\n" + end.members + extra + "  __device__ __forceinline__ " +
         signature + " const {\n    const long long i = " + offset + ";\n" +
         (load ? "    return " + end.code + ";\n" : end.code) + "  }\n};\n";
}

/// Adds the unit computing `op` (the entry `name` with the ends' tags, over
/// `functors` and the ends' definitions, running `body`) and launches it.
/// `phased`: the body is one call of a template with a phased form
/// (host_emulation.h), so the unit says SPECTRAL_HOST_PHASED.
void launchWithEnds(CodegenContext &context, Operation *op, std::string name, const Ends &ends,
                    const std::string &functors, const std::string &body, Dim3 grid, Dim3 block,
                    bool phased) {
  std::string text = "#include \"matmul.cuh\"\n", definitions, params, ops;
  std::vector<StepArg> args;
  auto describe = [&ops](const std::string &part) {
    if (!part.empty()) ops += (ops.empty() ? "" : ", ") + part;
  };
  for (const ElementEnd *end : ends.all()) {
    if (!end->include.empty() && text.find("\"" + end->include + "\"") == std::string::npos)
      text += "#include \"" + end->include + "\"\n";
    // Two prologues of one text share their struct.
    if (definitions.find(end->definition) == std::string::npos) definitions += end->definition;
    name += end->tag;
    for (const std::string &param : end->params) params += (params.empty() ? "" : ", ") + param;
    args.insert(args.end(), end->args.begin(), end->args.end());
    if (end == &ends.store) describe(CodegenContext::describe(op));
    describe(end->ops);
  }
  if (phased) text += kPhasedUnit;
  text += "\nnamespace {\n" + definitions + functors +
          "}  // namespace\n\nextern \"C\" __global__ void " + name + "(" + params + ") {\n" +
          body + "}\n";
  int kernel = context.builder.addKernel({text, name}, ops, ends.lhs.bytes + ends.rhs.bytes,
                                         ends.store.bytes);
  context.builder.launch(kernel, grid, block, 0, std::move(args), ops);
}

void lowerMatmul(CodegenContext &context, sp::MatmulOp op, const Ends &ends) {
  DType dtype = dtypeOf(op.getType());
  std::vector<int64_t> a = shapeOf(op.getLhs().getType()), b = shapeOf(op.getRhs().getType()),
                       out = shapeOf(op.getType());
  int64_t m = a[a.size() - 2], k = a.back(), n = b.back();
  int64_t batches = elementCount(llvm::ArrayRef(out).drop_back(2));
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
  Tile tile = tileFor(dtype, small, k);
  std::string v = cppType(dtype);
  // Each operand's element (r, c) of batch entry e is at its own row-major
  // offset, the batch part broadcast; the result is a contiguous [batches, m, n].
  auto load = [&](const char *name, const ElementEnd &end, bool lhs) {
    std::string batch = "  __device__ __forceinline__ long long batch(long long b) const {\n" +
                        batchOffset(dims, lhs) + "  }\n";
    return functor(name, end, true, v + " operator()(long long e, int r, int c)",
                   "batch(e) + (long long)r * " + lit(lhs ? k : n) + " + c", batch);
  };
  std::string functors =
      load("LoadA", ends.lhs, true) + load("LoadB", ends.rhs, false) +
      functor("Store", ends.store, false, "void operator()(long long e, int r, int c, " + v + " a)",
              "(e * " + lit(m) + " + r) * " + lit(n) + " + c");
  std::string body = "  spectral_linalg::matmul<" + tile.text() + ", " + v + ">(" +
                     std::to_string(m) + ", " + std::to_string(n) + ", " + std::to_string(k) +
                     ", " + lit(batches) + ", LoadA{" + ends.lhs.init + "}, LoadB{" +
                     ends.rhs.init + "}, Store{" + ends.store.init + "});\n";
  int64_t tiles = batches * ceilDiv(m, tile.bm) * ceilDiv(n, tile.bn);
  launchWithEnds(context, op, name, ends, functors, body,
                 {uint32_t(std::min<int64_t>(tiles, 65535)), 1, 1},
                 {uint32_t(tile.threads()), 1, 1}, /*phased=*/true);
}

/// out[b, o, s] = sum_i x[b, i, s] * w[i, o, s]: threads along the modes s,
/// each with a TB x TO block of (batch, out channel) results.
void lowerChannelMix(CodegenContext &context, sp::ChannelMixOp op, const Ends &ends) {
  DType dtype = dtypeOf(op.getType());
  std::vector<int64_t> xs = shapeOf(op.getX().getType()), ws = shapeOf(op.getWeights().getType());
  int64_t batch = xs[0], in = xs[1], outChannels = ws[1];
  int64_t modes = elementCount(llvm::ArrayRef(xs).drop_front(2));
  int threads = modes <= 32 ? 32 : modes <= 64 ? 64 : 128;
  int tb = int(std::min<int64_t>(batch, 4)), to = int(std::min<int64_t>(outChannels, 4));
  std::string v = cppType(dtype);
  std::string name = std::string("channel_mix_") + shortName(dtype) + "_b" +
                     std::to_string(batch) + "_i" + std::to_string(in) + "_o" +
                     std::to_string(outChannels) + "_s" + std::to_string(modes);
  // Element (p, c, s) of each [P, C, S] tensor: x is [B, I, S], w [I, O, S],
  // the result [B, O, S].
  auto offset = [&](int64_t channels) {
    return "((long long)p * " + std::to_string(channels) + " + c) * " + lit(modes) + " + s";
  };
  std::string functors =
      functor("LoadX", ends.lhs, true, v + " operator()(int p, int c, long long s)", offset(in)) +
      functor("LoadW", ends.rhs, true, v + " operator()(int p, int c, long long s)",
              offset(outChannels)) +
      functor("Store", ends.store, false, "void operator()(int p, int c, long long s, " + v + " a)",
              offset(outChannels));
  std::string body = "  spectral_linalg::channel_mix<" + std::to_string(threads) + ", " +
                     std::to_string(tb) + ", " + std::to_string(to) + ", " + v + ">(" +
                     std::to_string(batch) + ", " + std::to_string(in) + ", " +
                     std::to_string(outChannels) + ", " + lit(modes) + ", LoadX{" +
                     ends.lhs.init + "}, LoadW{" + ends.rhs.init + "}, Store{" + ends.store.init +
                     "});\n";
  launchWithEnds(context, op, name, ends, functors, body,
                 {uint32_t(std::min<int64_t>(ceilDiv(modes, threads), 65535)),
                  uint32_t(std::min<int64_t>(ceilDiv(outChannels, to), 65535)),
                  uint32_t(std::min<int64_t>(ceilDiv(batch, tb), 65535))},
                 {uint32_t(threads), 1, 1}, /*phased=*/true);
}

/// The dims the templates take as int.
bool dimsFit(Operation *op) {
  std::vector<int64_t> a = shapeOf(op->getOperand(0).getType()),
                       b = shapeOf(op->getOperand(1).getType());
  if (isa<sp::MatmulOp>(op)) return std::max({a[a.size() - 2], a.back(), b.back()}) <= INT32_MAX;
  return std::max({a[0], a[1], b[1]}) <= INT32_MAX;
}

} // namespace

bool takesContractionEnds(Operation *op) {
  return isa<sp::MatmulOp, sp::ChannelMixOp>(op) && elementCount(op->getResult(0)) > 0 &&
         dimsFit(op);
}

llvm::Error lowerContractionWithEnds(CodegenContext &context, Operation *op, const ElementEnd &lhs,
                                     const ElementEnd &rhs, const ElementEnd &store) {
  if (auto matmul = dyn_cast<sp::MatmulOp>(op))
    lowerMatmul(context, matmul, {lhs, rhs, store});
  else if (auto mix = dyn_cast<sp::ChannelMixOp>(op))
    lowerChannelMix(context, mix, {lhs, rhs, store});
  else
    return CodegenContext::error(op, "has no contraction kernel to fuse into");
  return llvm::Error::success();
}

llvm::Expected<bool> lowerContraction(CodegenContext &context, Operation *op) {
  bool matmul = isa<sp::MatmulOp>(op);
  if (!matmul && !isa<sp::ChannelMixOp>(op)) return false;
  int lhs = context.bufferOf(op->getOperand(0)), rhs = context.bufferOf(op->getOperand(1));
  int output = context.newResultBuffer(op->getResult(0));
  if (elementCount(op->getResult(0)) == 0) return true;
  if (!dimsFit(op))
    return CodegenContext::error(op, matmul ? "matrix dims above 2^31 - 1 are not supported"
                                            : "batch or channel counts above 2^31 - 1 are not "
                                              "supported");
  return lowered(lowerContractionWithEnds(context, op, bufferLoad(context, "lhs", lhs),
                                          bufferLoad(context, "rhs", rhs),
                                          bufferStore(context, "out", output)));
}

} // namespace spectral::codegen
