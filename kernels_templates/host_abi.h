/* host_abi.h - the C interface between a host kernel .so and the runtime.
 *
 * A unit compiled for the host (see host_emulation.h) exports one function,
 * spectral_host_launch_<entry> (type spectral_host_launch_fn). The runtime
 * calls it with a table of its hooks; the .so hands back a description of
 * its kernel through run_grid, and the runtime runs the grid: blocks on a
 * pool of OS threads, CUDA threads as fibers. The kernel reaches the runtime
 * only through the hooks, so a .so links nothing but libc/libstdc++.
 *
 * Host only; never included under NVRTC. Bump SPECTRAL_HOST_ABI_VERSION on
 * any change here.
 */
#ifndef SPECTRAL_HOST_ABI_H
#define SPECTRAL_HOST_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SPECTRAL_HOST_ABI_VERSION 5u
#define SPECTRAL_HOST_LAUNCH_PREFIX "spectral_host_launch_"

/* The layout of CUDA's uint3 (host_emulation.h makes uint3 this type). */
typedef struct spectral_host_uint3 {
  unsigned int x, y, z;
} spectral_host_uint3;

typedef struct spectral_host_runtime spectral_host_runtime;

/* The block running on the current OS thread, as its kernel sees it. */
typedef struct spectral_host_block {
  spectral_host_uint3 thread_idx; /* of the running CUDA thread; set on every switch */
  unsigned int linear_tid;        /* x + y*Dx + z*Dx*Dy of that thread */
  spectral_host_uint3 block_idx;
  spectral_host_uint3 block_dim;
  spectral_host_uint3 grid_dim;
  void* dynamic_shared; /* the block's extern __shared__ buffer, 64-byte aligned
                          (16 under the bounds check: it ends at a guard page) */
  const spectral_host_runtime* rt;
  void* scheduler; /* the runtime's own */
  /* Nonzero when this call of a phased kernel (SPECTRAL_HOST_KERNEL_PHASED)
   * runs the whole block: thread_idx is 0 and the templates loop over the
   * block's threads themselves. A template taking that path sets it to 2,
   * or to 3 when it takes the whole run (run_blocks). */
  unsigned int whole_block;
  /* The blocks this phased call runs: block_idx and the run_blocks - 1
   * after it along x (more than 1 only for SPECTRAL_HOST_KERNEL_PHASED_RUNS). */
  unsigned int run_blocks;
} spectral_host_block;

/* Runs one CUDA thread: sets the .so's current block, unpacks args, calls the kernel. */
typedef void (*spectral_host_thread_fn)(spectral_host_block* block, void** args);

enum {
  /* The .so contains a barrier or warp intrinsic: its threads need fibers.
   * Without it the runtime may run the threads of a block as a plain loop. */
  SPECTRAL_HOST_KERNEL_USES_SYNC = 1,
  /* The unit says SPECTRAL_HOST_PHASED: the runtime may call run_thread once
   * per block with whole_block set (see host_emulation.h). */
  SPECTRAL_HOST_KERNEL_PHASED = 2,
  /* The unit also says SPECTRAL_HOST_PHASED_RUNS: a phased call may run
   * several consecutive blocks along x (spectral_host_block::run_blocks). */
  SPECTRAL_HOST_KERNEL_PHASED_RUNS = 4
};

typedef struct spectral_host_kernel {
  unsigned int abi_version;
  unsigned int flags;
  const char* name;
  spectral_host_thread_fn run_thread;
} spectral_host_kernel;

/* Kinds of access_check (the race and init checks of host_checks.h). */
enum {
  SPECTRAL_HOST_ACCESS_READ = 0,
  SPECTRAL_HOST_ACCESS_WRITE = 1,
  SPECTRAL_HOST_ACCESS_ATOMIC = 2,       /* an atomic read-modify-write */
  SPECTRAL_HOST_ACCESS_ATOMIC_STORE = 3, /* an atomic store (or exchange): writes */
  SPECTRAL_HOST_ACCESS_ATOMIC_LOAD = 4   /* an atomic load: reads */
};
/* Two atomic accesses never race; an atomic and a plain one do. */

/* Operations of sync_block: __syncthreads and its _count/_and/_or forms. */
enum {
  SPECTRAL_HOST_SYNC_PLAIN = 0,
  SPECTRAL_HOST_SYNC_COUNT = 1,
  SPECTRAL_HOST_SYNC_AND = 2,
  SPECTRAL_HOST_SYNC_OR = 3
};

struct spectral_host_runtime {
  unsigned int abi_version;
  void* self; /* the runtime's launch state */
  /* Runs every block of `kernel`; 0 on success. */
  int (*run_grid)(const spectral_host_runtime* rt, const spectral_host_kernel* kernel,
                  spectral_host_uint3 grid, spectral_host_uint3 block,
                  size_t dynamic_shared_bytes, void** args);
  /* Block barrier; returns the op's result over the block's predicates.
   * `site`, here and in warp_exchange: the return address of the call in the
   * kernel, which the sync check's reports turn into a source line. */
  int (*sync_block)(spectral_host_block* block, int op, int predicate, const void* site);
  /* Warp barrier over `mask`: publishes `value`, waits for the lanes, returns
   * the 32 values of this round (valid until this lane's next warp call) and
   * the lanes that took part in *arrived. */
  const uint64_t* (*warp_exchange)(spectral_host_block* block, unsigned int mask, uint64_t value,
                                   unsigned int* arrived, const void* site);
  /* __activemask(): waits until every other live lane of the warp is parked (at a
   * barrier it cannot pass yet, or here); returns the lanes parked here. */
  unsigned int (*warp_active_mask)(spectral_host_block* block);
  /* __trap(): fails the launch with `message`; does not return. */
  void (*trap)(spectral_host_block* block, const char* message);
  /* A kernel built for the race and init checks (host_check_access.cc) calls
   * this when one of the block's threads starts: its .so is loaded at
   * `module_base`, and its static __shared__ variables (thread_local on the
   * host) lie in [static_shared_begin, static_shared_end) on this OS thread. */
  void (*access_thread_start)(spectral_host_block* block, uintptr_t module_base,
                              uintptr_t static_shared_begin, uintptr_t static_shared_end);
  /* ... and this before each of its loads and stores, `pc` being the
   * instruction's address in the .so. Does not return when the access is a
   * defect the checks look for (the launch fails). */
  void (*access_check)(spectral_host_block* block, uintptr_t address, size_t bytes,
                       unsigned int kind, uintptr_t pc);
};

/* The one export of a kernel .so, named SPECTRAL_HOST_LAUNCH_PREFIX + entry.
 * Returns 0 on success, else nonzero (the runtime's hooks hold the reason;
 * -1 means the .so was built for another ABI version). */
typedef int (*spectral_host_launch_fn)(const spectral_host_runtime* rt, spectral_host_uint3 grid,
                                       spectral_host_uint3 block, size_t dynamic_shared_bytes,
                                       void** args);

#ifdef __cplusplus
}
#endif

#endif /* SPECTRAL_HOST_ABI_H */
