// access_checker.h - the race and init checks of the host device (host_checks.h).
//
// A kernel built for these checks (HostBuild::kCheckAccesses) reports each of
// its loads and stores before it happens. The checker keeps, for every byte
// of shared memory (the block's dynamic shared memory and its static
// __shared__ variables) and of every device allocation, who last wrote it and
// who read it since, and judges each access against that:
//
// race: two accesses to one byte, at least one a write and not both atomic
//   (a plain read of a counter other threads add to atomically is one),
//   conflict when nothing orders them: two threads of a block in one barrier
//   interval (between the same two __syncthreads), or two blocks of one
//   launch (device memory; blocks are never ordered). Warp intrinsics and
//   __syncwarp are not taken to order memory (no template relies on them).
// init: a read (or an atomic) of a byte nothing wrote: shared memory not
//   written by the block's threads before, or device memory written neither by
//   a copy to the device, a fill, nor a kernel since it was allocated.
//
// Per byte the checker keeps the last writer and a summary of the readers (one
// thread, or many); a write after reads by many threads of the interval, or by
// other blocks, is a race with one of them. The first defect ends the block;
// its description names both accesses with their source lines (addr2line on
// the kernel's .so, built with -g1). Blocks run one at a time under these
// checks (HostPool), on the launching OS thread. About 40 bytes of shadow per
// byte of device memory a kernel touches, kept while the allocation lives.
#pragma once

#include "kernels_templates/host_abi.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace spectral::host {

class AccessChecker {
 public:
  AccessChecker(bool race, bool init) : race_(race), init_(init) {}

  // Device memory, from HostDevice (any thread).
  void allocated(const void* pointer, size_t bytes);
  void released(const void* pointer);
  /// The host wrote [pointer, pointer + bytes) (a copy to the device, a fill).
  void host_wrote(const void* pointer, size_t bytes);
  /// A copy on the device: the bytes' init state goes with them.
  void copied(const void* to, const void* from, size_t bytes);

  // A launch: its blocks one at a time, on one OS thread.
  void begin_launch();
  void begin_block(spectral_host_uint3 block_idx, spectral_host_uint3 block_dim,
                   spectral_host_uint3 grid_dim, const void* dynamic_shared, size_t bytes);
  /// A thread of the block started (host_abi.h's access_thread_start).
  void thread_start(uintptr_t module_base, uintptr_t static_begin, uintptr_t static_end);
  /// Judges one access by `thread` (linear) in barrier interval `interval`;
  /// false when it is a defect, which describe_finding() then tells.
  bool access(uintptr_t address, size_t bytes, unsigned kind, uint32_t thread,
              uint32_t interval, uintptr_t pc);
  bool has_finding() const { return finding_.found; }
  /// "race: thread (1,0,0) read ... (at fft_stockham.cuh:120), which thread
  /// (0,0,0) wrote in the same barrier interval (at ...)". Runs addr2line: call
  /// it off the kernel's fiber. Clears the finding.
  std::string describe_finding();

  /// "`tile` (256 bytes, in kernel)" for a TLS symbol as the .so names it
  /// (mangled): a function's static __shared__ ("_ZZ..."), or one at
  /// namespace scope (no function named).
  static std::string shared_variable_name(const std::string& mangled, size_t size);

 private:
  /// What one byte saw (see the top). run: the launch (device memory) or the
  /// block's run (shared memory) of the access; 0: none yet.
  struct Cell {
    uint32_t w_run = 0, w_block = 0, w_interval = 0, w_site = 0;
    uint32_t r_run = 0, r_block = 0, r_interval = 0, r_site = 0;
    uint32_t init_run = 0;  // shared memory: the block run that wrote it
    uint16_t w_thread = 0, r_thread = 0;
    bool w_atomic = false, r_atomic = false;  // the write was atomic; every read was
  };
  struct Allocation {
    size_t bytes = 0;
    std::vector<uint8_t> written;  // init: per byte, nonzero once written
    std::vector<Cell> cells;       // race: made on a kernel's first access
  };
  /// Where an access landed.
  struct Place {
    Cell* cells = nullptr;
    uint8_t* written = nullptr;  // device memory's init bytes; null for shared memory
    uintptr_t start = 0;
    size_t bytes = 0;
    uint32_t run = 0, block = 0;
    int what = 0;  // kDynamic, kStatic, kDevice
  };
  struct Access {
    uint32_t thread = 0, block = 0, site = 0;
    unsigned kind = 0;
  };
  struct Finding {
    bool found = false;
    bool race = false;  // else init
    int what = 0;
    uintptr_t start = 0;
    size_t region_bytes = 0, offset = 0, bytes = 0;
    Access self, other;
    bool other_many = false;  // the other side is a summary of many readers
  };

  bool locate(uintptr_t address, Place* place);
  bool judge(const Place& place, size_t offset, size_t bytes, unsigned kind, uint32_t thread,
             uint32_t interval, uint32_t site);
  void found(const Place& place, size_t offset, size_t bytes, bool race, Access self,
             Access other, bool other_many);
  std::string thread_name(uint32_t linear) const;
  std::string block_name(uint32_t linear) const;
  std::string region_name(int what, uintptr_t start, size_t bytes) const;
  /// "offset O of the block's static __shared__ `tile` (B bytes, in kernel)"
  /// for byte `offset` of the module's TLS block, from its symbol table
  /// (readelf; off the fibers); empty when no variable holds it.
  std::string static_variable(size_t offset) const;
  std::string source_line(uint32_t site);

  const bool race_, init_;
  std::mutex mutex_;  // guards allocations_ (HostDevice's calls come from any thread)
  std::map<uintptr_t, Allocation> allocations_;

  uint32_t launch_ = 0, block_run_ = 0, block_ = 0;
  spectral_host_uint3 block_dim_{1, 1, 1}, grid_dim_{1, 1, 1};
  uintptr_t dynamic_ = 0, static_begin_ = 0, static_end_ = 0, module_base_ = 0;
  size_t dynamic_bytes_ = 0;
  std::vector<Cell> dynamic_cells_, static_cells_;
  Finding finding_;
};

}  // namespace spectral::host
