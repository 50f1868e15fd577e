//===- Codegen.cpp - a func of spectral ops -> a Program ------------------===//
#include "compiler/Codegen/Codegen.h"

#include "compiler/Codegen/CodegenContext.h"
#include "compiler/Codegen/CodegenUtil.h"
#include "compiler/Codegen/Constants.h"
#include "compiler/Codegen/Cost.h"
#include "compiler/Codegen/Elementwise.h"
#include "compiler/Codegen/FusedContractions.h"
#include "compiler/Codegen/FusedReductions.h"
#include "compiler/Codegen/FusedTraining.h"
#include "compiler/Codegen/FusedTransforms.h"
#include "dialects/spectral/IR/SpectralOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <algorithm>

using namespace mlir;
namespace sp = mlir::spectral;

namespace spectral::codegen {
namespace {

llvm::Error lowerBlock(CodegenContext &context, Block &block, llvm::SmallVectorImpl<Value> *yielded);

/// The byte offset of a slice whose elements lie contiguous in its operand
/// (row-major): unit strides, every axis after the last one it cuts taken
/// whole, every axis before that one cut to one index. Nothing otherwise.
std::optional<int64_t> contiguousSliceOffset(sp::SliceOp slice) {
  std::vector<int64_t> in = shapeOf(slice.getX().getType());
  llvm::ArrayRef<int64_t> start = slice.getStart(), limit = slice.getLimit();
  if (slice.getStride() &&
      llvm::any_of(*slice.getStride(), [](int64_t s) { return s != 1; }))
    return std::nullopt;
  int64_t last = int64_t(in.size()) - 1;  // the last axis not taken whole
  while (last >= 0 && start[last] == 0 && limit[last] == in[last]) --last;
  for (int64_t d = 0; d < last; ++d)
    if (limit[d] - start[d] != 1) return std::nullopt;
  std::vector<int64_t> strides = rowMajorStrides(in);
  int64_t offset = 0;
  for (size_t d = 0; d < in.size(); ++d) offset += start[d] * strides[d];
  return offset * dtype_size(dtypeOf(slice.getX().getType()));
}

/// One op outside an elementwise group.
llvm::Error lowerOp(CodegenContext &context, Operation *op) {
  if (auto slice = dyn_cast<sp::SliceOp>(op)) {
    if (std::optional<int64_t> offset = contiguousSliceOffset(slice)) {
      context.setBuffer(slice.getResult(),
                        context.builder.addView(context.bufferOf(slice.getX()), "slice",
                                                dtypeOf(slice.getType()),
                                                shapeOf(slice.getType()), *offset));
      return llvm::Error::success();
    }
  }
  if (auto reshape = dyn_cast<sp::ReshapeOp>(op)) {
    context.setBuffer(reshape.getResult(),
                      context.builder.addView(context.bufferOf(reshape.getX()), "reshape",
                                              dtypeOf(reshape.getType()),
                                              shapeOf(reshape.getType())));
    return llvm::Error::success();
  }
  if (isa<sp::ConstantOp, arith::ConstantOp>(op))
    return constantBuffer(context, op).takeError();
  if (isElementwiseOp(op)) {
    int buffer = context.newResultBuffer(op->getResult(0));
    return lowerElementwise(context, {op}, {op->getResult(0)}, {buffer});
  }
  for (auto family : {lowerRealTransform2DOp, lowerTransform, lowerLossInOneBlock, lowerReduction, lowerContraction, lowerSparse,
                      lowerTraining}) {
    llvm::Expected<bool> lowered = family(context, op);
    if (!lowered) return lowered.takeError();
    if (*lowered) return llvm::Error::success();
  }
  return CodegenContext::error(op, "codegen does not support this op yet");
}

/// A spectral.fusion region: one kernel when every op is elementwise; the
/// anchor's own kernels when elementwise ops surround one transform,
/// reduction, softmax, matmul or channel_mix (FusedRegion.h); else op by op
/// (top-k, gather/scatter, losses and optimizer steps take no fused ends yet).
llvm::Error lowerFusion(CodegenContext &context, sp::FusionOp fusion) {
  Block &body = fusion.getRegion().front();
  for (auto [argument, input] : llvm::zip(body.getArguments(), fusion.getInputs()))
    context.setBuffer(argument, context.bufferOf(input));
  auto yield = cast<sp::YieldOp>(body.getTerminator());

  std::vector<Operation *> group;
  bool allElementwise = true;
  for (Operation &op : body.without_terminator()) {
    if (isa<sp::ConstantOp, arith::ConstantOp>(op) && !splatLiteral(&op)) {
      if (llvm::Error error = constantBuffer(context, &op).takeError()) return error;
      continue;
    }
    allElementwise = allElementwise && isElementwiseOp(&op);
    group.push_back(&op);
  }
  std::vector<Value> outputs;
  std::vector<int> buffers;
  llvm::DenseSet<Value> produced;
  for (Operation *op : group)
    for (Value result : op->getResults()) produced.insert(result);
  bool groupComputesAll = true;
  for (Value value : yield.getValues()) groupComputesAll &= produced.contains(value);

  if (allElementwise && !group.empty() && groupComputesAll) {
    for (auto [result, value] : llvm::zip(fusion.getResults(), yield.getValues())) {
      outputs.push_back(value);
      buffers.push_back(context.newResultBuffer(result));
    }
    return lowerElementwise(context, group, outputs, buffers);
  }
  for (auto lowerFused :
       {lowerFusedSpectralConv, lowerFusedRoundTrip, lowerFusedRealTransform2D,
        lowerFusedSparseTransform2D, lowerFusedTransform,
        lowerFusedRowProgram, lowerFusedBlockProgram, lowerFusedReduction,
        lowerFusedContraction, lowerFusedOptimizerStep, lowerFusedOptimizerSteps,
        lowerFusedSparse}) {
    llvm::Expected<bool> fused = lowerFused(context, fusion, group);
    if (!fused) return fused.takeError();
    if (*fused) return llvm::Error::success();
  }
  llvm::SmallVector<Value> yielded;
  if (llvm::Error error = lowerBlock(context, body, &yielded)) return error;
  for (auto [result, value] : llvm::zip(fusion.getResults(), yielded))
    context.setBuffer(result, context.bufferOf(value));
  return llvm::Error::success();
}

/// Shares `op`'s nominal FLOPs among the kernels its lowering added (from
/// step `firstStep` on), per launch in proportion to the bytes each moves. A
/// kernel met before (the same unit for an earlier op) keeps its count; a
/// region lowered op by op was costed op by op already.
void costKernels(CodegenContext &context, Operation *op, size_t firstStep) {
  Program &program = context.builder.program();
  const size_t firstKernel = context.costedKernels;
  context.costedKernels = program.kernels.size();
  double weight = 0;
  auto bytesOf = [&](const KernelDesc &kernel) {
    return double(std::max<int64_t>(1, kernel.bytes_read + kernel.bytes_written));
  };
  for (size_t s = firstStep; s < program.steps.size(); ++s) {
    const Step &step = program.steps[s];
    if (step.kind == Step::Kind::kLaunch && size_t(step.kernel) >= firstKernel)
      weight += bytesOf(program.kernels[step.kernel]);
  }
  if (weight == 0) return;
  const double flops = double(nominalFlops(op));
  for (size_t k = firstKernel; k < program.kernels.size(); ++k)
    program.kernels[k].flops = int64_t(flops * bytesOf(program.kernels[k]) / weight + 0.5);
}

llvm::Error lowerBlock(CodegenContext &context, Block &block,
                       llvm::SmallVectorImpl<Value> *yielded) {
  for (Operation &op : block) {
    const size_t firstStep = context.builder.program().steps.size();
    if (auto fusion = dyn_cast<sp::FusionOp>(op)) {
      if (llvm::Error error = lowerFusion(context, fusion)) return error;
      costKernels(context, fusion, firstStep);
      continue;
    }
    if (isa<func::ReturnOp, sp::YieldOp>(op)) {
      for (Value value : op.getOperands()) yielded->push_back(value);
      continue;
    }
    if (isa<sp::ConstantOp, arith::ConstantOp>(op)) {
      if (context.hasBuffer(op.getResult(0))) continue;  // given one by lowerFusion
      if (llvm::Error error = constantBuffer(context, &op).takeError()) return error;
      continue;
    }
    if (llvm::Error error = lowerOp(context, &op)) return error;
    costKernels(context, &op, firstStep);
  }
  return llvm::Error::success();
}

/// Whether a value of `type` fits a Program buffer (sizes exact in int64):
/// at most kMaxBufferBytes at the widest element (16 bytes).
bool fitsABuffer(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasStaticShape()) return true;
  std::optional<int64_t> count = sp::checkedElementCount(shaped.getShape());
  return count && *count <= kMaxBufferBytes / 16;
}

/// Whether `type` is a statically shaped tensor of an element type Programs have.
bool isProgramTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape()) return false;
  Type element = tensor.getElementType();
  if (auto complex = dyn_cast<ComplexType>(element)) element = complex.getElementType();
  return element.isF32() || element.isF64() || element.isInteger(1) ||
         element.isSignlessInteger(32) || element.isSignlessInteger(64);
}

/// An error unless every argument and result is a tensor a Program can hold.
llvm::Error checkSignature(func::FuncOp function) {
  auto check = [&](TypeRange types, const char *what) -> llvm::Error {
    for (auto [index, type] : llvm::enumerate(types))
      if (!isProgramTensor(type)) {
        std::string text;
        llvm::raw_string_ostream os(text);
        os << type;
        return llvm::createStringError(
            std::string(what) + " #" + std::to_string(index) + " of @" +
            function.getSymName().str() + " is " + text +
            ": arguments and results must be statically shaped tensors of i1, i32, i64, f32, "
            "f64, complex<f32> or complex<f64>");
      }
    return llvm::Error::success();
  };
  if (llvm::Error error = check(function.getArgumentTypes(), "argument")) return error;
  return check(function.getResultTypes(), "result");
}

/// An error at the first argument or op result too large for a buffer.
llvm::Error checkSizes(func::FuncOp function) {
  const std::string limit = "more than 2^58 elements, beyond what a buffer holds";
  for (auto [index, type] : llvm::enumerate(function.getArgumentTypes()))
    if (!fitsABuffer(type))
      return llvm::createStringError("argument #" + std::to_string(index) + " of @" +
                                     function.getSymName().str() + " has " + limit);
  Operation *tooLarge = nullptr;
  function.walk([&](Operation *op) {
    if (llvm::all_of(op->getResultTypes(), fitsABuffer)) return WalkResult::advance();
    tooLarge = op;
    return WalkResult::interrupt();
  });
  if (tooLarge) return CodegenContext::error(tooLarge, "its result has " + limit);
  return llvm::Error::success();
}

} // namespace

llvm::Expected<Program> compileFunction(func::FuncOp function) {
  if (function.isExternal())
    return llvm::createStringError("function @" + function.getSymName().str() + " has no body");
  if (llvm::Error error = checkSignature(function)) return error;
  if (llvm::Error error = checkSizes(function)) return error;
  ProgramBuilder builder(function.getSymName().str());
  CodegenContext context(builder);
  Block &body = function.getBody().front();
  for (BlockArgument argument : body.getArguments()) {
    int buffer = builder.addBuffer("arg" + std::to_string(argument.getArgNumber()),
                                   dtypeOf(argument.getType()), shapeOf(argument.getType()),
                                   BufferRole::kInput);
    // {spectral.donated}: the caller gives the argument's bytes to the run.
    if (Attribute donated = function.getArgAttr(argument.getArgNumber(), kDonatedAttr)) {
      if (!isa<UnitAttr>(donated))
        return llvm::createStringError("argument #" + std::to_string(argument.getArgNumber()) +
                                       " of @" + function.getSymName().str() + ": " +
                                       std::string(kDonatedAttr) + " takes no value");
      builder.program().buffers[buffer].donated = true;
    }
    context.setBuffer(argument, buffer);
  }
  llvm::SmallVector<Value> results;
  if (llvm::Error error = lowerBlock(context, body, &results)) return error;
  for (Value result : results) builder.program().outputs.push_back(context.bufferOf(result));
  Program program = builder.take();
  if (Status status = program.validate(); !status)
    return llvm::createStringError("codegen produced an invalid program: " + status.message());
  return program;
}

} // namespace spectral::codegen
