// cuda_driver.h - the CUDA driver (libcuda.so.1), opened with dlopen through
// one symbol table.
//
// cuda.h is never included and libcuda never linked: the handles and the few
// enum values used are declared here; the entry points are listed once in
// cuda_symbols.def. Only the real driver is opened, never the toolkit's stub.
#pragma once

#include "runtime/status.h"

#include <cstdint>
#include <string>

namespace spectral {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CudaContextOpaque*;
using CUmodule = struct CudaModuleOpaque*;
using CUfunction = struct CudaFunctionOpaque*;
using CUstream = struct CudaStreamOpaque*;
using CUgraph = struct CudaGraphOpaque*;
using CUgraphNode = struct CudaGraphNodeOpaque*;
using CUgraphExec = struct CudaGraphExecOpaque*;
using CUevent = struct CudaEventOpaque*;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1;
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
constexpr unsigned int CU_STREAM_NON_BLOCKING = 1;
constexpr int CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1;
constexpr unsigned int CU_EVENT_DEFAULT = 0;

/// One function pointer per entry of cuda_symbols.def.
struct CudaDriver {
#define X(name, params) CUresult(*name) params = nullptr;
#include "runtime/device/cuda/cuda_symbols.def"
#undef X

  /// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)": the driver's name for `result`.
  std::string error_text(CUresult result) const;
};

/// libcuda.so.1, loaded once per process. The error says the driver was not
/// found (with dlopen's reason) or which entry points it lacks.
const StatusOr<const CudaDriver*>& cuda_driver();

}  // namespace spectral
