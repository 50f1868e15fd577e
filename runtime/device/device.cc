// device.cc - choosing where kernels run.
#include "runtime/device/device.h"

#include "runtime/device/cuda/cuda_device.h"
#include "runtime/device/host/host_device.h"
#include "runtime/kernels/embedded_templates.h"

#include <cstdio>

namespace spectral {
namespace {

StatusOr<std::unique_ptr<Device>> create_cuda() {
  std::vector<NvrtcHeader> headers;
  for (const EmbeddedFile& file : embedded_templates()) headers.push_back({file.name, file.content});
  StatusOr<std::unique_ptr<CudaDevice>> cuda = CudaDevice::create(0, std::move(headers));
  if (!cuda) return cuda.status();
  return std::unique_ptr<Device>(std::move(*cuda));
}

StatusOr<std::unique_ptr<Device>> create_host() {
  StatusOr<std::unique_ptr<HostDevice>> host = HostDevice::create();
  if (!host) return host.status();
  return std::unique_ptr<Device>(std::move(*host));
}

}  // namespace

StatusOr<std::unique_ptr<Device>> create_device(const std::string& which) {
  if (which == "host") return create_host();
  if (which == "cuda") return create_cuda();
  if (which != "auto")
    return Status::error("unknown device '" + which + "' (expected auto, cuda or host)");
  StatusOr<std::unique_ptr<Device>> cuda = create_cuda();
  if (cuda) {
    std::fprintf(stderr, "spectral: running on %s\n", (*cuda)->name().c_str());
    return cuda;
  }
  StatusOr<std::unique_ptr<Device>> host = create_host();
  if (host)
    std::fprintf(stderr, "spectral: no GPU (%s); running on the %s\n",
                 cuda.status().message().c_str(), (*host)->name().c_str());
  return host;
}

}  // namespace spectral
