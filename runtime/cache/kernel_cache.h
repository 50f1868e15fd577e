// kernel_cache.h - compiled kernels, in memory and on disk, content addressed.
//
// The key is a SHA-256 over everything that decides the binary: source,
// options, target arch, the compiler's version and Spectral's own version.
// Disk entries are written atomically (temp file + rename) and carry a
// checksum verified on every read: a corrupt or truncated entry is recompiled
// and replaced with a warning, never returned. Several processes may share
// one directory. A size cap evicts the least recently used entries.
//
// Environment (read by options_from_environment):
//   SPECTRAL_CACHE_DIR        directory; else $XDG_CACHE_HOME/spectral, else ~/.cache/spectral
//   SPECTRAL_CACHE            on (default) | off (no caching at all) | require (a miss is an error)
//   SPECTRAL_CACHE_MAX_BYTES  disk cap, bytes with optional K/M/G suffix (default 1G)
// An empty variable counts as unset. The entry format and the rules for
// sharing a directory are described in disk_store.h.
#pragma once

#include "runtime/status.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace spectral {

/// Everything that decides the binary. Whatever the source pulls in (e.g. the
/// embedded kernel templates) must be part of it, or of `options`, so that a
/// change there changes the key.
struct CacheKey {
  std::string source;            // the full instantiation unit
  std::string options;           // compiler options, joined
  std::string target;            // "sm_80", "host-x86_64", ...
  std::string compiler_version;  // "nvrtc 13.0", "g++ 12.2.0", ...
};

enum class CacheMode { kOn, kOff, kRequire };

struct CacheStats {
  uint64_t memory_hits = 0;
  uint64_t disk_hits = 0;
  uint64_t misses = 0;           // compiles done (also in off mode; also failed ones)
  uint64_t corrupt_entries = 0;  // disk entries found bad (recompiled and replaced unless require)
  uint64_t evictions = 0;        // disk entries this instance removed to honour the cap
  double compile_seconds = 0;    // total time spent in compile callbacks
};

class KernelCache {
 public:
  struct Options {
    std::string directory;  // empty: memory only
    CacheMode mode = CacheMode::kOn;
    uint64_t max_disk_bytes = uint64_t(1) << 30;
  };
  /// Options from the environment variables above; an invalid value is an error.
  static StatusOr<Options> options_from_environment();
  /// The process-wide cache, configured from the environment on first use
  /// (an invalid environment is reported once on stderr and caching is off).
  static KernelCache& global();

  /// In on mode, creates the directory; if it cannot be created (or is not
  /// trusted), says so once on stderr and caches in memory only; if it
  /// cannot be written, says so once and only reads its entries (new kernels
  /// stay in memory). Require mode only reads it.
  explicit KernelCache(Options options);
  ~KernelCache();

  using Compile = std::function<StatusOr<std::vector<uint8_t>>()>;
  /// The binary for `key`: from memory, else from disk, else from `compile`
  /// (then stored). In require mode a miss is an error naming the key.
  /// A failed compile's Status is returned and nothing is stored. Thread-safe;
  /// no lock is held while compiling, so two threads may compile one key.
  StatusOr<std::vector<uint8_t>> get_or_compile(const CacheKey& key, const Compile& compile);

  /// The stored bytes, shared instead of copied (a memory hit then costs a
  /// hash of the key and a reference count).
  using Binary = std::shared_ptr<const std::vector<uint8_t>>;
  /// As get_or_compile, without the copy.
  /// `compiled`, when given, says whether this call ran `compile`.
  StatusOr<Binary> get_or_compile_shared(const CacheKey& key, const Compile& compile,
                                         bool* compiled = nullptr);

  /// Forgets `key`'s binary, in memory and on disk: for a caller that found
  /// a stored binary unusable (a host kernel that does not load), so that
  /// the next get_or_compile compiles and stores it again.
  void discard(const CacheKey& key);

  CacheStats stats() const;
  const Options& options() const;
  /// Hex SHA-256 of the key (with Spectral's version); names the disk entry.
  static std::string key_hash(const CacheKey& key);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace spectral
