// garble_cache_payloads.cc - spectral-garble-cache-payloads DIR: replaces the
// payload of every kernel cache entry in DIR with bytes that are no shared
// object, keeping the entry valid (its size and checksum recomputed): the
// checksum passes, the load fails. For tests/lit/tools/cache-unloadable-entry.mlir.
#include "runtime/cache/disk_store.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  using spectral::cache_detail::kEntryHeaderSize;
  if (argc != 2) {
    std::fprintf(stderr, "usage: spectral-garble-cache-payloads DIR\n");
    return 2;
  }
  std::string text;
  for (int i = 0; i < 4; ++i) text += "not a shared object\n";
  const std::vector<uint8_t> payload(text.begin(), text.end());
  int count = 0;
  std::vector<fs::path> entries;
  for (const fs::directory_entry& entry : fs::directory_iterator(argv[1]))
    if (entry.path().extension() == ".bin") entries.push_back(entry.path());
  for (const fs::path& path : entries) {
    std::ifstream in(path, std::ios::binary);
    std::vector<uint8_t> header((std::istreambuf_iterator<char>(in)), {});
    if (header.size() < kEntryHeaderSize) {
      std::fprintf(stderr, "%s: shorter than an entry header\n", path.c_str());
      return 1;
    }
    header.resize(kEntryHeaderSize);
    const uint64_t size = payload.size();
    for (int b = 0; b < 8; ++b) header[16 + b] = uint8_t(size >> (8 * b));
    const std::array<uint8_t, 16> checksum =
        spectral::cache_detail::payload_checksum(payload.data(), payload.size());
    std::memcpy(header.data() + 56, checksum.data(), checksum.size());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(header.data()), std::streamsize(header.size()));
    out.write(reinterpret_cast<const char*>(payload.data()), std::streamsize(payload.size()));
    if (!out) {
      std::fprintf(stderr, "%s: cannot write\n", path.c_str());
      return 1;
    }
    ++count;
  }
  std::printf("garbled %d entries\n", count);
  return 0;
}
