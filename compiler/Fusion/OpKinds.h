//===- OpKinds.h - what fusion may do with an op ----------------*- C++ -*-===//
//
// The kinds of the fusion contract (shared/KERNELS.md), as codegen compiles
// them today: pointwise ops compute an element from the same element of
// their operands (broadcasting external operands); index-map ops move
// elements (broadcast, transpose, slice, pad, concat, reshape); anchors are
// the ops whose kernels read operands through Loads (and most write their
// result through a Store) that codegen can fuse (compiler/Codegen/FusedRegion.h,
// FusedTraining.h); everything else is opaque and stays a kernel of its own.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <string>

namespace spectral::fusion {

enum class OpKind { kPointwise, kIndexMap, kAnchor, kConstant, kOpaque };

OpKind kindOf(mlir::Operation *op);

/// Whether anchor `anchor` reads operand `operand` through its Load (a
/// prologue may compute it): cross_entropy reads its labels as they are,
/// an optimizer step every operand but the gradient, topk_modes, gather and
/// scatter their indices.
bool readsThroughLoad(mlir::Operation *anchor, unsigned operand);

/// Whether anchor `anchor` writes its result through a Store that may
/// compute the ops reading it (not optimizer steps, topk_modes, gather or
/// scatter, whose results are stored as they are).
bool takesFusedStore(mlir::Operation *anchor);

/// Pointwise or index-map: joins an elementwise kernel.
bool isElementwise(mlir::Operation *op);

/// Why `op` may fail at run time ("integer division by zero"), or empty.
/// Such an op reports through an elementwise kernel's error word, which a
/// fused load or store does not carry.
std::string failureOf(mlir::Operation *op);

/// Why `transform` (fft or rfft) and `inverse` (ifft or irfft), with
/// pointwise ops between them, cannot run as one kernel per line (the
/// spectrum staying in shared memory); empty when they can: one and the same
/// axis, the inverse of the same length and element type, a length one
/// block holds (planning::roundTripFits).
std::string roundTripRefusal(mlir::Operation *transform, mlir::Operation *inverse);

/// Whether optimizer steps `a` and `b` can update their tensors in one
/// launch: both sgd_step or both adam_step, with the same attributes and
/// element type (and the same step, for Adam).
bool shareAnOptimizerLaunch(mlir::Operation *a, mlir::Operation *b);

/// A 1-D FNO spectral convolution: rfft along the last axis of x [B, CIN, N],
/// a slice of the first MODES bins, channel_mix with weights [CIN, COUT,
/// MODES], zero padding back to N/2 + 1 bins, irfft of length N.
struct SpectralConv {
  mlir::Operation *rfft = nullptr, *slice = nullptr, *mix = nullptr, *pad = nullptr,
                  *irfft = nullptr;
  int64_t batch = 0, cin = 0, cout = 0, n = 0, modes = 0;
  int64_t threads = 0;  // per transform (N/2 points)
};

/// The most threads and the most shared memory (bytes) one spectral
/// convolution kernel (fno.cuh) takes.
constexpr int64_t kMaxSpectralConvThreads = 256;  // two FFTs per thread: more spill on sm_80
constexpr int64_t kMaxSpectralConvShared = 40 * 1024;

/// Why the chain from `rfft` through its only users is not a spectral
/// convolution one kernel computes (fno.cuh), or empty, `conv` filled.
std::string spectralConvRefusal(mlir::Operation *rfft, SpectralConv *conv);

/// A 2-D real transform of one image per block (kernels_templates/fft_real2d.cuh):
/// rfft, or irfft, over the last two axes [..., H, W] (W even, the real
/// side), in that order.
struct RealTransform2D {
  int64_t images = 0, h = 0, w = 0;
  int64_t threads = 0;  // the block, flat
  bool wide = false;    // f64
  int64_t rowThreads = 0, colThreads = 0, rowsAtOnce = 0;
  /// Shared memory (bytes) with `kw` columns of the spectrum kept.
  int64_t sharedBytes(int64_t kw) const;
};

constexpr int64_t kMaxRealTransform2DThreads = 256;
constexpr int64_t kMaxRealTransform2DShared = 48 * 1024;

/// Why `op` is not such a transform, or empty, `shape` (may be null) filled:
/// H and W/2 with factors 2, 3, 5, 7 only, one row's and one column's FFT
/// within a block of kMaxRealTransform2DThreads, the whole spectrum's
/// columns and the rows in flight within kMaxRealTransform2DShared.
std::string realTransform2DRefusal(mlir::Operation *op, RealTransform2D *shape);

/// Why the store of a 2-D real transform of images `[leading..., H, W/2+1]`
/// cannot compute `op` from values of the images (`fromImages` says which
/// operands are), or empty: slices and concats of those values that keep
/// every element in its image (moving it within the last two axes only),
/// and pointwise ops that broadcast none of them. Pads and concats with
/// other values would write more than the store keeps: they are left to the
/// consumer's load.
std::string imageStoreRefusal(mlir::Operation *op, llvm::ArrayRef<int64_t> spectrumShape,
                              llvm::function_ref<bool(mlir::Value)> fromImages);

/// A complex FFT (fft or ifft) of one image per block
/// (kernels_templates/fft_complex2d.cuh) over the last two axes [..., H, W],
/// or the last one (H = 1).
struct ComplexTransform2D {
  int64_t images = 0, h = 0, w = 0;
  int64_t threads = 0;  // the block, flat
  bool wide = false;    // complex<f64>
  int64_t rowsAtOnce = 0;
  /// Shared memory (bytes): the image's columns and the rows in flight, or
  /// for a scatter in the load, in their place when larger, an 8-byte stamp
  /// per element (fft_complex2d.cuh complex2d_shared_bytes).
  int64_t sharedBytes(bool scatter) const;
};

constexpr int64_t kMaxComplexTransform2DThreads = 256;
/// Below 48 KiB: top-k and its scan take about 1 KiB of static shared memory.
constexpr int64_t kMaxComplexTransform2DShared = 44 * 1024;

/// A top-k or a gather of each image's modes in the store of a complex
/// transform one block holds (fft, a reshape flattening each image when
/// H > 1, a per-row topk_modes or gather over H * W), or a scatter of each
/// image's modes in the load of its inverse (scatter, a reshape back to
/// images, ifft).
struct SparseImageTransform {
  mlir::Operation *transform = nullptr;  // the fft or ifft
  mlir::Operation *reshape = nullptr;    // between it and the sparse op, or null
  mlir::Operation *sparse = nullptr;     // the topk_modes, gather or scatter
  ComplexTransform2D shape;
  int64_t k = 0;                         // modes per image
};

/// Why the modes of `fft`'s spectrum are not picked (ranked by topk_modes,
/// or gathered) in its store, or empty, `chain` filled. `chain->sparse` is
/// set whenever such an op reads the spectrum (through a reshape), so a
/// refusal can name it.
std::string sparseStoreRefusal(mlir::Operation *fft, SparseImageTransform *chain);

/// Why `scatter`'s dense result is not built in the load of the ifft that
/// reads it (through a reshape), or empty, `chain` filled. `chain->transform`
/// is set whenever such an ifft reads it.
std::string scatterLoadRefusal(mlir::Operation *scatter, SparseImageTransform *chain);

/// A reduce_sum, reduce_mean or reduce_max over the last axis, keepdims, of
/// a float (f32, f64) tensor of rank 1 or more: the reductions a row program
/// (one kernel per row with several reductions in sequence: layer norm)
/// computes.
bool isRowReduction(mlir::Operation *op);

/// Why a row program over rows of `rowShape` (a row reduction's operand)
/// cannot compute `op`, which reads its values, or empty: another row
/// reduction of that shape, or a pointwise op (that cannot fail) whose
/// result is `rowShape` or `rowShape` with a last dim of 1 (one value per row).
std::string rowOpRefusal(mlir::Operation *op, llvm::ArrayRef<int64_t> rowShape);

/// The most element operations one block program (a kernel of one block
/// running several reductions, softmaxes and losses in sequence) does.
constexpr int64_t kMaxBlockProgramWork = int64_t(1) << 20;

/// What a block program spends on `op` (elements its loads read: a
/// reduction's operand, three passes of softmax and cross_entropy, two of
/// mse; 0 for elementwise ops and constants, which the loads compute), or
/// -1 when a block program cannot run it: other op kinds, complex or
/// integer reductions, an elementwise op that can fail at run time.
int64_t blockProgramWork(mlir::Operation *op);

/// Whether `op` reports a run-time error from a block program (cross_entropy:
/// a label out of range). A launch has one error word: a block program holds
/// at most one such op.
bool reportsFromABlockProgram(mlir::Operation *op);

/// Whether `op` is a constant whose elements are all equal: a region takes
/// its own copy (a literal in the kernel) rather than a buffer.
bool isSplatConstant(mlir::Operation *op);

} // namespace spectral::fusion
