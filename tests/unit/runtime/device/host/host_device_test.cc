// host_device_test.cc - memory, loading, the cache, launch checks and misuse.
// One file past 600 lines: its tests share the units and helpers above them
// (the phased units, the environment guards), which a split would repeat.
#include "runtime/cache/kernel_cache.h"
#include "runtime/device/host/fiber_stacks.h"
#include "runtime/device/host/host_compiler.h"
#include "runtime/device/host/host_device.h"
#include "runtime/device/host/host_pool.h"
#include "runtime/kernels/embedded_templates.h"
#include "tests/unit/runtime/device/host/host_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace spectral::testing {
namespace {

TEST(HostDevice, NameSaysHostAndThreads) {
  EXPECT_EQ(host_device().name().rfind("host (", 0), 0u) << host_device().name();
}

TEST(HostDevice, AllocationsAreAlignedAndTracked) {
  StatusOr<void*> a = host_device().allocate(1000), empty = host_device().allocate(0);
  ASSERT_TRUE(a.is_ok() && empty.is_ok());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(*a) % 256, 0u);
  EXPECT_NE(*empty, nullptr);
  EXPECT_TRUE(host_device().release(*a).is_ok());
  Status twice = host_device().release(*a);
  EXPECT_FALSE(twice.is_ok());
  EXPECT_NE(twice.message().find("did not allocate"), std::string::npos) << twice.message();
  EXPECT_TRUE(host_device().release(*empty).is_ok());
  EXPECT_TRUE(host_device().release(nullptr).is_ok());
  EXPECT_TRUE(host_device().synchronize().is_ok());
}

/// SPECTRAL_DEVICE_MEMORY_LIMIT caps the bytes the host device has allocated,
/// as it does a GPU's; what is released counts no longer.
TEST(HostDevice, AllocationPastTheMemoryLimitIsRefused) {
  setenv("SPECTRAL_DEVICE_MEMORY_LIMIT", "1M", 1);
  StatusOr<std::unique_ptr<HostDevice>> limited = HostDevice::create();
  setenv("SPECTRAL_DEVICE_MEMORY_LIMIT", "lots", 1);
  StatusOr<std::unique_ptr<HostDevice>> invalid = HostDevice::create();
  unsetenv("SPECTRAL_DEVICE_MEMORY_LIMIT");
  ASSERT_TRUE(limited) << limited.status().message();
  ASSERT_FALSE(invalid);
  EXPECT_NE(invalid.status().message().find("SPECTRAL_DEVICE_MEMORY_LIMIT: invalid memory size 'lots'"),
            std::string::npos) << invalid.status().message();

  HostDevice& device = **limited;
  EXPECT_EQ(device.memory_stats().limit_bytes, 1u << 20);
  StatusOr<void*> first = device.allocate(768 << 10), small = device.allocate(1000);
  ASSERT_TRUE(first && small);
  StatusOr<void*> second = device.allocate(512 << 10);
  ASSERT_FALSE(second);
  const std::string& message = second.status().message();
  EXPECT_NE(message.find("allocating 524288 bytes with 787432 bytes in use would pass the limit "
                         "of 1048576 bytes (SPECTRAL_DEVICE_MEMORY_LIMIT) on host ("),
            std::string::npos) << message;
  StatusOr<void*> rest = device.allocate((256 << 10) - 1000);  // up to the limit exactly
  ASSERT_TRUE(rest) << rest.status().message();
  EXPECT_FALSE(device.allocate(1));
  StatusOr<void*> none = device.allocate(0);  // nothing more: still a pointer
  ASSERT_TRUE(none) << none.status().message();
  DeviceMemoryStats full = device.memory_stats();
  EXPECT_EQ(full.in_use_bytes, 1u << 20);
  EXPECT_EQ(full.live_allocations, 4u);

  ASSERT_TRUE(device.release(*first).is_ok());
  StatusOr<void*> again = device.allocate(512 << 10);
  ASSERT_TRUE(again) << again.status().message();
  for (void* pointer : {*small, *rest, *none, *again})
    EXPECT_TRUE(device.release(pointer).is_ok());
  DeviceMemoryStats after = device.memory_stats();
  EXPECT_EQ(after.in_use_bytes, 0u);
  EXPECT_EQ(after.peak_bytes, 1u << 20);
  EXPECT_EQ(after.live_allocations, 0u);
  EXPECT_EQ(after.total_allocations, 5u);
}

TEST(HostDevice, SecondLoadOfTheSameSourceIsACacheHit) {
  const KernelCache::Options& options = KernelCache::global().options();
  EXPECT_NE(options.directory.find("spectral-host-tests-"), std::string::npos)
      << "the test main should point SPECTRAL_CACHE_DIR at a temporary directory";
  const CacheStats before = KernelCache::global().stats();
  const KernelSource source{kernel_file("saxpy_2d.cu") + "\n// cache test\n", "saxpy_2d"};
  StatusOr<std::shared_ptr<Kernel>> first = host_device().load(source);
  ASSERT_TRUE(first.is_ok()) << first.status().message();
  const CacheStats middle = KernelCache::global().stats();
  EXPECT_EQ(middle.misses, before.misses + 1);
  StatusOr<std::shared_ptr<Kernel>> second = host_device().load(source);
  ASSERT_TRUE(second.is_ok()) << second.status().message();
  const CacheStats after = KernelCache::global().stats();
  EXPECT_EQ(after.misses, middle.misses);
  EXPECT_EQ(after.memory_hits, middle.memory_hits + 1);
  // Both loads run.
  int n = 3;
  float a = 2.0f;
  DeviceBuffer<float> x(std::vector<float>{1, 2, 3}), y(std::vector<float>{1, 1, 1});
  launch(**first, {1, 1, 1}, {32, 1, 1}, {&n, &a, &x.get(), &y.get()});
  launch(**second, {1, 1, 1}, {32, 1, 1}, {&n, &a, &x.get(), &y.get()});
  EXPECT_EQ(y.read(), (std::vector<float>{5, 9, 13}));
}

TEST(HostDevice, CompileErrorReportsCompilerOutputAndKeptSource) {
  const KernelSource source{
      "extern \"C\" __global__ void broken(int* p) { p[threadIdx.x] = no_such_name; }\n", "broken"};
  StatusOr<std::shared_ptr<Kernel>> kernel = host_device().load(source);
  ASSERT_FALSE(kernel.is_ok());
  const std::string& message = kernel.status().message();
  EXPECT_NE(message.find("no_such_name"), std::string::npos) << message;
  EXPECT_NE(message.find("error"), std::string::npos) << message;
  const std::string marker = "source kept at ";
  const size_t at = message.find(marker);
  ASSERT_NE(at, std::string::npos) << message;
  const std::string path = message.substr(at + marker.size(), message.find('\n', at) - at - marker.size());
  std::ifstream kept(path);
  ASSERT_TRUE(kept.good()) << path;
  std::ostringstream text;
  text << kept.rdbuf();
  EXPECT_NE(text.str().find("no_such_name"), std::string::npos);
  std::error_code ignored;
  std::filesystem::remove_all(std::filesystem::path(path).parent_path(), ignored);
}

TEST(HostDevice, EntryMustBeAnIdentifierDefinedByTheUnit) {
  StatusOr<std::shared_ptr<Kernel>> bad = host_device().load({"", "not an identifier"});
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.status().message().find("not a C identifier"), std::string::npos);
  StatusOr<std::shared_ptr<Kernel>> missing =
      host_device().load({kernel_file("saxpy_2d.cu"), "no_such_kernel"});
  ASSERT_FALSE(missing.is_ok());
  EXPECT_NE(missing.status().message().find("no_such_kernel"), std::string::npos)
      << missing.status().message();
  std::error_code ignored;  // the kept source of the failed compile
  const std::string& message = missing.status().message();
  const size_t at = message.find("source kept at ");
  if (at != std::string::npos) {
    const std::string path = message.substr(at + 15, message.find('\n', at) - at - 15);
    std::filesystem::remove_all(std::filesystem::path(path).parent_path(), ignored);
  }
}

TEST(HostDevice, LaunchConfigurationIsChecked) {
  auto kernel = load_kernel("thread_index.cu", "thread_index");
  ASSERT_TRUE(kernel);
  unsigned int* out = nullptr;
  void* args[] = {&out};
  for (auto [grid, block, shared] :
       {std::tuple<Dim3, Dim3, size_t>{{1, 1, 1}, {1025, 1, 1}, 0},
        {{1, 1, 1}, {32, 32, 2}, 0},
        {{1, 1, 1}, {1, 1, 65}, 0},
        {{0, 1, 1}, {32, 1, 1}, 0},
        {{1, 65536, 1}, {32, 1, 1}, 0},
        {{1, 1, 1}, {32, 1, 1}, HostDevice::kMaxDynamicSharedBytes + 1}}) {
    Status status = host_device().launch(*kernel, grid, block, shared, args);
    EXPECT_FALSE(status.is_ok());
    EXPECT_NE(status.message().find("thread_index"), std::string::npos) << status.message();
  }
}

TEST(HostDevice, BarrierNotReachedByAllThreadsIsADeadlockError) {
  auto kernel = load_kernel("misuse.cu", "divergent_barrier");
  ASSERT_TRUE(kernel);
  DeviceBuffer<int> out(64);
  void* args[] = {&out.get()};
  Status status = host_device().launch(*kernel, {2, 1, 1}, {64, 1, 1}, 0, args);
  ASSERT_FALSE(status.is_ok());
  EXPECT_NE(status.message().find("deadlock"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("divergent_barrier"), std::string::npos) << status.message();
  // Where the threads wait: thread 0 at its __syncthreads, the rest at __syncwarp.
  EXPECT_NE(status.message().find("divergent_barrier.cu:4"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("divergent_barrier.cu:6"), std::string::npos) << status.message();
  // The pool and the device are still usable.
  auto good = load_kernel("block_reduce.cu", "block_reduce");
  ASSERT_TRUE(good);
  int n = 256;
  DeviceBuffer<float> in(std::vector<float>(256, 1.0f)), sum(1);
  launch(*good, {1, 1, 1}, {256, 1, 1}, {&in.get(), &sum.get(), &n});
  EXPECT_EQ(sum.read()[0], 256.0f);
}

TEST(HostDevice, TrapNamesBlockAndThreadWithAndWithoutFibers) {
  // Alone the trap kernel has no barrier (threads run as a loop); with the
  // misuse kernels in the same unit it runs on fibers.
  for (const std::string& source :
       {kernel_file("trap.cu"), kernel_file("trap.cu") + kernel_file("misuse.cu")}) {
    StatusOr<std::shared_ptr<Kernel>> kernel = host_device().load({source, "trap_in_block"});
    ASSERT_TRUE(kernel.is_ok()) << kernel.status().message();
    DeviceBuffer<int> out(8 * 64);
    int bad_block = 3, bad_thread = 5;
    void* args[] = {&out.get(), &bad_block, &bad_thread};
    Status status = host_device().launch(**kernel, {8, 1, 1}, {64, 1, 1}, 0, args);
    ASSERT_FALSE(status.is_ok());
    EXPECT_NE(status.message().find("__trap"), std::string::npos) << status.message();
    EXPECT_NE(status.message().find("block (3,0,0)"), std::string::npos) << status.message();
    EXPECT_NE(status.message().find("thread (5,0,0)"), std::string::npos) << status.message();
  }
}

TEST(HostDevice, LaunchesFromSeveralThreadsAtOnce) {
  auto kernel = load_kernel("block_reduce.cu", "block_reduce");
  ASSERT_TRUE(kernel);
  auto run = [&](float value, bool* ok) {
    int n = 64 * 256;
    DeviceBuffer<float> in(std::vector<float>(size_t(n), value)), sums(64);
    for (int repeat = 0; repeat < 20; ++repeat) {
      void* args[] = {&in.get(), &sums.get(), &n};
      *ok = *ok && host_device().launch(*kernel, {64, 1, 1}, {256, 1, 1}, 0, args).is_ok();
      for (float s : sums.read()) *ok = *ok && s == 256.0f * value;
    }
  };
  bool ok1 = true, ok2 = true;
  std::thread other(run, 2.0f, &ok2);
  run(1.0f, &ok1);
  other.join();
  EXPECT_TRUE(ok1);
  EXPECT_TRUE(ok2);
}

TEST(HostDevice, StackSizeFromTheEnvironment) {
  size_t bytes = 0;
  std::string error;
  for (auto [text, expected] : {std::pair<const char*, size_t>{"", 64 * 1024},
                                {"131072", 131072},
                                {"96K", 96 * 1024},
                                {"2M", 2 * 1024 * 1024}}) {
    setenv("SPECTRAL_HOST_STACK_SIZE", text, 1);
    EXPECT_TRUE(host::fiber_stack_bytes_from_environment(&bytes, &error)) << text << ": " << error;
    EXPECT_EQ(bytes, expected) << text;
  }
  for (const char* text : {"12K", "lots", "64Q", "5G"}) {
    setenv("SPECTRAL_HOST_STACK_SIZE", text, 1);
    EXPECT_FALSE(host::fiber_stack_bytes_from_environment(&bytes, &error)) << text;
    EXPECT_NE(error.find("SPECTRAL_HOST_STACK_SIZE"), std::string::npos) << error;
  }
  unsetenv("SPECTRAL_HOST_STACK_SIZE");
}

/// Loads a kernel in a fresh process (a "threadsafe" death test re-executes
/// the test binary) with the compiler and cache directory of `dir`.
void load_in_fresh_process(const std::string& dir) {
  setenv("SPECTRAL_HOST_CXX", (dir + "/cxx.sh").c_str(), 1);
  setenv("SPECTRAL_CACHE_DIR", (dir + "/cache").c_str(), 1);
  StatusOr<std::unique_ptr<HostDevice>> device = HostDevice::create();
  if (!device) std::exit(2);
  std::exit((*device)->load({kernel_file("saxpy_2d.cu"), "saxpy_2d"}) ? 0 : 1);
}

int lines_of(const std::string& path) {
  std::ifstream in(path);
  int count = 0;
  for (std::string line; std::getline(in, line);) ++count;
  return count;
}

TEST(HostDeviceDeathTest, WarmCacheStartsNoCompilerProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // The re-executed child runs this body again: it must find the same folder.
  const char* shared = std::getenv("SPECTRAL_TEST_WARM_CACHE_DIR");
  std::string dir = shared ? shared : "";
  if (dir.empty()) {
    dir = std::filesystem::temp_directory_path().string() + "/spectral-warm-XXXXXX";
    ASSERT_NE(mkdtemp(dir.data()), nullptr);
    setenv("SPECTRAL_TEST_WARM_CACHE_DIR", dir.c_str(), 1);
    // A compiler that logs every start, then runs the system's.
    std::ofstream script(dir + "/cxx.sh");
    script << "#!/bin/sh\necho started >> '" << dir << "/starts.log'\nexec c++ \"$@\"\n";
    script.close();
    std::filesystem::permissions(dir + "/cxx.sh", std::filesystem::perms::owner_all);
  }
  EXPECT_EXIT(load_in_fresh_process(dir), ::testing::ExitedWithCode(0), "");
  EXPECT_EQ(lines_of(dir + "/starts.log"), 1) << "the cold load compiles once";
  EXPECT_EXIT(load_in_fresh_process(dir), ::testing::ExitedWithCode(0), "");
  EXPECT_EQ(lines_of(dir + "/starts.log"), 1) << "a warm load starts no compiler process";
  unsetenv("SPECTRAL_TEST_WARM_CACHE_DIR");
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
}

TEST(HostDevice, MissingCompilerIsAClearError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("SPECTRAL_HOST_CXX", "no-such-compiler-spectral", 1);
        StatusOr<host::HostCompiler> compiler = host::host_compiler();
        std::fprintf(stderr, "%s\n", compiler ? "found" : compiler.status().message().c_str());
        std::exit(compiler ? 0 : 1);
      },
      ::testing::ExitedWithCode(1), "not found on PATH .*SPECTRAL_HOST_CXX");
  // A path is not searched: a file without execute permission is named so.
  const std::string script = ::testing::TempDir() + "spectral-not-executable-cxx.sh";
  std::FILE* file = std::fopen(script.c_str(), "w");
  ASSERT_NE(file, nullptr);
  std::fputs("#!/bin/sh\nexec c++ \"$@\"\n", file);
  std::fclose(file);
  EXPECT_EXIT(
      {
        setenv("SPECTRAL_HOST_CXX", script.c_str(), 1);
        StatusOr<host::HostCompiler> compiler = host::host_compiler();
        std::fprintf(stderr, "%s\n", compiler ? "found" : compiler.status().message().c_str());
        std::exit(compiler ? 0 : 1);
      },
      ::testing::ExitedWithCode(1), "is not an executable file .*SPECTRAL_HOST_CXX");
  std::remove(script.c_str());
}

TEST(HostDevice, EmbeddedTemplatesAreFoundAndMaterialized) {
  const std::string* emulation = find_template("host_emulation.h");
  ASSERT_NE(emulation, nullptr);
  EXPECT_NE(emulation->find("SPECTRAL_HOST_ENTRY"), std::string::npos);
  ASSERT_NE(find_template("common.cuh"), nullptr);
  ASSERT_NE(find_template("host_abi.h"), nullptr);
  EXPECT_EQ(find_template("no_such_template.cuh"), nullptr);
  EXPECT_EQ(templates_digest().size(), 64u);
  StatusOr<std::string> dir = materialized_templates_dir();
  ASSERT_TRUE(dir.is_ok()) << dir.status().message();
  EXPECT_EQ(*materialized_templates_dir(), *dir);  // once per process
  for (const EmbeddedFile& file : embedded_templates()) {
    std::ifstream in(*dir + "/" + file.name, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    EXPECT_EQ(text.str(), file.content) << file.name;
  }
}


// A unit saying SPECTRAL_HOST_PHASED, with a template of its own in both
// forms: per thread (with a barrier), and phased (the block in one call).
// `calls` counts the kernel's calls; `out[i]` gets thread i's value reversed
// within its block.
constexpr const char* kPhasedUnit = R"(
template <typename T>
__device__ void reverse_block(const T* in, T* out) {
  const int base = blockIdx.x * blockDim.x, n = blockDim.x;
#if defined(SPECTRAL_HOST_EMULATION)
  if (::spectral_host::take_whole_block()) {
    for (int t = 0; t < n; ++t) out[base + t] = in[base + n - 1 - t];
    return;
  }
#endif
  T value = in[base + n - 1 - threadIdx.x];
  __syncthreads();
  out[base + threadIdx.x] = value;
}
SPECTRAL_HOST_PHASED;
extern "C" __global__ void phased_reverse(const float* in, float* out, int* calls) {
  atomicAdd(calls, 1);
  reverse_block(in, out);
}
)";

/// Runs phased_reverse over 3 blocks of 64 on `device`: the kernel's calls.
int phased_reverse_calls(HostDevice& device) {
  StatusOr<std::shared_ptr<Kernel>> kernel = device.load({kPhasedUnit, "phased_reverse"});
  EXPECT_TRUE(kernel.is_ok()) << kernel.status().message();
  if (!kernel) return -1;
  std::vector<float> values(192);
  for (size_t i = 0; i < values.size(); ++i) values[i] = float(i);
  void* in = *device.allocate(values.size() * 4);
  void* out = *device.allocate(values.size() * 4);
  void* calls = *device.allocate(4);
  EXPECT_TRUE(device.copy_to_device(in, values.data(), values.size() * 4).is_ok());
  EXPECT_TRUE(device.fill_zero(calls, 4).is_ok());
  void* args[] = {&in, &out, &calls};
  Status status = device.launch(**kernel, {3, 1, 1}, {64, 1, 1}, 0, args);
  EXPECT_TRUE(status.is_ok()) << status.message();
  std::vector<float> got(values.size());
  int count = 0;
  EXPECT_TRUE(device.copy_to_host(got.data(), out, got.size() * 4).is_ok());
  EXPECT_TRUE(device.copy_to_host(&count, calls, 4).is_ok());
  for (int i = 0; i < 192; ++i) EXPECT_EQ(got[i], float(i / 64 * 64 + 63 - i % 64)) << i;
  for (void* p : {in, out, calls}) EXPECT_TRUE(device.release(p).is_ok());
  return count;
}

TEST(HostDevice, PhasedKernelsRunABlockPerCallUnlessFibersOrChecksAreAsked) {
  StatusOr<std::unique_ptr<HostDevice>> phased =
      HostDevice::create(host::HostChecks{}, HostSchedule::kPhased);
  StatusOr<std::unique_ptr<HostDevice>> fibers =
      HostDevice::create(host::HostChecks{}, HostSchedule::kFibers);
  host::HostChecks bounds;
  bounds.bounds = true;
  StatusOr<std::unique_ptr<HostDevice>> checked = HostDevice::create(bounds, HostSchedule::kPhased);
  ASSERT_TRUE(phased && fibers && checked);
  EXPECT_EQ(phased_reverse_calls(**phased), 3);  // one call per block
  EXPECT_EQ(phased_reverse_calls(**fibers), 3 * 64);
  EXPECT_EQ(phased_reverse_calls(**checked), 3 * 64);
  EXPECT_NE((*fibers)->name().find("fibers only"), std::string::npos) << (*fibers)->name();
  EXPECT_EQ((*phased)->name().find("fibers"), std::string::npos) << (*phased)->name();
}

TEST(HostDevice, PhasedUnitWhoseTemplatesTookNoBlockFailsItsLaunch) {
  // Both say SPECTRAL_HOST_PHASED, but nothing asks take_whole_block(): run
  // once per block, they would write only thread 0's element.
  const std::string unit = R"(
SPECTRAL_HOST_PHASED;
extern "C" __global__ void not_phased(float* out) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f;
}
extern "C" __global__ void not_phased_with_barrier(float* out) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f;
  __syncthreads();
}
)";
  StatusOr<std::unique_ptr<HostDevice>> device =
      HostDevice::create(host::HostChecks{}, HostSchedule::kPhased);
  ASSERT_TRUE(device);
  for (auto [entry, expected] :
       {std::pair<const char*, const char*>{"not_phased",
                                            "no template it called ran the whole block"},
        {"not_phased_with_barrier",
         "reached __syncthreads while running a whole block: its unit says SPECTRAL_HOST_PHASED"}}) {
    StatusOr<std::shared_ptr<Kernel>> kernel = (*device)->load({unit, entry});
    ASSERT_TRUE(kernel.is_ok()) << kernel.status().message();
    void* out = *(*device)->allocate(256);
    void* args[] = {&out};
    Status status = (*device)->launch(**kernel, {2, 1, 1}, {32, 1, 1}, 0, args);
    ASSERT_FALSE(status.is_ok()) << entry;
    EXPECT_NE(status.message().find(expected), std::string::npos) << status.message();
    EXPECT_NE(status.message().find(entry), std::string::npos) << status.message();
    EXPECT_TRUE((*device)->release(out).is_ok());
  }
}

// A unit saying SPECTRAL_HOST_PHASED_RUNS: a phased call may run several
// blocks along x. count_blocks adds 1 to seen[b] for every block b its call
// ran (beyond the grid's row: to *past), and counts the runs by length.
constexpr const char* kRunsUnit = R"(
__device__ void count_blocks(int* seen, int* lengths, int* past) {
  const int row = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x;
#if defined(SPECTRAL_HOST_EMULATION)
  if (const int blocks = ::spectral_host::take_block_run()) {
    for (int b = 0; b < blocks; ++b)
      atomicAdd(blockIdx.x + b < gridDim.x ? &seen[row + blockIdx.x + b] : past, 1);
    atomicAdd(&lengths[blocks], 1);
    return;
  }
#endif
  if (threadIdx.x == 0) atomicAdd(&seen[row + blockIdx.x], 1);
  __syncthreads();
}
SPECTRAL_HOST_PHASED;
SPECTRAL_HOST_PHASED_RUNS;
extern "C" __global__ void runs_counted(int* seen, int* lengths, int* past) {
  count_blocks(seen, lengths, past);
}
extern "C" __global__ void one_block_of_a_run(int* seen, int* lengths, int* past) {
#if defined(SPECTRAL_HOST_EMULATION)
  if (::spectral_host::take_whole_block()) return;
#endif
  count_blocks(seen, lengths, past);
}
extern "C" __global__ void one_block_then_the_run(int* seen, int* lengths, int* past) {
#if defined(SPECTRAL_HOST_EMULATION)
  (void)::spectral_host::take_whole_block();
#endif
  count_blocks(seen, lengths, past);
}
)";

TEST(HostDevice, RunsOfBlocksAreUpTo8AlongXAndLeaveEachThreadFourCalls) {
  EXPECT_EQ(host::run_length({222, 1, 1}, 2), 8u);
  EXPECT_EQ(host::run_length({37, 3, 2}, 2), 8u);
  EXPECT_EQ(host::run_length({24, 1, 1}, 2), 3u);  // 8 calls for 2 threads
  EXPECT_EQ(host::run_length({5, 40, 1}, 2), 5u);  // a row of 5
  EXPECT_EQ(host::run_length({3, 1, 1}, 2), 1u);
  EXPECT_EQ(host::run_length({1000, 1, 1}, 64), 3u);
  EXPECT_EQ(host::run_length({1, 1, 1}, 1), 1u);
}

/// Runs runs_counted over `grid` (32 threads a block) on `device`: every
/// block must be counted once, none past its row, and the calls' run lengths
/// must be those of host::run_length (phased) or none (fibers).
void expect_runs_cover(HostDevice& device, spectral_host_uint3 grid) {
  SCOPED_TRACE(device.name() + ", grid " + std::to_string(grid.x) + "x" + std::to_string(grid.y) +
               "x" + std::to_string(grid.z));
  const int blocks = int(grid.x * grid.y * grid.z);
  StatusOr<std::shared_ptr<Kernel>> kernel = device.load({kRunsUnit, "runs_counted"});
  ASSERT_TRUE(kernel.is_ok()) << kernel.status().message();
  void* seen = *device.allocate(size_t(blocks) * 4);
  void* lengths = *device.allocate(16 * 4);
  void* past = *device.allocate(4);
  for (auto [p, bytes] : {std::pair{seen, blocks * 4}, {lengths, 16 * 4}, {past, 4}})
    ASSERT_TRUE(device.fill_zero(p, size_t(bytes)).is_ok());
  void* args[] = {&seen, &lengths, &past};
  Status status = device.launch(**kernel, {grid.x, grid.y, grid.z}, {32, 1, 1}, 0, args);
  ASSERT_TRUE(status.is_ok()) << status.message();
  std::vector<int> got(static_cast<size_t>(blocks)), runs(16);
  int beyond = -1;
  ASSERT_TRUE(device.copy_to_host(got.data(), seen, got.size() * 4).is_ok());
  ASSERT_TRUE(device.copy_to_host(runs.data(), lengths, 16 * 4).is_ok());
  ASSERT_TRUE(device.copy_to_host(&beyond, past, 4).is_ok());
  for (int b = 0; b < blocks; ++b) EXPECT_EQ(got[size_t(b)], 1) << "block " << b;
  EXPECT_EQ(beyond, 0);
  std::vector<int> expected(16);
  if (device.phased()) {
    const uint32_t run = host::run_length(grid, (*host::HostPool::global())->threads());
    expected[run] += int(grid.x / run * grid.y * grid.z);
    if (grid.x % run != 0) expected[grid.x % run] += int(grid.y * grid.z);
  }
  EXPECT_EQ(runs, expected);
  for (void* p : {seen, lengths, past}) EXPECT_TRUE(device.release(p).is_ok());
}

TEST(HostDevice, PhasedRunsCoverEveryBlockOnceWithinItsRow) {
  StatusOr<std::unique_ptr<HostDevice>> phased =
      HostDevice::create(host::HostChecks{}, HostSchedule::kPhased);
  StatusOr<std::unique_ptr<HostDevice>> fibers =
      HostDevice::create(host::HostChecks{}, HostSchedule::kFibers);
  ASSERT_TRUE(phased && fibers);
  // Rows of 37 (runs of 8 and a last one of 5 on 2 threads), a row shorter
  // than a run, runs cut short to leave each thread calls, a single block.
  for (spectral_host_uint3 grid : {spectral_host_uint3{37, 3, 2}, {5, 40, 1}, {24, 1, 1},
                                   {1000, 1, 1}, {1, 1, 1}}) {
    expect_runs_cover(**phased, grid);
    expect_runs_cover(**fibers, grid);
  }
  // A template that takes one block where the call runs a run of them, alone
  // or before one that takes the run.
  for (const char* entry : {"one_block_of_a_run", "one_block_then_the_run"}) {
    StatusOr<std::shared_ptr<Kernel>> kernel = (*phased)->load({kRunsUnit, entry});
    ASSERT_TRUE(kernel.is_ok()) << kernel.status().message();
    void* buffers[3] = {*(*phased)->allocate(1000 * 4), *(*phased)->allocate(64),
                        *(*phased)->allocate(4)};
    void* args[] = {&buffers[0], &buffers[1], &buffers[2]};
    Status status = (*phased)->launch(**kernel, {1000, 1, 1}, {32, 1, 1}, 0, args);
    ASSERT_FALSE(status.is_ok()) << entry;
    EXPECT_NE(status.message().find("a template it called ran one block of a run of"),
              std::string::npos)
        << status.message();
    EXPECT_NE(status.message().find("after it along x (one phased call ran them)"),
              std::string::npos)
        << status.message();
    for (void* p : buffers) EXPECT_TRUE((*phased)->release(p).is_ok());
  }
}

TEST(HostDevice, PhasedUnitsAreMarkedByALineOfTheirOwn) {
  EXPECT_TRUE(host::phased_unit("SPECTRAL_HOST_PHASED;\nextern \"C\" ..."));
  EXPECT_TRUE(host::phased_unit("#include \"fft_stockham.cuh\"\nSPECTRAL_HOST_PHASED;\n"));
  EXPECT_TRUE(host::phased_unit("namespace {}\n  SPECTRAL_HOST_PHASED;\n"));
  EXPECT_FALSE(host::phased_unit("// says SPECTRAL_HOST_PHASED; in a comment\n"));
  EXPECT_FALSE(host::phased_unit(kernel_file("saxpy_2d.cu")));
  // Phased units are built for this processor (its key names it), the others for any.
  const std::string phased = host::host_compile_options_key(host::HostBuild::kPlain, true);
  const std::string plain = host::host_compile_options_key(host::HostBuild::kPlain, false);
  EXPECT_NE(phased.find("-march=native"), std::string::npos) << phased;
  EXPECT_NE(phased.find(host::native_cpu()), std::string::npos) << phased;
  EXPECT_EQ(plain.find("-march=native"), std::string::npos) << plain;
  EXPECT_EQ(plain.find("cpu="), std::string::npos) << plain;
}

/// Sets `variable` to each text of `good` and then to `bad`: `read` must
/// give each good text's value, and an error naming the variable and the
/// text for the bad one, as HostDevice::create() must. Restores the variable.
template <typename E>
void expect_choices(const char* variable, std::initializer_list<std::pair<const char*, E>> good,
                    const char* bad, StatusOr<E> (*read)()) {
  // Put back on every way out: a later test's device would fail on a leftover.
  struct Restore {
    const char* variable;
    bool was_set;
    std::string saved;
    ~Restore() {
      if (was_set)
        setenv(variable, saved.c_str(), 1);
      else
        unsetenv(variable);
    }
  };
  const char* was = std::getenv(variable);
  const Restore restore{variable, was != nullptr, was != nullptr ? was : ""};
  for (auto [text, expected] : good) {
    setenv(variable, text, 1);
    StatusOr<E> value = read();
    ASSERT_TRUE(value) << text;
    EXPECT_EQ(*value, expected) << text;
  }
  setenv(variable, bad, 1);
  StatusOr<E> refused = read();
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.status().message().find(std::string(variable) + "=" + bad), std::string::npos)
      << refused.status().message();
  EXPECT_FALSE(HostDevice::create());
}

TEST(HostDevice, ScheduleFromTheEnvironment) {
  expect_choices<HostSchedule>("SPECTRAL_HOST_SCHEDULE",
                               {{"", HostSchedule::kPhased},
                                {"phased", HostSchedule::kPhased},
                                {"fibers", HostSchedule::kFibers}},
                               "loops", &HostDevice::schedule_from_environment);
}

// in = {FLT_MIN, FLT_MIN / 4 (a denormal)}, and the same for double; each
// thread t writes out[4t + k] for k = 0: FLT_MIN / 2 (a denormal result),
// 1: the denormal + 0 (a denormal operand and result), 2: log of the
// denormal and 3: the denormal times 2^24 (a denormal operand, normal
// results), then the doubles', as plain threads, fibers (a barrier first)
// and a phased block.
constexpr const char* kTiny = R"(
struct Tiny {
  const float* in;
  const double* wide;
  float half;
  __device__ void operator()(int t, float* out, double* wide_out) const {
    const float big = half * 33554432.0f;  // 2^24
    out[4 * t] = in[0] * half;
    out[4 * t + 1] = in[1] + 0.0f;
    out[4 * t + 2] = log(in[1]);
    out[4 * t + 3] = in[1] * big;
    wide_out[4 * t] = wide[0] * half;
    wide_out[4 * t + 1] = wide[1] + 0.0;
    wide_out[4 * t + 2] = log(wide[1]);
    wide_out[4 * t + 3] = wide[1] * big;
  }
};
)";
constexpr const char* kDenormalUnit = R"(
extern "C" __global__ void tiny_plain(const float* in, const double* wide, float half, float* out,
                                      double* wide_out) {
  Tiny{in, wide, half}(blockIdx.x * blockDim.x + threadIdx.x, out, wide_out);
}
extern "C" __global__ void tiny_fibers(const float* in, const double* wide, float half, float* out,
                                       double* wide_out) {
  __syncthreads();
  Tiny{in, wide, half}(blockIdx.x * blockDim.x + threadIdx.x, out, wide_out);
}
)";
constexpr const char* kDenormalPhasedUnit = R"(
SPECTRAL_HOST_PHASED;
extern "C" __global__ void tiny_phased(const float* in, const double* wide, float half, float* out,
                                       double* wide_out) {
  const int first = blockIdx.x * blockDim.x;
  if (::spectral_host::take_whole_block()) {
    for (int t = 0; t < (int)blockDim.x; ++t) Tiny{in, wide, half}(first + t, out, wide_out);
    return;
  }
  __syncthreads();
  Tiny{in, wide, half}(first + threadIdx.x, out, wide_out);
}
)";

/// The 4 floats and 4 doubles every thread of `entry` wrote (2 blocks of 32
/// threads), which must agree between threads; as doubles, floats first.
std::vector<double> tiny_results(HostDevice& device, const char* unit, const char* entry) {
  StatusOr<std::shared_ptr<Kernel>> kernel = device.load({kTiny + std::string(unit), entry});
  EXPECT_TRUE(kernel.is_ok()) << kernel.status().message();
  if (!kernel) return {};
  const float in[2] = {FLT_MIN, FLT_MIN / 4};
  const double wide[2] = {DBL_MIN, DBL_MIN / 4};
  float half = 0.5f;
  void* d_in = *device.allocate(sizeof in);
  void* d_wide = *device.allocate(sizeof wide);
  void* out = *device.allocate(256 * sizeof(float));
  void* wide_out = *device.allocate(256 * sizeof(double));
  EXPECT_TRUE(device.copy_to_device(d_in, in, sizeof in).is_ok());
  EXPECT_TRUE(device.copy_to_device(d_wide, wide, sizeof wide).is_ok());
  void* args[] = {&d_in, &d_wide, &half, &out, &wide_out};
  Status status = device.launch(**kernel, {2, 1, 1}, {32, 1, 1}, 0, args);
  EXPECT_TRUE(status.is_ok()) << status.message();
  std::vector<float> got(256);
  std::vector<double> wide_got(256);
  EXPECT_TRUE(device.copy_to_host(got.data(), out, 256 * sizeof(float)).is_ok());
  EXPECT_TRUE(device.copy_to_host(wide_got.data(), wide_out, 256 * sizeof(double)).is_ok());
  for (void* p : {d_in, d_wide, out, wide_out}) EXPECT_TRUE(device.release(p).is_ok());
  for (int i = 4; i < 256; ++i) {
    EXPECT_EQ(std::memcmp(&got[i], &got[i % 4], sizeof(float)), 0) << entry << " " << i;
    EXPECT_EQ(std::memcmp(&wide_got[i], &wide_got[i % 4], sizeof(double)), 0) << entry << " " << i;
  }
  return {got[0], got[1], got[2], got[3], wide_got[0], wide_got[1], wide_got[2], wide_got[3]};
}

TEST(HostDevice, DenormalResultsAreFlushedUnlessKeepIsAsked) {
#if defined(__x86_64__)
  constexpr unsigned kControl = ~0x3fu;  // MXCSR without its exception flags
  const unsigned caller_mode = __builtin_ia32_stmxcsr() & kControl;
  const bool flushes = true;
#else
  const bool flushes = false;  // the other machines keep IEEE underflow either way
#endif
  for (HostSchedule schedule : {HostSchedule::kPhased, HostSchedule::kFibers}) {
    StatusOr<std::unique_ptr<HostDevice>> keep =
        HostDevice::create(host::HostChecks{}, schedule, HostDenormals::kKeep);
    StatusOr<std::unique_ptr<HostDevice>> flush =
        HostDevice::create(host::HostChecks{}, schedule, HostDenormals::kFlush);
    ASSERT_TRUE(flush && keep);
    for (auto [unit, entry] : {std::pair<const char*, const char*>{kDenormalUnit, "tiny_plain"},
                               {kDenormalUnit, "tiny_fibers"},
                               {kDenormalPhasedUnit, "tiny_phased"}}) {
      SCOPED_TRACE(std::string(entry) +
                   (schedule == HostSchedule::kPhased ? " phased" : " fibers"));
      const std::vector<double> kept = tiny_results(**keep, unit, entry);
      const std::vector<double> flushed = tiny_results(**flush, unit, entry);
      ASSERT_EQ(kept.size(), 8u);
      ASSERT_EQ(flushed.size(), 8u);
      // IEEE: the denormals, log's value for them (not for zero), their product.
      EXPECT_EQ(kept[0], double(FLT_MIN / 2));
      EXPECT_EQ(kept[1], double(FLT_MIN / 4));
      EXPECT_NEAR(kept[2], std::log(double(FLT_MIN / 4)), 1e-5);
      EXPECT_EQ(kept[3], double(FLT_MIN / 4) * 16777216.0);
      EXPECT_EQ(kept[4], DBL_MIN / 2);
      EXPECT_EQ(kept[5], DBL_MIN / 4);
      EXPECT_NEAR(kept[6], std::log(DBL_MIN / 4), 1e-12);
      EXPECT_EQ(kept[7], DBL_MIN / 4 * 16777216.0);
      // Flushed: the denormal results are +0; denormal operands are read as
      // they are (log's and the product's bits as kept).
      for (int k : {0, 1, 4, 5}) {
        EXPECT_EQ(flushed[k], flushes ? 0.0 : kept[k]) << k;
        EXPECT_FALSE(std::signbit(flushed[k])) << k;
      }
      for (int k : {2, 3, 6, 7}) EXPECT_EQ(std::memcmp(&flushed[k], &kept[k], 8), 0) << k;
    }
    EXPECT_NE((*keep)->name().find("denormals kept"), std::string::npos) << (*keep)->name();
    EXPECT_EQ((*flush)->name().find("denormals"), std::string::npos) << (*flush)->name();
  }
  // The last launch flushed; this thread ran blocks of it too, and its own
  // mode is as it was.
#if defined(__x86_64__)
  EXPECT_EQ(__builtin_ia32_stmxcsr() & kControl, caller_mode);
#endif
  volatile float tiny = FLT_MIN;
  EXPECT_EQ(tiny * 0.5f, FLT_MIN / 2);
}

TEST(HostDevice, DenormalsFromTheEnvironment) {
  expect_choices<HostDenormals>("SPECTRAL_HOST_DENORMALS",
                                {{"", HostDenormals::kFlush},
                                 {"flush", HostDenormals::kFlush},
                                 {"keep", HostDenormals::kKeep}},
                                "ftz", &HostDevice::denormals_from_environment);
}

}  // namespace
}  // namespace spectral::testing

namespace spectral::testing {
namespace {

TEST(HostDevice, LargeCopiesAreExactAndOverlappingOnesMove) {
  // 9 MiB and 13 bytes: split over the pool's threads in 1 MiB pieces.
  const size_t bytes = (9u << 20) + 13;
  std::vector<uint8_t> pattern(bytes);
  for (size_t i = 0; i < bytes; ++i) pattern[i] = uint8_t(i * 2654435761u >> 13);
  HostDevice& device = host_device();
  void* a = *device.allocate(bytes);
  void* b = *device.allocate(bytes);
  ASSERT_TRUE(device.copy_to_device(a, pattern.data(), bytes).is_ok());
  ASSERT_TRUE(device.copy_on_device(b, a, bytes).is_ok());
  std::vector<uint8_t> back(bytes);
  ASSERT_TRUE(device.copy_to_host(back.data(), b, bytes).is_ok());
  EXPECT_TRUE(back == pattern);
  // Overlapping ranges keep memmove's meaning: the source as it was.
  const size_t shift = (1u << 20) + 1, moved = bytes - shift;
  ASSERT_TRUE(device.copy_on_device(static_cast<char*>(a) + shift, a, moved).is_ok());
  ASSERT_TRUE(device.copy_to_host(back.data(), a, bytes).is_ok());
  EXPECT_TRUE(std::equal(back.begin(), back.begin() + shift, pattern.begin()));
  EXPECT_TRUE(std::equal(back.begin() + shift, back.end(), pattern.begin()));
  ASSERT_TRUE(device.copy_on_device(a, static_cast<char*>(a) + shift, moved).is_ok());
  ASSERT_TRUE(device.copy_to_host(back.data(), a, moved).is_ok());
  EXPECT_TRUE(std::equal(back.begin(), back.begin() + moved, pattern.begin()));
  EXPECT_TRUE(device.release(a).is_ok());
  EXPECT_TRUE(device.release(b).is_ok());
}

}  // namespace
}  // namespace spectral::testing
