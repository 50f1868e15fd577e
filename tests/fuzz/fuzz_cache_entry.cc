// fuzz_cache_entry.cc - libFuzzer target: the kernel cache's entry reader on
// arbitrary bytes in an entry's place must report a hit only for an entry
// whose checksum holds, and otherwise say what is wrong; never crash.
#include "runtime/cache/disk_store.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

using spectral::cache_detail::DiskStore;
using spectral::cache_detail::EntryRead;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // In $TMPDIR (libFuzzer ends with _Exit: scripts/dev fuzz removes it).
  static std::string directory = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/spectral-fuzz-cache-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) std::abort();
    return pattern;
  }();
  static const DiskStore store(directory, 1 << 20);
  // The key digest: the entry's own (header bytes 24-55) when there are
  // enough, so that the fuzzer's entries can get past it to the checksum.
  spectral::Sha256::Digest key{};
  if (size >= 56) std::memcpy(key.data(), data + 24, 32);
  const std::string hash(64, 'a');
  const std::string path = store.entry_path(hash);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0 || ::write(fd, data, size) != ssize_t(size) || ::close(fd) != 0) std::abort();
  EntryRead read = store.read(hash, key);
  switch (read.outcome) {
    case EntryRead::Outcome::kHit:
      if (size < spectral::cache_detail::kEntryHeaderSize ||
          read.payload.size() != size - spectral::cache_detail::kEntryHeaderSize ||
          (!read.payload.empty() &&
           std::memcmp(read.payload.data(), data + spectral::cache_detail::kEntryHeaderSize,
                       read.payload.size()) != 0))
        std::abort();  // a hit that is not the file's payload
      break;
    case EntryRead::Outcome::kMissing: std::abort();  // the file is there
    default:
      if (read.problem.empty()) std::abort();
  }
  return 0;
}
