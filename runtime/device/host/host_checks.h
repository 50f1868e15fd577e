// host_checks.h - the host device's check modes (SPECTRAL_HOST_CHECK).
//
// A check mode watches kernels for defects a GPU run would hide or show only
// as wrong numbers, and turns each into an error of the launch naming the
// kernel, the block and the thread. Off by default; chosen per process by
// SPECTRAL_HOST_CHECK (a comma-separated list) or per device.
//
// bounds: every device allocation ends at an inaccessible page, and so does
// a block's dynamic shared memory; a kernel's access past either end faults,
// and the fault ends the block with "bounds: thread (x,y,z) wrote|read
// <address>, N bytes past the end of a B-byte device allocation at <base>"
// (or "... of the block's B bytes of dynamic shared memory"). The fault
// handler records the fault and leaves the faulting CUDA thread (abandoned,
// as after a trap); the message is written once out of it. An allocation is
// placed so that its end (rounded up to 16 bytes, the alignment it keeps)
// meets the page, so an access up to 15 bytes past an odd size and accesses
// before the start go unseen. Each allocation takes whole pages: slower and
// larger than the plain mode, and meant for tests and debugging.
//
// sync: what the plain mode accepts as GPUs do (exited threads count as
// arrived) is an error of the block: a thread that exits while others wait
// at __syncthreads and a __syncthreads reached after some of the block's
// threads exited (undefined in CUDA), a lane that exits while others wait at
// a warp intrinsic whose mask names it, and a warp intrinsic whose mask names
// a lane that has exited or does not exist (defined in CUDA while no value is
// read from it, but advised against; the check is that strict). Two
// different __syncthreads are not told apart; a barrier some live threads
// never reach is a deadlock error in every mode.
//
// race, init: the kernels are built instrumented (host_compiler.h's
// HostBuild::kCheckAccesses: -fsanitize=thread's calls, answered by
// kernels_templates/host_check_access.cc), so that every load and store
// reaches access_checker.h, which keeps shadow memory for shared memory
// (dynamic and static) and device allocations. race: two accesses to one
// byte, one a write, neither atomic, by two threads of a block between the
// same two __syncthreads, or by two blocks of a launch. init: a read of a
// byte nothing wrote. A race error names both accesses, their threads and
// their source lines; an init error the read. Blocks run one at a time; many times slower than a plain run.
//
// order: every launch runs twice from the same device memory, the threads of
// each block first in forward order, then reversed (order=reverse) or in a
// random order redrawn at each __syncthreads (order, order=SEED); a byte of
// device memory that differs between the two fails the launch, naming the
// allocation and the offset. Blocks run one at a time, in order.
#pragma once

#include <dlfcn.h>

#include "kernels_templates/host_abi.h"
#include "runtime/status.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace spectral::host {

struct HostChecks {
  bool bounds = false;
  bool sync = false;
  bool race = false;
  bool init = false;
  /// order: each launch runs twice from the same memory, threads in forward
  /// order and then reversed (order=reverse) or in a random order redrawn at
  /// every barrier (order, order=SEED; seed 1 by default).
  bool order = false;
  bool order_reverse = false;
  uint64_t order_seed = 1;

  bool any() const { return bounds || sync || race || init || order; }
  /// The kernels' loads and stores are instrumented (race, init).
  bool accesses() const { return race || init; }
  /// "bounds,sync,race,init" (those on), or "none".
  std::string describe() const;
};

/// What SPECTRAL_HOST_CHECK and --check accept.
constexpr const char* kAvailableChecks = "bounds, sync, race, init, order[=reverse|SEED]";

/// The checks `text` names (a comma-separated list; empty: none); anything
/// else is an error naming it.
StatusOr<HostChecks> parse_host_checks(const std::string& text);

/// SPECTRAL_HOST_CHECK's checks (unset or empty: none); an error names the
/// variable.
StatusOr<HostChecks> host_checks_from_environment();

/// `bytes` (any number, 0 included) whose end, rounded up to `alignment` (a
/// power of two, at most a page; the start is aligned to it), meets an
/// inaccessible page; nothing when the memory cannot be mapped. A fault
/// there is described as past a device allocation, or past the block's
/// dynamic shared memory when `shared`.
void* guarded_allocate(size_t bytes, bool shared, size_t alignment = 16);
/// Releases what guarded_allocate gave; false if it did not give `pointer`.
bool guarded_release(void* pointer);

/// A fault on the guard page of a guarded region, as the fault handler
/// records it (plain fields: the handler allocates nothing).
struct GuardFault {
  uintptr_t address = 0;
  uintptr_t start = 0;  // the region's first byte, as its caller got it
  size_t bytes = 0;
  bool shared = false;
  bool write = false;   // known on x86-64; else `access_known` is false
  bool access_known = false;
  spectral_host_uint3 thread{0, 0, 0};
  uintptr_t pc = 0;  // the faulting instruction, where known (x86-64)
  /// "bounds: thread (x,y,z) wrote 0x..., N bytes past the end of a B-byte
  /// device allocation at 0x... (at FILE:LINE)" (or "... of the block's B
  /// bytes of dynamic shared memory ..."). Runs addr2line: not on a fiber.
  std::string describe() const;
};

/// Where the instruction at `instruction` lies: "FILE:LINE" from the line
/// tables of the loaded object holding it (kernels are built with -g1), else
/// "+0xOFFSET in OBJECT". It runs addr2line, another process: call it off the
/// fibers.
std::string code_location(uintptr_t instruction);

/// The file of a loaded object, as another process can open it (a kernel
/// loaded from /proc/self/fd/N gets our pid in place of "self").
std::string loaded_object_path(const Dl_info& info);

/// Whether a fault at `address` hit the guard page of a guarded region;
/// fills `fault`'s region fields. As the fault handler needs it: no
/// allocation, and false when this thread is inside the registry (a fault
/// there is not a kernel's; waiting for the lock would hang).
bool find_guard_fault(const void* address, GuardFault* fault);

}  // namespace spectral::host
