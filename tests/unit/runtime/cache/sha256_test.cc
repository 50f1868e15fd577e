// sha256_test.cc - runtime/cache/sha256.h against the examples of FIPS 180-4
// (and NIST's example files) plus lengths around the padding boundary, whose
// digests come from coreutils' sha256sum; and the cache entries' checksum.
#include "runtime/cache/sha256.h"

#include "runtime/cache/disk_store.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>
#include <vector>

namespace spectral {
namespace {

std::string hex_of(std::string_view message) {
  return Sha256::to_hex(Sha256().update(message).finish());
}

TEST(Sha256Test, OneBlockMessageAbc) {
  EXPECT_EQ(hex_of("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256Test, EmptyMessage) {
  EXPECT_EQ(hex_of(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Sha256Test, TwoBlockMessage448Bits) {
  EXPECT_EQ(hex_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256Test, Message896Bits) {
  EXPECT_EQ(hex_of("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
                   "klmnopqrlmnopqrsmnopqrstnopqrstu"),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

TEST(Sha256Test, OneMillionTimesA) {
  const std::string expected = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
  EXPECT_EQ(hex_of(std::string(1000000, 'a')), expected);
  // The same message fed in uneven pieces.
  Sha256 sha;
  const std::string piece(1009, 'a');  // the largest piece below
  size_t left = 1000000;
  for (size_t size = 1; left > 0; size = size % 997 + 13) {
    size_t take = std::min(size, left);
    sha.update(piece.data(), take);
    left -= take;
  }
  EXPECT_EQ(Sha256::to_hex(sha.finish()), expected);
}

TEST(Sha256Test, LengthsAroundThePaddingBoundary) {
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
    Sha256 split;  // every split point gives the same digest
    for (size_t cut = 0; cut <= length; cut += 7) {
      split.update(message.data(), cut).update(message.data() + cut, length - cut);
      EXPECT_EQ(Sha256::to_hex(split.finish()), expected) << length << " bytes cut at " << cut;
    }
  }
}

TEST(Sha256Test, FinishResetsToTheEmptyMessage) {
  Sha256 sha;
  sha.update("abc");
  (void)sha.finish();
  EXPECT_EQ(Sha256::to_hex(sha.finish()), hex_of(""));
}

// The entry checksum: XXH3-128, canonical form. The digests come from the
// xxhash module of PyPI (python-xxhash 3.x, its own build of the algorithm).
TEST(PayloadChecksumTest, IsXxh3Of128BitsInCanonicalForm) {
  auto hex = [](const std::array<uint8_t, 16>& digest) {
    std::string text;
    char byte[3];
    for (uint8_t b : digest) {
      std::snprintf(byte, sizeof byte, "%02x", b);
      text += byte;
    }
    return text;
  };
  EXPECT_EQ(hex(cache_detail::payload_checksum("", 0)), "99aa06d3014798d86001c324468d497f");
  EXPECT_EQ(hex(cache_detail::payload_checksum("abc", 3)), "06b05ab6733a618578af5f94892f3950");
  std::vector<uint8_t> counting(1024);
  for (size_t i = 0; i < counting.size(); ++i) counting[i] = uint8_t(i);
  EXPECT_EQ(hex(cache_detail::payload_checksum(counting.data(), counting.size())),
            "83885e853bb6640ca870f92984398d22");
}

}  // namespace
}  // namespace spectral
