// kernel_cache_test.cc - the KernelCache's contract: hits and misses, stats,
// keys, modes, failed compiles, threads, an unusable directory.
#include "runtime/cache/kernel_cache.h"

#include "tests/unit/runtime/cache/cache_test_util.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

namespace spectral::testing {
namespace {

using ::testing::internal::CaptureStderr;
using ::testing::internal::GetCapturedStderr;

TEST(KernelCacheTest, MissThenMemoryHit) {
  TempDir dir;
  KernelCache cache(options_for(dir.path()));
  const CacheKey key = make_key("extern \"C\" __global__ void k() {}");
  const std::vector<uint8_t> binary = pattern_bytes(1, 5000);
  int calls = 0;
  KernelCache::Compile compile = [&]() -> StatusOr<std::vector<uint8_t>> {
    ++calls;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return binary;
  };

  StatusOr<std::vector<uint8_t>> first = cache.get_or_compile(key, compile);
  ASSERT_TRUE(first.is_ok()) << first.status().message();
  EXPECT_EQ(*first, binary);
  EXPECT_EQ(calls, 1);
  CacheStats stats = cache.stats();
  EXPECT_EQ(stats.misses, 1u);
  EXPECT_EQ(stats.memory_hits, 0u);
  EXPECT_EQ(stats.disk_hits, 0u);
  EXPECT_GE(stats.compile_seconds, 0.005);
  EXPECT_EQ(list_files(dir.path()), std::vector<std::string>{KernelCache::key_hash(key) + ".bin"});

  StatusOr<std::vector<uint8_t>> second = cache.get_or_compile(key, compile);
  ASSERT_TRUE(second.is_ok());
  EXPECT_EQ(*second, binary);
  EXPECT_EQ(calls, 1);
  stats = cache.stats();
  EXPECT_EQ(stats.misses, 1u);
  EXPECT_EQ(stats.memory_hits, 1u);
  EXPECT_EQ(stats.corrupt_entries, 0u);
  EXPECT_EQ(stats.evictions, 0u);
}

TEST(KernelCacheTest, FreshInstanceHitsTheDisk) {
  TempDir dir;
  const CacheKey key = make_key("disk");
  const std::vector<uint8_t> binary = pattern_bytes(2, 200 * 1024);
  int calls = 0;
  {
    KernelCache writer(options_for(dir.path()));
    ASSERT_TRUE(writer.get_or_compile(key, returning(binary, &calls)).is_ok());
  }
  KernelCache reader(options_for(dir.path()));
  StatusOr<std::vector<uint8_t>> hit = reader.get_or_compile(key, never_called());
  ASSERT_TRUE(hit.is_ok()) << hit.status().message();
  EXPECT_EQ(*hit, binary);
  EXPECT_EQ(reader.stats().disk_hits, 1u);
  EXPECT_EQ(reader.stats().misses, 0u);
  ASSERT_TRUE(reader.get_or_compile(key, never_called()).is_ok());
  EXPECT_EQ(reader.stats().memory_hits, 1u);
  EXPECT_EQ(reader.stats().disk_hits, 1u);
}

TEST(KernelCacheTest, EveryKeyFieldSelectsItsOwnBinary) {
  TempDir dir;
  std::vector<CacheKey> keys(5, make_key("base"));
  keys[1].source = "other source";
  keys[2].options = "-O2";
  keys[3].target = "sm_90";
  keys[4].compiler_version = "nvrtc 13.1";
  int calls = 0;
  {
    KernelCache cache(options_for(dir.path()));
    for (size_t i = 0; i < keys.size(); ++i)
      ASSERT_TRUE(cache.get_or_compile(keys[i], returning(pattern_bytes(uint32_t(i), 64), &calls))
                      .is_ok());
  }
  EXPECT_EQ(calls, 5);
  EXPECT_EQ(list_files(dir.path()).size(), 5u);
  KernelCache fresh(options_for(dir.path()));
  for (size_t i = 0; i < keys.size(); ++i) {
    StatusOr<std::vector<uint8_t>> hit = fresh.get_or_compile(keys[i], never_called());
    ASSERT_TRUE(hit.is_ok());
    EXPECT_EQ(*hit, pattern_bytes(uint32_t(i), 64)) << "key " << i;
  }
}

TEST(KernelCacheTest, KeyHashSeparatesFieldBoundaries) {
  const std::string hash = KernelCache::key_hash(CacheKey{"ab", "c", "sm_80", "v"});
  EXPECT_EQ(hash.size(), 64u);
  EXPECT_EQ(hash.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(hash, KernelCache::key_hash(CacheKey{"ab", "c", "sm_80", "v"}));
  EXPECT_NE(hash, KernelCache::key_hash(CacheKey{"a", "bc", "sm_80", "v"}));
  EXPECT_NE(hash, KernelCache::key_hash(CacheKey{"abc", "", "sm_80", "v"}));
  EXPECT_NE(KernelCache::key_hash(CacheKey{"", "", "sm_8", "0v"}),
            KernelCache::key_hash(CacheKey{"", "", "sm_80", "v"}));
  EXPECT_NE(KernelCache::key_hash(CacheKey{"", "", "", ""}),
            KernelCache::key_hash(CacheKey{"", "", "", std::string(1, '\0')}));
}

TEST(KernelCacheTest, SharedResultIsTheStoredBinary) {
  TempDir dir;
  KernelCache cache(options_for(dir.path()));
  int calls = 0;
  auto first = cache.get_or_compile_shared(make_key("s"), returning(pattern_bytes(3, 100), &calls));
  auto second = cache.get_or_compile_shared(make_key("s"), never_called());
  ASSERT_TRUE(first.is_ok() && second.is_ok());
  EXPECT_EQ(first->get(), second->get());
  EXPECT_EQ(**second, pattern_bytes(3, 100));
}

TEST(KernelCacheTest, FailedCompileReturnsItsStatusAndStoresNothing) {
  TempDir dir;
  KernelCache cache(options_for(dir.path()));
  int calls = 0;
  KernelCache::Compile failing = [&]() -> StatusOr<std::vector<uint8_t>> {
    ++calls;
    return Status::error("nvrtc: error: identifier \"x\" is undefined (source in /tmp/k.cu)");
  };
  for (int attempt = 0; attempt < 2; ++attempt) {
    StatusOr<std::vector<uint8_t>> result = cache.get_or_compile(make_key("bad"), failing);
    ASSERT_FALSE(result.is_ok());
    EXPECT_EQ(result.status().message(),
              "nvrtc: error: identifier \"x\" is undefined (source in /tmp/k.cu)");
  }
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(cache.stats().misses, 2u);
  EXPECT_TRUE(list_files(dir.path()).empty());
}

TEST(KernelCacheTest, RequireModeMissIsAnErrorAndHitWorks) {
  TempDir dir;
  const CacheKey key = make_key("required");
  const std::string path = entry_path(dir.path(), key);
  KernelCache strict(options_for(dir.path(), CacheMode::kRequire));
  StatusOr<std::vector<uint8_t>> miss = strict.get_or_compile(key, never_called());
  ASSERT_FALSE(miss.is_ok());
  EXPECT_EQ(miss.status().message(), "kernel cache miss in require mode: key " +
                                         KernelCache::key_hash(key) + " (" + path + ")");
  EXPECT_EQ(strict.stats().misses, 0u);

  int calls = 0;
  KernelCache writer(options_for(dir.path()));
  ASSERT_TRUE(writer.get_or_compile(key, returning(pattern_bytes(4, 300), &calls)).is_ok());
  ASSERT_EQ(calls, 1);
  StatusOr<std::vector<uint8_t>> hit = strict.get_or_compile(key, never_called());
  ASSERT_TRUE(hit.is_ok()) << hit.status().message();
  EXPECT_EQ(*hit, pattern_bytes(4, 300));
  EXPECT_EQ(strict.stats().disk_hits, 1u);
}

TEST(KernelCacheTest, RequireModeDoesNotCreateTheDirectory) {
  TempDir dir;
  const std::string missing = dir.path() + "/not/there";
  KernelCache strict(options_for(missing, CacheMode::kRequire));
  EXPECT_FALSE(strict.get_or_compile(make_key("x"), never_called()).is_ok());
  EXPECT_FALSE(std::filesystem::exists(missing));
}

TEST(KernelCacheTest, OffModeCompilesEveryTimeAndWritesNothing) {
  TempDir dir;
  const std::string directory = dir.path() + "/cache";
  KernelCache cache(options_for(directory, CacheMode::kOff));
  int calls = 0;
  for (int i = 0; i < 3; ++i) {
    StatusOr<std::vector<uint8_t>> result =
        cache.get_or_compile(make_key("k"), returning(pattern_bytes(5, 10), &calls));
    ASSERT_TRUE(result.is_ok());
    EXPECT_EQ(*result, pattern_bytes(5, 10));
  }
  auto shared = cache.get_or_compile_shared(make_key("k"), returning(pattern_bytes(5, 10), &calls));
  ASSERT_TRUE(shared.is_ok());
  EXPECT_EQ(calls, 4);
  EXPECT_EQ(cache.stats().misses, 4u);
  EXPECT_EQ(cache.stats().memory_hits + cache.stats().disk_hits, 0u);
  EXPECT_FALSE(std::filesystem::exists(directory));
}

TEST(KernelCacheTest, UnusableDirectoryWarnsOnceAndCachesInMemory) {
  TempDir dir;
  write_bytes(dir.path() + "/blocker", {1, 2, 3});  // a file where a directory should be
  const std::string directory = dir.path() + "/blocker/cache";
  CaptureStderr();
  KernelCache cache(options_for(directory));
  int calls = 0;
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(cache.get_or_compile(make_key("m"), returning(pattern_bytes(6, 10), &calls)).is_ok());
  ASSERT_TRUE(cache.get_or_compile(make_key("n"), returning(pattern_bytes(7, 10), &calls)).is_ok());
  const std::string warnings = GetCapturedStderr();
  EXPECT_EQ(count_of(warnings, "\n"), 1) << warnings;
  EXPECT_NE(warnings.find(dir.path() + "/blocker"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("memory only"), std::string::npos) << warnings;
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(cache.stats().memory_hits, 2u);
}

TEST(KernelCacheTest, DirectoryVanishingLaterWarnsOnceAndKeepsWorking) {
  TempDir dir;
  const std::string directory = dir.path() + "/cache";
  KernelCache cache(options_for(directory));
  std::filesystem::remove_all(directory);
  CaptureStderr();
  int calls = 0;
  for (int i = 0; i < 3; ++i) {
    StatusOr<std::vector<uint8_t>> result =
        cache.get_or_compile(make_key(std::to_string(i)), returning(pattern_bytes(i, 10), &calls));
    ASSERT_TRUE(result.is_ok()) << result.status().message();
    EXPECT_EQ(*result, pattern_bytes(i, 10));
  }
  const std::string warnings = GetCapturedStderr();
  EXPECT_EQ(count_of(warnings, "\n"), 1) << warnings;
  EXPECT_NE(warnings.find("cannot write " + directory + "/"), std::string::npos) << warnings;
  ASSERT_TRUE(cache.get_or_compile(make_key("0"), never_called()).is_ok());
}

TEST(KernelCacheTest, TwoThreadsCompilingOneKeyBothSucceed) {
  TempDir dir;
  KernelCache cache(options_for(dir.path()));
  std::mutex mutex;
  std::condition_variable both_in;
  int inside = 0;
  std::atomic<int> calls{0};
  KernelCache::Compile compile = [&]() -> StatusOr<std::vector<uint8_t>> {
    ++calls;
    std::unique_lock<std::mutex> lock(mutex);
    ++inside;
    both_in.notify_all();
    // Both threads compile at once: the cache holds no lock meanwhile.
    EXPECT_TRUE(both_in.wait_for(lock, std::chrono::seconds(10), [&] { return inside == 2; }));
    return pattern_bytes(8, 20000);
  };
  StatusOr<KernelCache::Binary> results[2] = {Status::error("not run"), Status::error("not run")};
  std::thread a([&] { results[0] = cache.get_or_compile_shared(make_key("t"), compile); });
  std::thread b([&] { results[1] = cache.get_or_compile_shared(make_key("t"), compile); });
  a.join();
  b.join();
  for (auto& result : results) {
    ASSERT_TRUE(result.is_ok()) << result.status().message();
    EXPECT_EQ(**result, pattern_bytes(8, 20000));
  }
  EXPECT_EQ(calls.load(), 2);
  EXPECT_EQ(cache.stats().misses, 2u);
  EXPECT_EQ(list_files(dir.path()), std::vector<std::string>{KernelCache::key_hash(make_key("t")) + ".bin"});
}

TEST(KernelCacheTest, ManyThreadsManyKeys) {
  TempDir dir;
  KernelCache cache(options_for(dir.path(), CacheMode::kOn, 20 * 1200));
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 60; ++i) {
        const int k = (i * 7 + t) % 30;
        auto result = cache.get_or_compile_shared(
            make_key("k" + std::to_string(k)),
            [k]() -> StatusOr<std::vector<uint8_t>> { return pattern_bytes(uint32_t(k), 1000); });
        if (!result.is_ok() || **result != pattern_bytes(uint32_t(k), 1000)) ++wrong;
      }
    });
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
  CacheStats stats = cache.stats();
  EXPECT_EQ(stats.memory_hits + stats.disk_hits + stats.misses, 360u);
  EXPECT_FALSE(has_temp_files(dir.path()));
}

}  // namespace
}  // namespace spectral::testing
