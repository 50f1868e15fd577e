// checkpoint.cc - named tensors and metadata <-> a checkpoint file (spectral/checkpoint.h).
#include "spectral/checkpoint.h"

#include "runtime/program/container.h"
#include "runtime/schemas/checkpoint_generated.h"

#include <cstring>
#include <set>

namespace spectral {
namespace {

namespace fb = spectral::ckpt;

constexpr ContainerFormat kFormat{{'S', 'P', 'E', 'C', 'C', 'K', 'P', 'T'}, 1, 0, "checkpoint"};
/// The largest payload: FlatBuffers addresses a buffer with 32-bit offsets
/// (2 GiB); a bit is left for names and metadata.
constexpr uint64_t kMaxCheckpointBytes = (uint64_t(1) << 31) - (uint64_t(1) << 20);

/// The error of a duplicate name among `names`, or ok.
Status unique(const std::vector<std::string>& names, const std::string& what,
              const std::string& prefix) {
  std::set<std::string> seen;
  for (const std::string& name : names)
    if (!seen.insert(name).second) return Status::error(prefix + what + " '" + name + "' twice");
  return Status::ok();
}

}  // namespace

const Tensor* Checkpoint::tensor(const std::string& name) const {
  for (const auto& [key, t] : tensors)
    if (key == name) return &t;
  return nullptr;
}

const std::string* Checkpoint::value(const std::string& key) const {
  for (const auto& [k, v] : metadata)
    if (k == key) return &v;
  return nullptr;
}

Status save_checkpoint(const std::string& path, const Checkpoint& checkpoint) {
  std::vector<std::string> names, keys;
  for (const auto& entry : checkpoint.tensors) names.push_back(entry.first);
  for (const auto& entry : checkpoint.metadata) keys.push_back(entry.first);
  if (Status status = unique(names, "tensor", path + ": cannot save: "); !status) return status;
  if (Status status = unique(keys, "key", path + ": cannot save: "); !status) return status;
  uint64_t total = 0;
  for (const auto& entry : checkpoint.tensors) total += entry.second.bytes();
  for (const auto& [key, value] : checkpoint.metadata) total += key.size() + value.size();
  if (total > kMaxCheckpointBytes)
    return Status::error(path + ": cannot save: " + std::to_string(total) +
                         " bytes of tensors and metadata, more than a checkpoint holds (" +
                         std::to_string(kMaxCheckpointBytes) + " bytes: FlatBuffers' 2 GiB)");
  flatbuffers::FlatBufferBuilder b(1 << 16);
  std::vector<flatbuffers::Offset<fb::NamedTensor>> tensors;
  for (const auto& [name, t] : checkpoint.tensors) {
    const auto* bytes = static_cast<const uint8_t*>(t.data());
    tensors.push_back(fb::CreateNamedTensor(b, b.CreateString(name), uint8_t(t.dtype()),
                                            b.CreateVector(t.shape()),
                                            b.CreateVector(bytes, t.bytes())));
  }
  std::vector<flatbuffers::Offset<fb::Entry>> entries;
  for (const auto& [key, value] : checkpoint.metadata)
    entries.push_back(fb::CreateEntry(b, b.CreateString(key), b.CreateString(value)));
  b.Finish(fb::CreateCheckpoint(b, b.CreateString("spectral " SPECTRAL_VERSION),
                                b.CreateVector(tensors), b.CreateVector(entries)),
           fb::CheckpointIdentifier());
  return write_file_atomically(path, wrap_payload(kFormat, b.GetBufferPointer(), b.GetSize()));
}

Expected<Checkpoint> load_checkpoint(const std::string& path) {
  StatusOr<std::vector<uint8_t>> bytes =
      read_regular_file(path, (uint64_t(1) << 31) + kContainerHeaderBytes, "checkpoint");
  if (!bytes) return bytes.status();
  StatusOr<std::pair<const uint8_t*, size_t>> payload = unwrap_payload(kFormat, *bytes, path);
  if (!payload) return payload.status();
  flatbuffers::Verifier verifier(payload->first, payload->second, /*max_depth=*/16,
                                 /*max_tables=*/1u << 24);
  if (!fb::VerifyCheckpointBuffer(verifier))
    return Status::error(path + ": invalid checkpoint: its payload fails the FlatBuffers verifier");
  const fb::Checkpoint* in = fb::GetCheckpoint(payload->first);
  auto bad = [&](const std::string& what) {
    return Status::error(path + ": invalid checkpoint: " + what);
  };
  Checkpoint out;
  if (in->tensors())
    for (const fb::NamedTensor* t : *in->tensors()) {
      const std::string name = t->name() ? t->name()->str() : "";
      if (t->dtype() > uint8_t(DType::kComplex128))
        return bad("tensor '" + name + "' has an unknown element type");
      if (!elements_aligned(t->shape()))
        return bad("tensor '" + name +
                   "' has a misaligned shape (8-byte values off an 8-byte boundary)");
      std::vector<int64_t> shape;
      if (t->shape()) shape.assign(t->shape()->begin(), t->shape()->end());
      for (int64_t d : shape)
        if (d < 0) return bad("tensor '" + name + "' has a negative dimension");
      const DType dtype = DType(t->dtype());
      // The size a tensor of this type needs (Tensor's sizes saturate on
      // overflow), refused when huge before any allocation.
      const size_t needed = Tensor::view(nullptr, dtype, shape).bytes();
      const size_t stored = t->data() ? t->data()->size() : 0;
      if (needed > (size_t(1) << 62))
        return bad("tensor '" + name + "' of type " + type_string(dtype, shape) +
                   " is larger than 2^62 bytes");
      if (needed != stored)
        return bad("tensor '" + name + "' holds " + std::to_string(stored) + " bytes, its type " +
                   type_string(dtype, shape) + " needs " + std::to_string(needed));
      Tensor tensor = Tensor::zeros(dtype, shape);
      if (stored) std::memcpy(tensor.data(), t->data()->data(), stored);
      out.tensors.push_back({name, std::move(tensor)});
    }
  if (in->metadata())
    for (const fb::Entry* e : *in->metadata())
      out.metadata.push_back({e->key() ? e->key()->str() : "", e->value() ? e->value()->str() : ""});
  std::vector<std::string> names, keys;
  for (const auto& entry : out.tensors) names.push_back(entry.first);
  for (const auto& entry : out.metadata) keys.push_back(entry.first);
  if (Status status = unique(names, "tensor", path + ": invalid checkpoint: "); !status)
    return status;
  if (Status status = unique(keys, "key", path + ": invalid checkpoint: "); !status) return status;
  return out;
}

}  // namespace spectral
