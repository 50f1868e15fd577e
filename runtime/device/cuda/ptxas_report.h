// ptxas_report.h - resource usage from ptxas's `-v` report in an NVRTC log.
//
// NVRTC 13 prints, per function (entries and non-inlined device functions):
//   ptxas info    : Compiling entry function 'fft_256' for 'sm_80'
//   ptxas info    : Function properties for fft_256
//   ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 12 registers, used 1 barriers, 1024 bytes smem, 368 bytes cmem[0]
// The "Used" line exists for entries only; it may end with
// "N bytes cumulative stack size". Device functions get the properties lines.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace spectral {

struct ResourceUsage {
  bool is_entry = false;  // an extern "C" __global__ entry, not a device function
  int64_t registers = 0;
  int64_t barriers = 0;
  int64_t spill_store_bytes = 0;
  int64_t spill_load_bytes = 0;
  int64_t shared_bytes = 0;    // static shared memory (smem)
  int64_t stack_bytes = 0;     // the function's own stack frame
  int64_t constant_bytes = 0;  // cmem[*] summed over banks
};

/// Usage per function named in `log`, keyed by its (possibly mangled) name.
/// Lines that are not part of the report are ignored.
std::map<std::string, ResourceUsage> parse_ptxas_report(const std::string& log);

}  // namespace spectral
