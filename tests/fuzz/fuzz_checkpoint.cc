// fuzz_checkpoint.cc - libFuzzer target: load_checkpoint (the .spc reader:
// header, version, size, SHA-256, FlatBuffers verifier, each tensor's type
// against its bytes, unique names) on arbitrary bytes must return an error
// that says why, or a checkpoint that saves and loads again the same; never
// crash or allocate beyond what the bytes hold. As fuzz_spx.cc does, the
// bytes are also tried as a payload behind a valid header, which reaches
// the verifier and the checks after it.
#include "runtime/program/container.h"
#include "spectral/checkpoint.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

/// A file of this process in $TMPDIR (scripts/dev fuzz removes the folder).
std::string scratch(const char* name) {
  static const std::string directory = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/spectral-fuzz-ckpt-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) std::abort();
    return pattern;
  }();
  return directory + "/" + name;
}

void check(const std::vector<uint8_t>& bytes) {
  const std::string path = scratch("in.spc");
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0 || ::write(fd, bytes.data(), bytes.size()) != ssize_t(bytes.size()) ||
      ::close(fd) != 0)
    std::abort();
  spectral::Expected<spectral::Checkpoint> loaded = spectral::load_checkpoint(path);
  if (!loaded) {
    if (loaded.status().message().empty()) std::abort();  // a failure must say why
    return;
  }
  // What was accepted saves and loads again, with the same names and bytes.
  const std::string again = scratch("again.spc");
  if (!spectral::save_checkpoint(again, *loaded)) std::abort();
  spectral::Expected<spectral::Checkpoint> back = spectral::load_checkpoint(again);
  if (!back || back->tensors.size() != loaded->tensors.size() ||
      back->metadata != loaded->metadata)
    std::abort();
  for (size_t i = 0; i < back->tensors.size(); ++i) {
    const spectral::Tensor &a = back->tensors[i].second, &b = loaded->tensors[i].second;
    if (back->tensors[i].first != loaded->tensors[i].first || a.dtype() != b.dtype() ||
        a.shape() != b.shape() || a.bytes() != b.bytes() ||
        (a.bytes() && std::memcmp(a.data(), b.data(), a.bytes()) != 0))
      std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  check(std::vector<uint8_t>(data, data + size));
  static const spectral::ContainerFormat format{{'S', 'P', 'E', 'C', 'C', 'K', 'P', 'T'}, 1, 0,
                                                "checkpoint"};
  check(spectral::wrap_payload(format, data, size));
  return 0;
}
