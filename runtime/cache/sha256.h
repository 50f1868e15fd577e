// sha256.h - SHA-256 (FIPS 180-4) from OpenSSL's libcrypto.
//
// Names kernel cache entries (the key's digest) and checks .spx payloads.
// libcrypto picks the CPU's SHA instructions where they exist. The unit tests
// check the standard's examples.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

struct evp_md_ctx_st;  // OpenSSL's EVP_MD_CTX

namespace spectral {

/// Incremental SHA-256: update() any number of times, then finish() once.
class Sha256 {
 public:
  using Digest = std::array<uint8_t, 32>;

  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  Sha256& update(const void* data, size_t size);
  Sha256& update(std::string_view text) { return update(text.data(), text.size()); }
  /// Returns the message's digest and resets to the empty message.
  Digest finish();

  static Digest hash(const void* data, size_t size) { return Sha256().update(data, size).finish(); }
  static Digest hash(std::string_view text) { return hash(text.data(), text.size()); }
  /// Lower-case hexadecimal, 64 characters.
  static std::string to_hex(const Digest& digest);

 private:
  evp_md_ctx_st* context_;
};

}  // namespace spectral
