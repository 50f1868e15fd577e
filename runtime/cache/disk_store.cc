// disk_store.cc - see disk_store.h for the entry format and the rules.
#include "runtime/cache/disk_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <memory>
#include <random>
#include <string_view>
#include <utility>

// xxHash (Debian's libxxhash-dev) compiled into this file: no library to load.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace spectral::cache_detail {

std::array<uint8_t, 16> payload_checksum(const void* data, size_t size) {
  XXH128_canonical_t canonical;
  XXH128_canonicalFromHash(&canonical, XXH3_128bits(data, size));
  std::array<uint8_t, 16> checksum;
  std::memcpy(checksum.data(), canonical.digest, checksum.size());
  return checksum;
}

namespace {

constexpr char kMagic[8] = {'S', 'P', 'X', 'K', 'C', 'A', 'C', 'H'};
constexpr std::string_view kEntrySuffix = ".bin";
constexpr std::string_view kTempSuffix = ".tmp";
constexpr time_t kAbandonedTempSeconds = 3600;

std::string errno_text() { return std::strerror(errno); }

void put_le(uint8_t* out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out[i] = uint8_t(value >> (8 * i));
}
uint64_t get_le(const uint8_t* in, int bytes) {
  uint64_t value = 0;
  for (int i = bytes - 1; i >= 0; --i) value = value << 8 | in[i];
  return value;
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { close(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  /// Closes now; false (errno set) if close reported an error.
  bool close() {
    int fd = std::exchange(fd_, -1);
    return fd < 0 || ::close(fd) == 0;
  }

 private:
  int fd_;
};

/// Reads exactly `size` bytes at `offset`; false on an error or end of file.
bool read_at(int fd, void* data, size_t size, off_t offset) {
  auto* p = static_cast<uint8_t*>(data);
  while (size > 0) {
    ssize_t n = ::pread(fd, p, size, offset);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n, size -= size_t(n), offset += n;
  }
  return true;
}

bool write_all(int fd, const void* data, size_t size) {
  auto* p = static_cast<const uint8_t*>(data);
  while (size > 0) {
    ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    p += n, size -= size_t(n);
  }
  return true;
}

/// A name no other writer uses: pid, a per-process counter and a random
/// number (pids repeat across machines sharing a network directory).
std::string temp_name(const std::string& stem) {
  static std::atomic<uint64_t> counter{0};
  static const uint32_t random = std::random_device{}();
  char unique[64];
  std::snprintf(unique, sizeof(unique), ".%ld-%llu-%08x", long(::getpid()),
                static_cast<unsigned long long>(counter.fetch_add(1)), random);
  return "." + stem + unique + std::string(kTempSuffix);
}

/// Creates a fresh temporary file in `directory`; sets `path` to its name.
int create_temp(const std::string& directory, const std::string& stem, std::string* path) {
  for (int attempt = 0;; ++attempt) {
    *path = directory + "/" + temp_name(stem);
    int fd = ::open(path->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd >= 0 || errno != EEXIST || attempt == 8) return fd;
  }
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

bool is_entry_name(std::string_view name) {
  if (name.size() != 64 + kEntrySuffix.size() || !ends_with(name, kEntrySuffix)) return false;
  return std::all_of(name.begin(), name.begin() + 64,
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

/// "a directory", "a FIFO", ...: what a file that should be a regular one is.
std::string file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  return "not a regular file";
}

}  // namespace

DiskStore::DiskStore(std::string directory, uint64_t max_entry_bytes, uid_t owner)
    : directory_(std::move(directory)), max_entry_bytes_(max_entry_bytes), owner_(owner) {
  while (directory_.size() > 1 && directory_.back() == '/') directory_.pop_back();
}

std::string DiskStore::entry_path(const std::string& hash_hex) const {
  return directory_ + "/" + hash_hex + std::string(kEntrySuffix);
}

Status DiskStore::prepare(bool* writable, std::string* why_not) const {
  for (size_t slash = 1; slash <= directory_.size(); ++slash) {
    if (slash < directory_.size() && directory_[slash] != '/') continue;
    // Missing parents as mkdir -p makes them; the cache directory itself 0700.
    std::string prefix = directory_.substr(0, slash);
    if (::mkdir(prefix.c_str(), slash < directory_.size() ? 0755 : 0700) != 0 && errno != EEXIST)
      return Status::error("cannot create directory " + prefix + ": " + errno_text());
  }
  if (Status trusted = check_trusted(); !trusted) return trusted;
  std::string probe;
  int fd = create_temp(directory_, "probe", &probe);
  *writable = fd >= 0;
  if (fd < 0) {
    *why_not = "cannot write in " + directory_ + ": " + errno_text();
    return Status::ok();
  }
  ::close(fd);
  ::unlink(probe.c_str());
  return Status::ok();
}

Status DiskStore::check_trusted() const {
  struct stat info;
  if (::stat(directory_.c_str(), &info) != 0)
    return Status::error("cannot use directory " + directory_ + ": " + errno_text());
  if (!S_ISDIR(info.st_mode)) return Status::error(directory_ + " is not a directory");
  const std::string refusing = "refusing the kernel cache directory " + directory_ + ": ";
  if (info.st_uid != owner_)
    return Status::error(refusing + "it belongs to uid " + std::to_string(info.st_uid) +
                         ", not to this user (uid " + std::to_string(owner_) +
                         "), who could be made to run kernels planted there; use a directory "
                         "of your own (SPECTRAL_CACHE_DIR)");
  if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", unsigned(info.st_mode & 07777));
    return Status::error(refusing + "it is writable by its group or by others (mode " + mode +
                         "), who could plant kernels there; chmod go-w " + directory_);
  }
  return Status::ok();
}

EntryRead DiskStore::read(const std::string& hash_hex, const Sha256::Digest& key_digest) const {
  EntryRead result;
  auto fail = [&](EntryRead::Outcome outcome, std::string problem) {
    result.outcome = outcome;
    result.problem = std::move(problem);
    result.payload.clear();
    return std::move(result);
  };
  // Never follows a link, never waits (a FIFO opens at once), and trusts
  // only a regular file of this user's no larger than the cap.
  Fd fd(::open(entry_path(hash_hex).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  if (fd.get() < 0) {
    if (errno == ENOENT) return fail(EntryRead::Outcome::kMissing, "");
    if (errno == ELOOP) return fail(EntryRead::Outcome::kCorrupt, "a symbolic link");
    return fail(EntryRead::Outcome::kUnreadable, errno_text());
  }
  struct stat info;
  if (::fstat(fd.get(), &info) != 0) return fail(EntryRead::Outcome::kUnreadable, errno_text());
  if (!S_ISREG(info.st_mode)) return fail(EntryRead::Outcome::kCorrupt, file_kind(info.st_mode));
  if (info.st_uid != owner_)
    return fail(EntryRead::Outcome::kCorrupt,
                "it belongs to uid " + std::to_string(info.st_uid) + ", not to this user");
  if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    return fail(EntryRead::Outcome::kCorrupt, "its group or others may write it");
  const auto file_size = uint64_t(info.st_size);
  if (file_size > max_entry_bytes_)
    return fail(EntryRead::Outcome::kCorrupt, std::to_string(file_size) +
                                                  " bytes, more than the cache's cap of " +
                                                  std::to_string(max_entry_bytes_));
  if (file_size < kEntryHeaderSize)
    return fail(EntryRead::Outcome::kCorrupt, "truncated: " + std::to_string(file_size) +
                                                  " bytes, shorter than the header");
  uint8_t header[kEntryHeaderSize];
  if (!read_at(fd.get(), header, sizeof(header), 0))
    return fail(EntryRead::Outcome::kUnreadable, "cannot read the header");
  if (std::memcmp(header, kMagic, sizeof(kMagic)) != 0)
    return fail(EntryRead::Outcome::kCorrupt, "bad magic: not a kernel cache entry");
  if (get_le(header + 8, 4) != kEntryFormatVersion || get_le(header + 12, 4) != kEntryHeaderSize)
    return fail(EntryRead::Outcome::kCorrupt,
                "format version " + std::to_string(get_le(header + 8, 4)) + ", expected " +
                    std::to_string(kEntryFormatVersion));
  const uint64_t payload_size = get_le(header + 16, 8);
  if (payload_size != file_size - kEntryHeaderSize)
    return fail(EntryRead::Outcome::kCorrupt,
                "size mismatch: header says " + std::to_string(payload_size) +
                    " payload bytes, file holds " + std::to_string(file_size - kEntryHeaderSize));
  if (std::memcmp(header + 24, key_digest.data(), key_digest.size()) != 0)
    return fail(EntryRead::Outcome::kCorrupt, "entry belongs to another key");
  result.payload.resize(payload_size);
  if (!read_at(fd.get(), result.payload.data(), payload_size, kEntryHeaderSize))
    return fail(EntryRead::Outcome::kCorrupt, "truncated while reading");
  const std::array<uint8_t, 16> checksum = payload_checksum(result.payload.data(), payload_size);
  if (std::memcmp(header + 56, checksum.data(), checksum.size()) != 0)
    return fail(EntryRead::Outcome::kCorrupt, "payload checksum mismatch");
  ::futimens(fd.get(), nullptr);  // recency for eviction; best effort
  result.outcome = EntryRead::Outcome::kHit;
  return result;
}

Status DiskStore::write(const std::string& hash_hex, const Sha256::Digest& key_digest,
                        const std::vector<uint8_t>& payload) const {
  uint8_t header[kEntryHeaderSize] = {};
  std::memcpy(header, kMagic, sizeof(kMagic));
  put_le(header + 8, kEntryFormatVersion, 4);
  put_le(header + 12, kEntryHeaderSize, 4);
  put_le(header + 16, payload.size(), 8);
  std::memcpy(header + 24, key_digest.data(), key_digest.size());
  const std::array<uint8_t, 16> checksum = payload_checksum(payload.data(), payload.size());
  std::memcpy(header + 56, checksum.data(), checksum.size());

  const std::string path = entry_path(hash_hex);
  std::string temp;
  Fd fd(create_temp(directory_, hash_hex, &temp));
  if (fd.get() < 0) return Status::error("cannot write " + path + ": " + errno_text());
  bool written = write_all(fd.get(), header, sizeof(header)) &&
                 write_all(fd.get(), payload.data(), payload.size()) && fd.close();
  if (written && ::rename(temp.c_str(), path.c_str()) != 0) {
    // A directory in the entry's place (rename replaces any other file):
    // removed when empty, and the entry written again.
    written = (errno == EISDIR || errno == ENOTEMPTY || errno == EEXIST) &&
              ::rmdir(path.c_str()) == 0 && ::rename(temp.c_str(), path.c_str()) == 0;
  }
  if (written) return Status::ok();
  std::string why = errno_text();
  ::unlink(temp.c_str());
  return Status::error("cannot write " + path + ": " + why);
}

uint64_t DiskStore::evict(uint64_t max_bytes, const std::string& keep_hash_hex) const {
  std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(directory_.c_str()), &::closedir);
  if (!dir) return 0;
  const int dir_fd = ::dirfd(dir.get());
  struct Entry {
    std::string name;
    uint64_t size;
    timespec mtime;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  const time_t now = std::time(nullptr);
  while (const dirent* item = ::readdir(dir.get())) {
    std::string_view name = item->d_name;
    const bool entry = is_entry_name(name);
    const bool temp = !entry && name.size() > 1 && name[0] == '.' && ends_with(name, kTempSuffix);
    if (!entry && !temp) continue;
    struct stat info;
    if (::fstatat(dir_fd, item->d_name, &info, AT_SYMLINK_NOFOLLOW) != 0) continue;  // vanished
    if (!S_ISREG(info.st_mode)) continue;
    if (temp) {
      if (now - info.st_mtime > kAbandonedTempSeconds) ::unlinkat(dir_fd, item->d_name, 0);
      continue;
    }
    entries.push_back({std::string(name), uint64_t(info.st_size), info.st_mtim});
    total += uint64_t(info.st_size);
  }
  if (total <= max_bytes) return 0;

  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    if (a.mtime.tv_sec != b.mtime.tv_sec) return a.mtime.tv_sec < b.mtime.tv_sec;
    if (a.mtime.tv_nsec != b.mtime.tv_nsec) return a.mtime.tv_nsec < b.mtime.tv_nsec;
    return a.name < b.name;
  });
  const std::string keep = keep_hash_hex + std::string(kEntrySuffix);
  uint64_t removed = 0;
  for (const Entry& entry : entries) {
    if (total <= max_bytes) break;
    if (entry.name == keep) continue;
    if (::unlinkat(dir_fd, entry.name.c_str(), 0) == 0) {
      ++removed;
      total -= entry.size;
    } else if (errno == ENOENT) {
      total -= entry.size;  // another process evicted it first
    }
  }
  return removed;
}

}  // namespace spectral::cache_detail
