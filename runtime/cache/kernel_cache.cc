// kernel_cache.cc - a map in memory in front of a DiskStore (disk_store.h).
//
// The memory map is keyed by the key's fields themselves, so a memory hit
// costs a fast hash and a comparison instead of a SHA-256 over the source;
// the SHA-256 is computed on a memory miss, to name the disk entry.
#include "runtime/cache/kernel_cache.h"

#include "runtime/cache/disk_store.h"
#include "runtime/cache/sha256.h"

#include <pwd.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#ifndef SPECTRAL_VERSION
#error "SPECTRAL_VERSION must come from the build (runtime/cache/CMakeLists.txt)"
#endif

namespace spectral {
namespace {

using cache_detail::DiskStore;
using cache_detail::EntryRead;

struct KeyFieldsHash {
  size_t operator()(const CacheKey& key) const {
    std::hash<std::string_view> hash;
    size_t seed = hash(key.source);
    for (const std::string* field : {&key.options, &key.target, &key.compiler_version})
      seed ^= hash(*field) + 0x9e3779b97f4a7c15ull + (seed << 6) + (seed >> 2);
    return seed;
  }
};

struct KeyFieldsEqual {
  bool operator()(const CacheKey& a, const CacheKey& b) const {
    return a.source == b.source && a.options == b.options && a.target == b.target &&
           a.compiler_version == b.compiler_version;
  }
};

/// Each field is preceded by its length (8 bytes, little-endian), so no two
/// different keys produce the same byte stream.
Sha256::Digest key_digest(const CacheKey& key) {
  Sha256 sha;
  auto field = [&sha](std::string_view text) {
    uint8_t length[8];
    for (int i = 0; i < 8; ++i) length[i] = uint8_t(uint64_t(text.size()) >> (8 * i));
    sha.update(length, sizeof(length)).update(text);
  };
  field("spectral kernel cache key v1");
  field(key.source);
  field(key.options);
  field(key.target);
  field(key.compiler_version);
  field(SPECTRAL_VERSION);
  return sha.finish();
}

void warn(const std::string& message) {
  std::fprintf(stderr, "spectral: kernel cache: %s\n", message.c_str());
}

std::optional<std::string> environment(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

std::string lower(std::string text) {
  for (char& c : text) c = char(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

/// "123", "64K", "512M", "1G" (powers of 1024, either case).
std::optional<uint64_t> parse_byte_count(const std::string& text) {
  uint64_t value = 0;
  size_t i = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    const auto digit = uint64_t(text[i] - '0');
    if (value > (UINT64_MAX - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  if (i == 0) return std::nullopt;
  if (i == text.size()) return value;
  if (i + 1 != text.size()) return std::nullopt;
  int shift = 0;
  switch (text[i]) {
    case 'k': case 'K': shift = 10; break;
    case 'm': case 'M': shift = 20; break;
    case 'g': case 'G': shift = 30; break;
    default: return std::nullopt;
  }
  if (value > (UINT64_MAX >> shift)) return std::nullopt;
  return value << shift;
}

std::optional<std::string> home_directory() {
  if (auto home = environment("HOME")) return home;
  struct passwd entry, *found = nullptr;
  char buffer[4096];
  if (::getpwuid_r(::getuid(), &entry, buffer, sizeof(buffer), &found) == 0 && found != nullptr &&
      found->pw_dir != nullptr && found->pw_dir[0] != '\0')
    return std::string(found->pw_dir);
  return std::nullopt;
}

}  // namespace

struct KernelCache::State {
  Options options;
  std::optional<DiskStore> disk;  // absent: memory only
  bool read_only = false;  // a trusted directory this user cannot write: entries read, none written
  std::unordered_set<std::string> skipped;  // read only: discarded entries, not read again
  std::atomic<bool> write_warned{false};

  mutable std::mutex mutex;  // guards what follows; never held while compiling or on disk I/O
  std::unordered_map<CacheKey, Binary, KeyFieldsHash, KeyFieldsEqual> memory;
  CacheStats stats;

  /// Runs the compile callback and counts it.
  StatusOr<std::vector<uint8_t>> compile_counted(const Compile& compile) {
    auto start = std::chrono::steady_clock::now();
    StatusOr<std::vector<uint8_t>> compiled = compile();
    if (!compiled && compiled.status().is_ok())
      compiled = Status::error("kernel compile callback returned neither a binary nor an error");
    std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - start;
    std::lock_guard<std::mutex> lock(mutex);
    ++stats.misses;
    stats.compile_seconds += seconds.count();
    return compiled;
  }

  /// Keeps `binary` in memory unless another thread was first; returns the kept one.
  Binary remember(const CacheKey& key, Binary binary, uint64_t CacheStats::*counter) {
    std::lock_guard<std::mutex> lock(mutex);
    if (counter != nullptr) ++(stats.*counter);
    return memory.try_emplace(key, std::move(binary)).first->second;
  }

  /// Writes the entry, then evicts down to the cap. Failures are warnings.
  void store(const std::string& hash, const Sha256::Digest& digest,
             const std::vector<uint8_t>& payload) {
    if (read_only || cache_detail::kEntryHeaderSize + payload.size() > options.max_disk_bytes)
      return;  // kept in memory only
    Status written = disk->write(hash, digest, payload);
    if (!written) {
      if (!write_warned.exchange(true))
        warn(written.message() + "; kernels stay in memory only (further write errors unreported)");
      return;
    }
    uint64_t evicted = disk->evict(options.max_disk_bytes, hash);
    if (evicted == 0) return;
    std::lock_guard<std::mutex> lock(mutex);
    stats.evictions += evicted;
  }
};

KernelCache::KernelCache(Options options) : state_(std::make_unique<State>()) {
  state_->options = std::move(options);
  const Options& o = state_->options;
  if (o.mode == CacheMode::kOff || o.directory.empty()) return;
  DiskStore disk(o.directory, o.max_disk_bytes);
  // Require mode only reads the directory, but only a trusted one. A
  // read-only one (an image shipped with its kernels) still serves its entries.
  bool writable = true;
  std::string why_not;
  Status ready = o.mode == CacheMode::kOn ? disk.prepare(&writable, &why_not)
                                          : disk.check_trusted();
  if (ready && !writable) {
    warn(why_not + "; its entries are read, new kernels stay in memory only");
    state_->read_only = true;
  }
  if (!ready) {
    warn(ready.message() + (o.mode == CacheMode::kOn ? "; caching in memory only"
                                                     : "; no kernel is read from it"));
    return;
  }
  state_->disk.emplace(std::move(disk));
}

KernelCache::~KernelCache() = default;

StatusOr<KernelCache::Binary> KernelCache::get_or_compile_shared(const CacheKey& key,
                                                                 const Compile& compile,
                                                                 bool* compiled) {
  State& s = *state_;
  if (compiled != nullptr) *compiled = false;
  if (s.options.mode != CacheMode::kOff) {
    std::lock_guard<std::mutex> lock(s.mutex);
    auto found = s.memory.find(key);
    if (found != s.memory.end()) {
      ++s.stats.memory_hits;
      return found->second;
    }
  }
  if (s.options.mode == CacheMode::kOff) {
    if (compiled != nullptr) *compiled = true;
    StatusOr<std::vector<uint8_t>> fresh = s.compile_counted(compile);
    if (!fresh) return fresh.status();
    return Binary(std::make_shared<const std::vector<uint8_t>>(std::move(*fresh)));
  }

  const Sha256::Digest digest = key_digest(key);
  const std::string hash = Sha256::to_hex(digest);
  const std::string path =
      s.disk ? s.disk->entry_path(hash) : std::string("no cache directory");
  std::string problem;
  bool skip = false;
  if (s.disk && s.read_only) {
    std::lock_guard<std::mutex> lock(s.mutex);
    skip = s.skipped.count(hash) != 0;
  }
  if (s.disk && !skip) {
    EntryRead read = s.disk->read(hash, digest);
    switch (read.outcome) {
      case EntryRead::Outcome::kHit:
        return s.remember(key, std::make_shared<const std::vector<uint8_t>>(std::move(read.payload)),
                          &CacheStats::disk_hits);
      case EntryRead::Outcome::kMissing:
        break;
      case EntryRead::Outcome::kCorrupt:
        problem = "corrupt entry " + path + " (" + read.problem + ")";
        {
          std::lock_guard<std::mutex> lock(s.mutex);
          ++s.stats.corrupt_entries;
        }
        break;
      case EntryRead::Outcome::kUnreadable:
        problem = "cannot read entry " + path + " (" + read.problem + ")";
        break;
    }
  }
  if (s.options.mode == CacheMode::kRequire) {
    std::string message = "kernel cache miss in require mode: key " + hash + " (" + path + ")";
    return Status::error(problem.empty() ? message : message + "; " + problem);
  }
  if (!problem.empty())
    warn(problem + (s.read_only ? "; recompiling it (not replaced: the directory is read-only)"
                                : "; recompiling and replacing it"));

  if (compiled != nullptr) *compiled = true;
  StatusOr<std::vector<uint8_t>> fresh = s.compile_counted(compile);
  if (!fresh) return fresh.status();
  auto binary = std::make_shared<const std::vector<uint8_t>>(std::move(*fresh));
  if (s.disk) s.store(hash, digest, *binary);
  return s.remember(key, std::move(binary), nullptr);
}

StatusOr<std::vector<uint8_t>> KernelCache::get_or_compile(const CacheKey& key,
                                                           const Compile& compile) {
  if (state_->options.mode == CacheMode::kOff) return state_->compile_counted(compile);
  StatusOr<Binary> binary = get_or_compile_shared(key, compile);
  if (!binary) return binary.status();
  return std::vector<uint8_t>(**binary);
}

void KernelCache::discard(const CacheKey& key) {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->memory.erase(key);
  }
  if (!state_->disk || state_->options.mode != CacheMode::kOn) return;
  if (state_->read_only) {  // cannot be removed: never read again by this cache
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->skipped.insert(key_hash(key));
    return;
  }
  ::unlink(state_->disk->entry_path(key_hash(key)).c_str());
}

CacheStats KernelCache::stats() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->stats;
}

const KernelCache::Options& KernelCache::options() const { return state_->options; }

std::string KernelCache::key_hash(const CacheKey& key) { return Sha256::to_hex(key_digest(key)); }

StatusOr<KernelCache::Options> KernelCache::options_from_environment() {
  Options options;
  if (auto mode = environment("SPECTRAL_CACHE")) {
    std::string value = lower(*mode);
    if (value == "on") options.mode = CacheMode::kOn;
    else if (value == "off") options.mode = CacheMode::kOff;
    else if (value == "require") options.mode = CacheMode::kRequire;
    else return Status::error("SPECTRAL_CACHE=\"" + *mode + "\" is invalid: use on, off or require");
  }
  if (auto bytes = environment("SPECTRAL_CACHE_MAX_BYTES")) {
    std::optional<uint64_t> cap = parse_byte_count(*bytes);
    if (!cap)
      return Status::error("SPECTRAL_CACHE_MAX_BYTES=\"" + *bytes +
                           "\" is invalid: use a byte count with an optional K, M or G suffix, "
                           "e.g. 512M");
    options.max_disk_bytes = *cap;
  }
  // The XDG spec says a relative $XDG_CACHE_HOME is invalid and to be ignored.
  std::optional<std::string> xdg = environment("XDG_CACHE_HOME");
  if (auto directory = environment("SPECTRAL_CACHE_DIR")) options.directory = *directory;
  else if (xdg && (*xdg)[0] == '/') options.directory = *xdg + "/spectral";
  else if (auto home = home_directory()) options.directory = *home + "/.cache/spectral";
  return options;
}

KernelCache& KernelCache::global() {
  // Never destroyed: kernels may be requested from other static destructors.
  static KernelCache* cache = [] {
    StatusOr<Options> options = options_from_environment();
    if (options) {
      if (options->directory.empty())
        warn("no home directory and no SPECTRAL_CACHE_DIR; caching in memory only");
      return new KernelCache(std::move(*options));
    }
    warn(options.status().message() + "; caching is off");
    Options off;
    off.mode = CacheMode::kOff;
    return new KernelCache(std::move(off));
  }();
  return *cache;
}

}  // namespace spectral
