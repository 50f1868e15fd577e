// kernel_test_util.h - run template instantiation units on the test device.
//
// What every kernel-template test needs: the process's device, units
// loaded once, device buffers, a launch that fails the test on error, and a
// "$KEY" filler to write units as codegen will.
#pragma once

#include "runtime/device/cuda/nvrtc_compiler.h"
#include "runtime/device/device.h"

#include <gtest/gtest.h>

#include <complex>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace spectral::testing {

/// The process's device: the host device, or the one SPECTRAL_TEST_DEVICE
/// names (auto, cuda, host). Created on first use; aborts the test program with
/// the reason if it cannot be.
Device& device();

/// Loads each unit once per process (keyed by its entry name).
const Kernel& kernel(const KernelSource& source);

/// `text` with every "$KEY" of `values` replaced by its value (longer keys
/// first; replaced text is not searched again).
std::string fill(std::string text, const std::map<std::string, std::string>& values);

/// A device copy of host values, released on scope exit.
class Buffer {
 public:
  template <typename T>
  explicit Buffer(const std::vector<T>& values) : bytes_(values.size() * sizeof(T)) {
    allocate();
    upload(values.data());
  }
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  /// The device address; kernel args take a pointer to it.
  void*& get() { return pointer_; }
  template <typename T>
  std::vector<T> read() const {
    std::vector<T> values(bytes_ / sizeof(T));
    download(values.data());
    return values;
  }

 private:
  void allocate();
  void upload(const void* data);
  void download(void* data) const;
  size_t bytes_;
  void* pointer_ = nullptr;
};

/// Launches `source` (loading it once) and fails the test on error.
void launch(const KernelSource& source, Dim3 grid, Dim3 block, size_t shared_bytes,
            std::vector<void*> args);

/// Compiles `unit` with NVRTC (the embedded templates as in-memory headers)
/// and checks KERNELS.md's static gate: a CUBIN whose ptxas report names the
/// entry, with registers and no spill stores or loads. Returns the compiled
/// kernel for further checks, or nothing after a fatal failure. Given the
/// block's thread count, also checks that two blocks fit an SM's 64K
/// registers. With SPECTRAL_PRINT_USAGE set, prints registers, shared memory
/// and stack.
std::optional<CompiledKernel> expect_clean_cubin(const KernelSource& unit,
                                                 const NvrtcOptions& options,
                                                 int64_t threads_per_block = 0);

/// Doubles rounded to the kernels' float precision.
std::vector<std::complex<float>> to_float(const std::vector<std::complex<double>>& values);

/// `count` complex values with parts uniform in [-1, 1), from `seed`.
std::vector<std::complex<float>> random_complex(int64_t count, uint64_t seed);

}  // namespace spectral::testing
