// container.cc - the header, checksum and atomic writes of artifacts and checkpoints.
#include "runtime/program/container.h"

#include "runtime/cache/sha256.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace spectral {
namespace {

void put_le(uint8_t* out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out[i] = uint8_t(value >> (8 * i));
}

/// "an artifact", "a checkpoint".
std::string withArticle(const std::string& what) {
  return (what.find_first_of("aeiou") == 0 ? "an " : "a ") + what;
}

uint64_t get_le(const uint8_t* in, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value |= uint64_t(in[i]) << (8 * i);
  return value;
}

}  // namespace

bool has_magic(const ContainerFormat& format, const std::vector<uint8_t>& bytes) {
  return bytes.size() >= sizeof format.magic &&
         std::memcmp(bytes.data(), format.magic, sizeof format.magic) == 0;
}

std::vector<uint8_t> wrap_payload(const ContainerFormat& format, const uint8_t* payload,
                                  size_t size) {
  std::vector<uint8_t> out(kContainerHeaderBytes + size);
  std::memcpy(out.data(), format.magic, sizeof format.magic);
  put_le(&out[8], format.major, 2);
  put_le(&out[10], format.minor, 2);
  put_le(&out[16], size, 8);
  Sha256::Digest digest = Sha256::hash(payload, size);
  std::memcpy(&out[24], digest.data(), digest.size());
  if (size) std::memcpy(&out[kContainerHeaderBytes], payload, size);
  return out;
}

StatusOr<std::pair<const uint8_t*, size_t>> unwrap_payload(const ContainerFormat& format,
                                                           const std::vector<uint8_t>& bytes,
                                                           const std::string& name) {
  const std::string what = format.what;
  if (!has_magic(format, bytes))
    return Status::error(name + ": not a spectral " + what + " (no \"" +
                         std::string(format.magic, sizeof format.magic) + "\" header)");
  if (bytes.size() < kContainerHeaderBytes)
    return Status::error(name + ": truncated: " + std::to_string(bytes.size()) +
                         " bytes, shorter than " + withArticle(what) + "'s header");
  const uint64_t major = get_le(&bytes[8], 2), minor = get_le(&bytes[10], 2);
  if (major != format.major)
    return Status::error(name + ": " + what + " format " + std::to_string(major) + "." +
                         std::to_string(minor) + ", this runtime reads format " +
                         std::to_string(format.major) + ".x: " +
                         (what == "artifact" ? "compile it again" : "write it again") +
                         " with this spectral (" + (major > format.major ? "newer" : "older") +
                         " format)");
  const uint64_t size = get_le(&bytes[16], 8);
  if (size != bytes.size() - kContainerHeaderBytes)
    return Status::error(name + ": truncated or padded: the header says " + std::to_string(size) +
                         " payload bytes, the file holds " +
                         std::to_string(bytes.size() - kContainerHeaderBytes));
  const uint8_t* payload = bytes.data() + kContainerHeaderBytes;
  Sha256::Digest digest = Sha256::hash(payload, size);
  if (std::memcmp(digest.data(), &bytes[24], digest.size()) != 0)
    return Status::error(name + ": checksum mismatch: the file is corrupted");
  return std::pair<const uint8_t*, size_t>{payload, size_t(size)};
}

Status write_file_atomically(const std::string& path, const std::vector<uint8_t>& bytes) {
  // Unique per process and call: threads saving to one path write apart.
  static std::atomic<uint64_t> saves{0};
  std::string temporary = path + ".tmp." + std::to_string(getpid()) + "." + std::to_string(saves++);
  FILE* file = std::fopen(temporary.c_str(), "wb");
  if (!file) return Status::error(path + ": cannot write: " + std::strerror(errno));
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  ok = (std::fflush(file) == 0) && ok;
  ok = (fsync(fileno(file)) == 0) && ok;
  ok = (std::fclose(file) == 0) && ok;
  if (!ok || std::rename(temporary.c_str(), path.c_str()) != 0) {
    Status error = Status::error(path + ": cannot write: " + std::strerror(errno));
    std::remove(temporary.c_str());
    return error;
  }
  return Status::ok();
}

StatusOr<std::vector<uint8_t>> read_regular_file(const std::string& path, uint64_t most,
                                                 const char* what) {
  struct stat info;
  if (stat(path.c_str(), &info) != 0) return Status::error(path + ": " + std::strerror(errno));
  if (!S_ISREG(info.st_mode)) return Status::error(path + ": not a regular file");
  if (uint64_t(info.st_size) > most)
    return Status::error(path + ": " + std::to_string(info.st_size) + " bytes, more than " +
                         withArticle(what) + " may hold (" +
                         std::to_string(most) + " bytes)");
  std::ifstream file(path, std::ios::binary);
  if (!file) return Status::error(path + ": cannot read: " + std::strerror(errno));
  std::vector<uint8_t> bytes(size_t(info.st_size));
  if (!file.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(bytes.size())))
    return Status::error(path + ": cannot read all " + std::to_string(bytes.size()) + " bytes");
  return bytes;
}

}  // namespace spectral
