// spectral/dlpack.h - exchanging tensors with other frameworks through DLPack
// (Debian's libdlpack-dev), without copying.
//
//   Expected<Tensor> x = spectral::from_dlpack(managed);   // e.g. from torch.utils.dlpack
//   DLManagedTensor* out = spectral::to_dlpack(result);      // the consumer calls its deleter
//
// Spectral's tensors live in host memory: a DLPack tensor must be on the CPU
// (kDLCPU, kDLCUDAHost or kDLCUDAManaged), dense and row-major (strides null or
// compact), of a dtype Spectral has (i32, i64, f32, f64, complex64, complex128;
// bool where the DLPack version has it). Anything else is an error that says why.
#pragma once

#include "spectral/status.h"
#include "spectral/tensor.h"

#include <dlpack/dlpack.h>

namespace spectral {

/// A view of `managed`'s memory. The Tensor (and its copies) own `managed`
/// from then on: its deleter runs when the last of them goes. On an error
/// `managed` is still the caller's.
Expected<Tensor> from_dlpack(DLManagedTensor* managed);

/// `tensor`'s memory as a DLManagedTensor (kDLCPU) that keeps the bytes alive
/// until its deleter is called. Always succeeds except for i1 tensors where
/// the DLPack version has no bool type.
Expected<DLManagedTensor*> to_dlpack(const Tensor& tensor);

}  // namespace spectral
