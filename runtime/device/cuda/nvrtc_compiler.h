// nvrtc_compiler.h - CUDA C++ to CUBIN or PTX with NVRTC, through the kernel cache.
//
// Every compile passes -std=c++17, the target architecture and
// -default-device; CUBIN compiles also pass --ptxas-options=-v, whose report
// is parsed into ResourceUsage per function. A failed compile returns
// NVRTC's log and the path of the source, dumped to
// $TMPDIR/spectral-failed-<hash>.cu (or /tmp).
#pragma once

#include "runtime/device/cuda/nvrtc_library.h"
#include "runtime/device/cuda/ptxas_report.h"
#include "runtime/device/device.h"
#include "runtime/status.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace spectral {

enum class NvrtcOutput { kCubin, kPtx };

struct NvrtcOptions {
  std::string arch = "sm_80";  // "sm_XX"; a PTX compile targets compute_XX
  NvrtcOutput output = NvrtcOutput::kCubin;
  bool want_ptx = false;           // a CUBIN compile also returns its PTX
  bool default_device = true;      // -default-device: unmarked functions are __device__
  std::vector<std::string> extra;  // appended as given, e.g. "-maxrregcount=32"
};

/// A header the source may #include, given by name instead of a path.
struct NvrtcHeader {
  std::string name;
  std::string content;
};

struct CompiledKernel {
  std::vector<uint8_t> binary;  // CUBIN (an ELF image) or NUL-terminated PTX
  bool is_cubin = false;
  std::string ptx;  // PTX text when asked for (or when it is the output)
  std::string log;  // NVRTC's full log, ptxas report included
  std::map<std::string, ResourceUsage> usage;  // per function in the ptxas report
  /// The usage of `entry`, or null when the report does not name it.
  const ResourceUsage* usage_of(const std::string& entry) const;
};

class NvrtcCompiler {
 public:
  /// Loads NVRTC; the error says which library paths were tried.
  static StatusOr<NvrtcCompiler> create();

  /// "nvrtc 13.0": part of every cache key.
  const std::string& version() const { return version_; }
  /// The library file that was opened.
  const std::string& library_path() const { return library_->path; }
  /// Real architectures NVRTC can build CUBIN for, e.g. {75, 80, 86, ..., 120}.
  const std::vector<int>& supported_archs() const { return supported_archs_; }
  /// The option list NVRTC receives for `options`.
  static std::vector<std::string> command_line(const NvrtcOptions& options);

  /// Compiles through KernelCache::global().
  StatusOr<CompiledKernel> compile(const KernelSource& source, const NvrtcOptions& options,
                                   const std::vector<NvrtcHeader>& headers = {}) const;
  /// Compiles with NVRTC, bypassing the cache.
  StatusOr<CompiledKernel> compile_uncached(const KernelSource& source,
                                            const NvrtcOptions& options,
                                            const std::vector<NvrtcHeader>& headers = {}) const;

  /// The cache record of a compiled kernel (binary, PTX and log) and back;
  /// the usage is re-parsed from the log.
  static std::vector<uint8_t> serialize(const CompiledKernel& kernel);
  static StatusOr<CompiledKernel> deserialize(const std::vector<uint8_t>& record);

 private:
  explicit NvrtcCompiler(const NvrtcLibrary* library) : library_(library) {}

  const NvrtcLibrary* library_;
  std::string version_;
  std::vector<int> supported_archs_;
};

}  // namespace spectral
