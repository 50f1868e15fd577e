// kernel_cache_disk_test.cc - disk entries: damaged entries are recompiled and
// replaced, least recently used entries are evicted under the size cap.
#include "runtime/cache/kernel_cache.h"

#include "runtime/cache/disk_store.h"
#include "tests/unit/runtime/cache/cache_test_util.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <ctime>
#include <filesystem>

namespace spectral::testing {
namespace {

using cache_detail::kEntryHeaderSize;
using ::testing::internal::CaptureStderr;
using ::testing::internal::GetCapturedStderr;

enum class Damage { kFlipPayloadByte, kTruncatePayload, kTruncateIntoHeader, kEmpty,
                    kGarbageHeader, kWrongPayloadSize, kOtherKeysEntry };

std::string damage_name(const ::testing::TestParamInfo<Damage>& info) {
  const char* names[] = {"FlipPayloadByte", "TruncatePayload", "TruncateIntoHeader", "Empty",
                         "GarbageHeader", "WrongPayloadSize", "OtherKeysEntry"};
  return names[int(info.param)];
}

/// Damages the entry at `path` (for kOtherKeysEntry: replaces it with `other`'s entry).
void damage(Damage kind, const std::string& path, const std::string& other) {
  std::vector<uint8_t> bytes = read_bytes(path);
  ASSERT_GT(bytes.size(), kEntryHeaderSize + 100);
  switch (kind) {
    case Damage::kFlipPayloadByte: bytes[kEntryHeaderSize + 77] ^= 0x10; break;
    case Damage::kTruncatePayload: bytes.resize(bytes.size() - 1); break;
    case Damage::kTruncateIntoHeader: bytes.resize(kEntryHeaderSize / 2); break;
    case Damage::kEmpty: bytes.clear(); break;
    case Damage::kGarbageHeader:
      for (size_t i = 0; i < kEntryHeaderSize; ++i) bytes[i] = uint8_t(i * 37 + 11);
      break;
    case Damage::kWrongPayloadSize: bytes[16] ^= 1; break;
    case Damage::kOtherKeysEntry: bytes = read_bytes(other); break;
  }
  write_bytes(path, bytes);
}

class CorruptEntryTest : public ::testing::TestWithParam<Damage> {};

TEST_P(CorruptEntryTest, IsRecompiledReplacedAndReported) {
  TempDir dir;
  const CacheKey key = make_key("victim"), other = make_key("other");
  const std::string path = entry_path(dir.path(), key);
  int calls = 0;
  {
    KernelCache writer(options_for(dir.path()));
    ASSERT_TRUE(writer.get_or_compile(key, returning(pattern_bytes(1, 4096), &calls)).is_ok());
    ASSERT_TRUE(writer.get_or_compile(other, returning(pattern_bytes(2, 4096), &calls)).is_ok());
  }
  damage(GetParam(), path, entry_path(dir.path(), other));

  CaptureStderr();
  KernelCache reader(options_for(dir.path()));
  StatusOr<std::vector<uint8_t>> result = reader.get_or_compile(key, returning(pattern_bytes(1, 4096), &calls));
  const std::string warnings = GetCapturedStderr();
  ASSERT_TRUE(result.is_ok()) << result.status().message();
  EXPECT_EQ(*result, pattern_bytes(1, 4096));
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(reader.stats().corrupt_entries, 1u);
  EXPECT_EQ(reader.stats().disk_hits, 0u);
  EXPECT_EQ(count_of(warnings, "\n"), 1) << warnings;
  EXPECT_NE(warnings.find("corrupt entry " + path + " ("), std::string::npos) << warnings;

  KernelCache again(options_for(dir.path()));  // the entry was replaced
  StatusOr<std::vector<uint8_t>> hit = again.get_or_compile(key, never_called());
  ASSERT_TRUE(hit.is_ok());
  EXPECT_EQ(*hit, pattern_bytes(1, 4096));
  EXPECT_EQ(again.stats().corrupt_entries, 0u);
  EXPECT_FALSE(has_temp_files(dir.path()));
}

INSTANTIATE_TEST_SUITE_P(EveryDamage, CorruptEntryTest,
                         ::testing::Values(Damage::kFlipPayloadByte, Damage::kTruncatePayload,
                                           Damage::kTruncateIntoHeader, Damage::kEmpty,
                                           Damage::kGarbageHeader, Damage::kWrongPayloadSize,
                                           Damage::kOtherKeysEntry),
                         damage_name);

TEST(CorruptEntryRequireTest, IsAnErrorThatSaysWhy) {
  TempDir dir;
  const CacheKey key = make_key("victim");
  int calls = 0;
  KernelCache writer(options_for(dir.path()));
  ASSERT_TRUE(writer.get_or_compile(key, returning(pattern_bytes(1, 500), &calls)).is_ok());
  const std::string path = entry_path(dir.path(), key);
  damage(Damage::kFlipPayloadByte, path, "");
  const std::vector<uint8_t> damaged = read_bytes(path);

  KernelCache strict(options_for(dir.path(), CacheMode::kRequire));
  StatusOr<std::vector<uint8_t>> result = strict.get_or_compile(key, never_called());
  ASSERT_FALSE(result.is_ok());
  EXPECT_EQ(result.status().message(),
            "kernel cache miss in require mode: key " + KernelCache::key_hash(key) + " (" + path +
                "); corrupt entry " + path + " (payload checksum mismatch)");
  EXPECT_EQ(strict.stats().corrupt_entries, 1u);
  EXPECT_EQ(read_bytes(path), damaged);  // require mode writes nothing
}

/// Sets the entry's mtime to `seconds` after the epoch.
void set_mtime(const std::string& path, time_t seconds) {
  struct timespec times[2] = {{seconds, 0}, {seconds, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0) << path;
}

constexpr size_t kPayload = 1000;
constexpr uint64_t kEntryBytes = kEntryHeaderSize + kPayload;

TEST(EvictionTest, RemovesTheLeastRecentlyUsedFirst) {
  TempDir dir;
  const uint64_t cap = 3 * kEntryBytes;
  const CacheKey a = make_key("a"), b = make_key("b"), c = make_key("c"), d = make_key("d"),
                 e = make_key("e");
  int calls = 0;
  {
    KernelCache cache(options_for(dir.path(), CacheMode::kOn, cap));
    for (const CacheKey* key : {&a, &b, &c})
      ASSERT_TRUE(cache.get_or_compile(*key, returning(pattern_bytes(9, kPayload), &calls)).is_ok());
    EXPECT_EQ(cache.stats().evictions, 0u);
  }
  const time_t past = std::time(nullptr) - 10000;
  set_mtime(entry_path(dir.path(), a), past + 1);
  set_mtime(entry_path(dir.path(), b), past + 2);
  set_mtime(entry_path(dir.path(), c), past + 3);

  KernelCache cache(options_for(dir.path(), CacheMode::kOn, cap));
  ASSERT_TRUE(cache.get_or_compile(a, never_called()).is_ok());  // a disk hit makes a the newest
  ASSERT_TRUE(cache.get_or_compile(d, returning(pattern_bytes(9, kPayload), &calls)).is_ok());
  EXPECT_FALSE(std::filesystem::exists(entry_path(dir.path(), b)));
  EXPECT_TRUE(std::filesystem::exists(entry_path(dir.path(), a)));
  EXPECT_TRUE(std::filesystem::exists(entry_path(dir.path(), c)));
  EXPECT_TRUE(std::filesystem::exists(entry_path(dir.path(), d)));
  EXPECT_EQ(cache.stats().evictions, 1u);

  ASSERT_TRUE(cache.get_or_compile(e, returning(pattern_bytes(9, kPayload), &calls)).is_ok());
  EXPECT_FALSE(std::filesystem::exists(entry_path(dir.path(), c)));
  EXPECT_EQ(list_files(dir.path()).size(), 3u);
  EXPECT_EQ(cache.stats().evictions, 2u);
  // Evicted from disk, still in this instance's memory.
  set_mtime(entry_path(dir.path(), a), past + 4);
  ASSERT_TRUE(cache.get_or_compile(make_key("f"), returning(pattern_bytes(9, kPayload), &calls)).is_ok());
  EXPECT_FALSE(std::filesystem::exists(entry_path(dir.path(), a)));
  ASSERT_TRUE(cache.get_or_compile(a, never_called()).is_ok());
  EXPECT_EQ(cache.stats().evictions, 3u);
}

TEST(EvictionTest, KeepsTheEntryJustWritten) {
  TempDir dir;
  KernelCache cache(options_for(dir.path(), CacheMode::kOn, kEntryBytes + kEntryBytes / 2));
  int calls = 0;
  ASSERT_TRUE(cache.get_or_compile(make_key("old"), returning(pattern_bytes(1, kPayload), &calls)).is_ok());
  set_mtime(entry_path(dir.path(), make_key("old")), std::time(nullptr) - 100);
  ASSERT_TRUE(cache.get_or_compile(make_key("new"), returning(pattern_bytes(2, kPayload), &calls)).is_ok());
  EXPECT_EQ(list_files(dir.path()),
            std::vector<std::string>{KernelCache::key_hash(make_key("new")) + ".bin"});
  EXPECT_EQ(cache.stats().evictions, 1u);
}

TEST(EvictionTest, AnEntryLargerThanTheCapStaysInMemoryOnly) {
  TempDir dir;
  KernelCache cache(options_for(dir.path(), CacheMode::kOn, 2 * kEntryBytes));
  int calls = 0;
  ASSERT_TRUE(cache.get_or_compile(make_key("small"), returning(pattern_bytes(1, kPayload), &calls)).is_ok());
  StatusOr<std::vector<uint8_t>> big =
      cache.get_or_compile(make_key("big"), returning(pattern_bytes(2, 3 * kPayload), &calls));
  ASSERT_TRUE(big.is_ok());
  EXPECT_EQ(*big, pattern_bytes(2, 3 * kPayload));
  EXPECT_EQ(list_files(dir.path()),
            std::vector<std::string>{KernelCache::key_hash(make_key("small")) + ".bin"});
  EXPECT_EQ(cache.stats().evictions, 0u);
  ASSERT_TRUE(cache.get_or_compile(make_key("big"), never_called()).is_ok());
}

TEST(EvictionTest, RemovesAbandonedTemporaryFilesOnly) {
  TempDir dir;
  const std::string abandoned = dir.path() + "/.0123.99-1-deadbeef.tmp";
  const std::string in_flight = dir.path() + "/.4567.98-1-deadbeef.tmp";
  const std::string foreign = dir.path() + "/notes.txt";
  for (const std::string* path : {&abandoned, &in_flight, &foreign}) write_bytes(*path, {1});
  set_mtime(abandoned, std::time(nullptr) - 7200);
  set_mtime(foreign, std::time(nullptr) - 7200);
  KernelCache cache(options_for(dir.path(), CacheMode::kOn, 1 << 20));
  int calls = 0;
  ASSERT_TRUE(cache.get_or_compile(make_key("x"), returning(pattern_bytes(1, 10), &calls)).is_ok());
  EXPECT_FALSE(std::filesystem::exists(abandoned));
  EXPECT_TRUE(std::filesystem::exists(in_flight));
  EXPECT_TRUE(std::filesystem::exists(foreign));
}

}  // namespace
}  // namespace spectral::testing
