// sha256.cc - FIPS 180-4 SHA-256. Section numbers below refer to the standard.
#include "runtime/cache/sha256.h"

#include <algorithm>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SPECTRAL_SHA256_X86 1
#include <cpuid.h>
#include <immintrin.h>
#else
#define SPECTRAL_SHA256_X86 0
#endif

namespace spectral {
namespace {

// 4.2.2: the first 32 bits of the fractional parts of the cube roots of the
// first 64 primes.
constexpr uint32_t kRoundConstants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

// 5.3.3: the first 32 bits of the fractional parts of the square roots of the
// first 8 primes.
constexpr uint32_t kInitialState[8] = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

// 3.2 and 4.1.2.
inline uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }
inline uint32_t ch(uint32_t x, uint32_t y, uint32_t z) { return (x & y) ^ (~x & z); }
inline uint32_t maj(uint32_t x, uint32_t y, uint32_t z) { return (x & y) ^ (x & z) ^ (y & z); }
inline uint32_t big_sigma0(uint32_t x) { return rotr(x, 2) ^ rotr(x, 13) ^ rotr(x, 22); }
inline uint32_t big_sigma1(uint32_t x) { return rotr(x, 6) ^ rotr(x, 11) ^ rotr(x, 25); }
inline uint32_t small_sigma0(uint32_t x) { return rotr(x, 7) ^ rotr(x, 18) ^ (x >> 3); }
inline uint32_t small_sigma1(uint32_t x) { return rotr(x, 17) ^ rotr(x, 19) ^ (x >> 10); }

inline uint32_t load_big_endian(const uint8_t* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | uint32_t(p[3]);
}

// 6.2.2: the hash computation, one 512-bit block at a time.
void compress_portable(uint32_t state[8], const uint8_t* blocks, size_t count) {
  uint32_t w[64];
  for (; count > 0; --count, blocks += 64) {
    // Step 1: the message schedule.
    for (int t = 0; t < 16; ++t) w[t] = load_big_endian(blocks + 4 * t);
    for (int t = 16; t < 64; ++t)
      w[t] = small_sigma1(w[t - 2]) + w[t - 7] + small_sigma0(w[t - 15]) + w[t - 16];
    // Steps 2 and 3: the working variables and the 64 rounds.
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
    for (int t = 0; t < 64; ++t) {
      uint32_t t1 = h + big_sigma1(e) + ch(e, f, g) + kRoundConstants[t] + w[t];
      uint32_t t2 = big_sigma0(a) + maj(a, b, c);
      h = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    // Step 4: the intermediate hash value.
    state[0] += a, state[1] += b, state[2] += c, state[3] += d;
    state[4] += e, state[5] += f, state[6] += g, state[7] += h;
  }
}

#if SPECTRAL_SHA256_X86
// The same computation with the x86 SHA extensions. SHA256RNDS2 runs two
// rounds on the working variables held as {A,B,E,F} and {C,D,G,H} (A in the
// highest lane); SHA256MSG1 and SHA256MSG2 compute four schedule words
// W[t] = s1(W[t-2]) + W[t-7] + s0(W[t-15]) + W[t-16] at a time.
__attribute__((target("sha,sse4.1,ssse3")))
void compress_sha_extensions(uint32_t state[8], const uint8_t* blocks, size_t count) {
  const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bll, 0x0405060700010203ll);
  __m128i abcd = _mm_loadu_si128(reinterpret_cast<const __m128i*>(state));      // lanes a b c d
  __m128i efgh = _mm_loadu_si128(reinterpret_cast<const __m128i*>(state + 4));  // lanes e f g h
  abcd = _mm_shuffle_epi32(abcd, 0xB1);                 // b a d c
  efgh = _mm_shuffle_epi32(efgh, 0x1B);                 // h g f e
  __m128i abef = _mm_alignr_epi8(abcd, efgh, 8);        // f e b a
  __m128i cdgh = _mm_blend_epi16(efgh, abcd, 0xF0);     // h g d c
  for (; count > 0; --count, blocks += 64) {
    const __m128i abef_before = abef, cdgh_before = cdgh;
    __m128i w[4];  // W[4g .. 4g+3] of the last four groups, lane 0 first
    for (int i = 0; i < 4; ++i)
      w[i] = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(blocks + 16 * i)),
                              byte_swap);
#pragma GCC unroll 16
    for (int g = 0; g < 16; ++g) {
      if (g >= 4) {
        __m128i partial = _mm_sha256msg1_epu32(w[g % 4], w[(g + 1) % 4]);
        partial = _mm_add_epi32(partial, _mm_alignr_epi8(w[(g + 3) % 4], w[(g + 2) % 4], 4));
        w[g % 4] = _mm_sha256msg2_epu32(partial, w[(g + 3) % 4]);
      }
      __m128i wk = _mm_add_epi32(
          w[g % 4], _mm_loadu_si128(reinterpret_cast<const __m128i*>(kRoundConstants + 4 * g)));
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);  // rounds 4g, 4g+1: the new ABEF; abef is CDGH
      wk = _mm_shuffle_epi32(wk, 0x0E);
      abef = _mm_sha256rnds2_epu32(abef, cdgh, wk);  // rounds 4g+2, 4g+3: ABEF and CDGH again
    }
    abef = _mm_add_epi32(abef, abef_before);
    cdgh = _mm_add_epi32(cdgh, cdgh_before);
  }
  __m128i abef_in_order = _mm_shuffle_epi32(abef, 0x1B);  // a b e f
  cdgh = _mm_shuffle_epi32(cdgh, 0xB1);                   // g h c d
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state), _mm_blend_epi16(abef_in_order, cdgh, 0xF0));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state + 4), _mm_alignr_epi8(cdgh, abef_in_order, 8));
}

bool cpu_has_sha_extensions() {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_SSE4_1) || !(c & bit_SSSE3)) return false;
  return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_SHA);
}
#endif

}  // namespace

bool Sha256::hardware_accelerated() {
#if SPECTRAL_SHA256_X86
  static const bool has = cpu_has_sha_extensions();
  return has;
#else
  return false;
#endif
}

Sha256::Sha256(Implementation implementation) : compress_(compress_portable) {
#if SPECTRAL_SHA256_X86
  if (implementation == Implementation::kFastest && hardware_accelerated())
    compress_ = compress_sha_extensions;
#else
  (void)implementation;
#endif
  reset();
}

void Sha256::reset() {
  std::memcpy(state_, kInitialState, sizeof(state_));
  buffered_ = 0;
  message_bytes_ = 0;
}

Sha256& Sha256::update(const void* data, size_t size) {
  if (size == 0) return *this;
  auto* bytes = static_cast<const uint8_t*>(data);
  message_bytes_ += size;
  if (buffered_ > 0) {
    size_t take = std::min(size, sizeof(buffer_) - buffered_);
    std::memcpy(buffer_ + buffered_, bytes, take);
    buffered_ += take, bytes += take, size -= take;
    if (buffered_ < sizeof(buffer_)) return *this;
    compress_(state_, buffer_, 1);
    buffered_ = 0;
  }
  compress_(state_, bytes, size / 64);
  bytes += size / 64 * 64;
  buffered_ = size % 64;
  std::memcpy(buffer_, bytes, buffered_);
  return *this;
}

// 5.1.1: append a 1 bit, zeros up to 448 mod 512 bits, then the message
// length in bits as a 64-bit big-endian integer.
Sha256::Digest Sha256::finish() {
  uint64_t bits = message_bytes_ * 8;
  uint8_t padding[72] = {0x80};
  size_t pad = (buffered_ < 56 ? 56 : 120) - buffered_;
  for (int i = 0; i < 8; ++i) padding[pad + i] = uint8_t(bits >> (56 - 8 * i));
  update(padding, pad + 8);
  Digest digest;
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 4; ++j) digest[4 * i + j] = uint8_t(state_[i] >> (24 - 8 * j));
  reset();
  return digest;
}

std::string Sha256::to_hex(const Digest& digest) {
  static const char kHex[] = "0123456789abcdef";
  std::string hex(64, '0');
  for (size_t i = 0; i < digest.size(); ++i) {
    hex[2 * i] = kHex[digest[i] >> 4];
    hex[2 * i + 1] = kHex[digest[i] & 15];
  }
  return hex;
}

}  // namespace spectral
