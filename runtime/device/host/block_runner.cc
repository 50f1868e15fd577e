// block_runner.cc - CUDA threads as fibers, barriers as switches.
#include "runtime/device/host/block_runner.h"

#include "runtime/device/host/fiber_stacks.h"

#include <boost/context/fiber.hpp>

#include <cstdint>
#include <cstdlib>
#include <new>

namespace spectral::host {
namespace {

namespace ctx = boost::context;

/// The stacks belong to FiberStacks; a finished fiber gives nothing back.
struct NoopStackAllocator {
  ctx::stack_context allocate() { return {}; }
  void deallocate(ctx::stack_context&) noexcept {}
};

/// Thrown by the hooks in loop mode, caught by run_loop.
struct LoopModeError {
  std::string message;
};

enum class State : uint8_t { kNotStarted, kRunning, kBlockWait, kWarpWait, kWarpDrain, kExited };

struct Thread {
  ctx::fiber fiber;  // the suspended context; empty while running, unstarted or exited
  spectral_host_uint3 tid{0, 0, 0};
  uint32_t wait_gen = 0;
  State state = State::kNotStarted;
  uint32_t next = 0, prev = 0;  // ring of the live threads
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

std::string format(spectral_host_uint3 v) {
  return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}

}  // namespace

struct BlockRunner::Impl {
  explicit Impl(size_t stack_bytes) : stacks(stack_bytes) {}

  FiberStacks stacks;
  Thread threads[kMaxThreads];
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

  // ---- Scheduling ----

  bool runnable(uint32_t i) const {
    const Thread& t = threads[i];
    switch (t.state) {
      case State::kNotStarted: return true;
      case State::kBlockWait: return t.wait_gen != gen;
      case State::kWarpWait: return t.wait_gen != warps[i >> 5].gen;
      case State::kWarpDrain: {
        const Warp& warp = warps[i >> 5];
        return warp.unread[warp.gen & 1] == 0;
      }
      default: return false;
    }
  }

  void enter(uint32_t i) {
    cur = i;
    block.thread_idx = threads[i].tid;
    block.linear_tid = i;
    if (threads[i].state == State::kNotStarted) {
      threads[i].state = State::kRunning;
      ctx::stack_context stack = stacks.stack(i);
      threads[i].fiber = ctx::fiber(std::allocator_arg, ctx::preallocated(stack.sp, stack.size, stack),
                                    NoopStackAllocator{}, [this, i](ctx::fiber&& caller) {
                                      stash(std::move(caller));
                                      launch->kernel->run_thread(&block, launch->args);
                                      return exit_thread(i);
                                    });
    }
  }

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
  void switch_from(uint32_t me) {
    uint32_t next = threads[me].next;
    while (next != me && !runnable(next)) next = threads[next].next;
    if (next == me) fail(deadlock_message());
    from = me;
    enter(next);
    ctx::fiber back = std::move(threads[next].fiber).resume();
    stash(std::move(back));
  }

  ctx::fiber exit_thread(uint32_t me) {
    Thread& t = threads[me];
    t.state = State::kExited;
    const uint32_t after = t.next;
    threads[t.prev].next = t.next;
    threads[t.next].prev = t.prev;
    --live;
    Warp& warp = warps[me >> 5];
    warp.live &= ~(1u << (me & 31));
    if (arrived != 0 && arrived == live) release_block();  // exited threads count as arrived
    try_release_warp(warp, false);
    from = me;
    if (live == 0) return std::move(main);
    uint32_t next = after;
    while (!runnable(next)) {
      next = threads[next].next;
      if (next == after) {
        if (error.empty()) error = deadlock_message();
        return std::move(main);
      }
    }
    enter(next);
    return std::move(threads[next].fiber);
  }

  /// Ends the block with `message`: back to run_fibers, never to return here.
  [[noreturn]] void fail(std::string message) {
    if (error.empty()) error = std::move(message);
    from = cur;
    ctx::fiber back = std::move(main).resume();
    std::abort();  // unreachable: run_fibers abandons this fiber
  }

  // ---- Barriers ----

  void release_block() {
    participants[gen & 1] = arrived;
    arrived = 0;
    ++gen;
  }

  int sync_block(int op, int predicate) {
    if (loop_mode) throw LoopModeError{barrier_in_loop_mode("__syncthreads")};
    const uint32_t me = cur, round = gen, slot = round & 1;
    if (arrived == 0) acc[slot] = 0;
    acc[slot] += predicate != 0;
    if (++arrived == live) {
      release_block();
    } else {
      threads[me].state = State::kBlockWait;
      threads[me].wait_gen = round;
      switch_from(me);
      threads[me].state = State::kRunning;
    }
    switch (op) {
      case SPECTRAL_HOST_SYNC_COUNT: return int(acc[slot]);
      case SPECTRAL_HOST_SYNC_AND: return acc[slot] == participants[slot];
      case SPECTRAL_HOST_SYNC_OR: return acc[slot] != 0;
      default: return 0;
    }
  }

  /// Releases the round if every live lane it names has arrived; `caller_arrived`:
  /// the calling lane is one of them and reads at once.
  static bool try_release_warp(Warp& warp, bool caller_arrived) {
    if (warp.arrived == 0) return false;
    const uint32_t need = (warp.need | warp.arrived) & warp.live;
    if ((warp.arrived & need) != need) return false;
    warp.round_arrived[warp.gen & 1] = warp.arrived;
    warp.unread[warp.gen & 1] = uint32_t(__builtin_popcount(warp.arrived)) - caller_arrived;
    warp.arrived = 0;
    warp.need = 0;
    ++warp.gen;
    return true;
  }

  const uint64_t* warp_exchange(uint32_t mask, uint64_t value, uint32_t* arrived_lanes) {
    if (loop_mode) throw LoopModeError{barrier_in_loop_mode("a warp intrinsic")};
    const uint32_t me = cur, lane = me & 31;
    Warp& warp = warps[me >> 5];
    while (warp.unread[warp.gen & 1] != 0) {
      threads[me].state = State::kWarpDrain;
      switch_from(me);
      threads[me].state = State::kRunning;
    }
    const uint32_t slot = warp.gen & 1;
    warp.values[slot][lane] = value;
    warp.arrived |= 1u << lane;
    warp.need |= mask;
    if (!try_release_warp(warp, true)) {
      threads[me].state = State::kWarpWait;
      threads[me].wait_gen = warp.gen;
      switch_from(me);
      threads[me].state = State::kRunning;
      --warp.unread[slot];  // the caller reads the values before any other fiber runs
    }
    *arrived_lanes = warp.round_arrived[slot];
    return warp.values[slot];
  }

  // ---- Messages ----

  std::string where() const { return "thread " + format(block.thread_idx); }

  std::string barrier_in_loop_mode(const char* what) const {
    return std::string("kernel '") + launch->kernel->name + "' reached " + what +
           " but its .so has no spectral_host_sync section; was it built with host_emulation.h?";
  }

  std::string deadlock_message() const {
    uint32_t at_block = 0, at_warp = 0;
    std::string warp_list;
    for (uint32_t w = 0; w * 32 < count; ++w) {
      bool listed = false;
      for (uint32_t i = w * 32; i < count && i < w * 32 + 32; ++i) {
        if (threads[i].state == State::kBlockWait) ++at_block;
        if (threads[i].state != State::kWarpWait && threads[i].state != State::kWarpDrain) continue;
        ++at_warp;
        if (!listed) warp_list += (warp_list.empty() ? "" : ", ") + std::to_string(w);
        listed = true;
      }
    }
    return "deadlock: " + std::to_string(at_block) +
           " thread(s) wait at __syncthreads, " + std::to_string(at_warp) +
           " at a warp barrier (__shfl/__ballot/__syncwarp" +
           (warp_list.empty() ? std::string(")") : ") in warp(s) " + warp_list) + ", " +
           std::to_string(count - live) + " exited; every live thread must reach the same " +
           "__syncthreads, and every live lane named in the mask the same warp intrinsic";
  }

  // ---- Running a block ----

  bool run_loop(std::string* message) {
    loop_mode = true;
    try {
      uint32_t i = 0;
      for (uint32_t z = 0; z < block.block_dim.z; ++z) {
        for (uint32_t y = 0; y < block.block_dim.y; ++y) {
          for (uint32_t x = 0; x < block.block_dim.x; ++x, ++i) {
            cur = i;
            block.thread_idx = {x, y, z};
            block.linear_tid = i;
            launch->kernel->run_thread(&block, launch->args);
          }
        }
      }
    } catch (const LoopModeError& e) {
      *message = e.message;
      return false;
    }
    return true;
  }

  bool run_fibers(std::string* message) {
    loop_mode = false;
    if (!stacks.reserve(count, message)) return false;
    const spectral_host_uint3 dim = block.block_dim;
    for (uint32_t i = 0; i < count; ++i) {
      Thread& t = threads[i];
      t.state = State::kNotStarted;
      t.tid = {i % dim.x, (i / dim.x) % dim.y, i / (dim.x * dim.y)};
      t.next = i + 1 == count ? 0 : i + 1;
      t.prev = i == 0 ? count - 1 : i - 1;
    }
    for (uint32_t w = 0; w * 32 < count; ++w) {
      const uint32_t lanes = count - w * 32 >= 32 ? 32 : count - w * 32;
      warps[w] = Warp();
      warps[w].live = lanes == 32 ? ~0u : (1u << lanes) - 1;
    }
    live = count;
    arrived = gen = 0;
    from = kMain;
    enter(0);
    ctx::fiber back = std::move(threads[0].fiber).resume();
    stash(std::move(back));
    if (error.empty()) return true;
    // Abandon the block's unfinished fibers: never resumed, never unwound
    // (their stacks are ours and are reused).
    for (uint32_t i = 0; i < count; ++i) {
      if (threads[i].fiber) new (&threads[i].fiber) ctx::fiber();
    }
    *message = error;
    return false;
  }
};

namespace {

BlockRunner::Impl& impl_of(spectral_host_block* block) {
  return *static_cast<BlockRunner::Impl*>(block->scheduler);
}

int hook_sync_block(spectral_host_block* block, int op, int predicate) {
  return impl_of(block).sync_block(op, predicate);
}

const uint64_t* hook_warp_exchange(spectral_host_block* block, unsigned int mask, uint64_t value,
                                   unsigned int* arrived) {
  return impl_of(block).warp_exchange(mask, value, arrived);
}

unsigned int hook_warp_active_mask(spectral_host_block* block) {
  BlockRunner::Impl& impl = impl_of(block);
  if (impl.loop_mode) return 1u << (impl.cur & 31);
  return impl.warps[impl.cur >> 5].live;
}

void hook_trap(spectral_host_block* block, const char* message) {
  BlockRunner::Impl& impl = impl_of(block);
  std::string text = std::string(message) + " by " + impl.where();
  if (impl.loop_mode) throw LoopModeError{std::move(text)};
  impl.fail(std::move(text));
}

}  // namespace

BlockRunner::BlockRunner(size_t stack_bytes) : impl_(std::make_unique<Impl>(stack_bytes)) {}

BlockRunner::~BlockRunner() { std::free(impl_->shared); }

bool BlockRunner::run(const GridLaunch& launch, spectral_host_uint3 block_idx, std::string* error) {
  Impl& s = *impl_;
  const uint64_t count = uint64_t(launch.block.x) * launch.block.y * launch.block.z;
  if (count == 0 || count > kMaxThreads) {
    *error = "a block has 1 to " + std::to_string(kMaxThreads) + " threads, not " +
             std::to_string(count);
    return false;
  }
  const size_t shared_bytes = (launch.dynamic_shared_bytes + 63) / 64 * 64;
  if (s.shared == nullptr || shared_bytes > s.shared_capacity) {
    std::free(s.shared);
    s.shared_capacity = shared_bytes > 64 ? shared_bytes : 64;
    s.shared = std::aligned_alloc(64, s.shared_capacity);
    if (s.shared == nullptr) {
      s.shared_capacity = 0;
      *error = "cannot allocate " + std::to_string(shared_bytes) + " bytes of shared memory";
      return false;
    }
  }
  s.block = spectral_host_block{};
  s.block.block_idx = block_idx;
  s.block.block_dim = launch.block;
  s.block.grid_dim = launch.grid;
  s.block.dynamic_shared = s.shared;
  s.block.rt = launch.rt;
  s.block.scheduler = &s;
  s.launch = &launch;
  s.count = uint32_t(count);
  s.error.clear();
  if ((launch.kernel->flags & SPECTRAL_HOST_KERNEL_USES_SYNC) == 0) return s.run_loop(error);
  return s.run_fibers(error);
}

void BlockRunner::install_hooks(spectral_host_runtime* rt) {
  rt->sync_block = hook_sync_block;
  rt->warp_exchange = hook_warp_exchange;
  rt->warp_active_mask = hook_warp_active_mask;
  rt->trap = hook_trap;
}

}  // namespace spectral::host
