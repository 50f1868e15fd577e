// host_test_util.cc
#include "tests/unit/runtime/device/host/host_test_util.h"

#include <fstream>
#include <sstream>

namespace spectral::testing {

namespace {

HostDevice* made_or_abort(StatusOr<std::unique_ptr<HostDevice>> made) {
  if (!made) {
    ADD_FAILURE() << made.status().message();
    std::abort();
  }
  return made.value().release();
}

}  // namespace

HostDevice& host_device() {
  static HostDevice* device = made_or_abort(HostDevice::create());
  return *device;
}

HostDevice* make_device(const host::HostChecks& checks) {
  return made_or_abort(HostDevice::create(checks));
}

void expect_contains(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "no '" << part << "' in: " << text;
}

std::string kernel_file(const std::string& file) {
  std::ifstream in(std::string(SPECTRAL_HOST_TEST_KERNELS_DIR) + "/" + file);
  EXPECT_TRUE(in.good()) << "missing test kernel " << file;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::shared_ptr<Kernel> load_kernel(const std::string& file, const std::string& entry) {
  return load_on(host_device(), file, entry);
}

std::shared_ptr<Kernel> load_on(HostDevice& device, const std::string& file,
                                const std::string& entry) {
  StatusOr<std::shared_ptr<Kernel>> kernel = device.load({kernel_file(file), entry, {}});
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
