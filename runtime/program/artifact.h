// artifact.h - a compiled Program as a .spx file, and back.
//
// A file is the container of runtime/program/container.h (magic "SPECTRAL",
// format version, payload size, SHA-256) around a FlatBuffers payload
// (runtime/schemas/program.fbs, file identifier "SPX1").
//
// Reading checks, in order, and names the file and what is wrong on any
// failure (never a crash): the container's header, version, size and
// checksum, the FlatBuffers verifier, then Program::validate. Writing goes to
// a temporary file renamed over the target, so a failure leaves no
// half-written artifact.
#pragma once

#include "runtime/program/program.h"
#include "runtime/status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace spectral {

constexpr uint16_t kArtifactFormatMajor = 1;
constexpr uint16_t kArtifactFormatMinor = 1;  // 1.1: kernels carry CUBIN/PTX per architecture
/// The largest artifact read (a payload beyond this is refused before reading it).
constexpr uint64_t kMaxArtifactBytes = uint64_t(1) << 34;

/// What a .spx file holds.
struct Artifact {
  Program program;
  std::string producer;    // what made it: "spectral 0.1.0"
  std::string graph;       // the MLIR it was compiled from (may be empty): --validate reads it
  std::string graph_name;  // that MLIR's file name, for locations in messages
};

/// The artifact bytes of `artifact`.
std::vector<uint8_t> write_artifact(const Artifact& artifact);

/// The artifact in `bytes`; `name` (a path) prefixes every error.
StatusOr<Artifact> read_artifact(const std::vector<uint8_t>& bytes, const std::string& name);

/// write_artifact to `path`, atomically (a temporary file renamed over it).
Status save_artifact(const Artifact& artifact, const std::string& path);

/// read_artifact of the file at `path` (a regular file of at most
/// kMaxArtifactBytes plus the header).
StatusOr<Artifact> load_artifact(const std::string& path);

/// Whether `bytes` start like an artifact (the "SPECTRAL" header): how a
/// tool tells a .spx from a .mlir whatever the file's name.
bool looks_like_artifact(const std::vector<uint8_t>& bytes);

}  // namespace spectral
