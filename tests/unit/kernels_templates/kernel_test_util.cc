// kernel_test_util.cc - run template instantiation units on the host device.
#include "tests/unit/kernels_templates/kernel_test_util.h"

#include "runtime/device/host/host_device.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <mutex>

namespace spectral::testing {

Device& device() {
  static std::unique_ptr<HostDevice> host = [] {
    StatusOr<std::unique_ptr<HostDevice>> created = HostDevice::create();
    if (!created) {
      ADD_FAILURE() << created.status().message();
      std::abort();
    }
    return std::move(*created);
  }();
  return *host;
}

const Kernel& kernel(const KernelSource& source) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<Kernel>> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  std::shared_ptr<Kernel>& slot = loaded[source.entry];
  if (!slot) {
    StatusOr<std::shared_ptr<Kernel>> k = device().load(source);
    if (!k) {
      ADD_FAILURE() << source.entry << ": " << k.status().message();
      std::abort();
    }
    slot = *k;
  }
  return *slot;
}

std::string fill(std::string text, const std::map<std::string, std::string>& values) {
  // Longer keys first, so that "$T" does not eat the start of "$TYPE".
  std::vector<std::pair<std::string, std::string>> ordered(values.begin(), values.end());
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  for (const auto& [key, value] : ordered)
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
      text.replace(at, key.size(), value);
  return text;
}

void Buffer::allocate() {
  StatusOr<void*> memory = device().allocate(std::max<size_t>(bytes_, 1));
  EXPECT_TRUE(memory.is_ok()) << memory.status().message();
  pointer_ = memory.is_ok() ? *memory : nullptr;
}

void Buffer::upload(const void* data) {
  Status status = device().copy_to_device(pointer_, data, bytes_);
  EXPECT_TRUE(status.is_ok()) << status.message();
}

void Buffer::download(void* data) const {
  Status status = device().copy_to_host(data, pointer_, bytes_);
  EXPECT_TRUE(status.is_ok()) << status.message();
}

Buffer::~Buffer() {
  Status status = device().release(pointer_);
  EXPECT_TRUE(status.is_ok()) << status.message();
}

void launch(const KernelSource& source, Dim3 grid, Dim3 block, size_t shared_bytes,
            std::vector<void*> args) {
  Status status = device().launch(kernel(source), grid, block, shared_bytes, args.data());
  ASSERT_TRUE(status.is_ok()) << source.entry << ": " << status.message();
}

std::vector<std::complex<float>> to_float(const std::vector<std::complex<double>>& values) {
  return std::vector<std::complex<float>>(values.begin(), values.end());
}

}  // namespace spectral::testing
