// block_barriers.cc - __syncthreads, warp rounds and __activemask over fibers.
#include "runtime/device/host/access_checker.h"
#include "runtime/device/host/block_scheduler.h"

#include <cstdio>

namespace spectral::host {

std::string hex32(uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", value);
  return text;
}

void BlockRunner::Impl::release_block() {
  participants[gen & 1] = arrived;
  arrived = 0;
  ++gen;
  if (launch->permute) reorder();  // the next interval in another order
}

int BlockRunner::Impl::sync_block(int op, int predicate, uintptr_t site) {
  if (loop_mode) throw LoopModeError{barrier_in_loop_mode("__syncthreads")};
  threads[cur].site = site;
  if (launch->check_sync && live < count) {
    note_site(site);
    fail("sync: " + where() + " reached __syncthreads after " + std::to_string(count - live) +
         " of the block's " + std::to_string(count) + " threads exited");
  }
  const uint32_t me = cur, round = gen, slot = round & 1;
  if (arrived == 0) acc[slot] = 0;
  acc[slot] += predicate != 0;
  if (++arrived == live) {
    release_block();
    if (launch->permute && order[0] != me) {
      // The order check: the next interval starts with the first thread of
      // its order, not with the one that released the barrier.
      threads[me].state = State::kBlockWait;
      threads[me].wait_gen = round;  // runnable: gen has moved on
      switch_to(me, order[0]);
      threads[me].state = State::kRunning;
    }
  } else {
    threads[me].state = State::kBlockWait;
    threads[me].wait_gen = round;
    switch_from(me);
    threads[me].state = State::kRunning;
  }
  // acc[slot] is not reused before every thread has passed the next barrier.
  switch (op) {
    case SPECTRAL_HOST_SYNC_COUNT: return int(acc[slot]);
    case SPECTRAL_HOST_SYNC_AND: return acc[slot] == participants[slot];
    case SPECTRAL_HOST_SYNC_OR: return acc[slot] != 0;
    default: return 0;
  }
}

bool BlockRunner::Impl::try_release_warp(Warp& warp, bool caller_arrived) {
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

const uint64_t* BlockRunner::Impl::warp_exchange(uint32_t mask, uint64_t value,
                                                 uint32_t* arrived_lanes, uintptr_t site) {
  if (loop_mode) throw LoopModeError{barrier_in_loop_mode("a warp intrinsic")};
  const uint32_t me = cur, lane = me & 31;
  threads[me].site = site;
  Warp& warp = warps[me >> 5];
  while (warp.unread[warp.gen & 1] != 0) {
    threads[me].state = State::kWarpDrain;
    switch_from(me);
    threads[me].state = State::kRunning;
  }
  // After the drain: lanes it names may have exited meanwhile.
  if (launch->check_sync && (mask & ~warp.live) != 0) {
    note_site(site);
    fail("sync: " + where() + " passed a warp intrinsic the mask " + hex32(mask) + ", whose lanes " +
         hex32(mask & ~warp.live) + " have exited or do not exist");
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

bool BlockRunner::Impl::warp_parked(uint32_t w) const {
  for (uint32_t lanes = warps[w].live; lanes != 0; lanes &= lanes - 1) {
    const uint32_t i = w * 32 + uint32_t(__builtin_ctz(lanes));
    const State state = threads[i].state;
    if (state == State::kActiveWait) continue;
    if ((state != State::kBlockWait && state != State::kWarpWait && state != State::kWarpDrain) ||
        runnable(i)) {
      return false;
    }
  }
  return true;
}

uint32_t BlockRunner::Impl::active_mask() {
  if (loop_mode) return 1u << (cur & 31);
  const uint32_t me = cur, w = me >> 5;
  threads[me].state = State::kActiveWait;
  if (!warp_parked(w)) switch_from(me);
  if (threads[me].state == State::kActiveWait) {  // the first to go on releases the others
    uint32_t mask = 0;
    for (uint32_t lane = 0; lane < 32 && w * 32 + lane < count; ++lane) {
      if (threads[w * 32 + lane].state == State::kActiveWait) mask |= 1u << lane;
    }
    for (uint32_t lane = 0; lane < 32 && w * 32 + lane < count; ++lane) {
      Thread& t = threads[w * 32 + lane];
      if (t.state != State::kActiveWait) continue;
      t.state = State::kActiveDone;
      t.active_mask = mask;
    }
  }
  threads[me].state = State::kRunning;
  return threads[me].active_mask;
}

std::string BlockRunner::Impl::barrier_in_loop_mode(const char* what) const {
  if (launch->whole_block)
    return std::string("kernel '") + launch->kernel->name + "' reached " + what +
           " while running a whole block: its unit says SPECTRAL_HOST_PHASED, so its code "
           "outside the templates' phased forms runs once per block and must reach no "
           "barrier (host_emulation.h, \"Phased kernels\")";
  return std::string("kernel '") + launch->kernel->name + "' reached " + what +
         " but its .so has no spectral_host_sync section; was it built with host_emulation.h?";
}

void BlockRunner::Impl::note_site(uintptr_t site) {
  if (site == 0 || site_count == kMaxSites) return;
  for (uint32_t k = 0; k < site_count; ++k)
    if (sites[k] == site) return;
  sites[site_count++] = site;
}

std::string BlockRunner::Impl::deadlock_message() {
  uint32_t at_block = 0, at_warp = 0;
  std::string warp_list;
  for (uint32_t w = 0; w * 32 < count; ++w) {
    bool listed = false;
    for (uint32_t i = w * 32; i < count && i < w * 32 + 32; ++i) {
      const State state = threads[i].state;
      if (state == State::kBlockWait) {
        ++at_block;
        note_site(threads[i].site);
      }
      if (state != State::kWarpWait && state != State::kWarpDrain && state != State::kActiveWait) {
        continue;
      }
      if (state != State::kActiveWait) note_site(threads[i].site);
      ++at_warp;
      if (!listed) warp_list += (warp_list.empty() ? "" : ", ") + std::to_string(w);
      listed = true;
    }
  }
  return "deadlock: " + std::to_string(at_block) + " thread(s) wait at __syncthreads, " +
         std::to_string(at_warp) + " at a warp barrier (__shfl/__ballot/__syncwarp/__activemask" +
         (warp_list.empty() ? std::string(")") : ") in warp(s) " + warp_list) + ", " +
         std::to_string(count - live) + " exited; every live thread must reach the same " +
         "__syncthreads, and every live lane named in the mask the same warp intrinsic";
}

namespace {

BlockRunner::Impl& impl_of(spectral_host_block* block) {
  return *static_cast<BlockRunner::Impl*>(block->scheduler);
}

int hook_sync_block(spectral_host_block* block, int op, int predicate, const void* site) {
  return impl_of(block).sync_block(op, predicate, uintptr_t(site));
}

const uint64_t* hook_warp_exchange(spectral_host_block* block, unsigned int mask, uint64_t value,
                                   unsigned int* arrived, const void* site) {
  return impl_of(block).warp_exchange(mask, value, arrived, uintptr_t(site));
}

unsigned int hook_warp_active_mask(spectral_host_block* block) {
  return impl_of(block).active_mask();
}

void hook_trap(spectral_host_block* block, const char* message) {
  BlockRunner::Impl& impl = impl_of(block);
  std::string text = std::string(message) + " by " + impl.where();
  if (impl.loop_mode) throw LoopModeError{std::move(text)};
  impl.fail(std::move(text));
}

void hook_access_thread_start(spectral_host_block* block, uintptr_t module_base,
                              uintptr_t static_begin, uintptr_t static_end) {
  BlockRunner::Impl& impl = impl_of(block);
  AccessChecker* checker = impl.running_here() ? impl.launch->checker : nullptr;
  if (checker != nullptr) checker->thread_start(module_base, static_begin, static_end);
}

void hook_access_check(spectral_host_block* block, uintptr_t address, size_t bytes,
                       unsigned int kind, uintptr_t pc) {
  BlockRunner::Impl& impl = impl_of(block);
  if (!impl.running_here()) return;  // not the kernel's (the check's .so keeps `block` on)
  AccessChecker* checker = impl.launch->checker;
  if (checker == nullptr || checker->access(address, bytes, kind, impl.cur, impl.gen, pc)) return;
  // BlockRunner::run describes the finding, off this fiber.
  if (impl.loop_mode) siglongjmp(impl.loop_escape, 1);  // see run_loop
  impl.fail("access check");
}

}  // namespace

void BlockRunner::Impl::install_hooks(spectral_host_runtime* rt) {
  rt->sync_block = hook_sync_block;
  rt->warp_exchange = hook_warp_exchange;
  rt->warp_active_mask = hook_warp_active_mask;
  rt->trap = hook_trap;
  rt->access_thread_start = hook_access_thread_start;
  rt->access_check = hook_access_check;
}

}  // namespace spectral::host
