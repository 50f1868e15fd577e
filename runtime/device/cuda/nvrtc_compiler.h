// nvrtc_compiler.h - CUDA C++ to CUBIN or PTX with NVRTC, through the kernel cache.
//
// Every compile passes -std=c++17, the target architecture and
// -default-device; CUBIN compiles also pass --ptxas-options=-v, whose report
// is parsed into ResourceUsage per function. A failed compile returns
// NVRTC's log and the path of the source, dumped to
// $TMPDIR/spectral-failed-<hash>.cu (or /tmp). Cache keys name NVRTC by its
// file (path, size, mtime), so NVRTC itself is opened only on a miss.
#pragma once

#include "runtime/cache/kernel_cache.h"
#include "runtime/device/cuda/nvrtc_library.h"
#include "runtime/device/cuda/ptxas_report.h"
#include "runtime/device/device.h"
#include "runtime/status.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
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
  /// Finds NVRTC without loading it (find_nvrtc); the error says which
  /// paths were tried. NVRTC is opened on the first compile that misses the
  /// cache, or the first call that asks NVRTC itself (version, archs).
  static StatusOr<NvrtcCompiler> create();

  /// The library file's identity: part of every cache key, known unloaded.
  const std::string& identity() const { return file_.identity; }
  /// The library file that is (or will be) opened.
  const std::string& library_path() const { return file_.path; }
  /// NVRTC's major version from its file name (13), or 0 when the name has none.
  int major_version() const { return file_.major; }
  /// Whether this process has opened NVRTC.
  static bool loaded();

  /// "nvrtc 13.0" (opens NVRTC).
  StatusOr<std::string> version() const;
  /// The same as numbers: {13, 0}.
  StatusOr<std::pair<int, int>> version_numbers() const;
  /// Real architectures NVRTC can build CUBIN for, e.g. {75, 80, 86, ..., 120}
  /// (opens NVRTC).
  StatusOr<std::vector<int>> supported_archs() const;
  /// The option list that decides the output for `options` (the cache key's).
  static std::vector<std::string> command_line(const NvrtcOptions& options);
  /// What this NVRTC receives for `options`: command_line, plus --no-cache
  /// where NVRTC (12.9 and newer) has a cache of its own in the driver's
  /// compute cache, whose answers come without the ptxas report (the kernel
  /// cache in front of NVRTC keeps the report). Opens NVRTC.
  StatusOr<std::vector<std::string>> arguments(const NvrtcOptions& options) const;

  /// Compiles through KernelCache::global().
  StatusOr<CompiledKernel> compile(const KernelSource& source, const NvrtcOptions& options,
                                   const std::vector<NvrtcHeader>& headers = {}) const;
  /// What a GPU of `compute_capability` (90 for sm_90) loads, through the
  /// cache: CUBIN for its own architecture, or PTX for the newest older one
  /// NVRTC knows when the GPU is newer than NVRTC. The choice is made on a
  /// miss, so a warm cache answers without opening NVRTC.
  StatusOr<CompiledKernel> compile_for_device(const KernelSource& source, int compute_capability,
                                              const std::vector<NvrtcHeader>& headers = {}) const;
  /// Compiles with NVRTC, bypassing the cache; a CUBIN that NVRTC answers
  /// without a ptxas report (from the driver's cache) is compiled again from
  /// a source made new to that cache, so the report is always there.
  StatusOr<CompiledKernel> compile_uncached(const KernelSource& source,
                                            const NvrtcOptions& options,
                                            const std::vector<NvrtcHeader>& headers = {}) const;

  /// The cache record of a compiled kernel (binary, PTX and log) and back;
  /// the usage is re-parsed from the log.
  static std::vector<uint8_t> serialize(const CompiledKernel& kernel);
  static StatusOr<CompiledKernel> deserialize(const std::vector<uint8_t>& record);

 private:
  explicit NvrtcCompiler(NvrtcFile file) : file_(std::move(file)) {}
  StatusOr<const NvrtcLibrary*> library() const { return nvrtc_library(file_.path); }
  /// Through the cache under `key`; `compile` runs on a miss.
  StatusOr<CompiledKernel> cached(const KernelSource& source, const CacheKey& key,
                                  const std::vector<NvrtcHeader>& headers,
                                  const std::function<StatusOr<CompiledKernel>()>& compile) const;
  /// One NVRTC compile, the entry unchecked.
  StatusOr<CompiledKernel> compile_once(const KernelSource& source, const NvrtcOptions& options,
                                        const std::vector<NvrtcHeader>& headers) const;
  CacheKey key_for(const KernelSource& source, const NvrtcOptions& options,
                   const std::vector<NvrtcHeader>& headers) const;

  NvrtcFile file_;
};

}  // namespace spectral
