// host_checks.cc - parsing SPECTRAL_HOST_CHECK, and the guarded regions of the bounds check.
#include "runtime/device/host/host_checks.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>

namespace spectral::host {
namespace {

/// One guarded region: [mapping, mapping + mapped) with its last page
/// inaccessible; the caller's bytes end at round16(end of bytes) == guard.
struct Region {
  uintptr_t mapping = 0;
  size_t mapped = 0;
  uintptr_t start = 0;  // what the caller got
  size_t bytes = 0;
  bool shared = false;  // a block's dynamic shared memory, not a device allocation
};

std::mutex& regions_mutex() {
  static std::mutex* mutex = new std::mutex;
  return *mutex;
}
/// By the address of the guard page.
std::map<uintptr_t, Region>& regions() {
  static auto* map = new std::map<uintptr_t, Region>;
  return *map;
}

/// Whether this thread holds regions_mutex(): a fault then (inside the
/// registry itself) is not a kernel's, and the handler must not wait for it.
thread_local bool holding_regions = false;

/// regions_mutex() held, with holding_regions set meanwhile.
class RegionsLock {
 public:
  RegionsLock() : lock_(regions_mutex()) { holding_regions = true; }
  ~RegionsLock() { holding_regions = false; }

 private:
  std::lock_guard<std::mutex> lock_;
};

size_t page_bytes() {
  static const size_t bytes = size_t(sysconf(_SC_PAGESIZE));
  return bytes;
}

}  // namespace

std::string HostChecks::describe() const {
  std::string text;
  for (auto [on, name] : {std::pair{bounds, "bounds"}, {sync, "sync"}, {race, "race"},
                          {init, "init"}}) {
    if (on) text += (text.empty() ? "" : ",") + std::string(name);
  }
  if (order) {
    text += std::string(text.empty() ? "" : ",") + "order=" +
            (order_reverse ? "reverse" : std::to_string(order_seed));
  }
  return text.empty() ? "none" : text;
}

StatusOr<HostChecks> parse_host_checks(const std::string& text) {
  HostChecks checks;
  std::stringstream words(text);
  for (std::string word; std::getline(words, word, ',');) {
    if (word.empty()) continue;
    if (word == "bounds") {
      checks.bounds = true;
    } else if (word == "sync") {
      checks.sync = true;
    } else if (word == "race") {
      checks.race = true;
    } else if (word == "init") {
      checks.init = true;
    } else if (word == "order" || word.rfind("order=", 0) == 0) {
      checks.order = true;
      const std::string how = word == "order" ? "" : word.substr(6);
      if (how == "reverse") {
        checks.order_reverse = true;
      } else if (!how.empty()) {
        char* end = nullptr;
        errno = 0;
        checks.order_seed = std::strtoull(how.c_str(), &end, 10);
        if (how[0] == '-' || *end != '\0' || errno != 0)
          return Status::error("'" + word + "': the order check takes 'reverse' or a seed "
                               "(a decimal number)");
      }
    } else {
      return Status::error("unknown check '" + word + "' (available: " +
                           std::string(kAvailableChecks) + ")");
    }
  }
  return checks;
}

StatusOr<HostChecks> host_checks_from_environment() {
  const char* text = std::getenv("SPECTRAL_HOST_CHECK");
  if (text == nullptr) return HostChecks{};
  StatusOr<HostChecks> checks = parse_host_checks(text);
  if (!checks) {
    return Status::error(std::string("SPECTRAL_HOST_CHECK=") + text + ": " +
                         checks.status().message());
  }
  return checks;
}

void* guarded_allocate(size_t bytes, bool shared, size_t alignment) {
  const size_t page = page_bytes();
  const size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  const size_t mapped = (rounded + page - 1) / page * page + page;
  void* memory = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) return nullptr;
  const uintptr_t mapping = reinterpret_cast<uintptr_t>(memory);
  const uintptr_t guard = mapping + mapped - page;
  if (mprotect(reinterpret_cast<void*>(guard), page, PROT_NONE) != 0) {
    munmap(memory, mapped);
    return nullptr;
  }
  Region region{mapping, mapped, guard - rounded, bytes, shared};
  RegionsLock lock;
  regions()[guard] = region;
  return reinterpret_cast<void*>(region.start);
}

bool guarded_release(void* pointer) {
  Region region;
  {
    RegionsLock lock;
    const uintptr_t start = reinterpret_cast<uintptr_t>(pointer);
    auto found = regions().end();
    // The guard follows the caller's bytes within a page and 16 bytes.
    for (auto it = regions().lower_bound(start); it != regions().end(); ++it) {
      if (it->second.start == start) found = it;
      break;
    }
    if (found == regions().end()) return false;
    region = found->second;
    regions().erase(found);
  }
  munmap(reinterpret_cast<void*>(region.mapping), region.mapped);
  return true;
}

bool find_guard_fault(const void* address, GuardFault* fault) {
  const uintptr_t at = reinterpret_cast<uintptr_t>(address);
  const size_t page = page_bytes();
  if (holding_regions) return false;  // a fault in the registry: not a kernel's
  // Another thread's, briefly; held with holding_regions set, so that a fault
  // while reading the map (a heap a kernel corrupted) ends the process
  // rather than waiting for this thread's own lock.
  RegionsLock lock;
  auto it = regions().upper_bound(at);
  if (it == regions().begin()) return false;
  --it;
  if (at >= it->first + page) return false;
  fault->address = at;
  fault->start = it->second.start;
  fault->bytes = it->second.bytes;
  fault->shared = it->second.shared;
  return true;
}

std::string loaded_object_path(const Dl_info& info) {
  std::string path = info.dli_fname;
  // A kernel is loaded from /proc/self/fd/N: another process needs our pid.
  if (path.rfind("/proc/self/", 0) == 0)
    path = "/proc/" + std::to_string(getpid()) + path.substr(std::strlen("/proc/self"));
  return path;
}

std::string code_location(uintptr_t instruction) {
  char offset[32];
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(instruction), &info) == 0 || info.dli_fname == nullptr) {
    std::snprintf(offset, sizeof offset, "0x%" PRIxPTR, instruction);
    return offset;
  }
  std::snprintf(offset, sizeof offset, "0x%" PRIxPTR,
                instruction - reinterpret_cast<uintptr_t>(info.dli_fbase));
  const std::string name = info.dli_fname;
  const bool kernel = name.rfind("/proc/self/fd/", 0) == 0;  // loaded from memory
  const std::string fallback = "+" + std::string(offset) + " in " +
                               (kernel ? "the kernel's .so" : name.substr(name.rfind('/') + 1));
  const std::string path = loaded_object_path(info);
  // -i: the chain of inlined calls, innermost first. The first frame outside
  // host_emulation.h is the kernel's own line (a barrier's call, an atomic).
  const std::string command = "addr2line -i -e '" + path + "' " + offset + " 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return fallback;
  std::string found;
  char line[4096];
  while (std::fgets(line, sizeof line, pipe) != nullptr) {
    std::string text = line;
    text = text.substr(0, text.find_first_of(" \n"));
    if (text.empty() || text[0] == '?') continue;
    text = text.substr(text.rfind('/') + 1);
    const bool emulation = text.rfind("host_emulation.h:", 0) == 0;
    if (found.empty() || !emulation) found = text;
    if (!emulation) break;
  }
  pclose(pipe);
  return found.empty() ? fallback : found;
}

std::string GuardFault::describe() const {
  char text[256];
  const uintptr_t past = address - (start + bytes);
  const char* access = !access_known ? "accessed" : write ? "wrote" : "read";
  const int used = std::snprintf(text, sizeof text, "bounds: thread (%u,%u,%u) %s 0x%" PRIxPTR ", ",
                                 thread.x, thread.y, thread.z, access, address);
  if (shared) {
    std::snprintf(text + used, sizeof text - size_t(used),
                  "%" PRIuPTR " bytes past the end of the block's %zu bytes of dynamic shared memory",
                  past, bytes);
  } else {
    std::snprintf(text + used, sizeof text - size_t(used),
                  "%" PRIuPTR " bytes past the end of a %zu-byte device allocation at 0x%" PRIxPTR,
                  past, bytes, start);
  }
  return pc == 0 ? std::string(text) : std::string(text) + " (at " + code_location(pc) + ")";
}

}  // namespace spectral::host
