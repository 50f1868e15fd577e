// host_device.cc - memory, loading and launching on the host.
#include "runtime/device/host/host_device.h"

#include "kernels_templates/host_abi.h"
#include "runtime/cache/kernel_cache.h"
#include "runtime/device/host/access_checker.h"
#include "runtime/device/host/host_compiler.h"
#include "runtime/device/host/host_pool.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace spectral {
namespace {

/// A kernel .so, loaded from an anonymous file. The file stays open while the
/// library is loaded: dlopen knows it by /proc/self/fd/N, a name that must not
/// be reused for another kernel meanwhile.
class HostKernel final : public Kernel {
 public:
  HostKernel(std::string entry, void* library, int fd, spectral_host_launch_fn launch)
      : entry_(std::move(entry)), library_(library), fd_(fd), launch_(launch) {}
  ~HostKernel() override {
    dlclose(library_);
    close(fd_);
  }
  const std::string& entry() const override { return entry_; }
  spectral_host_launch_fn launch_fn() const { return launch_; }

 private:
  std::string entry_;
  void* library_;
  int fd_;
  spectral_host_launch_fn launch_;
};

bool is_identifier(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

std::string host_target() {
  utsname machine{};
  uname(&machine);
  return std::string("host-") + machine.machine;
}

StatusOr<std::shared_ptr<Kernel>> load_shared_object(const std::vector<uint8_t>& binary,
                                                     const std::string& entry) {
  const int fd = memfd_create(("spectral-" + entry).c_str(), MFD_CLOEXEC);
  if (fd < 0) return Status::error("memfd_create: " + std::string(std::strerror(errno)));
  size_t written = 0;
  while (written < binary.size()) {
    const ssize_t n = write(fd, binary.data() + written, binary.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string reason = std::strerror(errno);
      close(fd);
      return Status::error("cannot write kernel '" + entry + "' to memory: " + reason);
    }
    written += size_t(n);
  }
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const std::string reason = dlerror();
    close(fd);
    return Status::error("cannot load kernel '" + entry + "': " + reason);
  }
  const std::string symbol = SPECTRAL_HOST_LAUNCH_PREFIX + entry;
  auto launch = reinterpret_cast<spectral_host_launch_fn>(dlsym(library, symbol.c_str()));
  if (launch == nullptr) {
    dlclose(library);
    close(fd);
    return Status::error("kernel '" + entry + "': the shared object does not export " + symbol);
  }
  return std::shared_ptr<Kernel>(std::make_shared<HostKernel>(entry, library, fd, launch));
}

std::string format(Dim3 v) {
  return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}

Status check_launch(Dim3 grid, Dim3 block, size_t dynamic_shared_bytes) {
  const uint64_t threads = uint64_t(block.x) * block.y * block.z;
  if (threads == 0 || threads > HostDevice::kMaxThreadsPerBlock || block.x > 1024 ||
      block.y > 1024 || block.z > 64) {
    return Status::error("invalid block " + format(block) +
                         ": at most (1024,1024,64) and 1024 threads in all, none zero");
  }
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || grid.x > 0x7fffffffu || grid.y > 65535 ||
      grid.z > 65535) {
    return Status::error("invalid grid " + format(grid) +
                         ": at most (2^31-1,65535,65535), none zero");
  }
  if (dynamic_shared_bytes > HostDevice::kMaxDynamicSharedBytes) {
    return Status::error(std::to_string(dynamic_shared_bytes) +
                         " bytes of dynamic shared memory exceed the limit of " +
                         std::to_string(HostDevice::kMaxDynamicSharedBytes));
  }
  return Status::ok();
}

}  // namespace

StatusOr<std::unique_ptr<HostDevice>> HostDevice::create() {
  StatusOr<host::HostChecks> checks = host::host_checks_from_environment();
  if (!checks) return checks.status();
  return create(*checks);
}

StatusOr<std::unique_ptr<HostDevice>> HostDevice::create(const host::HostChecks& checks) {
  StatusOr<HostSchedule> schedule = schedule_from_environment();
  if (!schedule) return schedule.status();
  return create(checks, *schedule);
}

StatusOr<std::unique_ptr<HostDevice>> HostDevice::create(const host::HostChecks& checks,
                                                         HostSchedule schedule) {
  StatusOr<HostDenormals> denormals = denormals_from_environment();
  if (!denormals) return denormals.status();
  return create(checks, schedule, *denormals);
}

StatusOr<std::unique_ptr<HostDevice>> HostDevice::create(const host::HostChecks& checks,
                                                         HostSchedule schedule,
                                                         HostDenormals denormals) {
  StatusOr<uint64_t> limit = memory_limit_from_environment();
  if (!limit) return limit.status();
  StatusOr<HostChains> chains = chains_from_environment();
  if (!chains) return chains.status();
  StatusOr<host::HostPool*> pool = host::HostPool::global();
  if (!pool) return pool.status();
  std::unique_ptr<HostDevice> device(new HostDevice(*pool, checks, schedule, denormals));
  device->memory_.limit_bytes = *limit;
  device->chains_ = *chains;
  return device;
}

namespace {

/// The value of the environment variable `name` that `choices` gives for
/// its text; the first choice when it is unset or empty; else an error
/// naming the variable and the choices.
template <typename E>
StatusOr<E> choice_from_environment(const char* name,
                                    std::initializer_list<std::pair<const char*, E>> choices) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == 0) return choices.begin()->second;
  std::string expected;
  for (const auto& [word, value] : choices) {
    if (std::strcmp(text, word) == 0) return value;
    expected += expected.empty() ? std::string(word) + " (the default)"
                                 : std::string(" or ") + word;
  }
  return Status::error(std::string(name) + "=" + text + ": expected " + expected);
}

}  // namespace

StatusOr<HostSchedule> HostDevice::schedule_from_environment() {
  return choice_from_environment<HostSchedule>(
      "SPECTRAL_HOST_SCHEDULE",
      {{"phased", HostSchedule::kPhased}, {"fibers", HostSchedule::kFibers}});
}

StatusOr<HostChains> HostDevice::chains_from_environment() {
  return choice_from_environment<HostChains>(
      "SPECTRAL_HOST_CHAINS",
      {{"auto", HostChains::kAuto}, {"always", HostChains::kAlways}, {"never", HostChains::kNever}});
}

bool HostDevice::chains_in_parts(uint32_t parts, int threads, HostChains policy) {
  // With 3 parts on 2 threads one thread would run two parts while the
  // other waits: unchained, both share each launch's blocks.
  const uint64_t t = uint64_t(std::max(threads, 1));
  return parts >= 2 && policy != HostChains::kNever &&
         (policy == HostChains::kAlways || parts % t == 0 || parts >= 8 * t);
}

StatusOr<HostDenormals> HostDevice::denormals_from_environment() {
  return choice_from_environment<HostDenormals>(
      "SPECTRAL_HOST_DENORMALS",
      {{"flush", HostDenormals::kFlush}, {"keep", HostDenormals::kKeep}});
}

HostDevice::HostDevice(host::HostPool* pool, const host::HostChecks& checks,
                       HostSchedule schedule, HostDenormals denormals)
    : pool_(pool),
      checks_(checks),
      phased_(schedule == HostSchedule::kPhased && !checks.any()),
      denormals_(denormals) {
  if (checks.accesses()) checker_ = std::make_unique<host::AccessChecker>(checks.race, checks.init);
}

HostDevice::~HostDevice() {
  for (auto& [pointer, bytes] : allocations_)
    if (!host::guarded_release(pointer)) std::free(pointer);
}

std::string HostDevice::name() const {
  return "host (" + std::to_string(pool_->threads()) + " threads" +
         (checks_.any() ? ", checking " + checks_.describe() : "") +
         (phased_ || checks_.any() ? "" : ", fibers only") +
         (denormals_ == HostDenormals::kKeep ? ", denormals kept" : "") + ")";
}

StatusOr<void*> HostDevice::allocate(size_t bytes) {
  // 256-byte aligned, as cudaMalloc; zero bytes still give a distinct pointer.
  // With the bounds check, 16-byte aligned and ending at a guard page. Without
  // it, large allocations end at a guard page after their 256-byte rounding:
  // a kernel writing past one fails its launch rather than the heap.
  const size_t rounded = (bytes + 255) / 256 * 256;
  const bool guarded = checks_.bounds || bytes >= kGuardedBytes;
  std::lock_guard<std::mutex> lock(mutex_);  // the limit's check and the allocation as one
  if (!memory_.fits(bytes)) return memory_.over_limit(bytes, name());
  void* pointer = guarded ? host::guarded_allocate(bytes, false, checks_.bounds ? 16 : 256)
                          : std::aligned_alloc(256, rounded == 0 ? 256 : rounded);
  if (pointer == nullptr) {
    return Status::error("host device: out of memory allocating " + std::to_string(bytes) +
                         " bytes (" + std::to_string(memory_.in_use_bytes) + " bytes in use)");
  }
  allocations_.emplace(pointer, bytes);
  memory_.allocated(bytes);
  if (guarded) ++guarded_;
  if (checker_) checker_->allocated(pointer, bytes);
  return pointer;
}

DeviceMemoryStats HostDevice::memory_stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return memory_;
}

Status HostDevice::release(void* pointer) {
  if (pointer == nullptr) return Status::ok();
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = allocations_.find(pointer);
  if (found == allocations_.end()) {
    return Status::error("host device: release of a pointer it did not allocate (or released "
                         "twice)");
  }
  memory_.released(found->second);
  allocations_.erase(found);
  if (checker_) checker_->released(pointer);
  if (host::guarded_release(pointer)) {
    --guarded_;
  } else {
    std::free(pointer);
  }
  return Status::ok();
}

void HostDevice::copy(void* dst, const void* src, size_t bytes) {
  const auto* from = static_cast<const char*>(src);
  auto* to = static_cast<char*>(dst);
  const bool apart = to + bytes <= from || from + bytes <= to;
  if (bytes < kParallelCopyBytes || !apart || pool_->threads() == 1) {
    std::memmove(dst, src, bytes);
    return;
  }
  // Chunks over the pool's threads: one thread's memcpy does not reach the
  // memory's bandwidth.
  const uint64_t chunks = (bytes + kCopyChunkBytes - 1) / kCopyChunkBytes;
  pool_->parallel_for(chunks, [&](uint64_t i) {
    const size_t at = size_t(i) * kCopyChunkBytes;
    std::memcpy(to + at, from + at, std::min(kCopyChunkBytes, bytes - at));
  });
}

Status HostDevice::copy_to_device(void* device_dst, const void* host_src, size_t bytes) {
  if (bytes == 0) return Status::ok();
  if (device_dst == nullptr || host_src == nullptr) {
    return Status::error("host device: copy_to_device with a null pointer");
  }
  copy(device_dst, host_src, bytes);
  if (checker_) checker_->host_wrote(device_dst, bytes);
  return Status::ok();
}

Status HostDevice::copy_to_host(void* host_dst, const void* device_src, size_t bytes) {
  if (bytes == 0) return Status::ok();
  if (host_dst == nullptr || device_src == nullptr) {
    return Status::error("host device: copy_to_host with a null pointer");
  }
  copy(host_dst, device_src, bytes);
  return Status::ok();
}

Status HostDevice::copy_on_device(void* device_dst, const void* device_src, size_t bytes) {
  if (bytes == 0) return Status::ok();
  if (device_dst == nullptr || device_src == nullptr) {
    return Status::error("host device: copy_on_device with a null pointer");
  }
  copy(device_dst, device_src, bytes);
  if (checker_) checker_->copied(device_dst, device_src, bytes);
  return Status::ok();
}

Status HostDevice::fill_zero(void* device_dst, size_t bytes) {
  if (bytes == 0) return Status::ok();
  if (device_dst == nullptr) return Status::error("host device: fill_zero of a null pointer");
  std::memset(device_dst, 0, bytes);
  if (checker_) checker_->host_wrote(device_dst, bytes);
  return Status::ok();
}

StatusOr<std::shared_ptr<Kernel>> HostDevice::load(const KernelSource& given) {
  const KernelSource source = with_defines(given);
  if (!is_identifier(source.entry)) {
    return Status::error("kernel entry '" + source.entry + "' is not a C identifier");
  }
  StatusOr<host::HostCompiler> compiler = host::host_compiler();
  if (!compiler) return compiler.status();
  const std::string unit = host::host_unit_source(source.source, source.entry);
  const host::HostBuild build =
      checks_.accesses() ? host::HostBuild::kCheckAccesses : host::HostBuild::kPlain;
  const CacheKey key{unit, host::host_compile_options_key(build, host::phased_unit(unit)),
                     host_target(), compiler->version};
  auto compile = [&]() { return host::compile_host_kernel(*compiler, unit, source.entry, build); };
  KernelCache& cache = KernelCache::global();
  bool compiled = false;
  StatusOr<KernelCache::Binary> binary = cache.get_or_compile_shared(key, compile, &compiled);
  if (!binary) return binary.status();
  StatusOr<std::shared_ptr<Kernel>> kernel = load_shared_object(**binary, source.entry);
  if (kernel) return kernel;
  // One just compiled that does not load is not kept (the compiler is
  // broken: the next run compiles again). A stored one that does not load
  // (damaged past its checksum) is compiled and stored again, once, except
  // in require mode, where nothing is compiled.
  if (compiled) cache.discard(key);
  if (compiled || cache.options().mode != CacheMode::kOn) return kernel;
  std::fprintf(stderr, "spectral: kernel cache: %s; recompiling it\n",
               kernel.status().message().c_str());
  cache.discard(key);
  binary = cache.get_or_compile_shared(key, compile);
  if (!binary) return binary.status();
  return load_shared_object(**binary, source.entry);
}

Status HostDevice::launch(const Kernel& kernel, Dim3 grid, Dim3 block,
                          size_t dynamic_shared_bytes, void** args) {
  const auto* host_kernel = dynamic_cast<const HostKernel*>(&kernel);
  if (host_kernel == nullptr) {
    return Status::error("kernel '" + kernel.entry() + "' was not loaded by a host device");
  }
  if (Status status = check_launch(grid, block, dynamic_shared_bytes); !status) {
    return Status::error("launch of kernel '" + kernel.entry() + "': " + status.message());
  }
  if (!checks_.order) return run(*host_kernel, grid, block, dynamic_shared_bytes, args, false);
  // The order check: from the same memory, forward and then in the other order.
  const std::vector<Snapshot> before = snapshot();
  if (Status forward = run(*host_kernel, grid, block, dynamic_shared_bytes, args, false); !forward)
    return forward;
  const std::vector<Snapshot> after = snapshot();
  restore(before);
  const std::string order = checks_.order_reverse
                                ? std::string("reversed order")
                                : "random order (seed " + std::to_string(checks_.order_seed) + ")";
  if (Status other = run(*host_kernel, grid, block, dynamic_shared_bytes, args, true); !other)
    return Status::error(other.message() + " (with its threads in " + order +
                         "; it ran in forward order)");
  std::lock_guard<std::mutex> lock(mutex_);
  for (const Snapshot& forward : after) {
    auto it = allocations_.find(forward.pointer);
    if (it == allocations_.end() || it->second != forward.bytes.size()) continue;
    const uint8_t* now = static_cast<const uint8_t*>(forward.pointer);
    for (size_t i = 0; i < forward.bytes.size(); ++i) {
      if (now[i] == forward.bytes[i]) continue;
      char text[160];
      std::snprintf(text, sizeof text,
                    "byte %zu of a %zu-byte device allocation at %p is 0x%02x in it, 0x%02x in "
                    "forward order",
                    i, forward.bytes.size(), forward.pointer, now[i], forward.bytes[i]);
      return Status::error("kernel '" + kernel.entry() + "': order: with its threads in " + order +
                           " the launch wrote other bytes than in forward order: " + text);
    }
  }
  return Status::ok();
}

void HostDevice::prepare(host::LaunchContext* context, bool permute) {
  pool_->prepare(context);
  context->check_bounds = checks_.bounds;
  context->catch_faults = guarded_.load(std::memory_order_relaxed) > 0;
  context->check_sync = checks_.sync;
  context->checker = checker_.get();
  context->serial = checks_.order;
  context->permute = permute;
  context->order_reverse = checks_.order_reverse;
  context->order_seed = checks_.order_seed;
  context->phased = phased_;
  context->flush_denormals = denormals_ == HostDenormals::kFlush;
}

Status HostDevice::call(const Kernel& kernel, host::LaunchContext& context, Dim3 grid, Dim3 block,
                        size_t dynamic_shared_bytes, void** args) {
  const auto& host_kernel = static_cast<const HostKernel&>(kernel);
  const int result = host_kernel.launch_fn()(&context.table, {grid.x, grid.y, grid.z},
                                             {block.x, block.y, block.z}, dynamic_shared_bytes,
                                             args);
  if (result == -1 && context.status.is_ok()) {
    return Status::error("kernel '" + kernel.entry() + "' was built for another host ABI");
  }
  return context.status;
}

Status HostDevice::run(const Kernel& kernel, Dim3 grid, Dim3 block, size_t dynamic_shared_bytes,
                       void** args, bool permute) {
  host::LaunchContext context;
  prepare(&context, permute);
  return call(kernel, context, grid, block, dynamic_shared_bytes, args);
}

Status HostDevice::launch_chain(const GraphOp& first, const GraphOp& second) {
  // Under any check the launches run one after the other, as on a GPU (the
  // race, init and order checks run blocks one at a time; the bounds check
  // guards the chain's local buffer, which the threads' own would bypass).
  const uint32_t parts = first.chain_parts;
  if (checks_.any() || !chains_in_parts(parts, pool_->threads(), chains_))
    return Device::launch_chain(first, second);
  for (const GraphOp* op : {&first, &second}) {
    if (op->kind != GraphOp::Kind::kLaunch || op->kernel == nullptr)
      return Status::error("a chain of launches holds an operation that is not a launch");
    if (dynamic_cast<const HostKernel*>(op->kernel) == nullptr)
      return Status::error("kernel '" + op->kernel->entry() + "' was not loaded by a host device");
    if (Status status = check_launch(op->grid, op->block, op->shared_bytes); !status)
      return Status::error("launch of kernel '" + op->kernel->entry() + "': " + status.message());
  }
  // A local buffer's slices go to each thread's own buffer while they are
  // small enough for a core's cache to hold. That is where chains gain
  // (measured: chaining alone, the slices in the Program's buffer, about
  // nothing), so `auto` chains only then.
  host::HostPool::ChainLocal local;
  local.args[0] = first.chain_local_arg;
  local.args[1] = second.chain_local_arg;
  local.counts[0] = first.args.size();
  local.counts[1] = second.args.size();
  local.part_bytes = size_t(first.chain_local_bytes / parts);
  const bool use_local = local.args[0] >= 0 && local.args[1] >= 0 &&
                         first.chain_local_bytes % parts == 0 && local.part_bytes > 0 &&
                         local.part_bytes <= kMaxChainLocalPartBytes;
  if (!use_local && chains_ == HostChains::kAuto) return Device::launch_chain(first, second);
  // The first kernel's run_grid calls the second's export, whose run_grid
  // runs both grids: each .so's launch stays on the stack until it is done.
  GraphOpParams first_params(first), second_params(second);
  host::LaunchContext outer, inner;
  prepare(&outer, false);
  prepare(&inner, false);
  bool ran = false;
  outer.then = [&](const host::GridLaunch& a) {
    inner.then = [&](const host::GridLaunch& b) {
      ran = true;
      return pool_->run_chain(a, b, parts, use_local ? &local : nullptr);
    };
    Status status = call(*second.kernel, inner, second.grid, second.block, second.shared_bytes,
                         second_params.pointers.data());
    if (status.is_ok() && !ran)
      return Status::error("kernel '" + second.kernel->entry() + "' returned without its grid");
    return status;
  };
  Status status = call(*first.kernel, outer, first.grid, first.block, first.shared_bytes,
                       first_params.pointers.data());
  if (status.is_ok() && !ran)
    return Status::error("kernel '" + first.kernel->entry() + "' returned without its grid");
  if (status.is_ok()) chained_.fetch_add(1, std::memory_order_relaxed);
  return status;
}

std::vector<HostDevice::Snapshot> HostDevice::snapshot() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Snapshot> copies;
  copies.reserve(allocations_.size());
  for (const auto& [pointer, bytes] : allocations_) {
    const uint8_t* data = static_cast<const uint8_t*>(pointer);
    copies.push_back({pointer, std::vector<uint8_t>(data, data + bytes)});
  }
  return copies;
}

void HostDevice::restore(const std::vector<Snapshot>& copies) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const Snapshot& copy : copies) {
    auto it = allocations_.find(copy.pointer);
    if (it != allocations_.end() && it->second == copy.bytes.size() && !copy.bytes.empty())
      std::memcpy(copy.pointer, copy.bytes.data(), copy.bytes.size());
  }
}

Status HostDevice::synchronize() { return Status::ok(); }

}  // namespace spectral
