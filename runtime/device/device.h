// device.h - where kernels run: a CUDA GPU or the host CPU.
//
// Both devices take the same kernel source: an instantiation unit that
// includes the templates of kernels_templates/ and defines one
// `extern "C" __global__` entry. CudaDevice compiles it with NVRTC for the
// GPU's own architecture; HostDevice compiles it with the system C++ compiler
// and the host emulation header. Both go through the KernelCache.
#pragma once

#include "runtime/status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace spectral {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
};

/// What to compile: the instantiation unit and the entry it defines.
struct KernelSource {
  std::string source;  // CUDA C++; may #include "<template>.cuh" from kernels_templates/
  std::string entry;   // the extern "C" __global__ function's name
};

/// A loaded kernel, owned by the device that loaded it.
class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual const std::string& entry() const = 0;
};

class Device {
 public:
  virtual ~Device() = default;
  /// "host (2 threads)", "cuda:0 NVIDIA A100 (sm_80)".
  virtual std::string name() const = 0;

  virtual StatusOr<void*> allocate(size_t bytes) = 0;
  virtual Status release(void* pointer) = 0;
  virtual Status copy_to_device(void* device_dst, const void* host_src, size_t bytes) = 0;
  virtual Status copy_to_host(void* host_dst, const void* device_src, size_t bytes) = 0;
  /// Device-to-device copy, ordered with the launches.
  virtual Status copy_on_device(void* device_dst, const void* device_src, size_t bytes) = 0;
  /// Sets `bytes` bytes at `device_dst` to zero, ordered with the launches.
  virtual Status fill_zero(void* device_dst, size_t bytes) = 0;

  /// Compiles (through the kernel cache) and loads a kernel.
  virtual StatusOr<std::shared_ptr<Kernel>> load(const KernelSource& source) = 0;
  /// Launches `kernel`; `args` is CUDA's kernelParams: one pointer to each
  /// argument's value, in the entry's parameter order.
  virtual Status launch(const Kernel& kernel, Dim3 grid, Dim3 block, size_t dynamic_shared_bytes,
                        void** args) = 0;
  virtual Status synchronize() = 0;
};

/// "auto" (CUDA when a working driver and device exist, else host), "host" or
/// "cuda". `auto` says on stderr which it chose, and why not CUDA.
StatusOr<std::unique_ptr<Device>> create_device(const std::string& which);

}  // namespace spectral
