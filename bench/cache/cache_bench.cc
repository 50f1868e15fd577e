// cache_bench.cc - prints what the kernel cache costs for a ~200 KB binary:
// memory hit (ns), disk hit (us) and entry write (us), with their parts.
// Each figure is the median of many runs; the disk is read through a warm page
// cache (the common case: the entry was written or read recently).
#include "runtime/cache/disk_store.h"
#include "runtime/cache/kernel_cache.h"
#include "runtime/cache/sha256.h"

#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace {

using spectral::CacheKey;
using spectral::KernelCache;
using spectral::Sha256;
using spectral::StatusOr;
using Clock = std::chrono::steady_clock;

constexpr size_t kBinaryBytes = 200 * 1024;
constexpr int kRuns = 301;

double median(std::vector<double> samples) {
  std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
  return samples[samples.size() / 2];
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Median over `runs` of the time of `batch` calls of `body`, per call, in seconds.
template <typename Body>
double per_call(int runs, int batch, Body body) {
  std::vector<double> samples;
  for (int run = 0; run < runs; ++run) {
    auto start = Clock::now();
    for (int i = 0; i < batch; ++i) body();
    samples.push_back(seconds_since(start) / batch);
  }
  return median(samples);
}

/// An instantiation unit of realistic size (~2 KB): includes, two functors, an entry.
std::string kernel_source(int variant) {
  std::string source =
      "#include \"fft_stockham.cuh\"\n#include \"pointwise.cuh\"\n"
      "namespace spectral_generated {\n";
  for (int f = 0; f < 6; ++f)
    source += "struct Functor" + std::to_string(f) +
              " {\n  __device__ float2 operator()(int batch, int index, float2 value) const {\n"
              "    float2 w = weights[(batch * 4096 + index) % 64];\n"
              "    return make_float2(value.x * w.x - value.y * w.y, value.x * w.y + value.y * w.x);\n"
              "  }\n  const float2* __restrict__ weights;\n};\n";
  source += "}  // namespace spectral_generated\nextern \"C\" __global__ void fused_" +
            std::to_string(variant) +
            "(const float2* in, float2* out, const float2* w) {\n"
            "  spectral::fft_stockham<4096, 8, spectral_generated::Functor0, "
            "spectral_generated::Functor1>(in, out, {w}, {w});\n}\n";
  return source;
}

CacheKey key_for(int variant) {
  return CacheKey{kernel_source(variant), "--std=c++17 -arch=sm_80 --ptxas-options=-v", "sm_80",
                  "nvrtc 13.0"};
}

std::vector<uint8_t> binary_bytes() {
  std::vector<uint8_t> bytes(kBinaryBytes);
  uint32_t state = 12345;
  for (auto& b : bytes) b = uint8_t((state = state * 1664525u + 1013904223u) >> 24);
  return bytes;
}

Sha256::Digest digest_from_hex(const std::string& hex) {
  Sha256::Digest digest{};
  for (size_t i = 0; i < digest.size(); ++i)
    digest[i] = uint8_t(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  return digest;
}

void line(const char* what, double value, const char* unit) {
  std::printf("  %-58s %10.1f %s\n", what, value, unit);
}

}  // namespace

int main() {
  std::string directory =
      (std::filesystem::temp_directory_path() / "spectral-cache-bench-XXXXXX").string();
  if (::mkdtemp(directory.data()) == nullptr) {
    std::perror("spectral-cache-bench: mkdtemp");
    return 1;
  }
  KernelCache::Options options;
  options.directory = directory;
  const std::vector<uint8_t> binary = binary_bytes();
  const CacheKey key = key_for(0);
  auto compile = [&binary]() -> StatusOr<std::vector<uint8_t>> { return binary; };

  std::printf("spectral-cache-bench: %zu-byte binary, %zu-byte key source, directory %s\n",
              binary.size(), key.source.size(), directory.c_str());
  std::printf("  (median of %d runs each; disk reads through a warm page cache)\n", kRuns);

  // Memory hits: one instance, the key already in memory.
  KernelCache warm(options);
  if (!warm.get_or_compile_shared(key, compile).is_ok()) return 1;
  const double shared_hit = per_call(kRuns, 1000, [&] {
    auto hit = warm.get_or_compile_shared(key, compile);
    if (!hit.is_ok()) std::abort();
  });
  const double copied_hit = per_call(kRuns, 20, [&] {
    auto hit = warm.get_or_compile(key, compile);
    if (!hit.is_ok()) std::abort();
  });

  // Disk hits: a fresh instance each run (constructed outside the timing).
  std::vector<double> disk_hits, disk_hits_copied;
  for (int run = 0; run < kRuns; ++run) {
    KernelCache fresh(options);
    auto start = Clock::now();
    auto hit = fresh.get_or_compile_shared(key, compile);
    disk_hits.push_back(seconds_since(start));
    if (!hit.is_ok() || fresh.stats().disk_hits != 1) return 1;
    KernelCache fresh_copy(options);
    start = Clock::now();
    auto copy = fresh_copy.get_or_compile(key, compile);
    disk_hits_copied.push_back(seconds_since(start));
    if (!copy.is_ok()) return 1;
  }
  const spectral::cache_detail::DiskStore store(directory);
  const std::string hash = KernelCache::key_hash(key);
  const Sha256::Digest key_digest = digest_from_hex(hash);
  const double read_only = per_call(kRuns, 1, [&] {
    if (store.read(hash, key_digest).outcome != spectral::cache_detail::EntryRead::Outcome::kHit)
      std::abort();
  });
  const double checksum = per_call(kRuns, 1, [&] {
    (void)spectral::cache_detail::payload_checksum(binary.data(), binary.size());
  });
  const double sha_payload = per_call(kRuns, 1, [&] { (void)Sha256::hash(binary.data(), binary.size()); });
  const double key_hash = per_call(kRuns, 100, [&] { (void)KernelCache::key_hash(key); });

  // Entry writes: the miss path minus the compile callback, new keys each run,
  // the directory growing to kRuns entries (each store scans it for eviction).
  std::vector<double> writes;
  KernelCache writer(options);
  for (int run = 1; run <= kRuns; ++run) {
    const CacheKey fresh_key = key_for(run);
    const double compiled_before = writer.stats().compile_seconds;
    auto start = Clock::now();
    auto result = writer.get_or_compile_shared(fresh_key, compile);
    const double total = seconds_since(start);
    if (!result.is_ok()) return 1;
    writes.push_back(total - (writer.stats().compile_seconds - compiled_before));
  }
  const double scan = per_call(kRuns, 1, [&] { (void)store.evict(UINT64_MAX, ""); });
  std::vector<double> raw_writes;  // new names, as for real misses
  for (int run = 0; run < kRuns; ++run) {
    const std::string name = "bench" + std::to_string(run);
    auto start = Clock::now();
    spectral::Status written = store.write(name, key_digest, binary);
    raw_writes.push_back(seconds_since(start));
    if (!written) return 1;
    std::filesystem::remove(store.entry_path(name));
  }

  std::printf("memory cache hit\n");
  line("get_or_compile_shared (hash of key fields + refcount)", shared_hit * 1e9, "ns");
  line("get_or_compile (same, plus a copy of the 200 KB vector)", copied_hit * 1e9, "ns");
  std::printf("disk cache hit (fresh KernelCache on the same directory)\n");
  line("get_or_compile_shared", median(disk_hits) * 1e6, "us");
  line("get_or_compile", median(disk_hits_copied) * 1e6, "us");
  line("  of which: open + read + verify the entry", read_only * 1e6, "us");
  line("    within it: XXH3-128 checksum of the 200 KB payload", checksum * 1e6, "us");
  line("  of which: SHA-256 key hash", key_hash * 1e6, "us");
  std::printf("entry write (miss path without the compile callback)\n");
  char growing[96];
  std::snprintf(growing, sizeof(growing), "get_or_compile_shared, new key (directory 1..%d entries)",
                kRuns);
  line(growing, median(writes) * 1e6, "us");
  line("  of which: write temp file + rename (DiskStore::write)", median(raw_writes) * 1e6, "us");
  char scanned[96];
  std::snprintf(scanned, sizeof(scanned), "  of which: eviction scan of %d entries", kRuns + 1);
  line(scanned, scan * 1e6, "us");
  line("XXH3-128 throughput (the entry checksum)", binary.size() / checksum / 1e6, "MB/s");
  line("SHA-256 throughput (libcrypto; .spx checksums, keys)", binary.size() / sha_payload / 1e6,
       "MB/s");

  std::error_code ignored;
  std::filesystem::remove_all(directory, ignored);
  return 0;
}
