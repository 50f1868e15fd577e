// fiber_stacks.h - the stacks of one runner's fibers: one mapping, reused.
#pragma once

#include <boost/context/stack_context.hpp>

#include <cstddef>
#include <string>

namespace spectral::host {

/// `count` stacks of `stack_bytes` each in one anonymous mapping (pages are
/// committed as fibers touch them), with a PROT_NONE guard page at the low end
/// of each stack so an overflow faults instead of corrupting a neighbour.
class FiberStacks {
 public:
  explicit FiberStacks(size_t stack_bytes);
  ~FiberStacks();
  FiberStacks(const FiberStacks&) = delete;
  FiberStacks& operator=(const FiberStacks&) = delete;

  /// Ensures at least `count` stacks; only call while no fiber is alive.
  bool reserve(size_t count, std::string* error);
  /// Stack `i` (below the guard page excluded), as boost.context wants it.
  boost::context::stack_context stack(size_t i) const;

 private:
  void release();

  size_t stack_bytes_;
  size_t page_bytes_;
  char* base_ = nullptr;
  size_t count_ = 0;
};

/// The default fiber stack size, 64 KiB; SPECTRAL_HOST_STACK_SIZE overrides it.
constexpr size_t kDefaultFiberStackBytes = 64 * 1024;

/// SPECTRAL_HOST_STACK_SIZE (bytes, with an optional K or M suffix, at least
/// 16K), else the default. An invalid value is an error that names it.
bool fiber_stack_bytes_from_environment(size_t* bytes, std::string* error);

}  // namespace spectral::host
