// cache_options_test.cc - KernelCache::options_from_environment.
#include "runtime/cache/kernel_cache.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <map>
#include <optional>
#include <string>

namespace spectral {
namespace {

const char* const kVariables[] = {"SPECTRAL_CACHE_DIR", "SPECTRAL_CACHE", "SPECTRAL_CACHE_MAX_BYTES",
                                  "XDG_CACHE_HOME", "HOME"};

/// Each test starts with none of the variables set and ends with them restored.
class CacheOptionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : kVariables) {
      if (const char* value = ::getenv(name)) saved_[name] = value;
      ::unsetenv(name);
    }
    ::setenv("HOME", "/home/tester", 1);
  }
  void TearDown() override {
    for (const char* name : kVariables) {
      auto found = saved_.find(name);
      if (found == saved_.end()) ::unsetenv(name);
      else ::setenv(name, found->second.c_str(), 1);
    }
  }
  static KernelCache::Options options() {
    StatusOr<KernelCache::Options> options = KernelCache::options_from_environment();
    EXPECT_TRUE(options.is_ok()) << options.status().message();
    return options.is_ok() ? *options : KernelCache::Options{};
  }
  static std::string error() {
    StatusOr<KernelCache::Options> options = KernelCache::options_from_environment();
    EXPECT_FALSE(options.is_ok());
    return options.status().message();
  }

 private:
  std::map<std::string, std::string> saved_;
};

TEST_F(CacheOptionsTest, Defaults) {
  KernelCache::Options o = options();
  EXPECT_EQ(o.directory, "/home/tester/.cache/spectral");
  EXPECT_EQ(o.mode, CacheMode::kOn);
  EXPECT_EQ(o.max_disk_bytes, uint64_t(1) << 30);
}

TEST_F(CacheOptionsTest, DirectoryPrecedence) {
  ::setenv("XDG_CACHE_HOME", "/xdg", 1);
  EXPECT_EQ(options().directory, "/xdg/spectral");
  ::setenv("SPECTRAL_CACHE_DIR", "/explicit/dir", 1);
  EXPECT_EQ(options().directory, "/explicit/dir");
  ::setenv("SPECTRAL_CACHE_DIR", "", 1);  // empty counts as unset
  EXPECT_EQ(options().directory, "/xdg/spectral");
}

TEST_F(CacheOptionsTest, RelativeXdgCacheHomeIsIgnored) {
  ::setenv("XDG_CACHE_HOME", "relative/cache", 1);
  EXPECT_EQ(options().directory, "/home/tester/.cache/spectral");
}

TEST_F(CacheOptionsTest, NoHomeVariableFallsBackToThePasswordDatabase) {
  ::unsetenv("HOME");
  const std::string directory = options().directory;
  ASSERT_GE(directory.size(), std::string("/.cache/spectral").size());
  EXPECT_EQ(directory.substr(directory.size() - 16), "/.cache/spectral");
  EXPECT_EQ(directory[0], '/');
}

TEST_F(CacheOptionsTest, Modes) {
  const std::pair<const char*, CacheMode> cases[] = {
      {"on", CacheMode::kOn},     {"off", CacheMode::kOff},   {"require", CacheMode::kRequire},
      {"OFF", CacheMode::kOff},   {"Require", CacheMode::kRequire}, {"", CacheMode::kOn}};
  for (const auto& [text, mode] : cases) {
    ::setenv("SPECTRAL_CACHE", text, 1);
    EXPECT_EQ(options().mode, mode) << text;
  }
}

TEST_F(CacheOptionsTest, InvalidModeNamesTheValue) {
  for (const char* text : {"maybe", "1", "on ", "required"}) {
    ::setenv("SPECTRAL_CACHE", text, 1);
    const std::string message = error();
    EXPECT_NE(message.find(std::string("SPECTRAL_CACHE=\"") + text + "\""), std::string::npos) << message;
    EXPECT_NE(message.find("on, off or require"), std::string::npos) << message;
  }
}

TEST_F(CacheOptionsTest, MaxBytes) {
  const std::pair<const char*, uint64_t> cases[] = {
      {"0", 0},          {"123", 123},           {"64K", 64u << 10},
      {"512m", 512u << 20}, {"2G", uint64_t(2) << 30}, {"18446744073709551615", UINT64_MAX}};
  for (const auto& [text, bytes] : cases) {
    ::setenv("SPECTRAL_CACHE_MAX_BYTES", text, 1);
    EXPECT_EQ(options().max_disk_bytes, bytes) << text;
  }
}

TEST_F(CacheOptionsTest, InvalidMaxBytesNamesTheValue) {
  for (const char* text : {"abc", "12X", "-1", "1.5G", "16GG", "G", "18446744073709551616",
                           "17179869184G", " 5"}) {
    ::setenv("SPECTRAL_CACHE_MAX_BYTES", text, 1);
    const std::string message = error();
    EXPECT_NE(message.find(std::string("SPECTRAL_CACHE_MAX_BYTES=\"") + text + "\""),
              std::string::npos)
        << message;
  }
}

}  // namespace
}  // namespace spectral
