// container.h - the file around a FlatBuffers payload: artifacts (.spx) and checkpoints.
//
//   bytes  0..7   magic ("SPECTRAL" for artifacts, "SPECCKPT" for checkpoints)
//          8..9   format major version (little endian); another major is refused
//         10..11  format minor version; newer minors only add fields
//         12..15  zero
//         16..23  payload size in bytes
//         24..55  SHA-256 of the payload
//         56..    the payload
//
// Reading checks, in order, and names the file and what is wrong on any
// failure: the magic, the header's length, the major version, the size
// against the file's, the checksum. Writing goes to a temporary file that
// is renamed over the target, so a failure leaves nothing half-written.
#pragma once

#include "runtime/status.h"

#include <flatbuffers/vector.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace spectral {

struct ContainerFormat {
  char magic[8];
  uint16_t major, minor;
  const char* what;  // "artifact", "checkpoint": in messages
};

constexpr size_t kContainerHeaderBytes = 56;

/// Whether `bytes` start with the format's magic.
bool has_magic(const ContainerFormat& format, const std::vector<uint8_t>& bytes);

/// The header for `payload`, then the payload.
std::vector<uint8_t> wrap_payload(const ContainerFormat& format, const uint8_t* payload,
                                  size_t size);

/// The payload of container bytes (a pointer into `bytes` and its size), or
/// the error, prefixed by `name`.
StatusOr<std::pair<const uint8_t*, size_t>> unwrap_payload(const ContainerFormat& format,
                                                           const std::vector<uint8_t>& bytes,
                                                           const std::string& name);

/// Whether the elements of a verified FlatBuffers vector (null or empty: none)
/// sit at their type's alignment. The verifier (FlatBuffers 2.0) checks only
/// the alignment of a vector's 4-byte length, so a crafted payload can place
/// 8-byte elements at 4 mod 8, where reading them is undefined behaviour; a
/// builder never writes that (an empty vector it may), and the readers refuse
/// it. The payload itself starts 8-aligned (a vector's storage, then the
/// 56-byte header).
template <class T>
bool elements_aligned(const flatbuffers::Vector<T>* v) {
  using Element = std::remove_cv_t<std::remove_pointer_t<T>>;
  return !v || v->size() == 0 || reinterpret_cast<uintptr_t>(v->Data()) % alignof(Element) == 0;
}

/// Writes `bytes` to `path` through a temporary file renamed over it.
Status write_file_atomically(const std::string& path, const std::vector<uint8_t>& bytes);

/// The bytes of the regular file at `path`, refused beyond `most` bytes.
StatusOr<std::vector<uint8_t>> read_regular_file(const std::string& path, uint64_t most,
                                                 const char* what);

}  // namespace spectral
