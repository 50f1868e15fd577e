// kernel_cache_trust_test.cc - the cache runs only code this user put there:
// a directory another user owns or others may write is refused, entries that
// are links, FIFOs, directories, foreign or oversized files are never read
// (replaced instead), and what the cache creates only its user can touch.
#include "runtime/cache/kernel_cache.h"

#include "runtime/cache/disk_store.h"

#include "tests/unit/runtime/cache/cache_test_util.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

namespace spectral::testing {
namespace {

using ::testing::internal::CaptureStderr;
using ::testing::internal::GetCapturedStderr;

constexpr uid_t kOtherUser = 12345;

/// Writes `payload` as the entry of `key` in `directory` through a cache of its own.
void plant(const std::string& directory, const CacheKey& key, const std::vector<uint8_t>& payload) {
  int calls = 0;
  KernelCache writer(options_for(directory));
  ASSERT_TRUE(writer.get_or_compile(key, returning(payload, &calls)).is_ok());
  ASSERT_EQ(calls, 1);
}

mode_t mode_of(const std::string& path) {
  struct stat info;
  EXPECT_EQ(::lstat(path.c_str(), &info), 0) << path;
  return info.st_mode;
}

/// Asks a fresh cache on `directory` for `key`: the compile must run once and
/// its bytes come back (whatever lies in the entry's place). Returns what the
/// cache said on stderr.
std::string compiled_afresh(const std::string& directory, const CacheKey& key,
                            uint64_t cap = uint64_t(1) << 30) {
  CaptureStderr();
  KernelCache cache(options_for(directory, CacheMode::kOn, cap));
  int calls = 0;
  StatusOr<std::vector<uint8_t>> result =
      cache.get_or_compile(key, returning(pattern_bytes(1, 512), &calls));
  const std::string warning = GetCapturedStderr();
  EXPECT_TRUE(result.is_ok()) << result.status().message();
  if (result.is_ok()) EXPECT_EQ(*result, pattern_bytes(1, 512));
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(cache.stats().disk_hits, 0u);
  return warning;
}

TEST(KernelCacheTrustTest, CreatesItsDirectoriesAndEntriesForItsUserOnly) {
  TempDir dir;
  const std::string nested = dir.path() + "/a/b";
  int calls = 0;
  KernelCache cache(options_for(nested));
  ASSERT_TRUE(cache.get_or_compile(make_key("k"), returning(pattern_bytes(1, 64), &calls)).is_ok());
  EXPECT_EQ(mode_of(dir.path() + "/a") & 022, 0u);  // a parent as mkdir -p makes it
  EXPECT_EQ(mode_of(nested) & 077, 0u);
  EXPECT_EQ(mode_of(entry_path(nested, make_key("k"))) & 0777, 0600u);
}

TEST(KernelCacheTrustTest, ADirectoryOthersMayWriteIsRefusedAndItsEntriesNeverRead) {
  TempDir dir;
  const CacheKey key = make_key("planted");
  plant(dir.path(), key, pattern_bytes(7, 256));  // what another user could have put there
  ASSERT_EQ(::chmod(dir.path().c_str(), 01777), 0);  // shared, as /tmp

  for (CacheMode mode : {CacheMode::kOn, CacheMode::kRequire}) {
    CaptureStderr();
    KernelCache cache(options_for(dir.path(), mode));
    const std::string warning = GetCapturedStderr();
    EXPECT_NE(warning.find("refusing the kernel cache directory " + dir.path() +
                           ": it is writable by its group or by others (mode 1777)"),
              std::string::npos)
        << warning;
    EXPECT_NE(warning.find("chmod go-w " + dir.path()), std::string::npos) << warning;
    int calls = 0;
    StatusOr<std::vector<uint8_t>> result =
        cache.get_or_compile(key, returning(pattern_bytes(1, 256), &calls));
    if (mode == CacheMode::kRequire) {
      EXPECT_FALSE(result.is_ok());  // a miss: the planted entry is not a hit
      continue;
    }
    ASSERT_TRUE(result.is_ok()) << result.status().message();
    EXPECT_EQ(*result, pattern_bytes(1, 256));  // compiled, not the planted bytes
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(cache.stats().disk_hits, 0u);
  }
}

TEST(KernelCacheTrustTest, ADirectoryOfAnotherUserIsRefused) {
  if (::geteuid() != 0)
    GTEST_SKIP() << "needs root to give the directory to another user (chown); "
                    "DiskStoreOwnerTest checks the same refusal without it";
  TempDir dir;
  const CacheKey key = make_key("planted");
  plant(dir.path(), key, pattern_bytes(7, 256));
  ASSERT_EQ(::chown(dir.path().c_str(), kOtherUser, gid_t(-1)), 0);
  const std::string warning = compiled_afresh(dir.path(), key);
  EXPECT_NE(warning.find("it belongs to uid 12345, not to this user"), std::string::npos)
      << warning;
}

TEST(KernelCacheTrustTest, AnEntryOfAnotherUserIsNeverLoadedAndIsReplaced) {
  if (::geteuid() != 0)
    GTEST_SKIP() << "needs root to give the entry to another user (chown); "
                    "DiskStoreOwnerTest checks the same refusal without it";
  TempDir dir;
  const CacheKey key = make_key("planted");
  plant(dir.path(), key, pattern_bytes(7, 256));
  const std::string path = entry_path(dir.path(), key);
  ASSERT_EQ(::chown(path.c_str(), kOtherUser, gid_t(-1)), 0);
  const std::string warning = compiled_afresh(dir.path(), key);
  EXPECT_NE(warning.find("it belongs to uid 12345, not to this user"), std::string::npos)
      << warning;
  struct stat info;
  ASSERT_EQ(::lstat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_uid, ::geteuid());  // replaced by this user's own entry
}

/// The ownership checks without root: this user's own directory and entry,
/// seen by a store that trusts another user only.
TEST(DiskStoreOwnerTest, ADirectoryAndAnEntryOfAnotherUserAreNotTrusted) {
  TempDir dir;
  const CacheKey key = make_key("mine");
  plant(dir.path(), key, pattern_bytes(7, 256));
  const uid_t other = ::geteuid() + 1;
  cache_detail::DiskStore theirs(dir.path(), UINT64_MAX, other);
  Status trusted = theirs.check_trusted();
  ASSERT_FALSE(trusted.is_ok());
  EXPECT_NE(trusted.message().find("it belongs to uid " + std::to_string(::geteuid()) +
                                   ", not to this user (uid " + std::to_string(other) + ")"),
            std::string::npos)
      << trusted.message();
  Sha256::Digest digest;  // the entry's own key digest, from its header
  const std::vector<uint8_t> bytes = read_bytes(entry_path(dir.path(), key));
  ASSERT_GE(bytes.size(), 56u);
  std::copy(bytes.begin() + 24, bytes.begin() + 56, digest.begin());
  cache_detail::EntryRead read = theirs.read(KernelCache::key_hash(key), digest);
  EXPECT_EQ(read.outcome, cache_detail::EntryRead::Outcome::kCorrupt);
  EXPECT_NE(read.problem.find("it belongs to uid " + std::to_string(::geteuid())),
            std::string::npos)
      << read.problem;
  cache_detail::DiskStore mine(dir.path());  // the same files, trusted by their owner
  EXPECT_TRUE(mine.check_trusted().is_ok());
  EXPECT_EQ(mine.read(KernelCache::key_hash(key), digest).outcome,
            cache_detail::EntryRead::Outcome::kHit);
}

TEST(KernelCacheTrustTest, AnEntryOthersMayWriteIsNeverLoadedAndIsReplaced) {
  TempDir dir;
  const CacheKey key = make_key("writable");
  plant(dir.path(), key, pattern_bytes(7, 256));
  const std::string path = entry_path(dir.path(), key);
  ASSERT_EQ(::chmod(path.c_str(), 0666), 0);  // as an older version's 0644 under umask 0
  const std::string warning = compiled_afresh(dir.path(), key);
  EXPECT_NE(warning.find("its group or others may write it"), std::string::npos) << warning;
  EXPECT_EQ(mode_of(path) & 0777, 0600u);
}

TEST(KernelCacheTrustTest, ALinkInAnEntrysPlaceIsNotFollowed) {
  TempDir dir, elsewhere;
  const CacheKey key = make_key("linked");
  plant(elsewhere.path(), key, pattern_bytes(7, 256));  // a valid entry, but not in the cache
  const std::string path = entry_path(dir.path(), key);
  ASSERT_EQ(::symlink(entry_path(elsewhere.path(), key).c_str(), path.c_str()), 0);
  const std::string warning = compiled_afresh(dir.path(), key);
  EXPECT_NE(warning.find("(a symbolic link)"), std::string::npos) << warning;
  EXPECT_TRUE(S_ISREG(mode_of(path)));  // the link itself was replaced
}

TEST(KernelCacheTrustTest, AFifoInAnEntrysPlaceNeitherBlocksNorStays) {
  TempDir dir;
  const CacheKey key = make_key("fifo");
  const std::string path = entry_path(dir.path(), key);
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  const std::vector<int> codes = run_children(1, [&](int) {
    ::alarm(20);  // a child that would hang ends instead
    KernelCache cache(options_for(dir.path()));
    int calls = 0;
    StatusOr<std::vector<uint8_t>> result =
        cache.get_or_compile(key, returning(pattern_bytes(1, 256), &calls));
    return result.is_ok() && *result == pattern_bytes(1, 256) && calls == 1 ? 0 : 1;
  });
  EXPECT_EQ(codes, std::vector<int>{0}) << "128 + 14 (SIGALRM): opening the FIFO blocked";
  EXPECT_TRUE(S_ISREG(mode_of(path)));
}

TEST(KernelCacheTrustTest, AnEmptyDirectoryInAnEntrysPlaceIsRepaired) {
  TempDir dir;
  const CacheKey key = make_key("dir");
  const std::string path = entry_path(dir.path(), key);
  ASSERT_EQ(::mkdir(path.c_str(), 0700), 0);
  int calls = 0;
  {
    CaptureStderr();
    KernelCache cache(options_for(dir.path()));
    ASSERT_TRUE(cache.get_or_compile(key, returning(pattern_bytes(1, 256), &calls)).is_ok());
    const std::string warning = GetCapturedStderr();
    EXPECT_NE(warning.find("(a directory)"), std::string::npos) << warning;
  }
  EXPECT_TRUE(S_ISREG(mode_of(path)));
  KernelCache again(options_for(dir.path()));
  ASSERT_TRUE(again.get_or_compile(key, never_called()).is_ok());  // a hit from now on
}

TEST(KernelCacheTrustTest, AnEntryLargerThanTheCapIsNotRead) {
  TempDir dir;
  const CacheKey key = make_key("large");
  plant(dir.path(), key, pattern_bytes(7, 4096));
  const std::string warning = compiled_afresh(dir.path(), key, 1024);
  EXPECT_NE(warning.find("more than the cache's cap of 1024"), std::string::npos) << warning;
}

}  // namespace
}  // namespace spectral::testing
