// sha256_test.cc - runtime/cache/sha256.h against the examples of FIPS 180-4
// (and NIST's example files) plus lengths around the padding boundary, whose
// digests come from coreutils' sha256sum. Every case runs on both block
// functions (the SHA instructions, where the CPU has them, and plain C++).
#include "runtime/cache/sha256.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace spectral {
namespace {

using Implementation = Sha256::Implementation;

class Sha256Test : public ::testing::TestWithParam<Implementation> {
 protected:
  std::string hex_of(std::string_view message) const {
    return Sha256::to_hex(Sha256(GetParam()).update(message).finish());
  }
};

TEST_P(Sha256Test, OneBlockMessageAbc) {
  EXPECT_EQ(hex_of("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_P(Sha256Test, EmptyMessage) {
  EXPECT_EQ(hex_of(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST_P(Sha256Test, TwoBlockMessage448Bits) {
  EXPECT_EQ(hex_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST_P(Sha256Test, Message896Bits) {
  EXPECT_EQ(hex_of("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
                   "klmnopqrlmnopqrsmnopqrstnopqrstu"),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

TEST_P(Sha256Test, OneMillionTimesA) {
  const std::string expected = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
  EXPECT_EQ(hex_of(std::string(1000000, 'a')), expected);
  // The same message fed in uneven pieces.
  Sha256 sha(GetParam());
  const std::string piece(1009, 'a');  // the largest piece below
  size_t left = 1000000;
  for (size_t size = 1; left > 0; size = size % 997 + 13) {
    size_t take = std::min(size, left);
    sha.update(piece.data(), take);
    left -= take;
  }
  EXPECT_EQ(Sha256::to_hex(sha.finish()), expected);
}

TEST_P(Sha256Test, LengthsAroundThePaddingBoundary) {
  const std::pair<size_t, const char*> cases[] = {
      {55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
      {56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
      {63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"},
      {64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
      {65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"},
      {119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"},
      {127, "c57e9278af78fa3cab38667bef4ce29d783787a2f731d4e12200270f0c32320a"},
      {128, "6836cf13bac400e9105071cd6af47084dfacad4e5e302c94bfed24e013afb73e"},
  };
  for (const auto& [length, expected] : cases) {
    std::string message(length, 'a');
    EXPECT_EQ(hex_of(message), expected) << length << " bytes";
    Sha256 split(GetParam());  // every split point gives the same digest
    for (size_t cut = 0; cut <= length; cut += 7) {
      split.update(message.data(), cut).update(message.data() + cut, length - cut);
      EXPECT_EQ(Sha256::to_hex(split.finish()), expected) << length << " bytes cut at " << cut;
    }
  }
}

TEST_P(Sha256Test, FinishResetsToTheEmptyMessage) {
  Sha256 sha(GetParam());
  sha.update("abc");
  (void)sha.finish();
  EXPECT_EQ(Sha256::to_hex(sha.finish()), hex_of(""));
}

INSTANTIATE_TEST_SUITE_P(BothBlockFunctions, Sha256Test,
                         ::testing::Values(Implementation::kFastest, Implementation::kPortable),
                         [](const ::testing::TestParamInfo<Implementation>& info) {
                           return info.param == Implementation::kFastest ? "Fastest" : "Portable";
                         });

TEST(Sha256ImplementationsTest, AgreeOnEveryLengthAndAlignment) {
  if (!Sha256::hardware_accelerated()) std::printf("note: no SHA instructions on this CPU\n");
  std::vector<uint8_t> data(70000);
  uint32_t state = 7;
  for (auto& byte : data) byte = uint8_t((state = state * 1664525u + 1013904223u) >> 24);
  for (size_t length : {0, 1, 63, 64, 65, 200, 1000, 4096, 65536, 69990})
    for (size_t offset = 0; offset < 8; ++offset)
      EXPECT_EQ(Sha256(Implementation::kFastest).update(data.data() + offset, length).finish(),
                Sha256(Implementation::kPortable).update(data.data() + offset, length).finish())
          << length << " bytes at offset " << offset;
}

}  // namespace
}  // namespace spectral
