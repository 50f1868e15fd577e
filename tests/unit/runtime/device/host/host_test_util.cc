// host_test_util.cc
#include "tests/unit/runtime/device/host/host_test_util.h"

#include <fstream>
#include <sstream>

namespace spectral::testing {

HostDevice& host_device() {
  static HostDevice* device = [] {
    StatusOr<std::unique_ptr<HostDevice>> made = HostDevice::create();
    if (!made) {
      ADD_FAILURE() << made.status().message();
      std::abort();
    }
    return made.value().release();
  }();
  return *device;
}

std::string kernel_file(const std::string& file) {
  std::ifstream in(std::string(SPECTRAL_HOST_TEST_KERNELS_DIR) + "/" + file);
  EXPECT_TRUE(in.good()) << "missing test kernel " << file;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::shared_ptr<Kernel> load_kernel(const std::string& file, const std::string& entry) {
  StatusOr<std::shared_ptr<Kernel>> kernel = host_device().load({kernel_file(file), entry});
  EXPECT_TRUE(kernel.is_ok()) << kernel.status().message();
  return kernel.is_ok() ? *kernel : nullptr;
}

void launch(const Kernel& kernel, Dim3 grid, Dim3 block, std::vector<void*> args,
            size_t dynamic_shared_bytes) {
  Status status =
      host_device().launch(kernel, grid, block, dynamic_shared_bytes, args.data());
  EXPECT_TRUE(status.is_ok()) << status.message();
}

}  // namespace spectral::testing
