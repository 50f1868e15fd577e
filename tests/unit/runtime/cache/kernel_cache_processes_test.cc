// kernel_cache_processes_test.cc - several processes sharing one cache
// directory (fork), and the process-wide cache configured from the environment.
#include "runtime/cache/disk_store.h"
#include "runtime/cache/kernel_cache.h"

#include "tests/unit/runtime/cache/cache_test_util.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <thread>

namespace spectral::testing {
namespace {

/// An int shared between forked processes.
struct SharedCounter {
  SharedCounter() {
    void* memory = ::mmap(nullptr, sizeof(std::atomic<int>), PROT_READ | PROT_WRITE,
                          MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    value = new (memory) std::atomic<int>(0);
  }
  ~SharedCounter() { ::munmap(value, sizeof(std::atomic<int>)); }
  std::atomic<int>* value;
};

TEST(KernelCacheProcessesTest, TwoProcessesCompileOneKeyAtOnce) {
  TempDir dir;
  const CacheKey key = make_key("shared kernel");
  const std::vector<uint8_t> binary = pattern_bytes(42, 150000);
  SharedCounter compiling;
  std::vector<int> codes = run_children(2, [&](int) {
    KernelCache cache(options_for(dir.path()));
    KernelCache::Compile compile = [&]() -> StatusOr<std::vector<uint8_t>> {
      compiling.value->fetch_add(1);
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (compiling.value->load() < 2 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::microseconds(100));
      return binary;
    };
    StatusOr<std::vector<uint8_t>> result = cache.get_or_compile(key, compile);
    if (!result.is_ok()) return 2;
    if (*result != binary) return 3;
    return cache.stats().misses == 1 ? 0 : 4;
  });
  EXPECT_EQ(codes, (std::vector<int>{0, 0}));
  EXPECT_EQ(compiling.value->load(), 2);  // both missed and compiled concurrently
  EXPECT_EQ(list_files(dir.path()), std::vector<std::string>{KernelCache::key_hash(key) + ".bin"});
  KernelCache reader(options_for(dir.path()));
  StatusOr<std::vector<uint8_t>> hit = reader.get_or_compile(key, never_called());
  ASSERT_TRUE(hit.is_ok());
  EXPECT_EQ(*hit, binary);
  EXPECT_EQ(reader.stats().disk_hits, 1u);
}

TEST(KernelCacheProcessesTest, ConcurrentWritersAndEvictionsStayConsistent) {
  TempDir dir;
  constexpr int kKeys = 16;
  constexpr size_t kPayload = 8000;
  const uint64_t cap = 6 * (kPayload + cache_detail::kEntryHeaderSize);
  std::vector<int> codes = run_children(4, [&](int child) {
    int wrong = 0;
    for (int round = 0; round < 3; ++round) {
      KernelCache cache(options_for(dir.path(), CacheMode::kOn, cap));  // fresh memory each round
      for (int i = 0; i < kKeys; ++i) {
        const int k = (i * 5 + child * 3 + round) % kKeys;
        auto result = cache.get_or_compile_shared(
            make_key("k" + std::to_string(k)),
            [k]() -> StatusOr<std::vector<uint8_t>> { return pattern_bytes(uint32_t(k), kPayload); });
        if (!result.is_ok() || **result != pattern_bytes(uint32_t(k), kPayload)) ++wrong;
      }
    }
    return wrong == 0 ? 0 : 1;
  });
  EXPECT_EQ(codes, (std::vector<int>{0, 0, 0, 0}));
  EXPECT_FALSE(has_temp_files(dir.path()));
  std::vector<std::string> left = list_files(dir.path());
  EXPECT_LE(left.size() * (kPayload + cache_detail::kEntryHeaderSize), cap);
  KernelCache reader(options_for(dir.path(), CacheMode::kRequire));
  int hits = 0;
  for (int k = 0; k < kKeys; ++k) {
    StatusOr<std::vector<uint8_t>> hit = reader.get_or_compile(make_key("k" + std::to_string(k)), never_called());
    if (!hit.is_ok()) continue;
    EXPECT_EQ(*hit, pattern_bytes(uint32_t(k), kPayload));
    ++hits;
  }
  EXPECT_EQ(size_t(hits), left.size());
  EXPECT_EQ(reader.stats().corrupt_entries, 0u);
}

/// A writer killed (SIGKILL) while its entry is half written leaves at most
/// a temporary file: never an entry that a later reader takes for the binary.
TEST(KernelCacheProcessesTest, AWriterKilledMidWriteLeavesNoEntry) {
  TempDir dir;
  const CacheKey key = make_key("killed");
  const size_t size = size_t(256) << 20;  // long enough to be caught writing
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    KernelCache cache(options_for(dir.path(), CacheMode::kOn, uint64_t(1) << 31));
    cache.get_or_compile(key, []() -> StatusOr<std::vector<uint8_t>> {
      return std::vector<uint8_t>(size_t(256) << 20, 0x5a);
    });
    ::_exit(0);
  }
  // Kill it as soon as a file of the entry's exists (or it has finished).
  const std::string hash = KernelCache::key_hash(key);
  auto writing = [&] {
    std::vector<std::string> names = list_files(dir.path());
    return std::any_of(names.begin(), names.end(),
                       [&](const std::string& n) { return n.find(hash) != std::string::npos; });
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  int status = 0;
  bool exited = false;
  while (!writing() && std::chrono::steady_clock::now() < deadline)
    if ((exited = ::waitpid(pid, &status, WNOHANG) == pid)) break;
  if (!exited) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
  }
  const std::vector<std::string> files = list_files(dir.path());
  const bool entry = std::count(files.begin(), files.end(), KernelCache::key_hash(key) + ".bin");
  // The entry is there only whole (the writer finished first); else the
  // reader compiles.
  int calls = 0;
  KernelCache reader(options_for(dir.path(), CacheMode::kOn, uint64_t(1) << 31));
  StatusOr<std::vector<uint8_t>> result =
      reader.get_or_compile(key, returning(pattern_bytes(3, 100), &calls));
  ASSERT_TRUE(result.is_ok());
  if (entry) {
    EXPECT_EQ(result->size(), size);
    EXPECT_EQ(calls, 0);
  } else {
    EXPECT_EQ(*result, pattern_bytes(3, 100));
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(reader.stats().corrupt_entries, 0u);  // nothing half written was read
  }
  std::printf("writer %s\n", exited ? "finished before it could be killed" : "killed mid-write");
}

/// A full disk (here: a file size limit, so writes fail with EFBIG) while
/// writing: one warning, the binary still returned and kept in memory, no
/// entry and no temporary file left behind.
TEST(KernelCacheProcessesTest, AFullDiskWhileWritingLosesNothing) {
  TempDir dir;
  std::vector<int> codes = run_children(1, [&](int) {
    ::signal(SIGXFSZ, SIG_IGN);  // the write fails instead of killing the process
    struct rlimit limit = {64 * 1024, 64 * 1024};
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) return 10;
    ::testing::internal::CaptureStderr();
    KernelCache cache(options_for(dir.path()));
    int calls = 0;
    StatusOr<std::vector<uint8_t>> first =
        cache.get_or_compile(make_key("big"), returning(pattern_bytes(1, 1 << 20), &calls));
    StatusOr<std::vector<uint8_t>> again = cache.get_or_compile(make_key("big"), never_called());
    StatusOr<std::vector<uint8_t>> small =
        cache.get_or_compile(make_key("small"), returning(pattern_bytes(2, 100), &calls));
    const std::string warnings = ::testing::internal::GetCapturedStderr();
    if (!first.is_ok() || *first != pattern_bytes(1, 1 << 20)) return 1;
    if (!again.is_ok() || *again != *first || calls != 2) return 2;
    if (!small.is_ok()) return 3;
    if (count_of(warnings, "\n") != 1 || warnings.find("cannot write") == std::string::npos)
      return 4;
    return 0;
  });
  EXPECT_EQ(codes, std::vector<int>{0});
  EXPECT_FALSE(has_temp_files(dir.path()));
  const std::vector<std::string> files = list_files(dir.path());
  EXPECT_EQ(std::count(files.begin(), files.end(), KernelCache::key_hash(make_key("big")) + ".bin"),
            0);
}

/// A cache directory its owner may not write (a read-only image, a mode
/// 0500 directory): its entries are still served; a new kernel is compiled,
/// kept in memory and reported once; nothing is left behind. Root writes
/// anywhere, so as root the child becomes an ordinary user owning the folder.
TEST(KernelCacheProcessesTest, AReadOnlyCacheServesItsEntriesAndWarnsOnce) {
  TempDir dir;
  {
    KernelCache writer(options_for(dir.path()));
    int calls = 0;
    ASSERT_TRUE(writer.get_or_compile(make_key("old"), returning(pattern_bytes(4, 100), &calls)));
  }
  const std::vector<std::string> before = list_files(dir.path());
  ASSERT_EQ(before.size(), 1u);
  std::vector<int> codes = run_children(1, [&](int) {
    if (::geteuid() == 0) {
      const uid_t nobody = 65534;
      if (::chown(dir.path().c_str(), nobody, nobody) != 0 ||
          ::chown((dir.path() + "/" + before[0]).c_str(), nobody, nobody) != 0)
        return 10;
      if (::setgid(nobody) != 0 || ::setuid(nobody) != 0) return 11;
    }
    if (::chmod(dir.path().c_str(), 0500) != 0) return 12;
    ::testing::internal::CaptureStderr();
    KernelCache cache(options_for(dir.path()));
    int calls = 0;
    StatusOr<std::vector<uint8_t>> old = cache.get_or_compile(make_key("old"), never_called());
    StatusOr<std::vector<uint8_t>> fresh =
        cache.get_or_compile(make_key("new"), returning(pattern_bytes(5, 100), &calls));
    StatusOr<std::vector<uint8_t>> other =
        cache.get_or_compile(make_key("other"), returning(pattern_bytes(6, 100), &calls));
    // An entry that would not load is discarded: it cannot be removed, so it
    // is never read again (else it would fail to load for ever).
    cache.discard(make_key("old"));
    StatusOr<std::vector<uint8_t>> recompiled =
        cache.get_or_compile(make_key("old"), returning(pattern_bytes(7, 100), &calls));
    const std::string warnings = ::testing::internal::GetCapturedStderr();
    ::chmod(dir.path().c_str(), 0700);  // for the folder's removal
    if (!old.is_ok() || *old != pattern_bytes(4, 100) || cache.stats().disk_hits != 1) return 1;
    if (!fresh.is_ok() || *fresh != pattern_bytes(5, 100) || !other.is_ok()) return 2;
    if (!recompiled.is_ok() || *recompiled != pattern_bytes(7, 100) || calls != 3) return 4;
    if (count_of(warnings, "\n") != 1 || warnings.find("cannot write in") == std::string::npos ||
        warnings.find("its entries are read") == std::string::npos) {
      std::fprintf(stderr, "warnings: %s", warnings.c_str());
      return 3;
    }
    return 0;
  });
  EXPECT_EQ(codes, std::vector<int>{0});
  EXPECT_EQ(list_files(dir.path()), before);  // nothing written, nothing left behind
}

TEST(KernelCacheProcessesTest, GlobalCacheFollowsTheEnvironment) {
  TempDir dir;
  std::vector<int> codes = run_children(1, [&](int) {
    ::setenv("SPECTRAL_CACHE_DIR", dir.path().c_str(), 1);
    ::setenv("SPECTRAL_CACHE", "on", 1);
    ::setenv("SPECTRAL_CACHE_MAX_BYTES", "64M", 1);
    KernelCache& cache = KernelCache::global();
    if (&cache != &KernelCache::global()) return 1;
    if (cache.options().directory != dir.path() || cache.options().max_disk_bytes != 64u << 20) return 2;
    int calls = 0;
    if (!cache.get_or_compile(make_key("g"), returning({1, 2, 3}, &calls)).is_ok()) return 3;
    return list_files(dir.path()).size() == 1 ? 0 : 4;
  });
  EXPECT_EQ(codes, std::vector<int>{0});
}

TEST(KernelCacheProcessesTest, GlobalCacheIsOffWhenTheEnvironmentIsInvalid) {
  TempDir dir;
  std::vector<int> codes = run_children(1, [&](int) {
    ::setenv("SPECTRAL_CACHE_DIR", dir.path().c_str(), 1);
    ::setenv("SPECTRAL_CACHE", "sometimes", 1);
    ::testing::internal::CaptureStderr();
    KernelCache& cache = KernelCache::global();
    std::string warnings = ::testing::internal::GetCapturedStderr();
    if (cache.options().mode != CacheMode::kOff) return 1;
    if (warnings.find("\"sometimes\"") == std::string::npos || count_of(warnings, "\n") != 1) return 2;
    int calls = 0;
    for (int i = 0; i < 2; ++i)
      if (!cache.get_or_compile(make_key("g"), returning({1}, &calls)).is_ok()) return 3;
    return calls == 2 && list_files(dir.path()).empty() ? 0 : 4;
  });
  EXPECT_EQ(codes, std::vector<int>{0});
}

}  // namespace
}  // namespace spectral::testing
