// prebuilt.cc - CUBIN and PTX per architecture into a Program (prebuilt.h).
#include "runtime/program/prebuilt.h"

#include "runtime/device/cuda/nvrtc_compiler.h"
#include "runtime/kernels/embedded_templates.h"
#include "runtime/program/parallel.h"

#include <algorithm>
#include <mutex>

namespace spectral {

StatusOr<std::vector<std::string>> gpu_targets(const std::vector<std::string>& targets) {
  std::vector<std::string> archs;
  for (size_t i = 0; i < targets.size(); ++i) {
    const std::string& target = targets[i];
    if (target != "host" && sm_number(target) == 0)
      return Status::error("unknown target '" + target +
                           "': expected host or a GPU architecture sm_XX (sm_80, sm_90, ...; "
                           "arch-specific ones like sm_90a are not supported)");
    if (std::find(targets.begin(), targets.begin() + i, target) != targets.begin() + i)
      return Status::error("target '" + target + "' given twice");
    if (target != "host") archs.push_back(target);
  }
  return archs;
}

Status embed_binaries(Program& program, const std::vector<std::string>& archs,
                      const BuildProgress& progress, int threads) {
  if (archs.empty()) return Status::ok();
  StatusOr<NvrtcCompiler> compiler = NvrtcCompiler::create();
  if (!compiler)
    return Status::error("compiling for " + archs.front() + " needs NVRTC: " +
                         compiler.status().message());
  StatusOr<std::vector<int>> supported = compiler->supported_archs();
  if (!supported) return supported.status();
  for (const std::string& arch : archs)
    if (std::find(supported->begin(), supported->end(), sm_number(arch)) == supported->end()) {
      std::string list;
      for (int known : *supported) list += (list.empty() ? "sm_" : ", sm_") + std::to_string(known);
      StatusOr<std::string> version = compiler->version();
      return Status::error((version ? *version : std::string("NVRTC")) + " cannot build " + arch +
                           ": it builds " + list);
    }

  std::vector<NvrtcHeader> headers;
  for (const EmbeddedFile& file : embedded_templates()) headers.push_back({file.name, file.content});
  const size_t total = program.kernels.size() * archs.size();
  std::vector<KernelBinary> built(total);
  std::vector<Status> statuses(total);
  size_t done = 0;
  std::mutex progress_mutex;
  parallel_for(total, threads, [&](size_t job) {
    const KernelDesc& kernel = program.kernels[job / archs.size()];
    NvrtcOptions options;
    options.arch = archs[job % archs.size()];
    options.want_ptx = true;
    StatusOr<CompiledKernel> compiled = compiler->compile(kernel.source, options, headers);
    if (compiled)
      built[job] = {options.arch, std::move(compiled->binary), std::move(compiled->ptx)};
    else
      statuses[job] = Status::error("compiling kernel '" + kernel.source.entry + "' (" +
                                    kernel.ops + ") for " + options.arch + ": " +
                                    compiled.status().message());
    std::lock_guard<std::mutex> lock(progress_mutex);
    if (progress) progress(++done, total);
  });
  for (const Status& status : statuses)
    if (!status) return status;

  for (size_t k = 0; k < program.kernels.size(); ++k) {
    std::vector<KernelBinary>& binaries = program.kernels[k].binaries;
    for (size_t a = 0; a < archs.size(); ++a) {
      KernelBinary& binary = built[k * archs.size() + a];
      auto same = [&](const KernelBinary& held) { return held.arch == binary.arch; };
      binaries.erase(std::remove_if(binaries.begin(), binaries.end(), same), binaries.end());
      binaries.push_back(std::move(binary));
    }
  }
  return Status::ok();
}

}  // namespace spectral
