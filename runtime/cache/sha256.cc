// sha256.cc - SHA-256 through OpenSSL's EVP interface.
#include "runtime/cache/sha256.h"

#include <openssl/evp.h>

#include <cstdio>
#include <cstdlib>
#include <new>

namespace spectral {
namespace {

/// libcrypto fails SHA-256 only without memory, or when broken: neither
/// leaves anything sensible to return.
void check(int ok, const char* what) {
  if (ok == 1) return;
  std::fprintf(stderr, "spectral: OpenSSL's SHA-256 failed in %s\n", what);
  std::abort();
}

}  // namespace

Sha256::Sha256() : context_(EVP_MD_CTX_new()) {
  if (!context_) throw std::bad_alloc();
  check(EVP_DigestInit_ex(context_, EVP_sha256(), nullptr), "EVP_DigestInit_ex");
}

Sha256::~Sha256() { EVP_MD_CTX_free(context_); }

Sha256& Sha256::update(const void* data, size_t size) {
  if (size > 0) check(EVP_DigestUpdate(context_, data, size), "EVP_DigestUpdate");
  return *this;
}

Sha256::Digest Sha256::finish() {
  Digest digest;
  unsigned int length = 0;
  check(EVP_DigestFinal_ex(context_, digest.data(), &length), "EVP_DigestFinal_ex");
  if (length != digest.size()) check(0, "EVP_DigestFinal_ex (digest length)");
  check(EVP_DigestInit_ex(context_, EVP_sha256(), nullptr), "EVP_DigestInit_ex");
  return digest;
}

std::string Sha256::to_hex(const Digest& digest) {
  static const char kDigits[] = "0123456789abcdef";
  std::string hex(2 * digest.size(), '0');
  for (size_t i = 0; i < digest.size(); ++i) {
    hex[2 * i] = kDigits[digest[i] >> 4];
    hex[2 * i + 1] = kDigits[digest[i] & 15];
  }
  return hex;
}

}  // namespace spectral
