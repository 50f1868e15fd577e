// fuzz_spx.cc - libFuzzer target: read_artifact (the .spx loader: header,
// version, size, SHA-256, FlatBuffers verifier, the Program's consistency) on
// arbitrary bytes must return an error that says why, or an artifact whose
// Program passes its own validation and writes back to bytes that read again;
// never crash, hang or allocate beyond what the bytes hold. The checksum
// would stop most mutations at the door, so the target also feeds the
// payload behind a recomputed header (container.h's wrap_payload), which
// reaches the verifier and the Program's checks.
#include "runtime/program/artifact.h"
#include "runtime/program/container.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

void check(const std::vector<uint8_t>& bytes) {
  spectral::StatusOr<spectral::Artifact> artifact = spectral::read_artifact(bytes, "fuzz.spx");
  if (!artifact) {
    if (artifact.status().message().empty()) std::abort();  // a failure must say why
    return;
  }
  // What was accepted writes back and reads again.
  std::vector<uint8_t> again = spectral::write_artifact(*artifact);
  if (!spectral::read_artifact(again, "again.spx")) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> bytes(data, data + size);
  check(bytes);
  // The same bytes as a payload behind a valid header.
  static const spectral::ContainerFormat format{{'S', 'P', 'E', 'C', 'T', 'R', 'A', 'L'},
                                                spectral::kArtifactFormatMajor,
                                                spectral::kArtifactFormatMinor, "artifact"};
  check(spectral::wrap_payload(format, data, size));
  return 0;
}
