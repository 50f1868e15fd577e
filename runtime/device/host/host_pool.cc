// host_pool.cc - blocks spread over OS threads.
#include "runtime/device/host/host_pool.h"

#include "runtime/device/host/access_checker.h"
#include "runtime/device/host/fiber_stacks.h"
#include "runtime/device/host/host_checks.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

namespace spectral::host {
namespace {

/// While alive, this OS thread's float and double arithmetic flushes
/// denormal results to zero (`flush`) or keeps them (IEEE gradual
/// underflow), whatever the thread's mode was; that mode is restored after.
/// x86-64 only: MXCSR's FTZ. Not DAZ, which would also read denormal inputs
/// as zero: glibc's logf, log, log2 and cbrtf then return wrong values (not
/// those of zero) for them. Elsewhere the thread's mode is left as it is
/// (AArch64's FPCR.FZ flushes inputs too). Fibers started meanwhile take the
/// mode with the rest of the thread's floating-point state (Boost.Context's
/// and ucontext's x86-64 switches save and restore MXCSR).
class DenormalMode {
 public:
  explicit DenormalMode(bool flush) {
#if defined(__x86_64__)
    saved_ = __builtin_ia32_stmxcsr();
    constexpr unsigned kFlushToZero = 0x8000;  // FTZ, bit 15
    constexpr unsigned kDenormalsAreZero = 0x0040;  // DAZ, bit 6: always off here
    const unsigned mode = saved_ & ~kDenormalsAreZero;
    __builtin_ia32_ldmxcsr(flush ? mode | kFlushToZero : mode & ~kFlushToZero);
#else
    (void)flush;
#endif
  }
  ~DenormalMode() {
#if defined(__x86_64__)
    __builtin_ia32_ldmxcsr(saved_);
#endif
  }
  DenormalMode(const DenormalMode&) = delete;
  DenormalMode& operator=(const DenormalMode&) = delete;

 private:
  unsigned saved_ = 0;
};

std::string format(spectral_host_uint3 v) {
  return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}

StatusOr<int> threads_from_environment() {
  const char* text = std::getenv("SPECTRAL_HOST_THREADS");
  if (text == nullptr || *text == '\0') {
    const unsigned hardware = std::thread::hardware_concurrency();
    return int(hardware == 0 ? 1 : hardware);
  }
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value < 1 || value > 4096) {
    return Status::error(std::string("SPECTRAL_HOST_THREADS=") + text +
                         " is not a thread count from 1 to 4096");
  }
  return int(value);
}

}  // namespace

uint32_t run_length(spectral_host_uint3 grid, int threads) {
  constexpr uint64_t kLongest = 8, kCallsPerThread = 4;
  const uint64_t blocks = uint64_t(grid.x) * grid.y * grid.z;
  const uint64_t calls = kCallsPerThread * uint64_t(threads);
  return uint32_t(std::clamp<uint64_t>(blocks / calls, 1, std::min<uint64_t>(kLongest, grid.x)));
}

StatusOr<HostPool*> HostPool::global() {
  static std::mutex mutex;
  static HostPool* pool = nullptr;  // never destroyed: workers may outlive static destructors
  std::lock_guard<std::mutex> lock(mutex);
  if (pool != nullptr) return pool;
  StatusOr<int> threads = threads_from_environment();
  if (!threads) return threads.status();
  size_t stack_bytes = 0;
  std::string error;
  if (!fiber_stack_bytes_from_environment(&stack_bytes, &error)) return Status::error(error);
  pool = new HostPool(*threads, stack_bytes);
  return pool;
}

HostPool::HostPool(int threads, size_t stack_bytes)
    : threads_(threads),
      stack_bytes_(stack_bytes),
      runners_(size_t(threads)),
      locals_(size_t(threads)) {}

HostPool::~HostPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void HostPool::start_workers() {
  if (!workers_.empty()) return;
  for (int i = 1; i < threads_; ++i) workers_.emplace_back([this, i] { worker_main(i); });
}

void HostPool::worker_main(int index) {
  std::unique_lock<std::mutex> lock(mutex_);
  uint64_t seen = 0;
  for (;;) {
    wake_.wait(lock, [&] {
      return stop_ || ((job_ != nullptr || task_ != nullptr) && job_id_ != seen);
    });
    if (stop_) return;
    seen = job_id_;
    const GridLaunch* job = job_;
    const std::function<void(uint64_t)>* task = task_;  // reset before the job ends
    ++busy_;
    lock.unlock();
    if (job != nullptr)
      take_blocks(index, *job);
    else
      take_tasks(*task);
    lock.lock();
    if (--busy_ == 0) done_.notify_all();
  }
}

void HostPool::take_blocks(int index, const GridLaunch& launch) {
  std::unique_ptr<BlockRunner>& runner = runners_[size_t(index)];
  if (runner == nullptr) runner = std::make_unique<BlockRunner>(stack_bytes_);
  const DenormalMode mode(launch.flush_denormals);
  if (second_ != nullptr) return take_parts(index, *runner, launch);
  // Item i is a run of up to `run` blocks along x: (x, y, z) and those after
  // it; each row of the grid along x starts a new run.
  const uint64_t gx = launch.grid.x, gy = launch.grid.y, run = launch.run_blocks;
  const uint64_t runs_per_row = (gx + run - 1) / run;
  while (!failed_.load(std::memory_order_relaxed)) {
    const uint64_t i = next_item_.fetch_add(1, std::memory_order_relaxed);
    if (i >= total_items_) return;
    const uint64_t row = i / runs_per_row, x = i % runs_per_row * run;
    const spectral_host_uint3 block_idx{unsigned(x), unsigned(row % gy), unsigned(row / gy)};
    if (!run_blocks(*runner, launch, block_idx, uint32_t(std::min(run, gx - x)))) return;
  }
}

HostPool::LocalBuffer::~LocalBuffer() {
  if (data_ != nullptr) guarded_release(data_);
}

char* HostPool::LocalBuffer::get(size_t bytes) {
  if (bytes > bytes_) {
    if (data_ != nullptr) guarded_release(data_);
    data_ = static_cast<char*>(guarded_allocate(bytes, false, 64));
    bytes_ = data_ != nullptr ? bytes : 0;
    if (data_ == nullptr) return nullptr;
  }
  // A smaller slice than the buffer sits at its end, against the guard
  // (which follows the buffer's bytes rounded up to 64).
  const uintptr_t end = uintptr_t(data_) + (bytes_ + 63) / 64 * 64;
  return reinterpret_cast<char*>((end - bytes) & ~uintptr_t(63));
}

void HostPool::take_parts(int index, BlockRunner& runner, const GridLaunch& first) {
  GridLaunch launches[2] = {first, *second_};
  // With a local buffer: each launch's argument pointers copied, the local
  // one pointing at `shifted`, this thread's buffer less the part's offset,
  // so that the kernel's address of its slice lands in the thread's buffer.
  std::vector<void*> pointers[2];
  uintptr_t shifted = 0;
  char* mine = local_ != nullptr ? locals_[size_t(index)].get(local_->part_bytes) : nullptr;
  if (mine != nullptr) {
    for (int i = 0; i < 2; ++i) {
      pointers[i].assign(launches[i].args, launches[i].args + local_->counts[i]);
      pointers[i][size_t(local_->args[i])] = &shifted;
      launches[i].args = pointers[i].data();
      launches[i].catch_faults = true;  // a stray past the slice: the guard's fault
    }
  }
  while (!failed_.load(std::memory_order_relaxed)) {
    const uint64_t part = next_item_.fetch_add(1, std::memory_order_relaxed);
    if (part >= total_items_) return;
    if (mine != nullptr) shifted = uintptr_t(mine) - uintptr_t(part * local_->part_bytes);
    for (const GridLaunch& launch : launches) {
      const uint32_t blocks = launch.grid.x / parts_, run = launch.run_blocks;
      const uint32_t begin = uint32_t(part) * blocks, end = begin + blocks;
      for (uint32_t x = begin; x < end; x += run)
        if (!run_blocks(runner, launch, {x, 0, 0}, std::min(run, end - x))) return;
    }
  }
}

bool HostPool::run_blocks(BlockRunner& runner, const GridLaunch& launch,
                          spectral_host_uint3 block_idx, uint32_t blocks) {
  std::string error;
  if (runner.run(launch, block_idx, &error, blocks)) return true;
  std::lock_guard<std::mutex> lock(mutex_);
  if (!failed_.exchange(true)) {
    error_ = "kernel '" + std::string(launch.kernel->name) + "' failed in block " +
             format(block_idx) +
             (blocks > 1 ? " or one of the " + std::to_string(blocks - 1) +
                               " after it along x (one phased call ran them)"
                         : "") +
             ": " + error;
  }
  return false;
}

Status HostPool::run(const GridLaunch& launch) {
  std::lock_guard<std::mutex> serial(launch_mutex_);
  const uint64_t runs_per_row = (uint64_t(launch.grid.x) + launch.run_blocks - 1) /
                                launch.run_blocks;
  return run_items(launch, runs_per_row * launch.grid.y * launch.grid.z);
}

Status HostPool::run_chain(const GridLaunch& first, const GridLaunch& second, uint32_t parts,
                           const ChainLocal* local) {
  for (const GridLaunch* launch : {&first, &second}) {
    if (parts == 0 || launch->grid.y != 1 || launch->grid.z != 1 || launch->grid.x % parts != 0)
      return Status::error("kernel '" + std::string(launch->kernel->name) + "': a grid of " +
                           format(launch->grid) + " blocks does not split into " +
                           std::to_string(parts) + " parts along x");
    if (launch->serial || launch->checker != nullptr)
      return Status::error("kernel '" + std::string(launch->kernel->name) +
                           "': a chain cannot run its blocks one at a time (checks)");
  }
  if (local != nullptr)
    for (int i = 0; i < 2; ++i)
      if (local->args[i] < 0 || size_t(local->args[i]) >= local->counts[i] ||
          local->part_bytes == 0)
        return Status::error("kernel '" + std::string(first.kernel->name) +
                             "': a chain's local buffer is not one of its arguments");
  std::lock_guard<std::mutex> serial(launch_mutex_);
  second_ = &second;
  parts_ = parts;
  local_ = local;
  const Status status = run_items(first, parts);
  second_ = nullptr;
  local_ = nullptr;
  return status;
}

Status HostPool::run_items(const GridLaunch& launch, uint64_t items) {
  total_items_ = items;
  next_item_.store(0);
  failed_.store(false);
  error_.clear();
  // The race, init and order checks run a launch's blocks one at a time.
  const bool parallel = threads_ > 1 && total_items_ > 1 && !launch.serial;
  if (launch.checker != nullptr) launch.checker->begin_launch();
  run_job(&launch, parallel);
  if (failed_.load()) return Status::error(error_);
  return Status::ok();
}

void HostPool::take_tasks(const std::function<void(uint64_t)>& body) {
  for (;;) {
    const uint64_t i = next_item_.fetch_add(1, std::memory_order_relaxed);
    if (i >= total_items_) return;
    body(i);
  }
}

void HostPool::run_job(const GridLaunch* launch, bool parallel) {
  if (parallel) {
    start_workers();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = launch;
      ++job_id_;
    }
    wake_.notify_all();
  }
  if (launch != nullptr)
    take_blocks(0, *launch);
  else
    take_tasks(*task_);
  if (parallel) {
    std::unique_lock<std::mutex> lock(mutex_);
    job_ = nullptr;  // workers not yet awake skip this job
    task_ = nullptr;
    done_.wait(lock, [&] { return busy_ == 0; });
  }
}

void HostPool::parallel_for(uint64_t count, const std::function<void(uint64_t)>& body) {
  std::lock_guard<std::mutex> serial(launch_mutex_);
  total_items_ = count;
  next_item_.store(0);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    task_ = &body;
  }
  run_job(nullptr, threads_ > 1 && count > 1);
  std::lock_guard<std::mutex> lock(mutex_);
  task_ = nullptr;  // when run_job ran it alone
}

void HostPool::prepare(LaunchContext* context) {
  context->pool = this;
  context->status = Status::ok();
  spectral_host_runtime& rt = context->table;
  rt = spectral_host_runtime{};
  rt.abi_version = SPECTRAL_HOST_ABI_VERSION;
  rt.self = context;
  rt.run_grid = [](const spectral_host_runtime* table, const spectral_host_kernel* kernel,
                   spectral_host_uint3 grid, spectral_host_uint3 block, size_t dynamic_shared_bytes,
                   void** args) -> int {
    LaunchContext& context = *static_cast<LaunchContext*>(table->self);
    if (kernel->abi_version != SPECTRAL_HOST_ABI_VERSION) {
      context.status = Status::error(
          "kernel '" + std::string(kernel->name) + "' was built for host ABI version " +
          std::to_string(kernel->abi_version) + ", the runtime has " +
          std::to_string(SPECTRAL_HOST_ABI_VERSION));
      return 1;
    }
    GridLaunch launch;
    launch.rt = table;
    launch.kernel = kernel;
    launch.grid = grid;
    launch.block = block;
    launch.dynamic_shared_bytes = dynamic_shared_bytes;
    launch.args = args;
    launch.check_bounds = context.check_bounds;
    launch.catch_faults = context.check_bounds || context.catch_faults;
    launch.check_sync = context.check_sync;
    launch.checker = context.checker;
    launch.serial = context.checker != nullptr || context.serial;
    launch.permute = context.permute;
    launch.order_reverse = context.order_reverse;
    launch.order_seed = context.order_seed;
    launch.whole_block = context.phased && (kernel->flags & SPECTRAL_HOST_KERNEL_PHASED) != 0;
    if (launch.whole_block && (kernel->flags & SPECTRAL_HOST_KERNEL_PHASED_RUNS) != 0)
      launch.run_blocks = run_length(grid, context.pool->threads());
    launch.flush_denormals = context.flush_denormals;
    context.status = context.then ? context.then(launch) : context.pool->run(launch);
    return context.status.is_ok() ? 0 : 1;
  };
  BlockRunner::install_hooks(&rt);
}

}  // namespace spectral::host
