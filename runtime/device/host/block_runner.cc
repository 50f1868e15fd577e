// block_runner.cc - CUDA threads as fibers, or as a plain loop.
#include "runtime/device/host/block_runner.h"

#include "runtime/device/host/access_checker.h"
#include "runtime/device/host/block_scheduler.h"
#include "runtime/device/host/host_checks.h"

#include <signal.h>
#include <ucontext.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>

namespace spectral::host {
namespace {

/// The block this OS thread runs, for the fault handler.
thread_local BlockRunner::Impl* running = nullptr;
struct sigaction previous_segv;

/// Hands a fault that is not a guard fault to the handler that was there
/// before: the default one ends the process, as without the check.
void pass_on(int sig, siginfo_t* info, void* context) {
  if (previous_segv.sa_flags & SA_SIGINFO) {
    previous_segv.sa_sigaction(sig, info, context);
  } else if (previous_segv.sa_handler == SIG_DFL) {
    signal(SIGSEGV, SIG_DFL);  // the access faults again, and the process ends
  } else if (previous_segv.sa_handler != SIG_IGN) {
    previous_segv.sa_handler(sig);
  }
}

/// A fault on a guard page of the bounds check, raised by the kernel of a
/// launch with the check, ends its block: the handler records it in plain
/// fields (it allocates nothing) and leaves the faulting CUDA thread, never
/// to return to it. Anything else goes to the previous handler.
void on_segv(int sig, siginfo_t* info, void* context) {
  BlockRunner::Impl* s = running;
  GuardFault fault;
  if (s == nullptr || !s->launch->catch_faults || info->si_code <= 0 ||
      !find_guard_fault(info->si_addr, &fault)) {
    pass_on(sig, info, context);
    return;
  }
#if defined(__x86_64__)
  // Bit 1 of the page fault's error code: a write.
  const greg_t* registers = static_cast<ucontext_t*>(context)->uc_mcontext.gregs;
  fault.write = (registers[REG_ERR] & 2) != 0;
  fault.access_known = true;
  fault.pc = uintptr_t(registers[REG_RIP]);
#else
  (void)context;
#endif
  fault.thread = s->block.thread_idx;
  s->bounds_fault(fault);
}

void install_segv_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action = {};
    action.sa_sigaction = on_segv;
    // SA_NODEFER: a guard fault never returns from the handler (and
    // run_fibers restores the block's signal mask where a sanitizer's
    // interceptor blocked more).
    // SA_ONSTACK: an application's alternate signal stack (a crash reporter
    // catching stack overflows) still serves the faults passed on to it.
    action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, &previous_segv);
  });
}

}  // namespace

std::string format(spectral_host_uint3 v) {
  return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}

void BlockRunner::Impl::start(uint32_t i) {
  threads[i].state = State::kRunning;
#ifdef SPECTRAL_TSAN_FIBERS
  // One TSan fiber per slot (creating one costs TSan a thread's state),
  // renewed every 1024 threads: a thread's last frames end after its switch
  // is announced, which leaves TSan's shadow stack of the slot a little off
  // each time. run_fibers drops an abandoned one.
  if (tsan_fibers[i] && ++tsan_uses[i] % 1024 == 0) {
    __tsan_destroy_fiber(tsan_fibers[i]);
    tsan_fibers[i] = nullptr;
  }
  if (!tsan_fibers[i]) tsan_fibers[i] = __tsan_create_fiber(0);
#endif
  const ctx::stack_context stack = stacks.stack(i);
  threads[i].fiber = ctx::fiber(std::allocator_arg, ctx::preallocated(stack.sp, stack.size, stack),
                                NoopStackAllocator{}, [this, i](ctx::fiber&& caller) {
                                  stash(std::move(caller));
                                  launch->kernel->run_thread(&block, launch->args);
                                  return exit_thread(i);
                                });
}

ctx::fiber BlockRunner::Impl::exit_thread(uint32_t me) {
  Thread& t = threads[me];
  t.state = State::kExited;
  const uint32_t after = t.next;
  threads[t.prev].next = t.next;
  threads[t.next].prev = t.prev;
  --live;
  Warp& warp = warps[me >> 5];
  warp.live &= ~(1u << (me & 31));
  if (launch->check_sync && error.empty()) {
    if (arrived != 0) {
      error = "sync: " + where() + " exited while " + std::to_string(arrived) +
              " thread(s) wait at __syncthreads";
      for (uint32_t i = 0; i < count; ++i)  // still waiting: not released from an earlier barrier
        if (threads[i].state == State::kBlockWait && !runnable(i)) note_site(threads[i].site);
    } else if (warp.arrived != 0 && (warp.need >> (me & 31) & 1u) != 0) {
      error = "sync: " + where() + " exited while lanes " + hex32(warp.arrived) +
              " of its warp wait at a warp intrinsic whose masks name it";
      for (uint32_t lanes = warp.arrived; lanes != 0; lanes &= lanes - 1)
        note_site(threads[(me & ~31u) + uint32_t(__builtin_ctz(lanes))].site);
    }
    if (!error.empty()) {
      announce_switch(kMain);
      return std::move(main);  // run_fibers abandons the block
    }
  }
  const bool released = arrived != 0 && arrived == live;
  if (released) release_block();  // exited threads count as arrived
  try_release_warp(warp, false);
  from = me;
  if (live == 0) {
    announce_switch(kMain);
    return std::move(main);
  }
  // The order check starts a new interval with the first thread of its order.
  uint32_t next = launch->permute && released ? order[0] : after;
  const uint32_t start = next;
  while (!runnable(next)) {
    next = threads[next].next;
    if (next == start) {
      if (error.empty()) error = deadlock_message();
      announce_switch(kMain);
      return std::move(main);
    }
  }
  enter(next);
  announce_switch(next);
  return std::move(threads[next].fiber);
}

void BlockRunner::Impl::fail(std::string message) {
  {
    // Nothing owned may stay in this frame: the fiber is abandoned, never
    // unwound. (Moving into `error` can hand `error`'s old buffer, kept by
    // clear(), to the source: a string lost per failed block, which LSan saw.)
    std::string owned = std::move(message);
    if (error.empty()) error = std::move(owned);
  }
  to_main();
}

bool BlockRunner::Impl::running_here() const { return running == this; }

void BlockRunner::Impl::to_main() {
  from = cur;
  announce_switch(kMain);
  ctx::fiber back = std::move(main).resume();
  std::abort();  // unreachable: run_fibers abandons this fiber
}

void BlockRunner::Impl::bounds_fault(const GuardFault& fault) {
  guard_fault = fault;
  if (loop_mode) siglongjmp(loop_escape, 1);  // over the kernel's frames, back into run_loop
  to_main();  // run_fibers abandons this fiber
}

bool BlockRunner::Impl::guard_shared(size_t bytes, std::string* message) {
  if (guarded_shared != nullptr && guarded_shared_bytes == bytes) return true;
  if (guarded_shared != nullptr) guarded_release(guarded_shared);
  guarded_shared = guarded_allocate(bytes, true);
  guarded_shared_bytes = bytes;
  if (guarded_shared != nullptr) return true;
  *message = "cannot map " + std::to_string(bytes) + " bytes of guarded shared memory";
  return false;
}

void BlockRunner::Impl::permute(uint32_t n) {
  if (launch->order_reverse) {
    std::reverse(order, order + n);
    return;
  }
  const spectral_host_uint3 b = block.block_idx, g = block.grid_dim;
  uint64_t state = launch->order_seed * 0x9e3779b97f4a7c15ull ^
                   (b.x + uint64_t(g.x) * (b.y + uint64_t(g.y) * b.z)) << 20 ^ gen;
  auto next = [&state] {  // splitmix64
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  for (uint32_t i = n; i > 1; --i) std::swap(order[i - 1], order[next() % i]);
}

uint32_t BlockRunner::Impl::reorder() {
  uint32_t n = 0;
  for (uint32_t i = 0; i < count; ++i)
    if (threads[i].state != State::kExited) order[n++] = i;
  if (n == 0) return 0;
  permute(n);
  for (uint32_t k = 0; k < n; ++k) {
    threads[order[k]].next = order[k + 1 == n ? 0 : k + 1];
    threads[order[k]].prev = order[k == 0 ? n - 1 : k - 1];
  }
  return order[0];
}

bool BlockRunner::Impl::run_loop(std::string* message) {
  loop_mode = true;
  guard_fault = GuardFault();
  gen = 0;  // the order check's shuffle is seeded from it
  // The way out of a faulting or checked access: a jump over the kernel's
  // frames (an exception could not pass the instrumentation's calls, which
  // the compiler takes as never throwing).
  // sigsetjmp saves no mask (no syscall per block): after a guard fault the
  // mask saved per OS thread is restored instead.
  if ((launch->catch_faults || launch->checker != nullptr) && sigsetjmp(loop_escape, 0) != 0) {
    // From bounds_fault or the access check, whose finding BlockRunner::run
    // describes.
    if (guard_fault.address != 0) pthread_sigmask(SIG_SETMASK, &block_mask, nullptr);
    *message = guard_fault.address != 0 ? guard_fault.describe() : "access check";
    if (launch->whole_block && guard_fault.address != 0)
      *message += std::string(" (in the block's phased call, which runs every thread") +
                  (block.run_blocks > 1 ? " of it and of the " +
                                              std::to_string(block.run_blocks - 1) +
                                              " blocks after it along x"
                                        : "") +
                  ": thread (0,0,0) stands for them all; SPECTRAL_HOST_SCHEDULE=fibers names "
                  "the block and the thread)";
    return false;
  }
  try {
    if (launch->whole_block) {
      cur = 0;
      block.thread_idx = {0, 0, 0};
      block.linear_tid = 0;
      block.whole_block = 1;
      launch->kernel->run_thread(&block, launch->args);
      if (block.whole_block == 3 || (block.whole_block == 2 && block.run_blocks == 1)) return true;
      *message = block.whole_block == 2
                     ? "its unit says SPECTRAL_HOST_PHASED_RUNS, but a template it called ran one "
                       "block of a run of " + std::to_string(block.run_blocks) +
                           " (host_emulation.h, \"Phased kernels\")"
                     : "its unit says SPECTRAL_HOST_PHASED, but no template it called ran the "
                       "whole block (host_emulation.h, \"Phased kernels\")";
      return false;
    }
    if (launch->permute) {
      const spectral_host_uint3 dim = block.block_dim;
      for (uint32_t i = 0; i < count; ++i) order[i] = i;
      permute(count);
      for (uint32_t k = 0; k < count; ++k) {
        const uint32_t i = order[k];
        cur = i;
        block.thread_idx = {i % dim.x, (i / dim.x) % dim.y, i / (dim.x * dim.y)};
        block.linear_tid = i;
        launch->kernel->run_thread(&block, launch->args);
      }
      return true;
    }
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

bool BlockRunner::Impl::run_fibers(std::string* message) {
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
#ifdef SPECTRAL_TSAN_FIBERS
  tsan_main = __tsan_get_current_fiber();
#endif
  const bool guarded = launch->catch_faults;
  if (guarded) guard_fault = GuardFault();
  const uint32_t first = launch->permute ? reorder() : 0;
  enter(first);
  announce_switch(first);
  ctx::fiber back = std::move(threads[first].fiber).resume();
  stash(std::move(back));
  if (guarded && guard_fault.address != 0) {
    pthread_sigmask(SIG_SETMASK, &block_mask, nullptr);  // as before the handler ran
    if (error.empty()) error = guard_fault.describe();
  }
  if (error.empty()) return true;
  // Abandon the block's unfinished fibers: never resumed, never unwound
  // (their stacks are ours and are reused).
  for (uint32_t i = 0; i < count; ++i) {
    if (!threads[i].fiber) continue;
    new (&threads[i].fiber) ctx::fiber();
#ifdef SPECTRAL_TSAN_FIBERS
    // Its shadow stack still holds the abandoned frames.
    __tsan_destroy_fiber(tsan_fibers[i]);
    tsan_fibers[i] = nullptr;
#endif
  }
  *message = error;
  return false;
}

BlockRunner::BlockRunner(size_t stack_bytes) : impl_(std::make_unique<Impl>(stack_bytes)) {}

BlockRunner::~BlockRunner() {
  std::free(impl_->shared);
  if (impl_->guarded_shared != nullptr) guarded_release(impl_->guarded_shared);
}

bool BlockRunner::run(const GridLaunch& launch, spectral_host_uint3 block_idx, std::string* error,
                      uint32_t run_blocks) {
  Impl& s = *impl_;
  const uint64_t count = uint64_t(launch.block.x) * launch.block.y * launch.block.z;
  if (count == 0 || count > kMaxThreads) {
    *error = "a block has 1 to " + std::to_string(kMaxThreads) + " threads, not " +
             std::to_string(count);
    return false;
  }
  const size_t shared_bytes = (launch.dynamic_shared_bytes + 63) / 64 * 64;
  if (launch.catch_faults) {
    install_segv_handler();
    s.save_mask();
  }
  if (launch.check_bounds) {
    if (!s.guard_shared(launch.dynamic_shared_bytes, error)) return false;
  } else if (s.shared == nullptr || shared_bytes > s.shared_capacity) {
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
  s.block.run_blocks = launch.whole_block ? run_blocks : 1;
  s.block.block_dim = launch.block;
  s.block.grid_dim = launch.grid;
  s.block.dynamic_shared = launch.check_bounds ? s.guarded_shared : s.shared;
  s.block.rt = launch.rt;
  s.block.scheduler = &s;
  s.launch = &launch;
  s.count = uint32_t(count);
  s.error.clear();
  s.site_count = 0;
  running = &s;
  if (launch.checker != nullptr) {
    launch.checker->begin_block(block_idx, launch.block, launch.grid, s.block.dynamic_shared,
                                launch.dynamic_shared_bytes);
  }
  const bool loop =
      launch.whole_block || (launch.kernel->flags & SPECTRAL_HOST_KERNEL_USES_SYNC) == 0;
  bool ok = loop ? s.run_loop(error) : s.run_fibers(error);
  running = nullptr;
  if (launch.checker != nullptr && launch.checker->has_finding()) {
    *error = launch.checker->describe_finding();  // here, off the fibers: it runs addr2line
    ok = false;
  } else if (!ok && s.site_count > 0) {  // the barriers the error is about, as source lines
    std::string at;
    for (uint32_t k = 0; k < s.site_count; ++k)
      at += (k == 0 ? "" : ", ") + code_location(s.sites[k] - 1);  // the call, not the return
    *error += " (at " + at + ")";
  }
  return ok;
}

void BlockRunner::install_hooks(spectral_host_runtime* rt) { Impl::install_hooks(rt); }

}  // namespace spectral::host
