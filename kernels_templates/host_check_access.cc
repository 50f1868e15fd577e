// host_check_access.cc - the calls of -fsanitize=thread, answered for the host
// device's race and init checks (runtime/device/host/host_checks.h).
//
// A kernel unit built for those checks is compiled with -fsanitize=thread and
// -DSPECTRAL_HOST_CHECK_ACCESSES, and linked with this file, compiled without
// it, instead of ThreadSanitizer's runtime: every load and store of the
// kernel calls __tsan_read<N>/__tsan_write<N> (atomics __tsan_atomic<N>_*),
// and these pass the address to the runtime's access_check hook
// (host_abi.h). Nothing here is ThreadSanitizer's; only the names of its
// instrumentation calls (GCC's and Clang's) are kept.
#include "host_abi.h"

#include <link.h>

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define SPECTRAL_CHECK_FN extern "C" __attribute__((visibility("hidden")))

namespace {

thread_local spectral_host_block* running_block = nullptr;

/// This .so's static thread_local storage on the calling OS thread (where the
/// unit's static __shared__ variables live), and where the .so is loaded.
struct Module {
  uintptr_t base = 0, tls_begin = 0, tls_end = 0;
};

int find_module(struct dl_phdr_info* info, size_t, void* data) {
  Module* module = static_cast<Module*>(data);
  const uintptr_t self = reinterpret_cast<uintptr_t>(&find_module);
  bool mine = false;
  size_t tls_bytes = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& header = info->dlpi_phdr[i];
    const uintptr_t start = info->dlpi_addr + header.p_vaddr;
    if (header.p_type == PT_LOAD && self >= start && self - start < header.p_memsz) mine = true;
    if (header.p_type == PT_TLS) tls_bytes = header.p_memsz;
  }
  if (!mine) return 0;
  module->base = info->dlpi_addr;
  module->tls_begin = reinterpret_cast<uintptr_t>(info->dlpi_tls_data);
  module->tls_end = module->tls_begin + (module->tls_begin != 0 ? tls_bytes : 0);
  return 1;
}

thread_local Module module;

inline void check(const volatile void* address, size_t bytes, unsigned int kind, void* pc) {
  spectral_host_block* block = running_block;
  if (block == nullptr) return;  // before the trampoline (a static constructor)
  block->rt->access_check(block, reinterpret_cast<uintptr_t>(address), bytes, kind,
                          reinterpret_cast<uintptr_t>(pc));
}

}  // namespace

SPECTRAL_CHECK_FN spectral_host_block* spectral_host_check_block(void) { return running_block; }

SPECTRAL_CHECK_FN void spectral_host_check_enter(spectral_host_block* block) {
  running_block = block;  // the first thread_local write: the .so's TLS now exists here
  if (block == nullptr) return;  // out of the kernel: the launch export's own accesses
  if (module.base == 0) dl_iterate_phdr(find_module, &module);
  block->rt->access_thread_start(block, module.base, module.tls_begin, module.tls_end);
}

// Plain loads and stores.
#define SPECTRAL_CHECK_ONE(name, N, kind) \
  SPECTRAL_CHECK_FN void name(void* a) { check(a, N, kind, __builtin_return_address(0)); }
#define SPECTRAL_CHECK_SIZED(N)                                                   \
  SPECTRAL_CHECK_ONE(__tsan_read##N, N, SPECTRAL_HOST_ACCESS_READ)                \
  SPECTRAL_CHECK_ONE(__tsan_write##N, N, SPECTRAL_HOST_ACCESS_WRITE)              \
  SPECTRAL_CHECK_ONE(__tsan_unaligned_read##N, N, SPECTRAL_HOST_ACCESS_READ)      \
  SPECTRAL_CHECK_ONE(__tsan_unaligned_write##N, N, SPECTRAL_HOST_ACCESS_WRITE)    \
  SPECTRAL_CHECK_ONE(__tsan_volatile_read##N, N, SPECTRAL_HOST_ACCESS_READ)       \
  SPECTRAL_CHECK_ONE(__tsan_volatile_write##N, N, SPECTRAL_HOST_ACCESS_WRITE)
SPECTRAL_CHECK_SIZED(1)
SPECTRAL_CHECK_SIZED(2)
SPECTRAL_CHECK_SIZED(4)
SPECTRAL_CHECK_SIZED(8)
SPECTRAL_CHECK_SIZED(16)

SPECTRAL_CHECK_FN void __tsan_read_range(void* a, long bytes) {
  check(a, size_t(bytes), SPECTRAL_HOST_ACCESS_READ, __builtin_return_address(0));
}
SPECTRAL_CHECK_FN void __tsan_write_range(void* a, long bytes) {
  check(a, size_t(bytes), SPECTRAL_HOST_ACCESS_WRITE, __builtin_return_address(0));
}

// memcpy, memmove and memset: the calls the compilers leave in the kernel
// (struct copies, loops made into calls, explicit calls) reach these through
// the link's --wrap options (host_compiler.cc), and Clang's own
// __tsan_mem* calls too.
extern "C" void* __real_memcpy(void*, const void*, size_t);
extern "C" void* __real_memmove(void*, const void*, size_t);
extern "C" void* __real_memset(void*, int, size_t);

#define SPECTRAL_CHECK_COPY(name, copy)                                                     \
  SPECTRAL_CHECK_FN void* name(void* to, const void* from, size_t bytes) {                 \
    check(from, bytes, SPECTRAL_HOST_ACCESS_READ, __builtin_return_address(0));            \
    check(to, bytes, SPECTRAL_HOST_ACCESS_WRITE, __builtin_return_address(0));             \
    return copy(to, from, bytes);                                                           \
  }
#define SPECTRAL_CHECK_SET(name)                                                            \
  SPECTRAL_CHECK_FN void* name(void* to, int value, size_t bytes) {                        \
    check(to, bytes, SPECTRAL_HOST_ACCESS_WRITE, __builtin_return_address(0));             \
    return __real_memset(to, value, bytes);                                                 \
  }
SPECTRAL_CHECK_COPY(__wrap_memcpy, __real_memcpy)
SPECTRAL_CHECK_COPY(__wrap_memmove, __real_memmove)
SPECTRAL_CHECK_COPY(__tsan_memcpy, __real_memcpy)
SPECTRAL_CHECK_COPY(__tsan_memmove, __real_memmove)
SPECTRAL_CHECK_SET(__wrap_memset)
SPECTRAL_CHECK_SET(__tsan_memset)

// What the checks do not need: function entries and exits, vtable pointers,
// the module constructor's call.
SPECTRAL_CHECK_FN void __tsan_init(void) {}
SPECTRAL_CHECK_FN void __tsan_func_entry(void*) {}
SPECTRAL_CHECK_FN void __tsan_func_exit(void) {}
SPECTRAL_CHECK_FN void __tsan_vptr_update(void*, void*) {}
SPECTRAL_CHECK_FN void __tsan_vptr_read(void*) {}
SPECTRAL_CHECK_FN void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
SPECTRAL_CHECK_FN void __tsan_atomic_signal_fence(int) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }

// Atomics: done here (sequentially consistent, which every order the kernel
// asked for allows) after the check (two atomics never race each other).
#define SPECTRAL_CHECK_ATOMIC(N, T)                                                          \
  SPECTRAL_CHECK_FN T __tsan_atomic##N##_load(const volatile T* a, int) {                   \
    check(a, sizeof(T), SPECTRAL_HOST_ACCESS_ATOMIC_LOAD, __builtin_return_address(0));      \
    return __atomic_load_n(a, __ATOMIC_SEQ_CST);                                             \
  }                                                                                          \
  SPECTRAL_CHECK_FN void __tsan_atomic##N##_store(volatile T* a, T v, int) {                \
    check(a, sizeof(T), SPECTRAL_HOST_ACCESS_ATOMIC_STORE, __builtin_return_address(0));     \
    __atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                                \
  }                                                                                          \
  SPECTRAL_CHECK_FN T __tsan_atomic##N##_exchange(volatile T* a, T v, int) {                \
    /* a store for the init check: atomicExch sets flags in fresh memory */                  \
    check(a, sizeof(T), SPECTRAL_HOST_ACCESS_ATOMIC_STORE, __builtin_return_address(0));     \
    return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST);                                      \
  }                                                                                          \
  SPECTRAL_CHECK_ATOMIC_OP(N, T, fetch_add) SPECTRAL_CHECK_ATOMIC_OP(N, T, fetch_sub)        \
  SPECTRAL_CHECK_ATOMIC_OP(N, T, fetch_and) SPECTRAL_CHECK_ATOMIC_OP(N, T, fetch_or)         \
  SPECTRAL_CHECK_ATOMIC_OP(N, T, fetch_xor) SPECTRAL_CHECK_ATOMIC_OP(N, T, fetch_nand)       \
  SPECTRAL_CHECK_FN int __tsan_atomic##N##_compare_exchange_strong(volatile T* a, T* expected, \
                                                                 T desired, int, int) {      \
    check(a, sizeof(T), SPECTRAL_HOST_ACCESS_ATOMIC, __builtin_return_address(0));           \
    return __atomic_compare_exchange_n(a, expected, desired, false, __ATOMIC_SEQ_CST,        \
                                       __ATOMIC_SEQ_CST);                                    \
  }                                                                                          \
  SPECTRAL_CHECK_FN int __tsan_atomic##N##_compare_exchange_weak(volatile T* a, T* expected, \
                                                               T desired, int, int) {        \
    check(a, sizeof(T), SPECTRAL_HOST_ACCESS_ATOMIC, __builtin_return_address(0));           \
    return __atomic_compare_exchange_n(a, expected, desired, false, __ATOMIC_SEQ_CST,        \
                                       __ATOMIC_SEQ_CST);                                    \
  }                                                                                          \
  SPECTRAL_CHECK_FN T __tsan_atomic##N##_compare_exchange_val(volatile T* a, T expected,     \
                                                            T desired, int, int) {           \
    check(a, sizeof(T), SPECTRAL_HOST_ACCESS_ATOMIC, __builtin_return_address(0));           \
    __atomic_compare_exchange_n(a, &expected, desired, false, __ATOMIC_SEQ_CST,              \
                                __ATOMIC_SEQ_CST);                                           \
    return expected;                                                                         \
  }
#define SPECTRAL_CHECK_ATOMIC_OP(N, T, op)                                                   \
  SPECTRAL_CHECK_FN T __tsan_atomic##N##_##op(volatile T* a, T v, int) {                    \
    check(a, sizeof(T), SPECTRAL_HOST_ACCESS_ATOMIC, __builtin_return_address(0));           \
    return __atomic_##op(a, v, __ATOMIC_SEQ_CST);                                            \
  }
SPECTRAL_CHECK_ATOMIC(8, uint8_t)
SPECTRAL_CHECK_ATOMIC(16, uint16_t)
SPECTRAL_CHECK_ATOMIC(32, uint32_t)
SPECTRAL_CHECK_ATOMIC(64, uint64_t)
