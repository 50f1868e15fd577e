// disk_store.h - the kernel cache's directory: entry format, atomic writes,
// least-recently-used eviction. Internal to runtime/cache (and its tests).
//
// One file per entry, named <the key's 64 hex digit SHA-256>.bin:
//   offset  size  field (integers little-endian)
//        0     8  magic "SPXKCACH"
//        8     4  format version (2)
//       12     4  header size (72)
//       16     8  payload size in bytes
//       24    32  SHA-256 of the key (catches an entry stored under another name)
//       56    16  XXH3-128 of the payload, canonical (big-endian) form
//       72     -  payload
// The checksum catches damage (a torn write, a flipped bit), not tampering:
// trust comes from the directory's and the entries' owners and modes. An
// entry of format 1 (SHA-256 of the payload) reads as corrupt and is replaced
// (where the directory is writable).
// Directories are created 0700 and entries 0600; a directory that another
// user owns, or that its group or others may write, is refused (a planted
// entry would run as a host kernel). Writers fill a temporary ".<hash>.<pid>-<n>-<random>.tmp" in the same
// directory and rename() it into place, so readers see a whole entry or none.
// Nothing is fsync'ed: after a power loss the checksum catches a torn entry.
// Recency is the file's mtime: a read refreshes it, eviction removes the
// oldest first. Other processes may add, replace or remove entries at any time.
#pragma once

#include "runtime/cache/sha256.h"
#include "runtime/status.h"

#include <sys/types.h>
#include <unistd.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace spectral::cache_detail {

inline constexpr size_t kEntryHeaderSize = 72;
inline constexpr uint32_t kEntryFormatVersion = 2;

/// XXH3-128 of `size` bytes at `data`, canonical (big-endian).
std::array<uint8_t, 16> payload_checksum(const void* data, size_t size);

/// What reading one entry found.
struct EntryRead {
  enum class Outcome { kHit, kMissing, kCorrupt, kUnreadable };
  Outcome outcome = Outcome::kMissing;
  std::vector<uint8_t> payload;  // kHit only
  std::string problem;           // kCorrupt, kUnreadable: what is wrong, for a warning
};

class DiskStore {
 public:
  /// Entries larger than `max_entry_bytes` are not read (treated as corrupt);
  /// the directory and its entries must belong to `owner` (default: the
  /// effective user).
  explicit DiskStore(std::string directory, uint64_t max_entry_bytes = UINT64_MAX,
                     uid_t owner = ::geteuid());

  const std::string& directory() const { return directory_; }
  /// "<directory>/<hash_hex>.bin"
  std::string entry_path(const std::string& hash_hex) const;
  /// Creates the directory (mode 0700) and its parents and checks it is
  /// trusted (an error otherwise); then tries creating and removing a file
  /// in it: `writable` says whether that worked, `why_not` why not.
  Status prepare(bool* writable, std::string* why_not) const;
  /// Whether the directory can be trusted with code (ssh's rule for its
  /// keys): it belongs to this user and neither its group nor others may
  /// write in it. The error says why not and how to fix it.
  Status check_trusted() const;
  /// Reads and verifies the entry: a regular file of this user's that
  /// neither its group nor others may write, not a link, within the cap
  /// (anything else is corrupt: replaced); a hit
  /// refreshes its mtime.
  EntryRead read(const std::string& hash_hex, const Sha256::Digest& key_digest) const;
  /// Writes the entry atomically, replacing any older one; on failure no
  /// temporary file is left behind.
  Status write(const std::string& hash_hex, const Sha256::Digest& key_digest,
               const std::vector<uint8_t>& payload) const;
  /// Removes entries, least recently used first and never `keep_hash_hex`,
  /// until their total size is at most `max_bytes`; also removes temporary
  /// files abandoned more than an hour ago. Returns the entries removed.
  uint64_t evict(uint64_t max_bytes, const std::string& keep_hash_hex) const;

 private:
  std::string directory_;
  uint64_t max_entry_bytes_;
  uid_t owner_;
};

}  // namespace spectral::cache_detail
