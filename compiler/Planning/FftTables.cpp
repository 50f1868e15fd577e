//===- FftTables.cpp - constant tables the FFT kernels read ---------------===//
#include "compiler/Planning/FftTables.h"

#include "compiler/Reference/Transforms.h"

#include <algorithm>

namespace spectral::planning {
namespace {

/// In-place radix-2 FFT in double (forward), for power-of-two lengths; the
/// roots of every stage come from one table of w_n^k, k < n/2.
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
  std::vector<Complex> roots(n / 2);
  for (int64_t k = 0; k < n / 2; ++k)
    roots[k] = std::conj(reference::unitRoot(k, n));
  for (int64_t len = 2; len <= n; len *= 2)
    for (int64_t start = 0; start < n; start += len)
      for (int64_t k = 0; k < len / 2; ++k) {
        Complex w = roots[k * (n / len)];
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

std::vector<int> stockhamRadices(int64_t n) {
  std::vector<int> radices;
  while (n % 8 == 0 && n > 1) {
    radices.push_back(8);
    n /= 8;
  }
  for (int r : {4, 2})
    if (n % r == 0) {
      radices.push_back(r);
      n /= r;
      break;
    }
  for (int r : {3, 5, 7})
    for (; n % r == 0; n /= r)
      radices.push_back(r);
  return n == 1 ? radices : std::vector<int>{};
}

bool hasStockhamPlan(int64_t n) { return n == 1 || !stockhamRadices(n).empty(); }

int64_t stockhamThreads(int64_t n) {
  int largest = 1;
  for (int r : stockhamRadices(n))
    largest = std::max(largest, r);
  return std::min<int64_t>(n / largest, 512);
}

int64_t bluesteinThreads(int64_t m) { return std::min<int64_t>(stockhamThreads(m), 256); }

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

} // namespace spectral::planning
