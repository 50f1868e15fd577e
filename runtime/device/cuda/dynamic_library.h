// dynamic_library.h - dlopen of optional GPU libraries (libcuda, NVRTC).
//
// Neither library is linked: both are opened at run time, so the runtime
// builds and runs host-only work on machines without them.
#pragma once

#include "runtime/status.h"

#include <string>
#include <vector>

namespace spectral {

struct OpenedLibrary {
  void* handle = nullptr;
  std::string path;  // the candidate that opened
};

/// The first of `candidates` that dlopen accepts (never closed). The error
/// names `what` and lists every candidate tried with dlopen's reason.
StatusOr<OpenedLibrary> open_first_library(const std::vector<std::string>& candidates,
                                   const std::string& what);

/// The address of `symbol` in `handle`, or null.
void* find_symbol(void* handle, const char* symbol);

}  // namespace spectral
