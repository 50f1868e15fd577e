// sha256.h - SHA-256 as specified in FIPS 180-4, section 6.2.
//
// Names kernel cache entries and checks their payloads (every disk hit hashes
// the whole binary, so speed matters). Written from the standard; on x86 CPUs
// with the SHA extensions the block function uses those instructions, which
// run the same rounds several times faster. The unit tests check the
// standard's examples and that both block functions agree.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace spectral {

/// Incremental SHA-256: update() any number of times, then finish() once.
class Sha256 {
 public:
  using Digest = std::array<uint8_t, 32>;

  enum class Implementation {
    kFastest,   // the SHA instructions when the CPU has them, else kPortable
    kPortable,  // plain C++
  };
  explicit Sha256(Implementation implementation = Implementation::kFastest);
  /// True when kFastest uses the CPU's SHA instructions.
  static bool hardware_accelerated();
  Sha256& update(const void* data, size_t size);
  Sha256& update(std::string_view text) { return update(text.data(), text.size()); }
  /// Pads the message, returns its digest and resets to the empty message.
  Digest finish();

  static Digest hash(const void* data, size_t size) { return Sha256().update(data, size).finish(); }
  static Digest hash(std::string_view text) { return hash(text.data(), text.size()); }
  /// Lower-case hexadecimal, 64 characters.
  static std::string to_hex(const Digest& digest);

 private:
  void reset();
  using Compress = void (*)(uint32_t state[8], const uint8_t* blocks, size_t count);

  Compress compress_;
  uint32_t state_[8];
  uint8_t buffer_[64];
  size_t buffered_ = 0;
  uint64_t message_bytes_ = 0;
};

}  // namespace spectral
