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
/// The same on `device`.
std::shared_ptr<Kernel> load_on(HostDevice& device, const std::string& file,
                                const std::string& entry);

/// A device with `checks`, for the whole program (the pool is process-wide);
/// aborts the test program when it cannot be made.
HostDevice* make_device(const host::HostChecks& checks);

/// Fails the test unless `text` contains `part`.
void expect_contains(const std::string& text, const std::string& part);

/// A device allocation holding `n` values of T (on host_device() unless given).
template <typename T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t n) : DeviceBuffer(host_device(), n) {}
  explicit DeviceBuffer(const std::vector<T>& values) : DeviceBuffer(host_device(), values) {}
  DeviceBuffer(HostDevice& device, size_t n) : device_(device), n_(n) {
    StatusOr<void*> memory = device.allocate(n * sizeof(T));
    EXPECT_TRUE(memory.is_ok()) << memory.status().message();
    pointer_ = memory.is_ok() ? static_cast<T*>(*memory) : nullptr;
  }
  DeviceBuffer(HostDevice& device, const std::vector<T>& values) : DeviceBuffer(device, values.size()) {
    Status status = device.copy_to_device(pointer_, values.data(), n_ * sizeof(T));
    EXPECT_TRUE(status.is_ok()) << status.message();
  }
  ~DeviceBuffer() { EXPECT_TRUE(device_.release(pointer_).is_ok()); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  /// The address the kernel receives; args hold a pointer to it.
  T*& get() { return pointer_; }
  std::vector<T> read() const {
    std::vector<T> values(n_);
    Status status = device_.copy_to_host(values.data(), pointer_, n_ * sizeof(T));
    EXPECT_TRUE(status.is_ok()) << status.message();
    return values;
  }

 private:
  HostDevice& device_;
  size_t n_;
  T* pointer_ = nullptr;
};

/// Launches and expects success.
void launch(const Kernel& kernel, Dim3 grid, Dim3 block, std::vector<void*> args,
            size_t dynamic_shared_bytes = 0);

}  // namespace spectral::testing
