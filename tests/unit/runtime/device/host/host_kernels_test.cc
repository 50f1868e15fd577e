// host_kernels_test.cc - real CUDA kernels on HostDevice, checked against
// values computed here.
#include "tests/unit/runtime/device/host/host_test_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

namespace spectral::testing {
namespace {

std::vector<float> random_floats(size_t n, float low, float high, unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> distribution(low, high);
  std::vector<float> values(n);
  for (float& v : values) v = distribution(generator);
  return values;
}

TEST(HostKernels, GridStrideSaxpyOver2DGridAnd2DBlocks) {
  auto kernel = load_kernel("saxpy_2d.cu", "saxpy_2d");
  ASSERT_TRUE(kernel);
  int n = 100003;
  float a = 2.5f;
  const std::vector<float> x = random_floats(size_t(n), -1, 1, 1), y0 = random_floats(size_t(n), -1, 1, 2);
  DeviceBuffer<float> dx(x), dy(y0);
  launch(*kernel, {7, 5, 1}, {16, 8, 1}, {&n, &a, &dx.get(), &dy.get()});
  const std::vector<float> y = dy.read();
  for (int i = 0; i < n; ++i) ASSERT_FLOAT_EQ(y[size_t(i)], a * x[size_t(i)] + y0[size_t(i)]) << i;
}

TEST(HostKernels, BlockReductionInStaticSharedMemoryOverTenThousandBlocks) {
  auto kernel = load_kernel("block_reduce.cu", "block_reduce");
  ASSERT_TRUE(kernel);
  const unsigned blocks = 10000;
  int n = int(blocks * 256 - 77);
  const std::vector<float> in = random_floats(size_t(n), -1, 1, 3);
  DeviceBuffer<float> din(in), dout(blocks);
  launch(*kernel, {blocks, 1, 1}, {256, 1, 1}, {&din.get(), &dout.get(), &n});
  const std::vector<float> out = dout.read();
  for (unsigned b = 0; b < blocks; ++b) {
    double expected = 0;
    for (int i = int(b * 256); i < int(b * 256 + 256) && i < n; ++i) expected += in[size_t(i)];
    ASSERT_NEAR(out[b], expected, 1e-4) << "block " << b;
  }
}

TEST(HostKernels, DynamicSharedMemoryAndSyncthreadsCount) {
  auto kernel = load_kernel("dynamic_shared.cu", "reverse_segments");
  ASSERT_TRUE(kernel);
  const unsigned blocks = 50, threads = 128;
  const std::vector<float> in = random_floats(blocks * threads, -1, 1, 4);
  DeviceBuffer<float> din(in), dout(blocks * threads);
  DeviceBuffer<int> dpositives(blocks);
  launch(*kernel, {blocks, 1, 1}, {threads, 1, 1},
         {&din.get(), &dout.get(), &dpositives.get()}, threads * sizeof(float));
  const std::vector<float> out = dout.read();
  const std::vector<int> positives = dpositives.read();
  for (unsigned b = 0; b < blocks; ++b) {
    int expected_positives = 0;
    for (unsigned t = 0; t < threads; ++t) {
      ASSERT_EQ(out[b * threads + t], in[b * threads + threads - 1 - t]);
      expected_positives += in[b * threads + t] > 0.0f;
    }
    EXPECT_EQ(positives[b], expected_positives) << "block " << b;
  }
}

TEST(HostKernels, WarpShuffleReductionsScanAndBroadcast) {
  auto kernel = load_kernel("warp_shuffle.cu", "warp_shuffle");
  ASSERT_TRUE(kernel);
  const unsigned blocks = 4, threads = 256, n = blocks * threads;
  const std::vector<float> in = random_floats(n, -1, 1, 5);
  DeviceBuffer<float> din(in), ddown(n / 32), dxor(n), dbroadcast(n);
  DeviceBuffer<int> dscan(n);
  launch(*kernel, {blocks, 1, 1}, {threads, 1, 1},
         {&din.get(), &ddown.get(), &dxor.get(), &dscan.get(), &dbroadcast.get()});
  const std::vector<float> down = ddown.read(), butterfly = dxor.read(), broadcast = dbroadcast.read();
  const std::vector<int> scan = dscan.read();
  for (unsigned w = 0; w < n / 32; ++w) {
    double sum = 0;
    for (unsigned l = 0; l < 32; ++l) sum += in[w * 32 + l];
    EXPECT_NEAR(down[w], sum, 1e-5) << "warp " << w;
    for (unsigned l = 0; l < 32; ++l) {
      const unsigned i = w * 32 + l;
      EXPECT_NEAR(butterfly[i], sum, 1e-5) << "thread " << i;
      EXPECT_EQ(scan[i], int((l + 1) * (l + 2) / 2)) << "thread " << i;
      EXPECT_EQ(broadcast[i], in[w * 32 + 7]) << "thread " << i;
    }
  }
}

TEST(HostKernels, BallotAnyAndAll) {
  auto kernel = load_kernel("ballot.cu", "ballot");
  ASSERT_TRUE(kernel);
  const unsigned threads = 128, warps = threads / 32;
  std::vector<float> in(threads);
  for (unsigned i = 0; i < threads; ++i) {
    const unsigned warp = i / 32, lane = i % 32;
    in[i] = warp == 0 ? 1.0f : warp == 1 ? -1.0f : (lane % 3 == 0 ? 1.0f : -1.0f);
  }
  DeviceBuffer<float> din(in);
  DeviceBuffer<unsigned int> dballots(warps);
  DeviceBuffer<int> dany(warps), dall(warps);
  launch(*kernel, {1, 1, 1}, {threads, 1, 1}, {&din.get(), &dballots.get(), &dany.get(), &dall.get()});
  const std::vector<unsigned int> ballots = dballots.read();
  const std::vector<int> any = dany.read(), all = dall.read();
  for (unsigned w = 0; w < warps; ++w) {
    unsigned expected = 0;
    for (unsigned l = 0; l < 32; ++l) expected |= (in[w * 32 + l] > 0.0f ? 1u : 0u) << l;
    EXPECT_EQ(ballots[w], expected) << "warp " << w;
    EXPECT_EQ(any[w], expected != 0) << "warp " << w;
    EXPECT_EQ(all[w], expected == ~0u) << "warp " << w;
  }
}

TEST(HostKernels, AtomicHistogramAcrossManyBlocks) {
  auto kernel = load_kernel("histogram.cu", "histogram");
  ASSERT_TRUE(kernel);
  int n = 1000000;
  const int bins = 64;
  std::mt19937 generator(6);
  std::vector<int> bin(size_t(n), 0);
  std::vector<float> values(size_t(n), 0.0f);
  std::vector<int> expected_counts(bins, 0);
  std::vector<float> expected_sums(bins, 0.0f);  // small integers: exact in any order
  for (int i = 0; i < n; ++i) {
    bin[size_t(i)] = int(generator() % bins);
    values[size_t(i)] = float(generator() % 8);
    ++expected_counts[size_t(bin[size_t(i)])];
    expected_sums[size_t(bin[size_t(i)])] += values[size_t(i)];
  }
  DeviceBuffer<int> dbins(bin), dcounts(std::vector<int>(bins, 0));
  DeviceBuffer<float> dvalues(values), dsums(std::vector<float>(bins, 0.0f));
  DeviceBuffer<double> ddouble_sums(std::vector<double>(bins, 0.0));
  DeviceBuffer<unsigned int> dmax(std::vector<unsigned int>(1, 0));
  launch(*kernel, {1000, 1, 1}, {256, 1, 1},
         {&dbins.get(), &dvalues.get(), &n, &dcounts.get(), &dsums.get(), &ddouble_sums.get(),
          &dmax.get()});
  const std::vector<int> counts = dcounts.read();
  const std::vector<float> sums = dsums.read();
  const std::vector<double> double_sums = ddouble_sums.read();
  for (int b = 0; b < bins; ++b) {
    EXPECT_EQ(counts[size_t(b)], expected_counts[size_t(b)]) << "bin " << b;
    EXPECT_EQ(sums[size_t(b)], expected_sums[size_t(b)]) << "bin " << b;
    EXPECT_EQ(double_sums[size_t(b)], double(expected_sums[size_t(b)])) << "bin " << b;
  }
  EXPECT_EQ(dmax.read()[0], unsigned(bins - 1));
}

TEST(HostKernels, ThreadsReturningBeforeABarrierCountAsArrived) {
  auto kernel = load_kernel("early_exit.cu", "early_exit");
  ASSERT_TRUE(kernel);
  const unsigned blocks = 20;
  const std::vector<float> in = random_floats(blocks * 256, -1, 1, 7);
  for (int active : {100, 256, 1, 33}) {
    DeviceBuffer<float> din(in), dsums(blocks);
    DeviceBuffer<unsigned int> dballots(std::vector<unsigned int>(blocks * 8, 0xdeadbeefu));
    launch(*kernel, {blocks, 1, 1}, {256, 1, 1}, {&din.get(), &active, &dsums.get(), &dballots.get()});
    const std::vector<float> sums = dsums.read();
    const std::vector<unsigned int> ballots = dballots.read();
    for (unsigned b = 0; b < blocks; ++b) {
      double expected = 0;
      for (int t = 0; t < active; ++t) expected += in[b * 256 + unsigned(t)];
      EXPECT_NEAR(sums[b], expected, 1e-4) << "active " << active << " block " << b;
      for (unsigned w = 0; w < 8; ++w) {
        unsigned want = 0xdeadbeefu;
        if (int(w * 32) < active) {
          want = 0;
          for (unsigned l = 0; l < 32 && int(w * 32 + l) < active; ++l)
            want |= (in[b * 256 + w * 32 + l] > 0.0f ? 1u : 0u) << l;
        }
        EXPECT_EQ(ballots[b * 8 + w], want) << "active " << active << " block " << b << " warp " << w;
      }
    }
  }
}

TEST(HostKernels, WarpRoundsWithDifferentMasksInterleave) {
  auto kernel = load_kernel("warp_masks.cu", "warp_masks");
  ASSERT_TRUE(kernel);
  const unsigned blocks = 2, threads = 96;
  DeviceBuffer<int> dout(blocks * threads);
  launch(*kernel, {blocks, 1, 1}, {threads, 1, 1}, {&dout.get()});
  const std::vector<int> out = dout.read();
  for (unsigned t = 0; t < blocks * threads; ++t) {
    const int lane = int(t % 32);
    int expected = lane == 0 ? 0 : (lane - 1) * 10;
    if (lane < 16) expected += 1000 * ((lane + 1) % 16 + 100) + 1000000 * ((lane + 2) % 16 + 200);
    EXPECT_EQ(out[t], expected) << "thread " << t;
  }
}

TEST(HostKernels, ActiveMaskNamesTheLanesThatReachItTogether) {
  auto kernel = load_kernel("active_mask.cu", "active_mask");
  ASSERT_TRUE(kernel);
  int active = 40;
  DeviceBuffer<unsigned int> dout(std::vector<unsigned int>(128, 7u));
  launch(*kernel, {1, 1, 1}, {64, 1, 1}, {&dout.get(), &active});
  const std::vector<unsigned int> out = dout.read();
  for (unsigned t = 0; t < 64; ++t) {
    const unsigned all = t < 32 ? ~0u : 0xffu, even = t < 32 ? 0x55555555u : 0x55u;
    EXPECT_EQ(out[t], t < 40 ? all : 7u) << "thread " << t;
    EXPECT_EQ(out[64 + t], t < 40 && t % 2 == 0 ? even : 7u) << "thread " << t;
  }
}

void check_thread_index(const std::string& entry, Dim3 grid, Dim3 block) {
  auto kernel = load_kernel("thread_index.cu", entry);
  ASSERT_TRUE(kernel);
  const unsigned blocks = grid.x * grid.y * grid.z, per_block = block.x * block.y * block.z;
  DeviceBuffer<unsigned int> dout(blocks * per_block);
  launch(*kernel, grid, block, {&dout.get()});
  const std::vector<unsigned int> out = dout.read();
  for (unsigned b = 0; b < blocks; ++b) {
    for (unsigned t = 0; t < per_block; ++t) {
      ASSERT_EQ(out[b * per_block + t], b * 100000u + t) << entry << " block " << b << " thread " << t;
    }
  }
}

TEST(HostKernels, ThreeDimensionalIndicesUpTo1024Threads) {
  for (const char* entry : {"thread_index", "thread_index_synced"}) {
    check_thread_index(entry, {3, 2, 2}, {1024, 1, 1});
    check_thread_index(entry, {3, 2, 2}, {8, 8, 16});
    check_thread_index(entry, {2, 3, 1}, {5, 3, 7});
  }
}

TEST(HostKernels, MathAndBitIntrinsics) {
  auto kernel = load_kernel("math.cu", "math_functions");
  ASSERT_TRUE(kernel);
  const std::vector<float> x = {0.0f, 0.25f, 0.5f, 1.0f / 3.0f, -3.5f, 12345.25f, 1e6f + 0.5f,
                                 -7.75f, 1.0f, 2.0f, 33554432.0f, 0.1f};
  int n = int(x.size());
  DeviceBuffer<float> dx(x), dfloat(4 * x.size());
  DeviceBuffer<double> ddouble(2 * x.size());
  DeviceBuffer<unsigned int> dbits(3 * x.size());
  launch(*kernel, {1, 1, 1}, {32, 1, 1}, {&dx.get(), &dfloat.get(), &ddouble.get(), &dbits.get(), &n});
  const std::vector<float> f = dfloat.read();
  const std::vector<double> d = ddouble.read();
  const std::vector<unsigned int> bits = dbits.read();
  for (size_t i = 0; i < x.size(); ++i) {
    // Reference: exact reduction modulo 2, then long double.
    const long double r = std::fmod((long double)x[i], 2.0L);
    const long double pi = 3.141592653589793238462643383279502884L;
    const double s = double(std::sin(pi * r)), c = double(std::cos(pi * r));
    EXPECT_NEAR(f[4 * i], s, 1e-7) << "sinpif(" << x[i] << ")";
    EXPECT_NEAR(f[4 * i + 1], c, 1e-7) << "cospif(" << x[i] << ")";
    EXPECT_NEAR(d[2 * i], s, 1e-15) << "sinpi(" << x[i] << ")";
    EXPECT_NEAR(d[2 * i + 1], c, 1e-15) << "cospi(" << x[i] << ")";
    EXPECT_FLOAT_EQ(f[4 * i + 2], std::exp(x[i] * 0.001f) / 0.5f) << x[i];
    EXPECT_FLOAT_EQ(f[4 * i + 3], (2.0f * x[i] - x[i]) + (x[i] * x[i] + 2.0f)) << x[i];
    uint32_t b;
    std::memcpy(&b, &x[i], 4);
    uint32_t reversed = 0;
    for (int k = 0; k < 32; ++k) reversed |= ((b >> k) & 1u) << (31 - k);
    EXPECT_EQ(bits[3 * i], unsigned(__builtin_popcount(b)));
    EXPECT_EQ(bits[3 * i + 1], reversed);
    EXPECT_EQ(bits[3 * i + 2], (b == 0 ? 32u : unsigned(__builtin_clz(b))) + 100u * unsigned(__builtin_ffs(int(b))));
  }
}

}  // namespace
}  // namespace spectral::testing
