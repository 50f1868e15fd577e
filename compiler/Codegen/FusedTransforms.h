//===- FusedTransforms.h - elementwise ops in a transform's loads and stores -*- C++ -*-===//
#pragma once

#include "compiler/Codegen/CodegenContext.h"

#include "dialects/spectral/IR/SpectralOps.h"

namespace spectral::codegen {

/// Lowers a spectral.fusion region whose ops (`ops`, in order, non-splat
/// constants already given buffers and left out) are elementwise ops around
/// one transform: the ops before it fused into the first pass's loads, the
/// ones after it into the last pass's stores. False, with nothing added to
/// the Program, when the region has another shape.
llvm::Expected<bool> lowerFusedTransform(CodegenContext &context, mlir::spectral::FusionOp fusion,
                                         llvm::ArrayRef<mlir::Operation *> ops);

/// Lowers a region of a transform (fft or rfft along one axis), pointwise
/// ops filtering its spectrum, the inverse transform and elementwise ops
/// around them as one kernel per line (planning::planFftRoundTrip): the
/// ops before the transform in its load, the filter between the two
/// transforms in shared memory, the ops after the inverse in its store.
/// False, with nothing added to the Program, when the region has another
/// shape (fusion::roundTripRefusal).
llvm::Expected<bool> lowerFusedRoundTrip(CodegenContext &context, mlir::spectral::FusionOp fusion,
                                         llvm::ArrayRef<mlir::Operation *> ops);

/// Lowers a region holding a 1-D FNO spectral convolution (rfft, slice of
/// the low modes, channel_mix, zero padding, irfft: fusion::SpectralConv)
/// with elementwise ops computing its input or weights and elementwise ops
/// on its result, as one fno.cuh kernel (FusedSpectralConv.cpp). False, with
/// nothing added to the Program, when the region has another shape.
llvm::Expected<bool> lowerFusedSpectralConv(CodegenContext &context,
                                            mlir::spectral::FusionOp fusion,
                                            llvm::ArrayRef<mlir::Operation *> ops);

/// Lowers a region around an rfft or irfft over the last two axes of images
/// one block holds (fusion::realTransform2DRefusal) as one fft_real2d.cuh
/// kernel: the rfft's store computing the region's yields from the spectrum
/// in shared memory (mode truncation: only kept modes are transformed and
/// written), the irfft's load reading only the columns below a zero padding.
/// False, with nothing added to the Program, when the region has another
/// shape (FusedRealTransform2D.cpp).
llvm::Expected<bool> lowerFusedRealTransform2D(CodegenContext &context,
                                               mlir::spectral::FusionOp fusion,
                                               llvm::ArrayRef<mlir::Operation *> ops);

/// Lowers a region of a complex fft of one image per block and the top-k or
/// the gather of each image's modes (fusion::sparseStoreRefusal), or of a scatter of each
/// image's modes and the ifft reading it (fusion::scatterLoadRefusal), with
/// elementwise ops computing the fft's operand or the scatter's values and
/// (after the ifft) the region's yields, as one fft_complex2d.cuh kernel.
/// False, with nothing added to the Program, when the region has another
/// shape (FusedSparseTransform2D.cpp).
llvm::Expected<bool> lowerFusedSparseTransform2D(CodegenContext &context,
                                                 mlir::spectral::FusionOp fusion,
                                                 llvm::ArrayRef<mlir::Operation *> ops);

/// The same for an rfft or irfft op of its own (not in a region): one
/// kernel instead of a launch per axis. False when it has another shape.
llvm::Expected<bool> lowerRealTransform2DOp(CodegenContext &context, mlir::Operation *op);

} // namespace spectral::codegen
