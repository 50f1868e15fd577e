// block_runner.h - runs one CUDA block at a time on the calling OS thread.
//
// The CUDA threads of a block are boost.context fibers on stacks allocated once
// per runner and reused. A barrier (__syncthreads, or a warp barrier behind
// __shfl_*_sync, __ballot_sync, __syncwarp) marks the thread as waiting and
// switches straight to the next live thread that can run; the last thread to
// arrive releases it. Exited threads count as arrived, as in CUDA. When no
// thread can run, the block is deadlocked (a barrier some threads never
// reach): the launch fails with a description instead of hanging.
//
// A kernel .so that contains no barrier (see SPECTRAL_HOST_KERNEL_USES_SYNC)
// runs its threads as a plain loop, without fibers; a phased one
// (SPECTRAL_HOST_KERNEL_PHASED, GridLaunch::whole_block) runs a block per call.
#pragma once

#include "kernels_templates/host_abi.h"

#include <cstddef>
#include <memory>
#include <string>

namespace spectral::host {

class AccessChecker;

/// What every block of one grid shares.
struct GridLaunch {
  const spectral_host_runtime* rt = nullptr;
  const spectral_host_kernel* kernel = nullptr;
  spectral_host_uint3 grid{1, 1, 1};
  spectral_host_uint3 block{1, 1, 1};
  size_t dynamic_shared_bytes = 0;
  void** args = nullptr;
  /// host_checks.h's bounds check: the dynamic shared memory ends at an
  /// inaccessible page, and a fault there (or past a guarded device
  /// allocation) ends the block with an error naming the thread.
  bool check_bounds = false;
  /// A fault past a guarded device allocation ends the block with that error
  /// (with the bounds check, or without it where the device guarded large
  /// allocations); else it ends the process, as it would anyway.
  bool catch_faults = false;
  /// host_checks.h's sync check: an exit while others wait at a barrier, a
  /// barrier after exits, or a warp mask naming absent lanes fails the block.
  bool check_sync = false;
  /// host_checks.h's race and init checks: the kernel (built for them)
  /// reports its accesses here; blocks then run one at a time.
  AccessChecker* checker = nullptr;
  /// Blocks one at a time, in order (the race, init and order checks).
  bool serial = false;
  /// host_checks.h's order check: the threads of a block run in another
  /// order (reversed, or a random one redrawn at every barrier from
  /// `order_seed`, the block and the barrier), blocks one at a time.
  bool permute = false;
  bool order_reverse = false;
  uint64_t order_seed = 0;
  /// The kernel is phased (host_emulation.h): one call runs each whole block,
  /// its templates looping over the threads; no fibers.
  bool whole_block = false;
  /// Blocks per phased call, consecutive along x (the last of a row of the
  /// grid may have fewer): more than 1 only for a kernel whose unit says
  /// SPECTRAL_HOST_PHASED_RUNS.
  uint32_t run_blocks = 1;
  /// Denormal operands and results of float and double arithmetic are zeros
  /// while the blocks run (HostDenormals::kFlush); else IEEE gradual underflow.
  bool flush_denormals = false;
};

class BlockRunner {
 public:
  /// `stack_bytes` per CUDA thread, a guard page included.
  explicit BlockRunner(size_t stack_bytes);
  ~BlockRunner();
  BlockRunner(const BlockRunner&) = delete;
  BlockRunner& operator=(const BlockRunner&) = delete;

  /// Runs block `block_idx` to completion (and, in a phased call of a run,
  /// the `run_blocks` - 1 blocks after it along x). On a trap or a deadlock
  /// returns false and sets `error` (the block's other threads are abandoned).
  bool run(const GridLaunch& launch, spectral_host_uint3 block_idx, std::string* error,
           uint32_t run_blocks = 1);

  /// Fills the barrier, warp and trap hooks of `rt`.
  static void install_hooks(spectral_host_runtime* rt);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace spectral::host
