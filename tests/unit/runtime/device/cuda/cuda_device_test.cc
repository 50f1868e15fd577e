#include "runtime/device/cuda/cuda_device.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace spectral {
namespace {

TEST(CudaDevice, CreateSaysWhyThereIsNoGpu) {
  StatusOr<std::unique_ptr<CudaDevice>> device = CudaDevice::create();
  if (device) GTEST_SKIP() << "a GPU is present: " << (*device)->name();
  const std::string& message = device.status().message();
  // No driver, cuInit failing, or zero devices: each names itself.
  EXPECT_TRUE(message.rfind("no CUDA driver: ", 0) == 0 || message.rfind("no CUDA device", 0) == 0)
      << message;
  if (message.find("not found") != std::string::npos) {
    EXPECT_NE(message.find("libcuda.so.1"), std::string::npos) << message;
  }
}

TEST(CudaDevice, DriverMustBeAsNewAsNvrtc) {
  EXPECT_TRUE(check_driver_for_nvrtc(13000, "nvrtc 13.0").is_ok());
  EXPECT_TRUE(check_driver_for_nvrtc(13020, "nvrtc 13.0").is_ok());
  Status old = check_driver_for_nvrtc(12040, "nvrtc 13.0");
  ASSERT_FALSE(old.is_ok());
  EXPECT_EQ(old.message(),
            "the CUDA driver supports CUDA 12.4 but nvrtc 13.0 builds code for CUDA 13 drivers: "
            "update the driver, or set SPECTRAL_NVRTC_PATH to an NVRTC of CUDA 12 or older");
}

TEST(CudaDevice, PrebuiltOrderPrefersItsOwnCubinThenOlderMinorsThenPtx) {
  const std::vector<KernelBinary> binaries = {
      {"sm_80", {1}, "ptx80"}, {"sm_86", {1}, ""}, {"sm_90", {1}, "ptx90"},
      {"sm_75", {}, "ptx75"},  {"sm_89", {}, "ptx89"}, {"gfx90a", {1}, "x"}};
  auto order = [&](int compute_capability) {
    std::string text;  // "1c 0c 0p": binary index, CUBIN or PTX
    for (const PrebuiltChoice& choice : prebuilt_order(binaries, compute_capability))
      text += (text.empty() ? "" : " ") + std::to_string(choice.binary) + (choice.cubin ? "c" : "p");
    return text;
  };
  EXPECT_EQ(order(86), "1c 0c 0p 3p");   // own CUBIN, sm_80's, then PTX newest first
  EXPECT_EQ(order(89), "1c 0c 4p 0p 3p");
  EXPECT_EQ(order(90), "2c 2p 4p 0p 3p");  // sm_8x CUBINs do not run on sm_90
  EXPECT_EQ(order(100), "2p 4p 0p 3p");    // a newer GPU: PTX only
  EXPECT_EQ(order(75), "3p");
  EXPECT_EQ(order(70), "");                // nothing fits: compile the source
  EXPECT_EQ(prebuilt_order({}, 90).size(), 0u);
}

TEST(CudaDevice, CubinsAreCheckedBeforeTheDriverReadsThem) {
  std::vector<uint8_t> elf(64, 0);
  elf[0] = 0x7f, elf[1] = 'E', elf[2] = 'L', elf[3] = 'F', elf[4] = 2, elf[5] = 1, elf[18] = 190;
  EXPECT_EQ(cubin_problem(elf), "");
  EXPECT_EQ(cubin_problem({0x7f, 'E', 'L', 'F'}), "not an ELF image");  // shorter than a header
  std::vector<uint8_t> x86 = elf;
  x86[18] = 62;
  EXPECT_EQ(cubin_problem(x86), "not a 64-bit little-endian CUDA ELF image");
  // One section header at offset 64 (past the end), then inside, then its data past the end.
  std::vector<uint8_t> sections = elf;
  sections[40] = 64, sections[58] = 64, sections[60] = 1;
  EXPECT_EQ(cubin_problem(sections), "its section table lies outside the image");
  sections.resize(128, 0);
  EXPECT_EQ(cubin_problem(sections), "");
  sections[64 + 4] = 1;   // a PROGBITS section
  sections[64 + 32] = 1;  // of one byte at offset 0: inside
  EXPECT_EQ(cubin_problem(sections), "");
  sections[64 + 24] = 200;  // at offset 200: outside
  EXPECT_EQ(cubin_problem(sections), "section 0 lies outside the image");
  sections[64 + 4] = 8;  // NOBITS holds no bytes in the image
  EXPECT_EQ(cubin_problem(sections), "");
  std::vector<uint8_t> segments = elf;
  segments[32] = 64, segments[54] = 56, segments[56] = 1;
  segments.resize(120, 0);
  segments[64 + 32] = 57;  // 57 bytes from offset 0 would be fine; from 64 they are not
  segments[64 + 8] = 64;
  EXPECT_EQ(cubin_problem(segments), "segment 0 lies outside the image");
}

// Tests that need a GPU; each skips on a machine without one.
class CudaDeviceOnGpu : public testing::Test {
 protected:
  void SetUp() override {
    StatusOr<std::unique_ptr<CudaDevice>> created = CudaDevice::create();
    if (!created) {
      std::string reason = created.status().message();
      if (reason.rfind("no CUDA driver: ", 0) == 0) reason.erase(0, 16);
      GTEST_SKIP() << "no CUDA driver: " << reason;
    }
    device = std::move(*created);
  }

  std::unique_ptr<CudaDevice> device;
};

const KernelSource kReverse = {R"(
extern "C" __global__ void reverse_block(float* out, const float* in, float scale) {
  __shared__ float tile[256];
  unsigned base = blockIdx.x * 256;
  tile[threadIdx.x] = in[base + threadIdx.x];
  __syncthreads();
  out[base + threadIdx.x] = scale * tile[255 - threadIdx.x];
}
)",
                               "reverse_block"};

/// Runs a kReverse kernel over 4 blocks on `device` and checks every element.
void expect_reverses(CudaDevice& device, const Kernel& kernel) {
  const size_t count = 4 * 256, bytes = count * sizeof(float);
  std::vector<float> input(count), output(count, 0.0f);
  for (size_t i = 0; i < count; ++i) input[i] = float(i) * 0.5f - 3.0f;
  const DeviceMemoryStats before = device.memory_stats();

  StatusOr<void*> in = device.allocate(bytes);
  StatusOr<void*> out = device.allocate(bytes);
  ASSERT_TRUE(in) << in.status().message();
  ASSERT_TRUE(out) << out.status().message();
  DeviceMemoryStats stats = device.memory_stats();
  EXPECT_EQ(stats.in_use_bytes, before.in_use_bytes + 2 * bytes);
  EXPECT_EQ(stats.live_allocations, before.live_allocations + 2);

  ASSERT_TRUE(device.copy_to_device(*in, input.data(), bytes));
  float scale = 2.0f;
  void* args[] = {&*out, &*in, &scale};
  Status launched = device.launch(kernel, {4, 1, 1}, {256, 1, 1}, 0, args);
  ASSERT_TRUE(launched) << launched.message();
  Status synced = device.synchronize();
  ASSERT_TRUE(synced) << synced.message();
  ASSERT_TRUE(device.copy_to_host(output.data(), *out, bytes));
  for (size_t block = 0; block < 4; ++block) {
    for (size_t t = 0; t < 256; ++t) {
      ASSERT_EQ(output[block * 256 + t], 2.0f * input[block * 256 + 255 - t]) << block << "," << t;
    }
  }
  ASSERT_TRUE(device.release(*in));
  ASSERT_TRUE(device.release(*out));
  stats = device.memory_stats();
  EXPECT_EQ(stats.in_use_bytes, before.in_use_bytes);
  EXPECT_EQ(stats.total_allocations, before.total_allocations + 2);
  EXPECT_FALSE(device.release(*in)) << "a second release is an error";
}

TEST_F(CudaDeviceOnGpu, RunsAKernelAndCountsMemory) {
  EXPECT_NE(device->name().find(device->arch()), std::string::npos);
  StatusOr<std::shared_ptr<Kernel>> kernel = device->load(kReverse);
  ASSERT_TRUE(kernel) << kernel.status().message();
  EXPECT_FALSE((*kernel)->prebuilt());
  EXPECT_EQ((*kernel)->origin().rfind("compiled from source by NVRTC", 0), 0u)
      << (*kernel)->origin();
  expect_reverses(*device, **kernel);
  EXPECT_EQ(device->memory_stats().peak_bytes, 2u * 4 * 256 * sizeof(float));
}

TEST_F(CudaDeviceOnGpu, LoadsEmbeddedCubinElsePtxElseTheSource) {
  StatusOr<NvrtcCompiler> compiler = NvrtcCompiler::create();
  ASSERT_TRUE(compiler) << compiler.status().message();
  NvrtcOptions options;
  options.arch = device->arch();
  options.want_ptx = true;
  StatusOr<CompiledKernel> compiled = compiler->compile(kReverse, options);
  ASSERT_TRUE(compiled) << compiled.status().message();
  const std::string arch = device->arch(), compute = "compute_" + arch.substr(3);

  // The device's own CUBIN.
  StatusOr<std::shared_ptr<Kernel>> cubin =
      device->load_prebuilt(kReverse, {{arch, compiled->binary, compiled->ptx}});
  ASSERT_TRUE(cubin) << cubin.status().message();
  EXPECT_TRUE((*cubin)->prebuilt());
  EXPECT_EQ((*cubin)->origin(), "CUBIN " + arch + " from the artifact");
  expect_reverses(*device, **cubin);

  // A CUBIN the driver refuses (another GPU's, labelled as this one's): the PTX.
  options.arch = arch == "sm_80" ? "sm_90" : "sm_80";
  StatusOr<CompiledKernel> other = compiler->compile(kReverse, options);
  ASSERT_TRUE(other) << other.status().message();
  StatusOr<std::shared_ptr<Kernel>> ptx =
      device->load_prebuilt(kReverse, {{arch, other->binary, compiled->ptx}});
  ASSERT_TRUE(ptx) << ptx.status().message();
  EXPECT_TRUE((*ptx)->prebuilt());
  EXPECT_EQ((*ptx)->origin().rfind("PTX " + compute + " from the artifact, compiled by the driver "
                                   "(after cuModuleLoadData",
                                   0),
            0u)
      << (*ptx)->origin();
  expect_reverses(*device, **ptx);
  // A damaged CUBIN never reaches the driver.
  StatusOr<std::shared_ptr<Kernel>> checked =
      device->load_prebuilt(kReverse, {{arch, {0x7f, 'E', 'L', 'F'}, compiled->ptx}});
  ASSERT_TRUE(checked) << checked.status().message();
  EXPECT_NE((*checked)->origin().find("the CUBIN " + arch + " is not an ELF image"),
            std::string::npos)
      << (*checked)->origin();

  // Code for a newer GPU only, and code that does not load: the source.
  const std::string newer = "sm_" + std::to_string(sm_number(arch) + 10);
  StatusOr<std::shared_ptr<Kernel>> source =
      device->load_prebuilt(kReverse, {{newer, compiled->binary, compiled->ptx}});
  ASSERT_TRUE(source) << source.status().message();
  EXPECT_FALSE((*source)->prebuilt());
  EXPECT_NE((*source)->origin().find("the artifact's code (" + newer + ") does not fit " + arch),
            std::string::npos)
      << (*source)->origin();
  expect_reverses(*device, **source);
  StatusOr<std::shared_ptr<Kernel>> broken =
      device->load_prebuilt(kReverse, {{arch, {}, "not ptx"}});
  ASSERT_TRUE(broken) << broken.status().message();
  EXPECT_FALSE((*broken)->prebuilt());
  EXPECT_NE((*broken)->origin().find("cuModuleLoadData"), std::string::npos)
      << (*broken)->origin();
}

TEST_F(CudaDeviceOnGpu, LaunchErrorNamesTheKernelAndTheDriverError) {
  StatusOr<std::shared_ptr<Kernel>> kernel = device->load(kReverse);
  ASSERT_TRUE(kernel) << kernel.status().message();
  void* args[] = {nullptr, nullptr, nullptr};
  Status launched = device->launch(**kernel, {1, 1, 1}, {4096, 1, 1}, 0, args);  // > 1024 threads
  ASSERT_FALSE(launched);
  EXPECT_NE(launched.message().find("reverse_block"), std::string::npos) << launched.message();
  EXPECT_NE(launched.message().find("CUDA_ERROR_"), std::string::npos) << launched.message();
}

TEST_F(CudaDeviceOnGpu, LoadErrorNamesTheMissingEntry) {
  StatusOr<std::shared_ptr<Kernel>> kernel = device->load({kReverse.source, "no_such_kernel"});
  ASSERT_FALSE(kernel);
  EXPECT_NE(kernel.status().message().find("no_such_kernel"), std::string::npos);
}

TEST_F(CudaDeviceOnGpu, AllocationPastTheLimitIsRefused) {
  setenv("SPECTRAL_DEVICE_MEMORY_LIMIT", "1M", 1);
  StatusOr<std::unique_ptr<CudaDevice>> limited = CudaDevice::create();
  unsetenv("SPECTRAL_DEVICE_MEMORY_LIMIT");
  ASSERT_TRUE(limited) << limited.status().message();
  EXPECT_EQ((*limited)->memory_stats().limit_bytes, 1u << 20);

  StatusOr<void*> first = (*limited)->allocate(768 << 10);
  ASSERT_TRUE(first) << first.status().message();
  StatusOr<void*> second = (*limited)->allocate(512 << 10);
  ASSERT_FALSE(second);
  const std::string& message = second.status().message();
  EXPECT_NE(message.find("524288 bytes"), std::string::npos) << message;   // requested
  EXPECT_NE(message.find("786432 bytes in use"), std::string::npos) << message;
  EXPECT_NE(message.find("1048576 bytes"), std::string::npos) << message;  // the limit
  EXPECT_EQ((*limited)->memory_stats().in_use_bytes, 768u << 10);
  EXPECT_TRUE((*limited)->allocate(256 << 10)) << "exactly up to the limit is allowed";
}

/// A launch of kReverse over `blocks` blocks as a graph operation.
GraphOp reverse_op(const Kernel& kernel, void* out, const void* in, float scale, uint32_t blocks,
                   uint32_t threads = 256) {
  GraphOp op;
  op.kernel = &kernel;
  op.grid = {blocks, 1, 1};
  op.block = {threads, 1, 1};
  op.args.assign(3, 0);
  std::memcpy(&op.args[0], &out, sizeof out);
  std::memcpy(&op.args[1], &in, sizeof in);
  std::memcpy(&op.args[2], &scale, sizeof scale);
  return op;
}

TEST_F(CudaDeviceOnGpu, ReplaysACapturedGraphOnNewInputs) {
  StatusOr<std::shared_ptr<Kernel>> kernel = device->load(kReverse);
  ASSERT_TRUE(kernel) << kernel.status().message();
  const size_t count = 4 * 256, bytes = count * sizeof(float);
  StatusOr<void*> in = device->allocate(bytes), mid = device->allocate(bytes),
                  out = device->allocate(bytes), copied = device->allocate(bytes),
                  zeroed = device->allocate(bytes);
  ASSERT_TRUE(in && mid && out && copied && zeroed);
  // zeroed = 0; mid = reverse(in) * 2; copied = in; out = reverse(mid) * 3 = 6 in.
  std::vector<GraphOp> ops(1);
  ops[0].kind = GraphOp::Kind::kZero;
  ops[0].target = *zeroed;
  ops[0].bytes = bytes;
  ops.push_back(reverse_op(**kernel, *mid, *in, 2.0f, 4));
  ops.emplace_back();
  ops.back().kind = GraphOp::Kind::kCopy;
  ops.back().target = *copied;
  ops.back().source = *in;
  ops.back().bytes = bytes;
  ops.push_back(reverse_op(**kernel, *out, *mid, 3.0f, 4));
  StatusOr<std::unique_ptr<DeviceGraph>> graph = device->build_graph(ops);
  ASSERT_TRUE(graph) << graph.status().message();
  EXPECT_EQ((*graph)->describe(), "CUDA graph of 4 nodes");
  for (int run = 0; run < 3; ++run) {
    std::vector<float> input(count), output(count), copy(count), zeros(count, 1.0f);
    for (size_t i = 0; i < count; ++i) input[i] = float(i) * 0.25f - float(run);
    ASSERT_TRUE(device->copy_to_device(*in, input.data(), bytes));
    ASSERT_TRUE(device->copy_to_device(*zeroed, zeros.data(), bytes));  // ones, until the graph runs
    StatusOr<double> seconds =
        device->time_on_device([&] { return device->launch_graph(**graph); });
    ASSERT_TRUE(seconds) << seconds.status().message();
    EXPECT_GT(*seconds, 0);
    ASSERT_TRUE(device->copy_to_host(output.data(), *out, bytes));
    ASSERT_TRUE(device->copy_to_host(copy.data(), *copied, bytes));
    ASSERT_TRUE(device->copy_to_host(zeros.data(), *zeroed, bytes));
    for (size_t i = 0; i < count; ++i) {
      ASSERT_EQ(output[i], 6.0f * input[i]) << run << ", " << i;
      ASSERT_EQ(copy[i], input[i]) << run << ", " << i;
      ASSERT_EQ(zeros[i], 0.0f) << run << ", " << i;
    }
  }
  // A launch the GPU refuses fails the capture, naming the kernel.
  StatusOr<std::unique_ptr<DeviceGraph>> refused =
      device->build_graph({reverse_op(**kernel, *out, *in, 1.0f, 1, 4096)});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.status().message().find("capturing a graph"), std::string::npos)
      << refused.status().message();
  EXPECT_NE(refused.status().message().find("reverse_block"), std::string::npos)
      << refused.status().message();
  expect_reverses(*device, **kernel);  // the device still works
  for (void* pointer : {*in, *mid, *out, *copied, *zeroed}) EXPECT_TRUE(device->release(pointer));
}

TEST_F(CudaDeviceOnGpu, CaptureTakesInNoOtherThreadsWork) {
  // Another thread launches and copies synchronously on the device's stream
  // while graphs are captured: neither sees the other's work.
  StatusOr<std::shared_ptr<Kernel>> kernel = device->load(kReverse);
  ASSERT_TRUE(kernel) << kernel.status().message();
  const size_t bytes = 256 * sizeof(float);
  StatusOr<void*> in = device->allocate(bytes), out = device->allocate(bytes);
  ASSERT_TRUE(in && out);
  std::atomic<bool> done{false};
  std::thread other([&] {
    while (!done) expect_reverses(*device, **kernel);
  });
  for (int i = 0; i < 50; ++i) {
    StatusOr<std::unique_ptr<DeviceGraph>> graph =
        device->build_graph({reverse_op(**kernel, *out, *in, 1.0f, 1)});
    ASSERT_TRUE(graph) << graph.status().message();
    EXPECT_EQ((*graph)->describe(), "CUDA graph of 1 node");
    ASSERT_TRUE(device->launch_graph(**graph));
  }
  done = true;
  other.join();
  EXPECT_TRUE(device->synchronize());
  for (void* pointer : {*in, *out}) EXPECT_TRUE(device->release(pointer));
}

}  // namespace
}  // namespace spectral
