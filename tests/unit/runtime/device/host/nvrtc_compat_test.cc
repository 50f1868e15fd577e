// nvrtc_compat_test.cc - the test kernels are real CUDA: each compiles with
// NVRTC for sm_80, with the embedded templates as in-memory headers.
#include "runtime/kernels/embedded_templates.h"
#include "tests/unit/runtime/device/host/host_test_util.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#ifdef SPECTRAL_HOST_TESTS_WITH_NVRTC
#include "runtime/device/cuda/nvrtc_compiler.h"
#endif

namespace spectral::testing {
namespace {

TEST(HostKernelsUnderNvrtc, EveryTestKernelCompilesForSm80) {
#ifndef SPECTRAL_HOST_TESTS_WITH_NVRTC
  GTEST_SKIP() << "built without runtime/device/cuda";
#else
  StatusOr<NvrtcCompiler> nvrtc = NvrtcCompiler::create();
  if (!nvrtc) GTEST_SKIP() << "no NVRTC: " << nvrtc.status().message();
  std::vector<NvrtcHeader> headers;
  for (const EmbeddedFile& file : embedded_templates()) headers.push_back({file.name, file.content});
  const std::regex entry_pattern(R"(extern "C" __global__ void (\w+)\()");
  int compiled = 0;
  for (const auto& item : std::filesystem::directory_iterator(SPECTRAL_HOST_TEST_KERNELS_DIR)) {
    const std::string source = kernel_file(item.path().filename().string());
    for (std::sregex_iterator match(source.begin(), source.end(), entry_pattern), end; match != end;
         ++match) {
      NvrtcOptions options;
      options.arch = "sm_80";
      StatusOr<CompiledKernel> kernel =
          nvrtc->compile_uncached({source, (*match)[1].str()}, options, headers);
      EXPECT_TRUE(kernel.is_ok()) << item.path() << ": " << kernel.status().message();
      ++compiled;
    }
  }
  EXPECT_GE(compiled, 12);
#endif
}

}  // namespace
}  // namespace spectral::testing
