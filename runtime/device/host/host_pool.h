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

  /// Fills `context` for a launch on this pool.
  void prepare(LaunchContext* context);

  /// body(i) for every i < count, spread over the pool's threads (one grid
  /// or task at a time, as launches are); returns when all are done.
  void parallel_for(uint64_t count, const std::function<void(uint64_t)>& body);

 private:
  void start_workers();
  void worker_main(int index);
  void take_blocks(int index, const GridLaunch& launch);
  void take_tasks(const std::function<void(uint64_t)>& body);
  /// Runs take_blocks(i, *launch), or take_tasks(*task_) when `launch` is
  /// null, on every thread (this one as thread 0) until the job is done.
  void run_job(const GridLaunch* launch, bool parallel);

  const int threads_;
  const size_t stack_bytes_;
  std::vector<std::unique_ptr<BlockRunner>> runners_;  // [i] used by thread i only
  std::vector<std::thread> workers_;                   // threads 1..n-1, started lazily

  std::mutex launch_mutex_;  // one grid at a time
  std::mutex mutex_;         // guards what follows
  std::condition_variable wake_, done_;
  const GridLaunch* job_ = nullptr;             // a grid, or
  const std::function<void(uint64_t)>* task_ = nullptr;  // parallel_for's body
  uint64_t job_id_ = 0;
  int busy_ = 0;
  bool stop_ = false;
  std::string error_;

  std::atomic<uint64_t> next_item_{0};
  std::atomic<bool> failed_{false};
  uint64_t total_items_ = 0;  // a grid's runs of blocks (GridLaunch::run_blocks), or tasks
};

}  // namespace spectral::host
