// The kernel cache and the dumps of failed sources ($TMPDIR) go to a fresh
// directory per run, removed at exit: cache statistics start from zero and no
// developer cache is touched.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  std::string pattern = std::filesystem::temp_directory_path() / "spectral-cuda-tests-XXXXXX";
  if (!mkdtemp(pattern.data())) {
    std::perror("mkdtemp");
    return 1;
  }
  setenv("SPECTRAL_CACHE_DIR", pattern.c_str(), 1);
  setenv("SPECTRAL_CACHE", "on", 1);
  setenv("TMPDIR", pattern.c_str(), 1);
  int result = RUN_ALL_TESTS();
  std::error_code ignored;
  std::filesystem::remove_all(pattern, ignored);
  return result;
}
