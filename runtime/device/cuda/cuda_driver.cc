#include "runtime/device/cuda/cuda_driver.h"

#include "runtime/device/cuda/dynamic_library.h"

namespace spectral {
namespace {

StatusOr<const CudaDriver*> load_driver() {
  StatusOr<OpenedLibrary> opened = open_first_library({"libcuda.so.1"}, "libcuda.so.1");
  if (!opened) return opened.status();

  auto* driver = new CudaDriver();  // lives as long as the process
  std::string missing;
#define X(name, params)                                                                 \
  driver->name = reinterpret_cast<CUresult(*) params>(find_symbol(opened->handle, #name)); \
  if (!driver->name) missing += " " #name;
#include "runtime/device/cuda/cuda_symbols.def"
#undef X
  if (!missing.empty()) {
    delete driver;
    return Status::error("CUDA driver " + opened->path + " lacks entry points:" + missing);
  }
  return static_cast<const CudaDriver*>(driver);
}

}  // namespace

std::string CudaDriver::error_text(CUresult result) const {
  const char* name = nullptr;
  const char* description = nullptr;
  if (cuGetErrorName(result, &name) != CUDA_SUCCESS || !name) {
    return "unknown CUDA error " + std::to_string(result);
  }
  std::string text = name;
  if (cuGetErrorString(result, &description) == CUDA_SUCCESS && description) {
    text += std::string(" (") + description + ")";
  }
  return text;
}

const StatusOr<const CudaDriver*>& cuda_driver() {
  static const StatusOr<const CudaDriver*> loaded = load_driver();
  return loaded;
}

}  // namespace spectral
