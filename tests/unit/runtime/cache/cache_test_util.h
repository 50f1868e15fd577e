// cache_test_util.h - temporary directories, keys and compile callbacks for
// the kernel cache tests. Every test works in its own directory.
#pragma once

#include "runtime/cache/kernel_cache.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace spectral::testing {

/// A fresh directory, removed with its contents at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "spectral-cache-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed";
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// Runs `child` in `count` forked processes; returns their exit codes (128 +
/// the signal for one a signal ended).
inline std::vector<int> run_children(int count, const std::function<int(int)>& child) {
  std::fflush(nullptr);  // or a child may print the parent's buffered output again
  std::vector<pid_t> pids;
  for (int i = 0; i < count; ++i) {
    pid_t pid = ::fork();
    if (pid == 0) ::_exit(child(i));
    pids.push_back(pid);
  }
  std::vector<int> codes;
  for (pid_t pid : pids) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    codes.push_back(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  }
  return codes;
}

/// Names of the files in `directory`, sorted (none if it does not exist).
inline std::vector<std::string> list_files(const std::string& directory) {
  std::vector<std::string> names;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(directory, error))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

inline bool has_temp_files(const std::string& directory) {
  auto names = list_files(directory);
  return std::any_of(names.begin(), names.end(), [](const std::string& n) { return n[0] == '.'; });
}

inline std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

inline void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

/// `size` bytes that differ for each `seed`.
inline std::vector<uint8_t> pattern_bytes(uint32_t seed, size_t size) {
  std::vector<uint8_t> bytes(size);
  uint32_t state = seed * 2654435761u + 12345;
  for (auto& b : bytes) {
    state = state * 1664525u + 1013904223u;
    b = uint8_t(state >> 24);
  }
  return bytes;
}

inline CacheKey make_key(const std::string& source) {
  return CacheKey{source, "-O3 --std=c++17", "sm_80", "nvrtc 13.0"};
}

inline KernelCache::Options options_for(const std::string& directory,
                                        CacheMode mode = CacheMode::kOn,
                                        uint64_t max_disk_bytes = uint64_t(1) << 30) {
  KernelCache::Options options;
  options.directory = directory;
  options.mode = mode;
  options.max_disk_bytes = max_disk_bytes;
  return options;
}

/// A compile callback that returns `bytes` and counts its calls.
inline KernelCache::Compile returning(std::vector<uint8_t> bytes, int* calls) {
  return [bytes = std::move(bytes), calls]() -> StatusOr<std::vector<uint8_t>> {
    ++*calls;
    return bytes;
  };
}

/// A compile callback that must not run.
inline KernelCache::Compile never_called() {
  return []() -> StatusOr<std::vector<uint8_t>> {
    ADD_FAILURE() << "compile called on what should be a hit";
    return Status::error("compile called on what should be a hit");
  };
}

inline std::string entry_path(const std::string& directory, const CacheKey& key) {
  return directory + "/" + KernelCache::key_hash(key) + ".bin";
}

/// Occurrences of `part` in `text`.
inline int count_of(const std::string& text, const std::string& part) {
  int count = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
  return count;
}

}  // namespace spectral::testing
