// host_test_util.h - a shared HostDevice, test kernels from files, device buffers.
#pragma once

#include "runtime/device/host/host_device.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace spectral::testing {

/// One HostDevice for the whole program (the pool is process-wide anyway).
HostDevice& host_device();

/// The text of tests/unit/runtime/device/host/kernels/<file>.
std::string kernel_file(const std::string& file);

/// Loads `entry` from kernels/<file>, failing the test on error.
std::shared_ptr<Kernel> load_kernel(const std::string& file, const std::string& entry);

/// A device allocation holding `n` values of T.
template <typename T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t n) : n_(n) {
    StatusOr<void*> memory = host_device().allocate(n * sizeof(T));
    EXPECT_TRUE(memory.is_ok()) << memory.status().message();
    pointer_ = memory.is_ok() ? static_cast<T*>(*memory) : nullptr;
  }
  explicit DeviceBuffer(const std::vector<T>& values) : DeviceBuffer(values.size()) {
    Status status = host_device().copy_to_device(pointer_, values.data(), n_ * sizeof(T));
    EXPECT_TRUE(status.is_ok()) << status.message();
  }
  ~DeviceBuffer() { EXPECT_TRUE(host_device().release(pointer_).is_ok()); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  /// The address the kernel receives; args hold a pointer to it.
  T*& get() { return pointer_; }
  std::vector<T> read() const {
    std::vector<T> values(n_);
    Status status = host_device().copy_to_host(values.data(), pointer_, n_ * sizeof(T));
    EXPECT_TRUE(status.is_ok()) << status.message();
    return values;
  }

 private:
  size_t n_;
  T* pointer_ = nullptr;
};

/// Launches and expects success.
void launch(const Kernel& kernel, Dim3 grid, Dim3 block, std::vector<void*> args,
            size_t dynamic_shared_bytes = 0);

}  // namespace spectral::testing
