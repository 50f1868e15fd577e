// host_lanes_test.cc - host_lanes.h's moves of lanes (loads and stores of
// pairs, gathers, transposes, reversals) at the width this test is built for.
//
// The kernels are built with -march=native (on this machine AVX: 8 floats or
// 4 doubles a vector) and the phased tests compare them with fibers bit for
// bit; this file is built for the baseline x86-64 (SSE2: 4 floats, 2
// doubles), the widths a machine without AVX runs, which no kernel here does.
#define SPECTRAL_HOST_EMULATION 1
#define __forceinline__ inline __attribute__((always_inline))
#include "kernels_templates/host_lanes.h"

#include <gtest/gtest.h>

namespace {

using spectral_host::wide_lanes;

template <typename T>
class HostLanes : public ::testing::Test {};
using Reals = ::testing::Types<float, double>;
TYPED_TEST_SUITE(HostLanes, Reals);

TYPED_TEST(HostLanes, PairsLoadAndStoreAsLanes) {
  using T = TypeParam;
  constexpr int V = wide_lanes<T>::size;
  T pairs[2 * V], back[2 * V];
  for (int i = 0; i < 2 * V; ++i) pairs[i] = T(i + 1) * T(i % 2 ? -1 : 1);
  wide_lanes<T> re, im;
  spectral_host::load_pairs(pairs, re, im);
  for (int l = 0; l < V; ++l) {
    EXPECT_EQ(re[l], pairs[2 * l]) << l;
    EXPECT_EQ(im[l], pairs[2 * l + 1]) << l;
  }
  spectral_host::store_pairs(back, re, im);
  for (int i = 0; i < 2 * V; ++i) EXPECT_EQ(back[i], pairs[i]) << i;
}

TYPED_TEST(HostLanes, GatherTakesEachLanesPair) {
  using T = TypeParam;
  constexpr int V = wide_lanes<T>::size;
  T table[64];
  for (int i = 0; i < 64; ++i) table[i] = T(100 + i);
  const T* at[V];
  for (int l = 0; l < V; ++l) at[l] = &table[2 * ((7 * l + 3) % 32)];  // pairs out of order
  wide_lanes<T> re, im;
  spectral_host::gather_pairs(at, re, im);
  for (int l = 0; l < V; ++l) {
    EXPECT_EQ(re[l], at[l][0]) << l;
    EXPECT_EQ(im[l], at[l][1]) << l;
  }
}

TYPED_TEST(HostLanes, TransposeTurnsLanesIntoRows) {
  using T = TypeParam;
  constexpr int V = wide_lanes<T>::size;
  wide_lanes<T> rows[V];
  for (int r = 0; r < V; ++r)
    for (int l = 0; l < V; ++l) rows[r][l] = T(10 * r + l);
  spectral_host::transpose(rows);
  for (int r = 0; r < V; ++r)
    for (int l = 0; l < V; ++l) EXPECT_EQ(rows[r][l], T(10 * l + r)) << r << ", " << l;
}

TYPED_TEST(HostLanes, ReversedTurnsTheLanesAround) {
  using T = TypeParam;
  constexpr int V = wide_lanes<T>::size;
  wide_lanes<T> a;
  for (int l = 0; l < V; ++l) a[l] = T(l + 1);
  const wide_lanes<T> r = spectral_host::reversed(a);
  for (int l = 0; l < V; ++l) EXPECT_EQ(r[l], T(V - l)) << l;
}

}  // namespace
