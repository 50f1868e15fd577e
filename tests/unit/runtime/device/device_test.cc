// create_device: the names it takes and what "auto" picks on a machine
// without a GPU driver (CI and developer machines); on a GPU machine "auto"
// must pick CUDA.
#include "runtime/device/device.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

namespace spectral {
namespace {

bool has_cuda_driver() {
  void* handle = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (handle) dlclose(handle);
  return handle != nullptr;
}

TEST(CreateDevice, HostByName) {
  StatusOr<std::unique_ptr<Device>> device = create_device("host");
  ASSERT_TRUE(device.is_ok()) << device.status().message();
  EXPECT_NE((*device)->name().find("host"), std::string::npos) << (*device)->name();
}

TEST(CreateDevice, UnknownNameIsAnError) {
  StatusOr<std::unique_ptr<Device>> device = create_device("tpu");
  ASSERT_FALSE(device.is_ok());
  EXPECT_EQ(device.status().message(), "unknown device 'tpu' (expected auto, cuda or host)");
}

TEST(CreateDevice, AutoSaysWhatItChose) {
  ::testing::internal::CaptureStderr();
  StatusOr<std::unique_ptr<Device>> device = create_device("auto");
  std::string said = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(device.is_ok()) << device.status().message();
  if (create_device("cuda").is_ok()) {
    EXPECT_NE(said.find("running on cuda"), std::string::npos) << said;
  } else {
    EXPECT_NE(said.find("no GPU ("), std::string::npos) << said;
    EXPECT_NE(said.find("running on the host"), std::string::npos) << said;
  }
}

TEST(CreateDevice, CudaWithoutDriverSaysWhy) {
  if (has_cuda_driver()) GTEST_SKIP() << "a CUDA driver is installed here";
  StatusOr<std::unique_ptr<Device>> device = create_device("cuda");
  ASSERT_FALSE(device.is_ok());
  EXPECT_NE(device.status().message().find("libcuda.so.1"), std::string::npos)
      << device.status().message();
}

TEST(DeviceMemory, ParsesLimits) {
  EXPECT_EQ(*parse_memory_limit("4096"), 4096u);
  EXPECT_EQ(*parse_memory_limit("512K"), 512u << 10);
  EXPECT_EQ(*parse_memory_limit("64m"), 64u << 20);
  EXPECT_EQ(*parse_memory_limit("3G"), uint64_t(3) << 30);
  for (const char* bad : {"", "G", "-1", " 5", " -5", "+5", "0", "0K", "12X", "1.5G", "10 M",
                          "99999999999999999999", "99999999999999999999G", "17179869184G"}) {
    StatusOr<uint64_t> parsed = parse_memory_limit(bad);
    EXPECT_FALSE(parsed) << "'" << bad << "'";
    if (!parsed) {
      EXPECT_NE(parsed.status().message().find("K, M or G"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace spectral
