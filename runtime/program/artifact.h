// artifact.h - a compiled Program as a .spx file, and back.
//
// A file is a fixed header and a FlatBuffers payload (runtime/schemas/program.fbs):
//
//   bytes  0..7   "SPECTRAL"
//          8..9   format major version (little endian); a newer major is refused
//         10..11  format minor version; newer minors only add fields
//         12..15  zero
//         16..23  payload size in bytes
//         24..55  SHA-256 of the payload
//         56..    the payload (FlatBuffers, file identifier "SPX1")
//
// Reading checks, in order, and names the file and what is wrong on any
// failure (never a crash): the header, the version, the size against the
// file's, the checksum, the FlatBuffers verifier, then Program::validate.
// Writing goes to a temporary file renamed over the target, so a failure
// leaves no half-written artifact.
#pragma once

#include "runtime/program/program.h"
#include "runtime/status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace spectral {

constexpr uint16_t kArtifactFormatMajor = 1;
constexpr uint16_t kArtifactFormatMinor = 0;
/// The largest artifact read (a payload beyond this is refused before reading it).
constexpr uint64_t kMaxArtifactBytes = uint64_t(1) << 34;

/// The artifact bytes of `program`; `producer` names what made it
/// ("spectral 0.1.0").
std::vector<uint8_t> write_artifact(const Program& program, const std::string& producer);

/// The Program in artifact bytes; `name` (a path) prefixes every error.
StatusOr<Program> read_artifact(const std::vector<uint8_t>& bytes, const std::string& name);

/// The producer recorded in artifact bytes that read_artifact accepts.
StatusOr<std::string> artifact_producer(const std::vector<uint8_t>& bytes,
                                        const std::string& name);

/// write_artifact to `path`, atomically (a temporary file renamed over it).
Status save_artifact(const Program& program, const std::string& path,
                     const std::string& producer);

/// read_artifact of the file at `path` (a regular file of at most
/// kMaxArtifactBytes plus the header).
StatusOr<Program> load_artifact(const std::string& path);

/// Whether `bytes` start like an artifact (the "SPECTRAL" header): how a
/// tool tells a .spx from a .mlir whatever the file's name.
bool looks_like_artifact(const std::vector<uint8_t>& bytes);

}  // namespace spectral
