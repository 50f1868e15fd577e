// host_device.h - the CPU as a CUDA device: the same kernel source, run on host threads.
//
// load() compiles the unit with the system C++ compiler and the host
// emulation header (kernels_templates/host_emulation.h, whose top describes
// the entry convention) into a shared object, through KernelCache::global(),
// and loads it from memory (memfd + dlopen). launch() runs the grid on the
// process-wide HostPool: blocks on OS threads, CUDA threads as fibers.
// Launches are synchronous; synchronize() has nothing to wait for.
//
// Environment (errors name the variable):
//   SPECTRAL_HOST_CXX         compiler command (default c++)
//   SPECTRAL_HOST_THREADS     OS threads running blocks (default: hardware threads)
//   SPECTRAL_HOST_STACK_SIZE  stack per CUDA thread, e.g. 128K (default 64K)
//   SPECTRAL_HOST_CHECK       check modes, e.g. bounds (host_checks.h; default none)
//   SPECTRAL_HOST_SCHEDULE    phased (default): a phased kernel (host_emulation.h)
//                             runs a block per call, its templates looping over the
//                             threads; fibers: every kernel's threads as fibers
//   SPECTRAL_HOST_DENORMALS   flush (default): kernels' float and double arithmetic
//                             gives zero where a result would be denormal (x86-64);
//                             keep: IEEE gradual underflow, as a GPU's (many times
//                             slower where denormals are common)
#pragma once

#include "runtime/device/device.h"
#include "runtime/device/host/host_checks.h"
#include "runtime/status.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace spectral {

namespace host {
class AccessChecker;
class HostPool;
struct LaunchContext;
}

/// How the host device runs the threads of a phased kernel (host_emulation.h).
/// Under any check they run as fibers, whatever the schedule.
enum class HostSchedule { kPhased, kFibers };

/// Whether the host device runs chained launches (Step::chain_parts) part by
/// part: kAuto where the parts share out evenly over its threads (a multiple
/// of them, or at least 8 a thread) and its threads take the chain's local
/// buffer (Step::chain_local) into their own, kAlways wherever a chain has 2
/// parts or more, kNever (one launch after the other, as on a GPU). Any
/// check runs them one after the other.
enum class HostChains { kAuto, kAlways, kNever };

/// Whether kernels on the host flush denormal results of float and double
/// arithmetic to zero (kFlush: a CPU takes up to ~100 cycles per denormal
/// otherwise; a training's small gradients make many), or keep IEEE gradual
/// underflow (kKeep: as CUDA does without -ftz, and for doubles always).
/// Denormal inputs are read as they are either way. x86-64 only (MXCSR's
/// FTZ, set on the threads that run blocks, the caller's included, during a
/// launch and restored after); elsewhere the threads' mode is left as it is.
enum class HostDenormals { kFlush, kKeep };

class HostDevice final : public Device {
 public:
  /// Limits a launch is checked against (CUDA's, so host runs catch what a GPU would reject).
  static constexpr uint32_t kMaxThreadsPerBlock = 1024;
  static constexpr size_t kMaxDynamicSharedBytes = 227 * 1024;

  /// Fails when SPECTRAL_HOST_THREADS, SPECTRAL_HOST_STACK_SIZE,
  /// SPECTRAL_HOST_CHECK, SPECTRAL_HOST_SCHEDULE, SPECTRAL_HOST_DENORMALS or
  /// SPECTRAL_DEVICE_MEMORY_LIMIT (a cap on the bytes allocated, as on a GPU;
  /// every create reads it) is invalid.
  static StatusOr<std::unique_ptr<HostDevice>> create();
  /// With `checks` rather than SPECTRAL_HOST_CHECK's.
  static StatusOr<std::unique_ptr<HostDevice>> create(const host::HostChecks& checks);
  /// With `checks` and `schedule` rather than the environment's.
  static StatusOr<std::unique_ptr<HostDevice>> create(const host::HostChecks& checks,
                                                      HostSchedule schedule);
  /// With `checks`, `schedule` and `denormals` rather than the environment's.
  static StatusOr<std::unique_ptr<HostDevice>> create(const host::HostChecks& checks,
                                                      HostSchedule schedule,
                                                      HostDenormals denormals);
  /// SPECTRAL_HOST_SCHEDULE's schedule (unset or empty: phased); an error
  /// names the variable.
  static StatusOr<HostSchedule> schedule_from_environment();
  /// SPECTRAL_HOST_DENORMALS's mode (unset or empty: flush); an error names
  /// the variable.
  static StatusOr<HostDenormals> denormals_from_environment();
  /// SPECTRAL_HOST_CHAINS's policy (auto, always, never; unset or empty:
  /// auto); an error names the variable. Every create reads it.
  static StatusOr<HostChains> chains_from_environment();
  /// Whether a chain of `parts` may run part by part on `threads` under
  /// `policy` (kAuto also asks for the local buffer: launch_chain).
  static bool chains_in_parts(uint32_t parts, int threads, HostChains policy);
  ~HostDevice() override;

  std::string name() const override;
  StatusOr<void*> allocate(size_t bytes) override;
  Status release(void* pointer) override;
  Status copy_to_device(void* device_dst, const void* host_src, size_t bytes) override;
  Status copy_to_host(void* host_dst, const void* device_src, size_t bytes) override;
  Status copy_on_device(void* device_dst, const void* device_src, size_t bytes) override;
  Status fill_zero(void* device_dst, size_t bytes) override;
  StatusOr<std::shared_ptr<Kernel>> load(const KernelSource& source) override;
  Status launch(const Kernel& kernel, Dim3 grid, Dim3 block, size_t dynamic_shared_bytes,
                void** args) override;
  /// The largest slice of a chain's local buffer (Step::chain_local) a
  /// thread takes into a buffer of its own (kept for the pool's life),
  /// about what a core's L2 holds; larger ones stay where they are.
  static constexpr size_t kMaxChainLocalPartBytes = size_t(2) << 20;
  /// Runs the two launches part by part on the pool (HostPool::run_chain),
  /// or one after the other under any check or with too few parts to share
  /// out evenly.
  Status launch_chain(const GraphOp& first, const GraphOp& second) override;
  /// Replaces SPECTRAL_HOST_CHAINS's policy (before any launch).
  void set_chains(HostChains chains) { chains_ = chains; }
  /// The chains run part by part so far.
  uint64_t chained_launches() const { return chained_.load(std::memory_order_relaxed); }
  Status synchronize() override;
  /// Whether phased kernels run a block per call here (the schedule is
  /// phased and no check is on).
  bool phased() const { return phased_; }
  /// The bytes allocated now, at most and in all, and the limit.
  DeviceMemoryStats memory_stats() const;

 private:
  HostDevice(host::HostPool* pool, const host::HostChecks& checks, HostSchedule schedule,
             HostDenormals denormals);
  /// Fills `context` with this device's checks and schedule.
  void prepare(host::LaunchContext* context, bool permute);
  /// Calls a host kernel's launch export with `context`.
  Status call(const Kernel& kernel, host::LaunchContext& context, Dim3 grid, Dim3 block,
              size_t dynamic_shared_bytes, void** args);
  /// One run of a loaded kernel's grid; `permute`: in the order check's order.
  Status run(const Kernel& kernel, Dim3 grid, Dim3 block, size_t dynamic_shared_bytes,
             void** args, bool permute);
  /// The order check: the bytes of every allocation, and putting them back
  /// into those still allocated.
  struct Snapshot {
    void* pointer;
    std::vector<uint8_t> bytes;
  };
  std::vector<Snapshot> snapshot();
  void restore(const std::vector<Snapshot>& copies);
  /// memmove; of kParallelCopyBytes or more between disjoint ranges, in
  /// kCopyChunkBytes pieces over the pool's threads.
  void copy(void* dst, const void* src, size_t bytes);
  static constexpr size_t kParallelCopyBytes = 4 << 20;
  static constexpr size_t kCopyChunkBytes = 1 << 20;

  host::HostPool* pool_;
  const host::HostChecks checks_;
  const bool phased_;  // phased kernels run a block per call
  const HostDenormals denormals_;
  HostChains chains_ = HostChains::kAuto;
  std::atomic<uint64_t> chained_{0};
  std::unique_ptr<host::AccessChecker> checker_;  // with the race or init check
  mutable std::mutex mutex_;
  std::unordered_map<void*, size_t> allocations_;  // guarded by mutex_
  DeviceMemoryStats memory_;                       // guarded by mutex_
  std::atomic<size_t> guarded_{0};  // of them ending at a guard page (read per launch, unlocked)
  /// Without the bounds check, allocations of this size or more end at a
  /// guard page too (a page is little beside them).
  static constexpr size_t kGuardedBytes = 256 * 1024;
};

}  // namespace spectral
