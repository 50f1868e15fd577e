// host_pool.h - the OS threads that run the blocks of host kernels.
//
// One process-wide pool: SPECTRAL_HOST_THREADS threads (default: the hardware
// threads), the launching thread being one of them. A grid's blocks are handed
// out one at a time from an atomic counter; each thread runs its block to
// completion with its own BlockRunner (and fiber stacks). One grid runs at a
// time; a launch returns when its last block is done.
#pragma once

#include "kernels_templates/host_abi.h"
#include "runtime/device/host/block_runner.h"
#include "runtime/status.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace spectral::host {

class HostPool;

/// One launch's link between a kernel .so and the pool: `table` is what the
/// .so's launch export receives; its run_grid stores its outcome in `status`.
struct LaunchContext {
  spectral_host_runtime table{};
  HostPool* pool = nullptr;
  Status status;
  bool check_bounds = false;  // GridLaunch::check_bounds of the launch
  bool catch_faults = false;  // GridLaunch::catch_faults
  bool check_sync = false;    // GridLaunch::check_sync
  AccessChecker* checker = nullptr;  // GridLaunch::checker
  bool serial = false;               // blocks one at a time, in order (the order check)
  bool permute = false;              // GridLaunch::permute and its order
  bool order_reverse = false;
  uint64_t order_seed = 0;
  bool phased = false;  // a phased kernel (SPECTRAL_HOST_KERNEL_PHASED) runs a block per call
  bool flush_denormals = false;  // GridLaunch::flush_denormals
  /// When set, run_grid hands its launch here instead of running it (a
  /// chain's first launch waits inside it for the second: HostDevice::launch_chain).
  std::function<Status(const GridLaunch&)> then;
};

/// Blocks per phased call of a kernel whose unit takes runs of blocks
/// (GridLaunch::run_blocks) on a pool of `threads`: up to 8 along x, and at
/// least 4 calls per thread where the grid has that many blocks.
uint32_t run_length(spectral_host_uint3 grid, int threads);

class HostPool {
 public:
  /// The process-wide pool, configured from SPECTRAL_HOST_THREADS and
  /// SPECTRAL_HOST_STACK_SIZE on first use; an invalid value is an error
  /// naming the variable (and the pool is not made).
  static StatusOr<HostPool*> global();

  HostPool(int threads, size_t stack_bytes);
  ~HostPool();
  HostPool(const HostPool&) = delete;
  HostPool& operator=(const HostPool&) = delete;

  int threads() const { return threads_; }

  /// Runs every block of `launch`. The first failing block's error names it;
  /// blocks not yet started are then skipped.
  Status run(const GridLaunch& launch);
  /// A buffer only a chain uses, slice p by part p (Step::chain_local):
  /// argument args[0] of the first launch and args[1] of the second point
  /// at it; counts[i] is each launch's number of arguments (8-byte slots).
  struct ChainLocal {
    int args[2] = {-1, -1};
    size_t counts[2] = {0, 0};
    size_t part_bytes = 0;
  };
  /// Runs `first` and then `second` part by part: the grids (along x only)
  /// split into `parts` equal ranges of blocks, and part p of `second` runs
  /// on the thread that ran part p of `first`, right after it, while the
  /// part's data is still in that core's cache. For launches where part p of
  /// `second` touches nothing of `first`'s other parts (Step::chain_parts).
  /// With `local`, each thread's parts use a part_bytes buffer of its own
  /// in place of their slice of the local buffer, which is left untouched.
  Status run_chain(const GridLaunch& first, const GridLaunch& second, uint32_t parts,
                   const ChainLocal* local = nullptr);

  /// Fills `context` for a launch on this pool.
  void prepare(LaunchContext* context);

  /// body(i) for every i < count, spread over the pool's threads (one grid
  /// or task at a time, as launches are); returns when all are done.
  void parallel_for(uint64_t count, const std::function<void(uint64_t)>& body);

 private:
  void start_workers();
  void worker_main(int index);
  void take_blocks(int index, const GridLaunch& launch);
  /// Runs `items` items of `launch` (runs of blocks, or a chain's parts)
  /// on the pool; the caller holds launch_mutex_.
  Status run_items(const GridLaunch& launch, uint64_t items);
  /// take_blocks of a chain (second_ set) on thread `index`: item i is part
  /// i of both grids.
  void take_parts(int index, BlockRunner& runner, const GridLaunch& first);
  /// Runs `blocks` blocks of `launch` from `block_idx` along x in one call
  /// of `runner`; on failure records the first error and returns false.
  bool run_blocks(BlockRunner& runner, const GridLaunch& launch, spectral_host_uint3 block_idx,
                  uint32_t blocks);
  void take_tasks(const std::function<void(uint64_t)>& body);
  /// Runs take_blocks(i, *launch), or take_tasks(*task_) when `launch` is
  /// null, on every thread (this one as thread 0) until the job is done.
  void run_job(const GridLaunch* launch, bool parallel);

  /// A thread's buffer for a chain's local slices: guarded_allocate's, so
  /// that a kernel straying past its slice faults and fails its launch
  /// (the chain's launches catch faults) rather than writes over other
  /// memory. Grown as needed, kept.
  class LocalBuffer {
   public:
    LocalBuffer() = default;
    ~LocalBuffer();
    LocalBuffer(const LocalBuffer&) = delete;
    LocalBuffer& operator=(const LocalBuffer&) = delete;
    /// `bytes` bytes, 64-byte aligned, ending at the guard page where
    /// `bytes` is a multiple of 64; nullptr when they cannot be mapped. A
    /// larger buffer from an earlier chain is kept and reused.
    char* get(size_t bytes);

   private:
    char* data_ = nullptr;
    size_t bytes_ = 0;
  };

  const int threads_;
  const size_t stack_bytes_;
  std::vector<std::unique_ptr<BlockRunner>> runners_;  // [i] used by thread i only
  std::vector<LocalBuffer> locals_;                    // [i] used by thread i only
  std::vector<std::thread> workers_;                   // threads 1..n-1, started lazily

  std::mutex launch_mutex_;  // one grid at a time
  // Set by the launching thread under launch_mutex_ before the job is
  // published (under mutex_), read by the workers during it:
  const GridLaunch* second_ = nullptr;  // a chain's second grid (run_chain)
  uint32_t parts_ = 0;                  // its parts
  const ChainLocal* local_ = nullptr;   // its local buffer, if any

  std::mutex mutex_;  // guards what follows
  std::condition_variable wake_, done_;
  const GridLaunch* job_ = nullptr;                      // a grid (a chain's first), or
  const std::function<void(uint64_t)>* task_ = nullptr;  // parallel_for's body
  uint64_t job_id_ = 0;
  int busy_ = 0;
  bool stop_ = false;
  std::string error_;

  std::atomic<uint64_t> next_item_{0};
  std::atomic<bool> failed_{false};
  uint64_t total_items_ = 0;  // a grid's runs of blocks (GridLaunch::run_blocks), tasks or parts
};

}  // namespace spectral::host
