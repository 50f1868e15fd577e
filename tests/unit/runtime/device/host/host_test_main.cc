// host_test_main.cc - GoogleTest main with a private kernel cache directory.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

int main(int argc, char** argv) {
  // Before the first KernelCache::global(): tests never touch the user's cache.
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") +
                    "/spectral-host-tests-XXXXXX";
  if (mkdtemp(dir.data()) == nullptr) {
    perror("mkdtemp");
    return 1;
  }
  setenv("SPECTRAL_CACHE_DIR", dir.c_str(), 1);
  unsetenv("SPECTRAL_CACHE");
  testing::InitGoogleTest(&argc, argv);
  const int result = RUN_ALL_TESTS();
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  return result;
}
