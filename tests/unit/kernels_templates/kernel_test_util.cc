// kernel_test_util.cc - run template instantiation units on the test device.
#include "tests/unit/kernels_templates/kernel_test_util.h"

#include "runtime/kernels/embedded_templates.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <random>

namespace spectral::testing {

Device& device() {
  // SPECTRAL_TEST_DEVICE=cuda runs the same tests on a GPU (the GPU bundle of
  // scripts/gpu-bundle does); the host device otherwise.
  static std::unique_ptr<Device> chosen = [] {
    const char* which = std::getenv("SPECTRAL_TEST_DEVICE");
    StatusOr<std::unique_ptr<Device>> created =
        create_device(which && *which ? which : "host");
    if (!created) {
      std::fprintf(stderr, "SPECTRAL_TEST_DEVICE=%s: %s\n", which ? which : "",
                   created.status().message().c_str());
      std::abort();
    }
    std::fprintf(stderr, "kernel tests on %s\n", (*created)->name().c_str());
    return std::move(*created);
  }();
  return *chosen;
}

const Kernel& kernel(const KernelSource& source) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<Kernel>> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  std::shared_ptr<Kernel>& slot = loaded[source.entry];
  if (!slot) {
    StatusOr<std::shared_ptr<Kernel>> k = device().load(source);
    if (!k) {
      ADD_FAILURE() << source.entry << ": " << k.status().message();
      std::abort();
    }
    slot = *k;
  }
  return *slot;
}

std::string fill(std::string text, const std::map<std::string, std::string>& values) {
  // Longer keys first, so that "$T" does not eat the start of "$TYPE".
  std::vector<std::pair<std::string, std::string>> ordered(values.begin(), values.end());
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  for (const auto& [key, value] : ordered)
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
      text.replace(at, key.size(), value);
  return text;
}

void Buffer::allocate() {
  StatusOr<void*> memory = device().allocate(std::max<size_t>(bytes_, 1));
  EXPECT_TRUE(memory.is_ok()) << memory.status().message();
  pointer_ = memory.is_ok() ? *memory : nullptr;
}

void Buffer::upload(const void* data) {
  Status status = device().copy_to_device(pointer_, data, bytes_);
  EXPECT_TRUE(status.is_ok()) << status.message();
}

void Buffer::download(void* data) const {
  Status status = device().copy_to_host(data, pointer_, bytes_);
  EXPECT_TRUE(status.is_ok()) << status.message();
}

Buffer::~Buffer() {
  Status status = device().release(pointer_);
  EXPECT_TRUE(status.is_ok()) << status.message();
}

void launch(const KernelSource& source, Dim3 grid, Dim3 block, size_t shared_bytes,
            std::vector<void*> args) {
  Status status = device().launch(kernel(source), grid, block, shared_bytes, args.data());
  ASSERT_TRUE(status.is_ok()) << source.entry << ": " << status.message();
}

std::optional<CompiledKernel> expect_clean_cubin(const KernelSource& unit,
                                                 const NvrtcOptions& options,
                                                 int64_t threads_per_block) {
  static StatusOr<NvrtcCompiler> compiler = NvrtcCompiler::create();
  static const std::vector<NvrtcHeader> headers = [] {
    std::vector<NvrtcHeader> all;
    for (const EmbeddedFile& file : embedded_templates()) all.push_back({file.name, file.content});
    return all;
  }();
  if (!compiler) {
    ADD_FAILURE() << compiler.status().message();
    return std::nullopt;
  }
  StatusOr<CompiledKernel> compiled = compiler->compile(unit, options, headers);
  if (!compiled) {
    ADD_FAILURE() << unit.entry << ": " << compiled.status().message();
    return std::nullopt;
  }
  EXPECT_TRUE(compiled->is_cubin) << unit.entry;
  const ResourceUsage* usage = compiled->usage_of(unit.entry);
  if (!usage) {
    ADD_FAILURE() << unit.entry << " is missing from the ptxas report:\n" << compiled->log;
    return std::nullopt;
  }
  EXPECT_EQ(usage->spill_store_bytes, 0) << unit.entry << " on " << options.arch;
  EXPECT_EQ(usage->spill_load_bytes, 0) << unit.entry << " on " << options.arch;
  EXPECT_GT(usage->registers, 0) << unit.entry;
  EXPECT_LE(2 * usage->registers * threads_per_block, 65536)
      << unit.entry << " on " << options.arch << ": " << usage->registers << " registers x "
      << threads_per_block << " threads leave no room for a second block per SM";
  if (std::getenv("SPECTRAL_PRINT_USAGE"))
    std::printf("%s %s: %lld registers, %lld B smem, %lld B stack\n", options.arch.c_str(),
                unit.entry.c_str(), (long long)usage->registers, (long long)usage->shared_bytes,
                (long long)usage->stack_bytes);
  return std::move(*compiled);
}

std::vector<std::complex<float>> to_float(const std::vector<std::complex<double>>& values) {
  return std::vector<std::complex<float>>(values.begin(), values.end());
}

std::vector<std::complex<float>> random_complex(int64_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<std::complex<float>> x(static_cast<size_t>(count));
  for (std::complex<float>& v : x) v = {uniform(rng), uniform(rng)};
  return x;
}

}  // namespace spectral::testing
