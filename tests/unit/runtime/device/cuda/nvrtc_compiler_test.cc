#include "runtime/device/cuda/nvrtc_compiler.h"

#include "runtime/cache/kernel_cache.h"
#include "runtime/device/cuda/dynamic_library.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace spectral {
namespace {

// Reverses each block of 256 floats through shared memory: 1 KiB of smem, one barrier.
const KernelSource kReverse = {R"(
extern "C" __global__ void reverse_block(float* out, const float* in) {
  __shared__ float tile[256];
  unsigned base = blockIdx.x * 256;
  tile[threadIdx.x] = in[base + threadIdx.x];
  __syncthreads();
  out[base + threadIdx.x] = tile[255 - threadIdx.x];
}
)",
                               "reverse_block"};

NvrtcCompiler& compiler() {
  static StatusOr<NvrtcCompiler> compiler = NvrtcCompiler::create();
  if (!compiler) ADD_FAILURE() << "NVRTC must be available to these tests: "
                               << compiler.status().message();
  return *compiler;
}

NvrtcOptions cubin_for(const std::string& arch) {
  NvrtcOptions options;
  options.arch = arch;
  return options;
}

TEST(NvrtcCompiler, ReportsItsVersionAndArchitectures) {
  StatusOr<std::string> version = compiler().version();
  ASSERT_TRUE(version) << version.status().message();
  ASSERT_GT(compiler().major_version(), 0) << compiler().library_path();
  EXPECT_EQ(version->rfind("nvrtc " + std::to_string(compiler().major_version()) + ".", 0), 0u)
      << *version << ": the file name's major version is NVRTC's";
  StatusOr<std::vector<int>> archs = compiler().supported_archs();
  ASSERT_TRUE(archs) << archs.status().message();
  EXPECT_NE(std::find(archs->begin(), archs->end(), 80), archs->end());
  EXPECT_NE(std::find(archs->begin(), archs->end(), 90), archs->end());
}

TEST(NvrtcCompiler, DefinesAreTheKernelsOwnOptions) {
  // TILE sizes the shared array: without the define the unit does not compile.
  KernelSource tiled{R"(
extern "C" __global__ void scale(float* out, const float* in) {
  __shared__ float tile[TILE];
  tile[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = FACTOR * tile[threadIdx.x];
}
)",
                     "scale", {"TILE=128", "FACTOR=2.0f"}};
  StatusOr<CompiledKernel> small = compiler().compile(tiled, cubin_for("sm_80"));
  ASSERT_TRUE(small) << small.status().message();
  ASSERT_NE(small->usage_of("scale"), nullptr);
  EXPECT_EQ(small->usage_of("scale")->shared_bytes, 512);
  tiled.defines[0] = "TILE=1024";  // another define is another kernel, not a cache hit
  StatusOr<CompiledKernel> large = compiler().compile(tiled, cubin_for("sm_80"));
  ASSERT_TRUE(large) << large.status().message();
  EXPECT_EQ(large->usage_of("scale")->shared_bytes, 4096);
  tiled.defines = {};
  EXPECT_FALSE(compiler().compile(tiled, cubin_for("sm_80")));
}

TEST(NvrtcCompiler, CompilesForADeviceOfAnyArchitecture) {
  StatusOr<CompiledKernel> native = compiler().compile_for_device(kReverse, 90);
  ASSERT_TRUE(native) << native.status().message();
  EXPECT_TRUE(native->is_cubin);
  EXPECT_NE(native->log.find("for 'sm_90'"), std::string::npos) << native->log;

  // Newer than NVRTC: PTX for the newest architecture it knows.
  StatusOr<std::vector<int>> archs = compiler().supported_archs();
  ASSERT_TRUE(archs) << archs.status().message();
  StatusOr<CompiledKernel> newer = compiler().compile_for_device(kReverse, 9990);
  ASSERT_TRUE(newer) << newer.status().message();
  EXPECT_FALSE(newer->is_cubin);
  EXPECT_NE(newer->ptx.find(".target sm_" + std::to_string(archs->back())), std::string::npos)
      << newer->ptx.substr(0, 400);

  StatusOr<CompiledKernel> older = compiler().compile_for_device(kReverse, 10);
  ASSERT_FALSE(older);
  EXPECT_NE(older.status().message().find("cannot compile for sm_10"), std::string::npos)
      << older.status().message();
}

bool nvrtc_is_mapped() {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);)
    if (line.find("libnvrtc") != std::string::npos) return true;
  return false;
}

/// Exits a death test's child, removing the folder its main made.
[[noreturn]] void exit_child(int code) {
  if (const char* own = std::getenv("TMPDIR")) {
    std::error_code ignored;
    std::filesystem::remove_all(own, ignored);
  }
  std::exit(code);
}

/// In a fresh process sharing `cache`: compiles kReverse for an sm_90 GPU
/// and exits 0 when NVRTC was opened as `expect_opened` says (10: the
/// compile failed, 11: NVRTC was opened and should not have been, 12: the
/// other way round, 13: the library is mapped although NVRTC says unopened).
void compile_for_gpu_in_fresh_process(const std::string& cache, bool expect_opened) {
  setenv("SPECTRAL_CACHE_DIR", cache.c_str(), 1);
  StatusOr<NvrtcCompiler> fresh = NvrtcCompiler::create();
  if (!fresh || NvrtcCompiler::loaded()) exit_child(10);
  StatusOr<CompiledKernel> kernel = fresh->compile_for_device(kReverse, 90);
  if (!kernel || !kernel->is_cubin) exit_child(10);
  if (NvrtcCompiler::loaded() != expect_opened) exit_child(expect_opened ? 12 : 11);
  if (!expect_opened && nvrtc_is_mapped()) exit_child(13);
  exit_child(0);
}

TEST(NvrtcCompilerDeathTest, AWarmCacheOpensNoNvrtc) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // The re-executed child runs this body again: it must find the same folder.
  const char* shared = std::getenv("SPECTRAL_TEST_WARM_NVRTC_CACHE");
  std::string dir = shared ? shared : "";
  if (dir.empty()) {
    dir = std::filesystem::temp_directory_path().string() + "/spectral-nvrtc-warm-XXXXXX";
    ASSERT_NE(mkdtemp(dir.data()), nullptr);
    setenv("SPECTRAL_TEST_WARM_NVRTC_CACHE", dir.c_str(), 1);
  }
  EXPECT_EXIT(compile_for_gpu_in_fresh_process(dir, true), ::testing::ExitedWithCode(0), "")
      << "a cold cache compiles with NVRTC";
  EXPECT_EXIT(compile_for_gpu_in_fresh_process(dir, false), ::testing::ExitedWithCode(0), "")
      << "a warm cache answers without opening NVRTC";
  unsetenv("SPECTRAL_TEST_WARM_NVRTC_CACHE");
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
}

TEST(NvrtcCompilerDeathTest, AnExplicitPathIsTheOnlyOneTried) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("SPECTRAL_NVRTC_PATH", "/nonexistent/libnvrtc.so.13", 1);
        StatusOr<NvrtcCompiler> missing = NvrtcCompiler::create();
        std::fprintf(stderr, "%s\n", missing ? "found" : missing.status().message().c_str());
        exit_child(missing ? 0 : 1);
      },
      ::testing::ExitedWithCode(1),
      "NVRTC \\(SPECTRAL_NVRTC_PATH\\) not found; tried:\n  /nonexistent/libnvrtc.so.13");
  // A file that is no library is found, and fails when a compile opens it.
  EXPECT_EXIT(
      {
        std::string fake = std::string(std::getenv("TMPDIR")) + "/libnvrtc.so.13";
        std::ofstream(fake) << "not a shared object";
        setenv("SPECTRAL_NVRTC_PATH", fake.c_str(), 1);
        StatusOr<NvrtcCompiler> found = NvrtcCompiler::create();
        if (!found || found->major_version() != 13) exit_child(2);
        StatusOr<CompiledKernel> kernel = found->compile_uncached(kReverse, cubin_for("sm_80"));
        std::fprintf(stderr, "%s\n", kernel ? "compiled" : kernel.status().message().c_str());
        exit_child(kernel ? 0 : 1);
      },
      ::testing::ExitedWithCode(1), "NVRTC \\(libnvrtc\\) not found \\(.*libnvrtc.so.13");
}

TEST(NvrtcLibrary, FindsTheFirstNameInTheLoadersOrder) {
  std::string dir = std::filesystem::temp_directory_path().string() + "/spectral-find-XXXXXX";
  ASSERT_NE(mkdtemp(dir.data()), nullptr);
  std::filesystem::create_directories(dir + "/a");
  std::filesystem::create_directories(dir + "/b");
  std::ofstream(dir + "/b/libnvrtc.so.13") << "thirteen";
  std::ofstream(dir + "/a/libnvrtc.so") << "unversioned";
  std::filesystem::create_directories(dir + "/a/libnvrtc.so.13");  // a folder is no library

  StatusOr<NvrtcFile> found =
      find_library_file({"libnvrtc.so.13", "libnvrtc.so"}, {dir + "/a", dir + "/b"}, "NVRTC");
  ASSERT_TRUE(found) << found.status().message();
  EXPECT_EQ(found->path, dir + "/b/libnvrtc.so.13");
  EXPECT_EQ(found->major, 13);
  std::string identity = found->identity;
  EXPECT_EQ(identity.rfind(dir + "/b/libnvrtc.so.13 8 ", 0), 0u) << identity;

  std::ofstream(dir + "/b/libnvrtc.so.13") << "thirteen, rebuilt";
  StatusOr<NvrtcFile> changed = find_library_file({"libnvrtc.so.13"}, {dir + "/b"}, "NVRTC");
  ASSERT_TRUE(changed) << changed.status().message();
  EXPECT_NE(changed->identity, identity) << "a new file is a new cache key";

  // A symlink is named by its target; an unversioned name has major 0.
  std::filesystem::create_symlink(dir + "/a/libnvrtc.so", dir + "/link.so");
  StatusOr<NvrtcFile> linked = find_library_file({dir + "/link.so"}, {}, "NVRTC");
  ASSERT_TRUE(linked) << linked.status().message();
  EXPECT_EQ(linked->identity.rfind(dir + "/a/libnvrtc.so 11 ", 0), 0u) << linked->identity;
  EXPECT_EQ(linked->major, 0);

  StatusOr<NvrtcFile> none = find_library_file({"libnvrtc.so.99", dir + "/nothing.so"},
                                               {dir + "/a", dir + "/b"}, "NVRTC (libnvrtc)");
  ASSERT_FALSE(none);
  EXPECT_EQ(none.status().message(), "NVRTC (libnvrtc) not found; tried:\n"
                                     "  libnvrtc.so.99 (in 2 directories)\n  " +
                                         dir + "/nothing.so");
  std::filesystem::remove_all(dir);
}

TEST(NvrtcLibrary, ReadsTheLoadersConfigurationWithItsIncludes) {
  std::string dir = std::filesystem::temp_directory_path().string() + "/spectral-ldconf-XXXXXX";
  ASSERT_NE(mkdtemp(dir.data()), nullptr);
  std::filesystem::create_directories(dir + "/conf.d");
  std::ofstream(dir + "/ld.so.conf") << "# comment\n/first/lib  # trailing\n"
                                        "include conf.d/*.conf\n\n  /last/lib\nrelative/ignored\n";
  std::ofstream(dir + "/conf.d/10-cuda.conf") << "/usr/local/cuda-13.0/lib\n";
  std::ofstream(dir + "/conf.d/20-loop.conf") << "include " + dir + "/ld.so.conf\n/loop/lib\n";
  EXPECT_EQ(loader_config_directories(dir + "/ld.so.conf"),
            (std::vector<std::string>{"/first/lib", "/usr/local/cuda-13.0/lib", "/loop/lib",
                                      "/last/lib"}));
  EXPECT_TRUE(loader_config_directories(dir + "/missing.conf").empty());
  std::filesystem::remove_all(dir);
}

TEST(NvrtcCompiler, CommandLineNamesArchitectureAndReport) {
  NvrtcOptions options = cubin_for("sm_90");
  options.extra = {"-lineinfo"};
  EXPECT_EQ(NvrtcCompiler::command_line(options),
            (std::vector<std::string>{"-std=c++17", "--gpu-architecture=sm_90", "-default-device",
                                      "--ptxas-options=-v", "-lineinfo"}));
  options.output = NvrtcOutput::kPtx;
  options.default_device = false;
  options.extra.clear();
  EXPECT_EQ(NvrtcCompiler::command_line(options),
            (std::vector<std::string>{"-std=c++17", "--gpu-architecture=compute_90"}));
}

// Where a driver exists, NVRTC 12.9+ answers a compile it has seen (in this
// process or another) from the driver's compute cache without running ptxas:
// the report is empty and the entry check fails (seen on an H100). No driver
// here, so the option itself is what can be checked.
TEST(NvrtcCompiler, AsksNvrtcToSkipTheDriversCompileCache) {
  StatusOr<std::pair<int, int>> version = compiler().version_numbers();
  ASSERT_TRUE(version) << version.status().message();
  StatusOr<std::vector<std::string>> line = compiler().arguments(cubin_for("sm_90"));
  ASSERT_TRUE(line) << line.status().message();
  const bool has_cache = version->first > 12 || (version->first == 12 && version->second >= 9);
  EXPECT_EQ(std::count(line->begin(), line->end(), "--no-cache"), has_cache ? 1 : 0)
      << version->first << "." << version->second;
  std::vector<std::string> expected = NvrtcCompiler::command_line(cubin_for("sm_90"));
  if (has_cache) expected.push_back("--no-cache");
  EXPECT_EQ(*line, expected);
  // NVRTC accepts it.
  EXPECT_TRUE(compiler().compile_uncached(kReverse, cubin_for("sm_90")));
}

class NvrtcCubin : public testing::TestWithParam<std::string> {};

TEST_P(NvrtcCubin, SharedMemoryKernelCompilesWithoutSpills) {
  StatusOr<CompiledKernel> kernel = compiler().compile_uncached(kReverse, cubin_for(GetParam()));
  ASSERT_TRUE(kernel) << kernel.status().message();
  EXPECT_TRUE(kernel->is_cubin);
  ASSERT_GE(kernel->binary.size(), 4u);
  EXPECT_EQ(std::memcmp(kernel->binary.data(), "\x7f" "ELF", 4), 0);
  EXPECT_NE(kernel->log.find("for '" + GetParam() + "'"), std::string::npos) << kernel->log;

  const ResourceUsage* usage = kernel->usage_of("reverse_block");
  ASSERT_NE(usage, nullptr) << kernel->log;
  EXPECT_TRUE(usage->is_entry);
  EXPECT_GT(usage->registers, 0);
  EXPECT_EQ(usage->shared_bytes, 256 * 4);
  EXPECT_EQ(usage->barriers, 1);
  EXPECT_EQ(usage->spill_store_bytes, 0);
  EXPECT_EQ(usage->spill_load_bytes, 0);
  EXPECT_EQ(usage->stack_bytes, 0);
}

INSTANTIATE_TEST_SUITE_P(Archs, NvrtcCubin, testing::Values("sm_80", "sm_90"));

TEST(NvrtcCompiler, PtxOutputDefinesTheEntry) {
  NvrtcOptions options = cubin_for("sm_80");
  options.output = NvrtcOutput::kPtx;
  StatusOr<CompiledKernel> kernel = compiler().compile_uncached(kReverse, options);
  ASSERT_TRUE(kernel) << kernel.status().message();
  EXPECT_FALSE(kernel->is_cubin);
  EXPECT_NE(kernel->ptx.find(".entry reverse_block("), std::string::npos) << kernel->ptx;
  EXPECT_NE(kernel->ptx.find(".target sm_80"), std::string::npos);
  ASSERT_FALSE(kernel->binary.empty());
  EXPECT_EQ(kernel->binary.back(), 0) << "PTX for cuModuleLoadData is NUL-terminated";
  EXPECT_TRUE(kernel->usage.empty()) << "no ptxas run for PTX output";
}

TEST(NvrtcCompiler, CubinCanAlsoReturnPtx) {
  NvrtcOptions options = cubin_for("sm_80");
  options.want_ptx = true;
  StatusOr<CompiledKernel> kernel = compiler().compile_uncached(kReverse, options);
  ASSERT_TRUE(kernel) << kernel.status().message();
  EXPECT_TRUE(kernel->is_cubin);
  EXPECT_NE(kernel->ptx.find(".entry reverse_block("), std::string::npos);
}

TEST(NvrtcCompiler, SyntaxErrorGivesLogAndDumpedSource) {
  KernelSource broken = {"extern \"C\" __global__ void broken(float* out) { out[0] = 1 }\n",
                         "broken"};
  StatusOr<CompiledKernel> kernel = compiler().compile_uncached(broken, cubin_for("sm_80"));
  ASSERT_FALSE(kernel);
  const std::string& message = kernel.status().message();
  EXPECT_NE(message.find("broken"), std::string::npos) << message;
  EXPECT_NE(message.find("error: expected a \";\""), std::string::npos) << message;

  const std::string marker = "source dumped to ";
  size_t at = message.find(marker);
  ASSERT_NE(at, std::string::npos) << message;
  std::string path = message.substr(at + marker.size());
  path = path.substr(0, path.find_first_of(" \n"));
  EXPECT_NE(path.find("spectral-failed-"), std::string::npos) << path;
  EXPECT_TRUE(std::filesystem::exists(path)) << path;
  std::filesystem::remove(path);
}

TEST(NvrtcCompiler, MissingEntryIsAnError) {
  KernelSource misnamed = {kReverse.source, "reverse"};
  StatusOr<CompiledKernel> kernel = compiler().compile_uncached(misnamed, cubin_for("sm_80"));
  ASSERT_FALSE(kernel);
  EXPECT_NE(kernel.status().message().find("no extern \"C\" __global__ function named 'reverse'"),
            std::string::npos)
      << kernel.status().message();
}

TEST(NvrtcCompiler, IncludesInMemoryHeaders) {
  KernelSource source = {R"(
#include "spectral_test_tile.cuh"
extern "C" __global__ void scaled_copy(float* out, const float* in) {
  __shared__ float tile[kTile];
  tile[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = twice(tile[kTile - 1 - threadIdx.x]);
}
)",
                         "scaled_copy"};
  std::vector<NvrtcHeader> headers = {
      {"spectral_test_tile.cuh",
       "#pragma once\nconstexpr int kTile = 96;\n"
       "__device__ inline float twice(float x) { return 2.0f * x; }\n"}};
  StatusOr<CompiledKernel> kernel =
      compiler().compile_uncached(source, cubin_for("sm_80"), headers);
  ASSERT_TRUE(kernel) << kernel.status().message();
  ASSERT_NE(kernel->usage_of("scaled_copy"), nullptr);
  EXPECT_EQ(kernel->usage_of("scaled_copy")->shared_bytes, 96 * 4);

  StatusOr<CompiledKernel> without = compiler().compile_uncached(source, cubin_for("sm_80"));
  ASSERT_FALSE(without);
  EXPECT_NE(without.status().message().find("spectral_test_tile.cuh"), std::string::npos);
}

TEST(NvrtcCompiler, ReportsStackFramesAndSpills) {
  // A dynamically indexed local array lives on the stack; 64 values kept live
  // across a register cap of 32 must spill.
  KernelSource source = {R"(
extern "C" __global__ void local_array(float* out, const int* index) {
  float local[4096];
  for (int i = 0; i < 4096; ++i) local[i] = out[i] * i;
  out[threadIdx.x] = local[index[threadIdx.x]];
}
extern "C" __global__ void register_pressure(float* out, const float* in) {
  float v[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) v[i] = in[threadIdx.x + i * 128];
#pragma unroll
  for (int r = 0; r < 4; ++r)
#pragma unroll
    for (int i = 0; i < 64; ++i) v[i] = v[i] * v[(i * 7 + r) % 64] + v[(i + 13) % 64];
#pragma unroll
  for (int i = 0; i < 64; ++i) out[threadIdx.x + i * 128] = v[i];
}
)",
                         "register_pressure"};
  NvrtcOptions options = cubin_for("sm_80");
  options.extra = {"-maxrregcount=32"};
  StatusOr<CompiledKernel> kernel = compiler().compile_uncached(source, options);
  ASSERT_TRUE(kernel) << kernel.status().message();

  const ResourceUsage* local = kernel->usage_of("local_array");
  ASSERT_NE(local, nullptr) << kernel->log;
  EXPECT_GE(local->stack_bytes, 4096 * 4);
  const ResourceUsage* pressure = kernel->usage_of("register_pressure");
  ASSERT_NE(pressure, nullptr) << kernel->log;
  EXPECT_LE(pressure->registers, 32);
  EXPECT_GT(pressure->spill_store_bytes, 0) << kernel->log;
  EXPECT_GT(pressure->spill_load_bytes, 0) << kernel->log;
}

TEST(NvrtcCompiler, SecondCompileIsACacheHit) {
  KernelSource source = kReverse;
  source.source += "// cache test\n";
  CacheStats before = KernelCache::global().stats();
  StatusOr<CompiledKernel> first = compiler().compile(source, cubin_for("sm_80"));
  ASSERT_TRUE(first) << first.status().message();
  CacheStats middle = KernelCache::global().stats();
  EXPECT_EQ(middle.misses, before.misses + 1);

  StatusOr<CompiledKernel> second = compiler().compile(source, cubin_for("sm_80"));
  ASSERT_TRUE(second) << second.status().message();
  CacheStats after = KernelCache::global().stats();
  EXPECT_EQ(after.misses, middle.misses);
  EXPECT_EQ(after.memory_hits + after.disk_hits, middle.memory_hits + middle.disk_hits + 1);

  EXPECT_EQ(second->binary, first->binary);
  EXPECT_EQ(second->log, first->log);
  ASSERT_NE(second->usage_of("reverse_block"), nullptr) << "usage re-parsed from the cached log";
  EXPECT_EQ(second->usage_of("reverse_block")->shared_bytes, 1024);

  // Another architecture is another key.
  StatusOr<CompiledKernel> other = compiler().compile(source, cubin_for("sm_90"));
  ASSERT_TRUE(other) << other.status().message();
  EXPECT_EQ(KernelCache::global().stats().misses, after.misses + 1);
}

TEST(NvrtcCompiler, CachedErrorsAreNotStored) {
  KernelSource broken = {"extern \"C\" __global__ void cached_broken() { nope; }\n",
                         "cached_broken"};
  StatusOr<CompiledKernel> first = compiler().compile(broken, cubin_for("sm_80"));
  StatusOr<CompiledKernel> second = compiler().compile(broken, cubin_for("sm_80"));
  ASSERT_FALSE(first);
  ASSERT_FALSE(second);
  EXPECT_NE(second.status().message().find("identifier \"nope\" is undefined"),
            std::string::npos)
      << second.status().message();
}

TEST(NvrtcCompiler, RecordRoundTripsAndRejectsDamage) {
  CompiledKernel kernel;
  kernel.binary = {0x7f, 'E', 'L', 'F', 0, 1, 2};
  kernel.is_cubin = true;
  kernel.ptx = ".entry k(";
  kernel.log = "ptxas info    : Compiling entry function 'k' for 'sm_80'\n"
               "ptxas info    : Used 7 registers, used 0 barriers, 64 bytes smem\n";
  std::vector<uint8_t> record = NvrtcCompiler::serialize(kernel);
  StatusOr<CompiledKernel> back = NvrtcCompiler::deserialize(record);
  ASSERT_TRUE(back) << back.status().message();
  EXPECT_EQ(back->binary, kernel.binary);
  EXPECT_TRUE(back->is_cubin);
  EXPECT_EQ(back->ptx, kernel.ptx);
  EXPECT_EQ(back->log, kernel.log);
  ASSERT_NE(back->usage_of("k"), nullptr);
  EXPECT_EQ(back->usage_of("k")->registers, 7);
  EXPECT_EQ(back->usage_of("k")->shared_bytes, 64);

  record.pop_back();
  EXPECT_FALSE(NvrtcCompiler::deserialize(record));
  record.push_back('\n');
  record.push_back('x');
  EXPECT_FALSE(NvrtcCompiler::deserialize(record));
  EXPECT_FALSE(NvrtcCompiler::deserialize({}));
}

TEST(DynamicLibrary, ErrorListsEveryCandidateTried) {
  StatusOr<OpenedLibrary> opened = open_first_library(
      {"/nonexistent/libnvrtc.so.13", "libspectral-does-not-exist.so"}, "NVRTC (libnvrtc)");
  ASSERT_FALSE(opened);
  const std::string& message = opened.status().message();
  EXPECT_NE(message.find("NVRTC (libnvrtc) not found"), std::string::npos) << message;
  EXPECT_NE(message.find("/nonexistent/libnvrtc.so.13"), std::string::npos) << message;
  EXPECT_NE(message.find("libspectral-does-not-exist.so"), std::string::npos) << message;
}

}  // namespace
}  // namespace spectral
