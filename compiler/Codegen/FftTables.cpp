//===- FftTables.cpp - constant tables the FFT kernels read ---------------===//
#include "compiler/Codegen/FftTables.h"

#include "compiler/Reference/Transforms.h"

namespace spectral::codegen {
namespace {

/// In-place radix-2 FFT in double (forward), for power-of-two lengths.
void fftPowerOfTwo(std::vector<Complex> &x) {
  int64_t n = x.size();
  for (int64_t i = 1, j = 0; i < n; ++i) { // bit-reversal permutation
    int64_t bit = n >> 1;
    for (; j & bit; bit >>= 1)
      j ^= bit;
    j ^= bit;
    if (i < j)
      std::swap(x[i], x[j]);
  }
  for (int64_t len = 2; len <= n; len *= 2)
    for (int64_t start = 0; start < n; start += len)
      for (int64_t k = 0; k < len / 2; ++k) {
        Complex w = std::conj(reference::unitRoot(k, len));
        Complex a = x[start + k], b = x[start + k + len / 2] * w;
        x[start + k] = a + b;
        x[start + k + len / 2] = a - b;
      }
}

} // namespace

std::vector<Complex> fftTwiddles(int64_t n, int64_t count) {
  std::vector<Complex> out(count);
  for (int64_t m = 0; m < count; ++m)
    out[m] = std::conj(reference::unitRoot(m % n, n));
  return out;
}

int64_t bluesteinLength(int64_t n) {
  int64_t m = 1;
  while (m < 2 * n - 1)
    m *= 2;
  return m;
}

BluesteinTables bluesteinTables(int64_t n, int64_t m, bool forward) {
  BluesteinTables tables;
  tables.m = m;
  tables.chirp.resize(n);
  for (int64_t j = 0; j < n; ++j) {
    // exp(-pi i j^2 / n) = w_(2n)^(j^2 mod 2n): exact angle reduction.
    int64_t square = static_cast<int64_t>((static_cast<__int128>(j) * j) % (2 * n));
    Complex c = std::conj(reference::unitRoot(square, 2 * n));
    tables.chirp[j] = forward ? c : std::conj(c);
  }
  tables.filter.assign(m, Complex(0.0));
  for (int64_t j = 0; j < n; ++j) {
    tables.filter[j] = std::conj(tables.chirp[j]);
    if (j > 0)
      tables.filter[m - j] = std::conj(tables.chirp[j]);
  }
  fftPowerOfTwo(tables.filter);
  for (Complex &f : tables.filter)
    f /= static_cast<double>(m);
  return tables;
}

} // namespace spectral::codegen
