// fiber_stacks.cc - one mapping of guarded fiber stacks per runner.
#include "runtime/device/host/fiber_stacks.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#if defined(__SANITIZE_ADDRESS__)
#define SPECTRAL_ASAN 1  // GCC
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SPECTRAL_ASAN 1  // clang
#endif
#endif
#ifdef SPECTRAL_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace spectral::host {
namespace {

/// Under ASan, forgets the redzones the fibers' frames left in [memory,
/// memory + bytes): a fiber abandoned mid-block never unwinds, and memory
/// unmapped here may be mapped again for anything (NVRTC's buffers were
/// reported as stack-buffer-underflow when it was not). Nothing otherwise.
void forget_frames(void* memory, size_t bytes) {
#ifdef SPECTRAL_ASAN
  ASAN_UNPOISON_MEMORY_REGION(memory, bytes);
#else
  (void)memory;
  (void)bytes;
#endif
}

}  // namespace

FiberStacks::FiberStacks(size_t stack_bytes) {
  page_bytes_ = size_t(sysconf(_SC_PAGESIZE));
  stack_bytes_ = (stack_bytes + page_bytes_ - 1) / page_bytes_ * page_bytes_;
  if (stack_bytes_ < 4 * page_bytes_) stack_bytes_ = 4 * page_bytes_;
}

FiberStacks::~FiberStacks() { release(); }

void FiberStacks::release() {
  if (base_ != nullptr) {
    forget_frames(base_, count_ * stack_bytes_);
    munmap(base_, count_ * stack_bytes_);
  }
  base_ = nullptr;
  count_ = 0;
}

bool FiberStacks::reserve(size_t count, std::string* error) {
  if (count <= count_) return true;
  size_t want = count_ * 2 > count ? count_ * 2 : count;
  if (want > 1024 && count <= 1024) want = 1024;
  release();
  void* memory = mmap(nullptr, want * stack_bytes_, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (memory == MAP_FAILED) {
    *error = "cannot map " + std::to_string(want) + " fiber stacks of " +
             std::to_string(stack_bytes_) + " bytes: " + std::strerror(errno);
    return false;
  }
  base_ = static_cast<char*>(memory);
  count_ = want;
  // Best effort: with very many threads the kernel's map count may run out.
  for (size_t i = 0; i < count_; ++i) {
    if (mprotect(base_ + i * stack_bytes_, page_bytes_, PROT_NONE) != 0) break;
  }
  return true;
}

boost::context::stack_context FiberStacks::stack(size_t i) const {
  boost::context::stack_context context;
  context.size = stack_bytes_ - page_bytes_;
  context.sp = base_ + (i + 1) * stack_bytes_;
  forget_frames(base_ + i * stack_bytes_ + page_bytes_, context.size);
  return context;
}

bool fiber_stack_bytes_from_environment(size_t* bytes, std::string* error) {
  *bytes = kDefaultFiberStackBytes;
  const char* text = std::getenv("SPECTRAL_HOST_STACK_SIZE");
  if (text == nullptr || *text == '\0') return true;
  char* end = nullptr;
  errno = 0;
  unsigned long long value = std::strtoull(text, &end, 10);
  if (end != nullptr && (*end == 'K' || *end == 'k')) {
    value <<= 10;
    ++end;
  } else if (end != nullptr && (*end == 'M' || *end == 'm')) {
    value <<= 20;
    ++end;
  }
  if (errno != 0 || end == text || *end != '\0' || value < 16 * 1024 || value > (1ull << 30)) {
    *error = std::string("SPECTRAL_HOST_STACK_SIZE=") + text +
             " is not a size from 16K to 1G (bytes, or with a K or M suffix)";
    return false;
  }
  *bytes = size_t(value);
  return true;
}

}  // namespace spectral::host

#if defined(BOOST_USE_UCONTEXT)
// Sanitizer builds (SPECTRAL_SANITIZE=address) switch fibers through
// Boost.Context's ucontext variant, whose switches ASan sees. Its one
// out-of-line member is missing from Debian's libboost_context (built for
// the fcontext variant): the record of what runs on this thread, at first
// the thread's own context.
#include <boost/context/fiber.hpp>

namespace boost::context::detail {

fiber_activation_record*& fiber_activation_record::current() noexcept {
  thread_local fiber_activation_record thread_context;
  thread_local fiber_activation_record* running = &thread_context;
  return running;
}

}  // namespace boost::context::detail
#endif
