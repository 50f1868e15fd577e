// access_checker.cc - shadow memory for the race and init checks.
#include "runtime/device/host/access_checker.h"

#include "runtime/device/host/host_checks.h"

#include <cxxabi.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace spectral::host {
namespace {

enum : int { kDynamic, kStatic, kDevice };
constexpr uint32_t kManyBlocks = UINT32_MAX;
constexpr uint16_t kManyThreads = UINT16_MAX;

spectral_host_uint3 unflatten(uint32_t linear, spectral_host_uint3 dim) {
  return {linear % dim.x, (linear / dim.x) % dim.y, linear / dim.x / dim.y};
}

std::string coordinates(spectral_host_uint3 v) {
  return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}

std::string hex(uintptr_t value) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%zx", size_t(value));
  return text;
}

const char* verb(unsigned kind) {
  switch (kind) {
    case SPECTRAL_HOST_ACCESS_READ: return "read";
    case SPECTRAL_HOST_ACCESS_WRITE: return "wrote";
    case SPECTRAL_HOST_ACCESS_ATOMIC_STORE: return "stored atomically";
    case SPECTRAL_HOST_ACCESS_ATOMIC_LOAD: return "loaded atomically";
    default: return "updated atomically";
  }
}

/// "wrote it", "updated it atomically", ...
std::string verb_it(unsigned kind) {
  const std::string v = verb(kind);
  const size_t space = v.find(' ');
  return space == std::string::npos ? v + " it" : v.substr(0, space) + " it" + v.substr(space);
}

}  // namespace

void AccessChecker::allocated(const void* pointer, size_t bytes) {
  Allocation allocation;
  allocation.bytes = bytes;
  if (init_) allocation.written.assign(bytes, 0);
  std::lock_guard<std::mutex> lock(mutex_);
  allocations_[reinterpret_cast<uintptr_t>(pointer)] = std::move(allocation);
}

void AccessChecker::released(const void* pointer) {
  std::lock_guard<std::mutex> lock(mutex_);
  allocations_.erase(reinterpret_cast<uintptr_t>(pointer));
}

void AccessChecker::host_wrote(const void* pointer, size_t bytes) {
  if (!init_) return;
  const uintptr_t address = reinterpret_cast<uintptr_t>(pointer);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = allocations_.upper_bound(address);
  if (it == allocations_.begin()) return;
  --it;
  const size_t offset = address - it->first;
  if (offset >= it->second.bytes) return;
  const size_t n = bytes < it->second.bytes - offset ? bytes : it->second.bytes - offset;
  std::memset(it->second.written.data() + offset, 1, n);
}

void AccessChecker::copied(const void* to, const void* from, size_t bytes) {
  if (!init_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  auto find = [&](uintptr_t address, size_t* offset) -> Allocation* {
    auto it = allocations_.upper_bound(address);
    if (it == allocations_.begin()) return nullptr;
    --it;
    *offset = address - it->first;
    return *offset + bytes <= it->second.bytes ? &it->second : nullptr;
  };
  size_t to_offset = 0, from_offset = 0;
  Allocation* target = find(reinterpret_cast<uintptr_t>(to), &to_offset);
  Allocation* source = find(reinterpret_cast<uintptr_t>(from), &from_offset);
  if (target == nullptr) return;
  if (source == nullptr) {
    std::memset(target->written.data() + to_offset, 1, bytes);  // from outside: counted as written
  } else {
    std::memmove(target->written.data() + to_offset, source->written.data() + from_offset, bytes);
  }
}

void AccessChecker::begin_launch() { ++launch_; }

void AccessChecker::begin_block(spectral_host_uint3 block_idx, spectral_host_uint3 block_dim,
                                spectral_host_uint3 grid_dim, const void* dynamic_shared,
                                size_t bytes) {
  ++block_run_;
  block_ = uint32_t(block_idx.x + uint64_t(grid_dim.x) * (block_idx.y + uint64_t(grid_dim.y) *
                                                                           block_idx.z));
  block_dim_ = block_dim;
  grid_dim_ = grid_dim;
  dynamic_ = reinterpret_cast<uintptr_t>(dynamic_shared);
  dynamic_bytes_ = bytes;
  if (dynamic_cells_.size() < bytes) dynamic_cells_.resize(bytes);
  static_begin_ = static_end_ = 0;
}

void AccessChecker::thread_start(uintptr_t module_base, uintptr_t static_begin,
                                 uintptr_t static_end) {
  module_base_ = module_base;
  static_begin_ = static_begin;
  static_end_ = static_end;
  if (static_cells_.size() < static_end - static_begin) static_cells_.resize(static_end - static_begin);
}

bool AccessChecker::locate(uintptr_t address, Place* place) {
  if (address - dynamic_ < dynamic_bytes_) {
    *place = {dynamic_cells_.data(), nullptr, dynamic_, dynamic_bytes_, block_run_, 0, kDynamic};
    return true;
  }
  if (address - static_begin_ < static_end_ - static_begin_) {
    *place = {static_cells_.data(), nullptr, static_begin_, static_end_ - static_begin_,
              block_run_, 0, kStatic};
    return true;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = allocations_.upper_bound(address);
  if (it == allocations_.begin()) return false;
  --it;
  Allocation& allocation = it->second;
  if (address - it->first >= allocation.bytes) return false;
  if (race_ && allocation.cells.empty()) allocation.cells.resize(allocation.bytes);
  *place = {allocation.cells.empty() ? nullptr : allocation.cells.data(),
            allocation.written.empty() ? nullptr : allocation.written.data(), it->first,
            allocation.bytes, launch_, block_, kDevice};
  return true;
}

bool AccessChecker::access(uintptr_t address, size_t bytes, unsigned kind, uint32_t thread,
                           uint32_t interval, uintptr_t pc) {
  Place place;
  if (bytes == 0 || !locate(address, &place)) return true;
  const size_t offset = address - place.start;
  if (bytes > place.bytes - offset) bytes = place.bytes - offset;  // the rest is the bounds check's
  return judge(place, offset, bytes, kind, thread, interval, uint32_t(pc - module_base_));
}

bool AccessChecker::judge(const Place& place, size_t offset, size_t bytes, unsigned kind,
                          uint32_t thread, uint32_t interval, uint32_t site) {
  const Access self{thread, place.block, site, kind};
  for (size_t i = offset; i < offset + bytes; ++i) {
    Cell scratch;
    Cell& c = place.cells != nullptr ? place.cells[i] : scratch;
    const bool writes = kind != SPECTRAL_HOST_ACCESS_READ && kind != SPECTRAL_HOST_ACCESS_ATOMIC_LOAD;
    const bool atomic = kind != SPECTRAL_HOST_ACCESS_READ && kind != SPECTRAL_HOST_ACCESS_WRITE;
    if (init_ && kind != SPECTRAL_HOST_ACCESS_WRITE && kind != SPECTRAL_HOST_ACCESS_ATOMIC_STORE) {
      const bool written = place.written != nullptr ? place.written[i] != 0
                                                    : c.init_run == place.run;
      if (!written) {
        found(place, offset, bytes, false, self, {}, false);
        return false;
      }
    }
    if (race_) {
      // Unordered with `self`: another block of the launch, or another thread
      // of the block in the same barrier interval.
      auto unordered = [&](uint32_t run, uint32_t block, uint32_t other_interval,
                           uint16_t other_thread) {
        return run == place.run &&
               (block != place.block || (other_interval == interval && other_thread != thread));
      };
      const bool write_unordered = unordered(c.w_run, c.w_block, c.w_interval, c.w_thread);
      if (write_unordered && !(atomic && c.w_atomic)) {
        found(place, offset, bytes, true, self,
              {c.w_thread, c.w_block, c.w_site,
               c.w_atomic ? unsigned(SPECTRAL_HOST_ACCESS_ATOMIC) : SPECTRAL_HOST_ACCESS_WRITE},
              c.w_block == kManyBlocks || c.w_thread == kManyThreads);
        return false;
      }
      if (writes && unordered(c.r_run, c.r_block, c.r_interval, c.r_thread) &&
          !(atomic && c.r_atomic)) {
        found(place, offset, bytes, true, self,
              {c.r_thread, c.r_block, c.r_site,
               c.r_atomic ? unsigned(SPECTRAL_HOST_ACCESS_ATOMIC_LOAD) : SPECTRAL_HOST_ACCESS_READ},
              c.r_block == kManyBlocks || c.r_thread == kManyThreads);
        return false;
      }
      if (!writes) {
        if (c.r_run != place.run || (c.r_block == place.block && c.r_interval != interval)) {
          c.r_run = place.run;
          c.r_block = place.block;
          c.r_interval = interval;
          c.r_thread = uint16_t(thread);
          c.r_site = site;
          c.r_atomic = atomic;
        } else {
          if (c.r_block != place.block) {
            c.r_block = kManyBlocks;
          } else if (c.r_thread != thread) {
            c.r_thread = kManyThreads;
          }
          c.r_atomic = c.r_atomic && atomic;  // a plain read among them conflicts with atomics
        }
      } else if (atomic && write_unordered) {
        // Atomics of several threads (or blocks) in one interval: a plain
        // access by any of them conflicts with another's, so the writer
        // becomes "many" (atomic, as every write unordered with this one is).
        if (c.w_block != place.block) {
          c.w_block = kManyBlocks;
        } else {
          c.w_thread = kManyThreads;
        }  // w_site stays an earlier writer's: the later one may be the reporter
      } else if (!(atomic && !c.w_atomic && c.w_run == place.run && c.w_block == place.block &&
                   c.w_interval == interval && c.w_thread == thread)) {
        // (An atomic after the same thread's plain write of the interval
        // keeps that write: other threads' atomics conflict with it.)
        c.w_run = place.run;
        c.w_block = place.block;
        c.w_interval = interval;
        c.w_thread = uint16_t(thread);
        c.w_site = site;
        c.w_atomic = atomic;
      }
    }
    if (writes) {
      if (place.written != nullptr) place.written[i] = 1;
      c.init_run = place.run;
    }
  }
  return true;
}

void AccessChecker::found(const Place& place, size_t offset, size_t bytes, bool race, Access self,
                          Access other, bool other_many) {
  finding_ = Finding{true, race, place.what, place.start, place.bytes, offset, bytes,
                     self, other, other_many};
}

std::string AccessChecker::thread_name(uint32_t linear) const {
  return "thread " + coordinates(unflatten(linear, block_dim_));
}

std::string AccessChecker::block_name(uint32_t linear) const {
  return "block " + coordinates(unflatten(linear, grid_dim_));
}

std::string AccessChecker::shared_variable_name(const std::string& mangled, size_t size) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  std::string symbol = status == 0 && demangled != nullptr ? demangled : mangled;
  std::free(demangled);
  const std::string anonymous = "(anonymous namespace)::";
  for (size_t at; (at = symbol.find(anonymous)) != std::string::npos;)
    symbol.erase(at, anonymous.size());
  const size_t colons = symbol.rfind("::");
  const std::string variable = colons == std::string::npos ? symbol : symbol.substr(colons + 2);
  std::string function;
  // _ZZ: a function's local static ("f::tile" demangled, for an extern "C" f).
  if (mangled.rfind("_ZZ", 0) == 0 && colons != std::string::npos) {
    // The function's bare name: before its template arguments or parameters.
    const std::string scope = symbol.substr(0, colons);
    function = scope.substr(0, scope.find_first_of("<("));
    const size_t last = function.find_last_of(" :");
    if (last != std::string::npos) function = function.substr(last + 1);
  }
  return "`" + variable + "` (" + std::to_string(size) + " bytes" +
         (function.empty() ? "" : ", in " + function) + ")";
}

std::string AccessChecker::static_variable(size_t offset) const {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(module_base_), &info) == 0 || info.dli_fname == nullptr)
    return "";
  // The static __shared__ variables are thread_locals of the kernel's .so: a
  // TLS symbol's value is its offset in the module's block.
  const std::string command = "readelf -sW '" + loaded_object_path(info) + "' 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return "";
  std::string found;
  char* line = nullptr;  // getline: demangled template names can be long
  size_t capacity = 0;
  while (getline(&line, &capacity, pipe) != -1) {
    std::istringstream fields(line);
    std::string number, value, size_text, type, bind, visibility, index, name;
    if (!(fields >> number >> value >> size_text >> type >> bind >> visibility >> index) ||
        type != "TLS")
      continue;
    std::getline(fields >> std::ws, name);
    const size_t start = std::strtoull(value.c_str(), nullptr, 16);
    const size_t size = std::strtoull(size_text.c_str(), nullptr, 0);  // hex above 99999
    if (offset < start || offset >= start + size) continue;
    found = "offset " + std::to_string(offset - start) + " of the block's static __shared__ " +
            shared_variable_name(name, size);
    break;
  }
  std::free(line);
  pclose(pipe);
  return found;
}

std::string AccessChecker::region_name(int what, uintptr_t start, size_t bytes) const {
  switch (what) {
    case kDynamic: return "the block's " + std::to_string(bytes) + " bytes of dynamic shared memory";
    case kStatic:
      return "the block's static __shared__ variables (" + std::to_string(bytes) +
             " bytes of thread-local storage)";
    default: return "a " + std::to_string(bytes) + "-byte device allocation at " + hex(start);
  }
}

std::string AccessChecker::source_line(uint32_t site) {
  // The return address of the check's call: the access is the instruction before.
  return code_location(module_base_ + site - 1);
}

std::string AccessChecker::describe_finding() {
  const Finding f = finding_;
  finding_ = Finding();
  std::ostringstream out;
  const std::string variable = f.what == kStatic ? static_variable(f.offset) : "";
  out << (f.race ? "race: " : "init: ") << thread_name(f.self.thread) << " " << verb(f.self.kind)
      << " " << f.bytes << " byte(s) at "
      << (variable.empty() ? "offset " + std::to_string(f.offset) + " of " +
                                 region_name(f.what, f.start, f.region_bytes)
                           : variable)
      << " (at " << source_line(f.self.site) << ")";
  if (!f.race) {
    out << (f.what == kDevice ? ", which nothing wrote since it was allocated (no copy to the "
                                "device, fill or kernel)"
                              : ", which no thread of the block wrote before");
    return out.str();
  }
  const bool other_block = f.what == kDevice && f.other.block != f.self.block;
  std::string who;
  if (other_block && f.other.block == kManyBlocks) {
    who = "other blocks";
  } else if (other_block && f.other_many) {
    who = "threads of " + block_name(f.other.block);
  } else if (other_block) {
    who = block_name(f.other.block) + " " + thread_name(f.other.thread);
  } else if (f.other_many) {
    who = "other threads";
  } else {
    who = thread_name(f.other.thread);
  }
  out << ", and " << who << " " << verb_it(f.other.kind)
      << (other_block ? " in the same launch" : " in the same barrier interval") << " (at "
      << (f.other_many ? "e.g. " : "") << source_line(f.other.site) << "): "
      << (other_block ? "the blocks of one launch are not ordered"
                      : "no __syncthreads orders the two accesses");
  return out.str();
}

}  // namespace spectral::host
