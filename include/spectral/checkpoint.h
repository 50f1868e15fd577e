// spectral/checkpoint.h - training state in one file: named tensors and text
// metadata (Spectral::runtime).
//
//   spectral::Checkpoint c;
//   c.tensors.push_back({"weights", w});
//   c.metadata.push_back({"epoch", "3"});
//   spectral::Status saved = spectral::save_checkpoint("model.spc", c);
//
// The file is a FlatBuffers payload (runtime/schemas/checkpoint.fbs) behind
// a header with its format version, size and SHA-256; loading checks all of
// them and every tensor's size, and names the file and what is wrong. Saving
// writes a temporary file and renames it over the target, so a crash leaves
// the previous checkpoint whole. A checkpoint holds up to 2 GiB (FlatBuffers'
// limit); saving more is an error.
#pragma once

#include "spectral/status.h"
#include "spectral/tensor.h"

#include <string>
#include <utility>
#include <vector>

namespace spectral {

struct Checkpoint {
  std::vector<std::pair<std::string, Tensor>> tensors;       // names unique
  std::vector<std::pair<std::string, std::string>> metadata;  // keys unique
  /// The tensor named `name`, or null.
  const Tensor* tensor(const std::string& name) const;
  /// The value of `key`, or null.
  const std::string* value(const std::string& key) const;
};

Status save_checkpoint(const std::string& path, const Checkpoint& checkpoint);
Expected<Checkpoint> load_checkpoint(const std::string& path);

}  // namespace spectral
