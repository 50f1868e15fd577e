//===- FusedReductions.h - elementwise ops in a reduction's loads and stores -*- C++ -*-===//
#pragma once

#include "compiler/Codegen/CodegenContext.h"
#include "compiler/Codegen/Elementwise.h"

#include "dialects/spectral/IR/SpectralOps.h"

namespace spectral::codegen {

/// One end of a reduction's, softmax's or contraction's kernels, as text:
/// the Load that gives an operand's element at its flat offset `i`, or the
/// Store that takes the result's element `i` as `a`. A plain end reads or
/// writes one buffer; a fused one computes elementwise ops on the way.
struct ElementEnd {
  std::string include;             // a header its text needs ("elementwise.cuh"), or empty
  std::string definition;          // code before the functors (a fused group's struct)
  std::string members;             // the functor's members: "  const float* x;\n"
  std::string init;                // their initializers from the entry's parameters: "x"
  std::vector<std::string> params; // the entry's parameters `init` reads
  std::vector<StepArg> args;       // their arguments
  std::string code;                // Load: an expression of i; Store: statements of i and a
  std::string tag;                 // appended to entry names ("_Lpro1a2b3c4d"); empty if plain
  std::string ops;                 // the fused ops, as steps name them; empty if plain
  int64_t bytes = 0;               // what it reads or writes in one pass over its elements
};

/// Reads buffer `buffer` as the entry parameter `name`.
ElementEnd bufferLoad(const CodegenContext &context, const std::string &name, int buffer);
/// Writes buffer `buffer` as the entry parameter `name`.
ElementEnd bufferStore(const CodegenContext &context, const std::string &name, int buffer);

/// Reads the value a fused group of elementwise ops `ops` computes
/// (`group`.calls[0], rendered at i): its inputs are the entry parameters
/// "pro`operand`_in0", 1, ...; its tag "_Lpro`operand`<digest>".
ElementEnd fusedLoad(CodegenContext &context, FusedGroup group,
                     llvm::ArrayRef<mlir::Operation *> ops, const std::string &operand = "");
/// Writes each of `outputs` at i from the anchor's element `a` through
/// `group` (its calls, rendered at i, one per output); tagged "_Sepi<digest>".
ElementEnd fusedStore(CodegenContext &context, FusedGroup group,
                      llvm::ArrayRef<mlir::Operation *> ops, llvm::ArrayRef<int> outputs);

/// The end reading `value`, an anchor's operand: the ops of `before` that
/// compute it, fused (tagged "_Lpro`operand`<digest>"), or its buffer as the
/// entry parameter `name`; nothing when those ops cannot be fused.
std::optional<ElementEnd> operandEnd(CodegenContext &context,
                                     llvm::ArrayRef<mlir::Operation *> before, mlir::Value value,
                                     const std::string &name, const std::string &operand);

/// struct `name` whose operator()(`args`) returns `end`'s element, a `type`,
/// at the flat offset `offset` (an expression of the args).
std::string offsetLoadFunctor(const std::string &name, const ElementEnd &end,
                              const std::string &type, const std::string &args,
                              const std::string &offset);

/// Whether `op` is a reduce_sum, reduce_mean, reduce_max, softmax,
/// log_softmax, cross_entropy or mse whose kernels read operands through
/// Loads and write its result through one Store (not a reduction with an
/// empty result, nor a maximum over nothing: its own lowering reports that).
bool takesElementEnds(mlir::Operation *op);

/// How many of `op`'s leading operands it reads through Loads: 2 for mse
/// (prediction, target), else 1 (cross_entropy reads its labels as they are).
unsigned elementLoads(mlir::Operation *op);

/// Lowers such an op (takesElementEnds) with `loads` (elementLoads of them)
/// in the first launch and `store` in the last launch (Reductions.cpp).
llvm::Error lowerReductionWithEnds(CodegenContext &context, mlir::Operation *op,
                                   llvm::ArrayRef<ElementEnd> loads, const ElementEnd &store);

/// Lowers a spectral.fusion region whose ops (`ops`, in order, non-splat
/// constants already given buffers and left out) are elementwise ops around
/// one reduction or softmax: the ops before it fused into its Load, the
/// ones after it into its Store. False, with nothing added to the Program,
/// when the region has another shape.
llvm::Expected<bool> lowerFusedReduction(CodegenContext &context, mlir::spectral::FusionOp fusion,
                                         llvm::ArrayRef<mlir::Operation *> ops);

/// Lowers a region of two row reductions or more (fusion::isRowReduction)
/// of one row shape with pointwise ops on rows and on one value per row
/// (layer norm) as one kernel, a block per row (FusedRowProgram.cpp). False,
/// with nothing added to the Program, when the region has another shape.
llvm::Expected<bool> lowerFusedRowProgram(CodegenContext &context, mlir::spectral::FusionOp fusion,
                                          llvm::ArrayRef<mlir::Operation *> ops);

/// Lowers a region of small work (fusion::blockProgramWork) holding two ops
/// or more that would each be a kernel as one kernel of one block, a stage
/// per op (FusedBlockProgram.cpp). False, with nothing added to the Program,
/// when the region has another shape.
llvm::Expected<bool> lowerFusedBlockProgram(CodegenContext &context,
                                            mlir::spectral::FusionOp fusion,
                                            llvm::ArrayRef<mlir::Operation *> ops);

/// A cross_entropy or mse op of its own whose work fits a block program as
/// one launch of one block (two launches otherwise: per-row or partial
/// sums, then their mean). False for other ops and larger work.
llvm::Expected<bool> lowerLossInOneBlock(CodegenContext &context, mlir::Operation *op);

} // namespace spectral::codegen
