// prebuilt.h - GPU code compiled ahead of time into a Program (spectral-compile --target).
//
// A Program always carries its kernels' source; embed_binaries adds, per
// kernel and per GPU architecture, the CUBIN and PTX NVRTC builds from it
// (through the kernel cache), so that a GPU of that architecture loads the
// kernel without compiling it (CudaDevice::load_prebuilt), a newer one
// compiles the PTX in its driver, and any other falls back to the source.
#pragma once

#include "runtime/program/program.h"
#include "runtime/status.h"

#include <functional>
#include <string>
#include <vector>

namespace spectral {

/// The GPU architectures of `targets` ("host", "sm_80", "sm_90", ...; each
/// at most once), in order, "host" left out: it names the source every
/// Program carries. The error names the bad target and the accepted forms.
StatusOr<std::vector<std::string>> gpu_targets(const std::vector<std::string>& targets);

/// Called after each (kernel, architecture) compile: how many are done of how many.
using BuildProgress = std::function<void(size_t done, size_t total)>;

/// Compiles every kernel of `program` for each of `archs` (sm_XX, which
/// NVRTC must support) and stores CUBIN and PTX in KernelDesc::binaries,
/// replacing code it held for those architectures. Compiles in parallel
/// (`threads`, 0: hardware threads). On an error `program` is unchanged and
/// the message names the kernel and the architecture.
Status embed_binaries(Program& program, const std::vector<std::string>& archs,
                      const BuildProgress& progress = {}, int threads = 0);

}  // namespace spectral
