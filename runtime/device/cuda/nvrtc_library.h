// nvrtc_library.h - NVRTC, opened with dlopen through one symbol table.
//
// nvrtc.h is never included: the few types used are declared here, and the
// entry points are listed once in nvrtc_symbols.def.
#pragma once

#include "runtime/status.h"

#include <cstddef>
#include <string>

namespace spectral {

using nvrtcProgram = struct NvrtcProgramOpaque*;
using nvrtcResult = int;
constexpr nvrtcResult NVRTC_SUCCESS = 0;
constexpr nvrtcResult NVRTC_ERROR_COMPILATION = 6;

/// One function pointer per entry of nvrtc_symbols.def.
struct NvrtcLibrary {
#define X(name, result, params) result(*name) params = nullptr;
#include "runtime/device/cuda/nvrtc_symbols.def"
#undef X
  std::string path;  // the file that was opened
};

/// NVRTC, loaded once per process from $SPECTRAL_NVRTC_PATH when set (and
/// only from there), else libnvrtc.so.13, /usr/local/cuda/lib64/libnvrtc.so.13,
/// libnvrtc.so. The error lists what was tried.
const StatusOr<const NvrtcLibrary*>& nvrtc_library();

}  // namespace spectral
