// nvrtc_library.h - NVRTC, found on disk first and opened with dlopen only when needed.
//
// nvrtc.h is never included: the few types used are declared here, and the
// entry points are listed once in nvrtc_symbols.def. Finding NVRTC is
// separate from loading it (163 ms): the file's identity keys the kernel
// cache, so a process whose kernels are all cached never loads NVRTC.
#pragma once

#include "runtime/status.h"

#include <cstddef>
#include <string>
#include <vector>

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

/// The NVRTC library file this process would open, without opening it.
struct NvrtcFile {
  std::string path;      // absolute; what dlopen is given
  std::string identity;  // "<real path> <size> <mtime ns>": changes whenever the file does
  int major = 0;         // from the file name (libnvrtc.so.13 -> 13); 0 when it has none
};

/// Finds NVRTC: $SPECTRAL_NVRTC_PATH when set (and only there), else
/// libnvrtc.so.13, then libnvrtc.so, in the dynamic loader's directories
/// ($LD_LIBRARY_PATH, /etc/ld.so.conf and its includes, the system
/// directories) and /usr/local/cuda/lib64. The error lists what was tried.
StatusOr<NvrtcFile> find_nvrtc();

/// `names` searched in `directories`, the loader's order: the first that
/// exists as a file. Exposed for tests.
StatusOr<NvrtcFile> find_library_file(const std::vector<std::string>& names,
                                      const std::vector<std::string>& directories,
                                      const std::string& what);

/// The directories listed in an ld.so.conf file, its `include` globs
/// followed; missing files contribute nothing. Exposed for tests.
std::vector<std::string> loader_config_directories(const std::string& conf_path);

/// NVRTC opened from `path` (from find_nvrtc), once per process; a later
/// call with another path is an error naming both.
StatusOr<const NvrtcLibrary*> nvrtc_library(const std::string& path);

/// Whether this process has opened NVRTC.
bool nvrtc_loaded();

}  // namespace spectral
