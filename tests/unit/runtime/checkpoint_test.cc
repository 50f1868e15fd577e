// checkpoint_test.cc - checkpoints round trip; damaged or foreign files are errors naming the file.
#include "spectral/checkpoint.h"

#include "runtime/program/container.h"
#include "runtime/schemas/checkpoint_generated.h"
#include "unaligned_vector.h"

#include <gtest/gtest.h>

#include <complex>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <unistd.h>

namespace spectral {
namespace {

std::string scratch(const std::string& name) {
  return ::testing::TempDir() + "ckpt-" + std::to_string(getpid()) + "-" + name;
}

std::vector<uint8_t> readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

std::string loadError(const std::string& path) {
  Expected<Checkpoint> loaded = load_checkpoint(path);
  return loaded ? std::string("loaded") : loaded.status().message();
}

TEST(Checkpoint, RoundTripsTensorsAndMetadata) {
  Checkpoint c;
  Tensor w = Tensor::zeros(DType::kFloat32, {3, 4});
  for (int i = 0; i < 12; ++i) w.as<float>()[i] = 0.5f * float(i) - 1.0f;
  Tensor z = Tensor::zeros(DType::kComplex128, {2});
  z.as<std::complex<double>>()[1] = {1.5, -2.0};
  Tensor step = Tensor::zeros(DType::kInt64, {});
  *step.as<int64_t>() = 1234567890123;
  c.tensors = {{"w", w}, {"z", z}, {"step", step}, {"empty", Tensor::zeros(DType::kInt32, {0, 5})}};
  c.metadata = {{"epoch", "3"}, {"rng", "1 2 3 4"}, {"", ""}};
  const std::string path = scratch("round.spc");
  ASSERT_TRUE(save_checkpoint(path, c));
  Expected<Checkpoint> back = load_checkpoint(path);
  ASSERT_TRUE(back) << back.status().message();
  ASSERT_EQ(back->tensors.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(back->tensors[i].first, c.tensors[i].first);
    const Tensor &a = back->tensors[i].second, &b = c.tensors[i].second;
    EXPECT_EQ(a.dtype(), b.dtype());
    EXPECT_EQ(a.shape(), b.shape());
    ASSERT_EQ(a.bytes(), b.bytes());
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.bytes()), 0) << c.tensors[i].first;
  }
  EXPECT_EQ(back->metadata, c.metadata);
  ASSERT_TRUE(back->tensor("step"));
  EXPECT_EQ(*back->tensor("step")->as<int64_t>(), 1234567890123);
  EXPECT_EQ(*back->value("rng"), "1 2 3 4");
  EXPECT_EQ(back->tensor("missing"), nullptr);
  EXPECT_EQ(back->value("missing"), nullptr);
  std::remove(path.c_str());
}

TEST(Checkpoint, DamagedAndForeignFilesAreErrorsNamingTheFile) {
  Checkpoint c;
  c.tensors = {{"w", Tensor::zeros(DType::kFloat32, {16})}};
  const std::string path = scratch("good.spc"), bad = scratch("bad.spc");
  ASSERT_TRUE(save_checkpoint(path, c));
  const std::vector<uint8_t> good = readFile(path);

  std::vector<uint8_t> flipped = good;
  flipped[good.size() - 10] ^= 1;
  writeFile(bad, flipped);
  EXPECT_EQ(loadError(bad), bad + ": checksum mismatch: the file is corrupted");
  writeFile(bad, {good.begin(), good.end() - 1});
  EXPECT_NE(loadError(bad).find(bad + ": truncated or padded"), std::string::npos);
  std::vector<uint8_t> newer = good;
  newer[8] = 2;
  writeFile(bad, newer);
  EXPECT_NE(loadError(bad).find("checkpoint format 2.0, this runtime reads format 1.x"),
            std::string::npos)
      << loadError(bad);
  writeFile(bad, std::vector<uint8_t>(100, 'x'));
  EXPECT_EQ(loadError(bad), bad + ": not a spectral checkpoint (no \"SPECCKPT\" header)");
  EXPECT_NE(loadError(scratch("missing.spc")).find("No such file"), std::string::npos);
  EXPECT_EQ(loadError(::testing::TempDir()), ::testing::TempDir() + ": not a regular file");

  // A well-formed payload whose tensor holds fewer bytes than its type needs.
  flatbuffers::FlatBufferBuilder b;
  std::vector<int64_t> shape{4};
  std::vector<uint8_t> data(12);
  auto tensor = ckpt::CreateNamedTensor(b, b.CreateString("w"), uint8_t(DType::kFloat32),
                                        b.CreateVector(shape), b.CreateVector(data));
  std::vector<flatbuffers::Offset<ckpt::NamedTensor>> tensors{tensor};
  b.Finish(ckpt::CreateCheckpoint(b, b.CreateString("test"), b.CreateVector(tensors)),
           ckpt::CheckpointIdentifier());
  const ContainerFormat format{{'S', 'P', 'E', 'C', 'C', 'K', 'P', 'T'}, 1, 0, "checkpoint"};
  writeFile(bad, wrap_payload(format, b.GetBufferPointer(), b.GetSize()));
  EXPECT_EQ(loadError(bad), bad + ": invalid checkpoint: tensor 'w' holds 12 bytes, its type "
                                  "tensor<4xf32> needs 16");

  // A shape whose 8-byte values sit at 4 mod 8 passes the FlatBuffers
  // verifier (it checks the vector's 4-byte length only): refused, never read
  // misaligned; the same values aligned are read.
  for (bool shift : {false, true}) {
    flatbuffers::FlatBufferBuilder m;
    auto tensor_name = m.CreateString("w");
    auto tensor_data = m.CreateVector(std::vector<uint8_t>(16));
    auto shape_4 = testing::unaligned_vector<int64_t>(m, {4, 0}, shift);
    std::vector<flatbuffers::Offset<ckpt::NamedTensor>> one{
        ckpt::CreateNamedTensor(m, tensor_name, uint8_t(DType::kFloat32), shape_4, tensor_data)};
    m.Finish(ckpt::CreateCheckpoint(m, m.CreateString("test"), m.CreateVector(one)),
             ckpt::CheckpointIdentifier());
    const std::vector<uint8_t> bytes = wrap_payload(format, m.GetBufferPointer(), m.GetSize());
    const void* values = ckpt::GetCheckpoint(bytes.data() + kContainerHeaderBytes)
                             ->tensors()->Get(0)->shape()->Data();
    ASSERT_EQ(reinterpret_cast<uintptr_t>(values) % 8, shift ? 4u : 0u) << "the crafted layout";
    writeFile(bad, bytes);
    EXPECT_EQ(loadError(bad), shift ? bad + ": invalid checkpoint: tensor 'w' has a misaligned "
                                            "shape (8-byte values off an 8-byte boundary)"
                                    : "loaded");
  }

  // Names must be unique; a failed save leaves the old file whole.
  c.tensors.push_back({"w", Tensor::zeros(DType::kFloat32, {1})});
  Status twice = save_checkpoint(path, c);
  EXPECT_EQ(twice.message(), path + ": cannot save: tensor 'w' twice");
  EXPECT_EQ(readFile(path), good);
  std::remove(path.c_str());
  std::remove(bad.c_str());
}

}  // namespace
}  // namespace spectral
