// block_scheduler.h - the state behind BlockRunner (private to runtime/device/host).
//
// One block at a time: its CUDA threads (fibers), the ring of live ones, the
// block barrier and the warp barriers. block_runner.cc schedules and runs;
// block_barriers.cc implements the barriers the kernel's hooks reach.
#pragma once

#include "runtime/device/host/block_runner.h"
#include "runtime/device/host/fiber_stacks.h"
#include "runtime/device/host/host_checks.h"

#include <boost/context/fiber.hpp>
#include <pthread.h>
#include <signal.h>

#include <csetjmp>
#include <cstdint>
#include <string>

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SPECTRAL_TSAN_FIBERS 1  // clang
#endif
#endif
#if defined(__SANITIZE_THREAD__) && !defined(SPECTRAL_TSAN_FIBERS)
#define SPECTRAL_TSAN_FIBERS 1  // GCC
#endif
#ifdef SPECTRAL_TSAN_FIBERS
// ThreadSanitizer's fiber API (sanitizer/tsan_interface.h): without it TSan
// would take a fiber switch for a jump within one thread's stack.
extern "C" {
void* __tsan_get_current_fiber(void);
void* __tsan_create_fiber(unsigned flags);
void __tsan_destroy_fiber(void* fiber);
void __tsan_switch_to_fiber(void* fiber, unsigned flags);
}
#endif

namespace spectral::host {

namespace ctx = boost::context;

/// The stacks belong to FiberStacks; a finished fiber gives nothing back.
struct NoopStackAllocator {
  ctx::stack_context allocate() { return {}; }
  void deallocate(ctx::stack_context&) noexcept {}
};

/// Thrown by the hooks in loop mode (threads run as a plain loop), caught by run_loop.
struct LoopModeError {
  std::string message;
};

enum class State : uint8_t {
  kNotStarted,
  kRunning,
  kBlockWait,   // at __syncthreads
  kWarpWait,    // at a warp round (__shfl/__ballot/__syncwarp/...)
  kWarpDrain,   // waiting for lanes to read a round buffer before reusing it
  kActiveWait,  // at __activemask, until every other lane of the warp is parked
  kActiveDone,  // released from __activemask, result in active_mask
  kExited
};

struct Thread {
  ctx::fiber fiber;  // the suspended context; empty while running, unstarted or exited
  spectral_host_uint3 tid{0, 0, 0};
  uint32_t wait_gen = 0;
  uint32_t active_mask = 0;
  State state = State::kNotStarted;
  uint32_t next = 0, prev = 0;  // ring of the live threads
  uintptr_t site = 0;  // the return address of its last barrier or warp call (host ABI)
};

/// A warp barrier round: lanes publish into values[gen & 1]. Double-buffered,
/// because a released lane may publish again before the others have read; and
/// a lane may not publish into a buffer whose lanes have not all read it yet
/// (unread), which happens when rounds with different masks interleave.
struct Warp {
  uint32_t live = 0, arrived = 0, need = 0, gen = 0;
  uint32_t round_arrived[2] = {0, 0};
  uint32_t unread[2] = {0, 0};  // lanes released from that round, not yet resumed
  uint64_t values[2][32] = {};
};

constexpr uint32_t kMaxThreads = 1024;
constexpr uint32_t kMain = UINT32_MAX;

std::string format(spectral_host_uint3 v);
/// "0x0000ffff": a warp's lanes.
std::string hex32(uint32_t value);

struct BlockRunner::Impl {
  explicit Impl(size_t stack_bytes) : stacks(stack_bytes) {}
#ifdef SPECTRAL_TSAN_FIBERS
  ~Impl() {
    for (void*& fiber : tsan_fibers)
      if (fiber) __tsan_destroy_fiber(fiber);
  }
  void* tsan_main = nullptr;              // the OS thread's own, during run_fibers
  void* tsan_fibers[kMaxThreads] = {};    // per CUDA thread slot
  uint32_t tsan_uses[kMaxThreads] = {};   // threads its TSan fiber ran
#endif
  /// Says who runs next (kMain: run_fibers) to ThreadSanitizer, just before
  /// the switch; every switch orders what came before it (flags 0), as the
  /// fibers of one block run one at a time. Nothing without TSan.
  void announce_switch(uint32_t next) {
#ifdef SPECTRAL_TSAN_FIBERS
    __tsan_switch_to_fiber(next == kMain ? tsan_main : tsan_fibers[next], 0);
#else
    (void)next;
#endif
  }

  FiberStacks stacks;
  Thread threads[kMaxThreads];
  // The bounds check (host_checks.h): the block's dynamic shared memory,
  // guarded, and the way out of a faulting thread in loop mode.
  void* guarded_shared = nullptr;
  size_t guarded_shared_bytes = 0;
  sigjmp_buf loop_escape;
  GuardFault guard_fault;  // the block's, recorded by the fault handler
  /// The OS thread's signal mask, restored after a guard fault (a
  /// sanitizer's handler may block more). Read once per OS thread, not per
  /// block: a syscall per block would cost small blocks up to half their time.
  sigset_t block_mask;
  pthread_t mask_thread{};
  bool mask_saved = false;
  void save_mask() {
    if (mask_saved && pthread_equal(mask_thread, pthread_self())) return;
    pthread_sigmask(SIG_SETMASK, nullptr, &block_mask);
    mask_thread = pthread_self();
    mask_saved = true;
  }
  Warp warps[kMaxThreads / 32];
  void* shared = nullptr;
  size_t shared_capacity = 0;

  spectral_host_block block{};
  const GridLaunch* launch = nullptr;
  bool loop_mode = false;
  std::string error;

  uint32_t count = 0, live = 0;
  uint32_t arrived = 0, gen = 0;  // the block barrier
  uint32_t acc[2] = {0, 0}, participants[2] = {0, 0};
  uint32_t cur = 0, from = kMain;  // running thread; who switched to it
  ctx::fiber main;

  // Scheduling (block_runner.cc).
  bool runnable(uint32_t i) const {
    const Thread& t = threads[i];
    switch (t.state) {
      case State::kNotStarted: return true;
      case State::kBlockWait: return t.wait_gen != gen;
      case State::kWarpWait: return t.wait_gen != warps[i >> 5].gen;
      case State::kWarpDrain: return warps[i >> 5].unread[warps[i >> 5].gen & 1] == 0;
      case State::kActiveWait: return warp_parked(i >> 5);
      case State::kActiveDone: return true;
      default: return false;
    }
  }
  /// Makes thread `i` the running one (its fiber created on first entry).
  void enter(uint32_t i) {
    cur = i;
    block.thread_idx = threads[i].tid;
    block.linear_tid = i;
    if (threads[i].state == State::kNotStarted) start(i);
  }
  void start(uint32_t i);
  /// Keeps the context that just switched to us where it belongs.
  void stash(ctx::fiber&& f) {
    if (!f) return;  // it exited
    if (from == kMain) {
      main = std::move(f);
    } else {
      threads[from].fiber = std::move(f);
    }
  }
  /// Suspends `me` (waiting at a barrier) and runs the next thread that can.
  /// Inline: the barrier hooks are the hot path.
  void switch_from(uint32_t me) { switch_to(me, threads[me].next); }
  /// The same, from `next` on in the ring.
  void switch_to(uint32_t me, uint32_t next) {
    while (next != me && !runnable(next)) next = threads[next].next;
    if (next == me) fail(deadlock_message());
    from = me;
    enter(next);
    announce_switch(next);
    ctx::fiber back = std::move(threads[next].fiber).resume();
    stash(std::move(back));
  }
  ctx::fiber exit_thread(uint32_t me);
  /// Ends the block with `message`: back to run_fibers, never to return here.
  [[noreturn]] void fail(std::string message);
  /// Whether `impl` runs a block on this OS thread now.
  bool running_here() const;
  /// Back to run_fibers from the running fiber, never to return to it.
  [[noreturn]] void to_main();
  /// From the fault handler: records `fault` and ends the block, out of the
  /// faulting thread (a fiber, or the loop); allocates nothing.
  [[noreturn]] void bounds_fault(const GuardFault& fault);
  /// The dynamic shared memory of a launch with the bounds check; false
  /// (with `error`) when it cannot be mapped.
  bool guard_shared(size_t bytes, std::string* error);
  /// The order check: puts order[0, n) in the launch's other order (reversed,
  /// or shuffled by a generator seeded from the seed, the block and `gen`).
  void permute(uint32_t n);
  /// ... and relinks the ring of live threads in it; the first of them.
  uint32_t reorder();
  uint32_t order[kMaxThreads];

  bool run_loop(std::string* message);
  bool run_fibers(std::string* message);

  // Barriers (block_barriers.cc).
  void release_block();
  /// `site`: the call's return address in the kernel (Thread::site).
  int sync_block(int op, int predicate, uintptr_t site);
  /// Releases the warp's round if every live lane it names has arrived;
  /// `caller_arrived`: the calling lane is one of them and reads at once.
  static bool try_release_warp(Warp& warp, bool caller_arrived);
  const uint64_t* warp_exchange(uint32_t mask, uint64_t value, uint32_t* arrived_lanes,
                                uintptr_t site);
  /// Every live lane of warp `w` waits where it cannot go on, or at __activemask.
  bool warp_parked(uint32_t w) const;
  /// __activemask(): the lanes that reach it together, i.e. before any lane of
  /// the warp could make progress otherwise (the GPU's converged lanes).
  uint32_t active_mask();

  /// Fills the barrier, warp and trap hooks of `rt` (block_barriers.cc).
  static void install_hooks(spectral_host_runtime* rt);

  // Messages (block_barriers.cc).
  std::string where() const { return "thread " + format(block.thread_idx); }
  std::string barrier_in_loop_mode(const char* what) const;
  /// Notes the barrier sites of the waiting threads too.
  std::string deadlock_message();
  /// Adds a barrier call's site to those the block's error names
  /// (BlockRunner::run gives their source lines, off the fibers).
  void note_site(uintptr_t site);
  static constexpr uint32_t kMaxSites = 4;
  uintptr_t sites[kMaxSites] = {};
  uint32_t site_count = 0;
};

}  // namespace spectral::host
