// cuda_device.h - a CUDA GPU through the driver API (libcuda opened at run time).
//
// Kernels are compiled by NVRTC (through the kernel cache) to CUBIN for the
// device's own architecture, or to PTX for the newest architecture NVRTC
// knows when the device is newer than that; the driver loads either.
//
// Environment:
//   SPECTRAL_DEVICE_MEMORY_LIMIT  hard cap on bytes allocated through this
//                                 device, with optional K/M/G suffix (1024-based);
//                                 unset: only the device's own memory limits.
#pragma once

#include "runtime/device/cuda/cubin_image.h"
#include "runtime/device/cuda/cuda_driver.h"
#include "runtime/device/cuda/nvrtc_compiler.h"
#include "runtime/device/device.h"
#include "runtime/status.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace spectral {

/// Whether a driver reporting `driver_version` (cuDriverGetVersion, e.g.
/// 12040 for CUDA 12.4) can load what NVRTC `nvrtc_version` ("nvrtc 13.0")
/// builds: CUBIN and PTX need a driver of at least NVRTC's major version.
/// The error says both versions and what to do.
Status check_driver_for_nvrtc(int driver_version, const std::string& nvrtc_version);

/// One way to load embedded code: binaries[binary]'s CUBIN, or its PTX.
struct PrebuiltChoice {
  size_t binary = 0;
  bool cubin = false;
};

/// The embedded code a GPU of `compute_capability` (90 for sm_90) can load,
/// best first: the CUBIN of its own architecture, then CUBINs of older minors
/// of its major (an sm_86 GPU runs sm_80's), then PTX of the architectures
/// not newer than it, newest first (the driver compiles PTX for newer GPUs).
/// Empty: none fits, compile the source.
std::vector<PrebuiltChoice> prebuilt_order(const std::vector<KernelBinary>& binaries,
                                           int compute_capability);

class CudaDevice final : public Device {
 public:
  /// Device `ordinal`. The error says why there is no GPU: libcuda.so.1 not
  /// found, cuInit failed (with the driver's name for the error), or zero devices.
  /// `headers` are the in-memory headers every kernel source may #include.
  static StatusOr<std::unique_ptr<CudaDevice>> create(int ordinal = 0,
                                                      std::vector<NvrtcHeader> headers = {});
  ~CudaDevice() override;

  std::string name() const override;
  /// The architecture kernels are compiled for: "sm_80".
  const std::string& arch() const { return arch_; }
  DeviceMemoryStats memory_stats() const;

  StatusOr<void*> allocate(size_t bytes) override;
  Status release(void* pointer) override;
  Status copy_to_device(void* device_dst, const void* host_src, size_t bytes) override;
  Status copy_to_host(void* host_dst, const void* device_src, size_t bytes) override;
  Status copy_on_device(void* device_dst, const void* device_src, size_t bytes) override;
  Status fill_zero(void* device_dst, size_t bytes) override;
  StatusOr<std::shared_ptr<Kernel>> load(const KernelSource& source) override;
  /// Tries prebuilt_order(binaries) in turn (a damaged CUBIN, or an image
  /// the driver refuses as not fitting, falls through to the next; any other
  /// driver error is returned), then compiles the source; the kernel's
  /// origin() says which loaded and why the ones before it did not.
  StatusOr<std::shared_ptr<Kernel>> load_prebuilt(
      const KernelSource& source, const std::vector<KernelBinary>& binaries) override;
  Status launch(const Kernel& kernel, Dim3 grid, Dim3 block, size_t dynamic_shared_bytes,
                void** args) override;
  Status synchronize() override;
  /// Captures `ops` (stream capture on a stream of its own, so launches of
  /// other threads are not taken in) into a CUDA graph and instantiates it;
  /// launch_graph() submits it on the device's stream.
  StatusOr<std::unique_ptr<DeviceGraph>> build_graph(std::vector<GraphOp> ops) override;
  Status launch_graph(const DeviceGraph& graph) override;
  /// Between two CUDA events recorded on the device's stream around `work`.
  StatusOr<double> time_on_device(const std::function<Status()>& work) override;

  struct Context;  // the driver, context and stream; shared with loaded kernels

 private:
  /// Loads `image` (CUBIN, or NUL-terminated PTX) as a module and finds
  /// `entry`; on an error `failure` (when given) gets the driver's result.
  StatusOr<std::shared_ptr<Kernel>> load_image(const std::string& entry, const void* image,
                                               const std::string& what, std::string origin,
                                               bool prebuilt, int* failure = nullptr);
  /// Compiles `source` with NVRTC (through the cache) and loads it; `why`
  /// ends its origin().
  StatusOr<std::shared_ptr<Kernel>> compile_and_load(const KernelSource& source,
                                                     const std::string& why);
  /// launch(), copy_on_device() and fill_zero() on `stream`.
  Status launch_on(CUstream stream, const Kernel& kernel, Dim3 grid, Dim3 block,
                   size_t dynamic_shared_bytes, void** args);
  Status copy_on(CUstream stream, void* device_dst, const void* device_src, size_t bytes);
  Status zero_on(CUstream stream, void* device_dst, size_t bytes);
  /// Issues `op` on `stream`.
  Status issue_on(CUstream stream, const GraphOp& op);

  CudaDevice(std::shared_ptr<Context> context, NvrtcCompiler compiler)
      : context_(std::move(context)), compiler_(std::move(compiler)) {}

  std::shared_ptr<Context> context_;
  NvrtcCompiler compiler_;
  std::vector<NvrtcHeader> headers_;
  std::string name_;
  std::string arch_;
  int compute_capability_ = 0;  // 80 for sm_80

  mutable std::mutex mutex_;  // guards the members below
  std::unordered_map<uintptr_t, size_t> allocations_;
  DeviceMemoryStats memory_;
  std::string last_launched_;  // named when a later synchronize reports a fault
};

}  // namespace spectral
