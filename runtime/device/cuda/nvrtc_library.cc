#include "runtime/device/cuda/nvrtc_library.h"

#include "runtime/device/cuda/dynamic_library.h"

#include <cstdlib>
#include <string>
#include <vector>

namespace spectral {
namespace {

StatusOr<const NvrtcLibrary*> load_nvrtc() {
  std::vector<std::string> candidates = {"libnvrtc.so.13", "/usr/local/cuda/lib64/libnvrtc.so.13",
                                         "libnvrtc.so"};
  std::string what = "NVRTC (libnvrtc)";
  const char* explicit_path = std::getenv("SPECTRAL_NVRTC_PATH");
  if (explicit_path && *explicit_path) {
    candidates = {explicit_path};
    what = "NVRTC (SPECTRAL_NVRTC_PATH)";
  }
  StatusOr<OpenedLibrary> opened = open_first_library(candidates, what);
  if (!opened) return opened.status();

  auto* library = new NvrtcLibrary();  // lives as long as the process
  std::string missing;
#define X(name, result, params)                                                      \
  library->name = reinterpret_cast<result(*) params>(find_symbol(opened->handle, #name)); \
  if (!library->name) missing += " " #name;
#include "runtime/device/cuda/nvrtc_symbols.def"
#undef X
  if (!missing.empty()) {
    delete library;
    return Status::error("NVRTC at " + opened->path + " lacks entry points:" + missing);
  }
  library->path = opened->path;
  return static_cast<const NvrtcLibrary*>(library);
}

}  // namespace

const StatusOr<const NvrtcLibrary*>& nvrtc_library() {
  static const StatusOr<const NvrtcLibrary*> loaded = load_nvrtc();
  return loaded;
}

}  // namespace spectral
