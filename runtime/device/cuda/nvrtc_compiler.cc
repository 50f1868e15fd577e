#include "runtime/device/cuda/nvrtc_compiler.h"

#include "runtime/cache/kernel_cache.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <unistd.h>

namespace spectral {
namespace {

constexpr char kRecordMagic[8] = {'S', 'P', 'X', 'N', 'V', 'R', 'T', '1'};

/// Destroys the program however compile_uncached returns.
struct ProgramGuard {
  const NvrtcLibrary& nvrtc;
  nvrtcProgram program = nullptr;
  ~ProgramGuard() {
    if (program) (void)nvrtc.nvrtcDestroyProgram(&program);
  }
};

Status check(const NvrtcLibrary& nvrtc, nvrtcResult result, const char* call) {
  if (result == NVRTC_SUCCESS) return Status::ok();
  return Status::error(std::string(call) + " failed: " + nvrtc.nvrtcGetErrorString(result));
}

/// FNV-1a over the source and headers: names the dumped source.
std::string short_hash(const KernelSource& source, const std::vector<NvrtcHeader>& headers) {
  uint64_t hash = 1469598103934665603ull;
  auto mix = [&hash](const std::string& text) {
    for (unsigned char c : text) hash = (hash ^ c) * 1099511628211ull;
  };
  mix(source.source);
  for (const NvrtcHeader& header : headers) mix(header.name + '\n' + header.content);
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return std::string(text, 12);
}

/// Writes the failed source to $TMPDIR (or /tmp); says where, or why not.
std::string dump_failed_source(const KernelSource& source,
                               const std::vector<NvrtcHeader>& headers) {
  const char* tmpdir = std::getenv("TMPDIR");
  std::string path = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/spectral-failed-" +
                     short_hash(source, headers) + ".cu";
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << source.source;
  file.close();
  if (!file) return "the source could not be written to " + path;
  std::string text = "source dumped to " + path;
  if (!headers.empty()) {
    text += " (in-memory headers:";
    for (const NvrtcHeader& header : headers) text += " " + header.name;
    text += ")";
  }
  return text;
}

std::string arch_number(const std::string& arch) {
  size_t underscore = arch.find('_');
  return underscore == std::string::npos ? arch : arch.substr(underscore + 1);
}

bool defines_entry(const CompiledKernel& kernel, const std::string& entry) {
  if (kernel.is_cubin) {
    const ResourceUsage* usage = kernel.usage_of(entry);
    return usage && usage->is_entry;
  }
  return kernel.ptx.find(".entry " + entry + "(") != std::string::npos;
}

/// A kernel whose entry the source does not define would only fail later, at load.
Status check_entry(const CompiledKernel& kernel, const KernelSource& source,
                   const NvrtcOptions& options, const std::vector<NvrtcHeader>& headers) {
  if (source.entry.empty() || defines_entry(kernel, source.entry)) return Status::ok();
  return Status::error("NVRTC compiled the kernel for " + options.arch +
                       " but its source defines no extern \"C\" __global__ function named '" +
                       source.entry + "'; " + dump_failed_source(source, headers) +
                       (!kernel.is_cubin ? std::string()
                        : kernel.log.find("ptxas") == std::string::npos
                            ? "; NVRTC gave no ptxas report (twice: from a source new to the "
                              "driver's compute cache too)"
                            : "; the ptxas report names no such entry:\n" + kernel.log));
}

void append_blob(std::vector<uint8_t>& out, const void* data, size_t size) {
  for (int shift = 0; shift < 64; shift += 8) out.push_back(uint8_t(uint64_t(size) >> shift));
  const auto* bytes = static_cast<const uint8_t*>(data);
  out.insert(out.end(), bytes, bytes + size);
}

bool read_blob(const std::vector<uint8_t>& in, size_t& at, std::string& out) {
  if (in.size() - at < 8) return false;
  uint64_t size = 0;
  for (int i = 0; i < 8; ++i) size |= uint64_t(in[at + i]) << (8 * i);
  at += 8;
  if (in.size() - at < size) return false;
  out.assign(reinterpret_cast<const char*>(in.data() + at), size);
  at += size;
  return true;
}

}  // namespace

const ResourceUsage* CompiledKernel::usage_of(const std::string& entry) const {
  auto found = usage.find(entry);
  return found == usage.end() ? nullptr : &found->second;
}

StatusOr<NvrtcCompiler> NvrtcCompiler::create() {
  StatusOr<NvrtcFile> file = find_nvrtc();
  if (!file) return file.status();
  return NvrtcCompiler(std::move(*file));
}

bool NvrtcCompiler::loaded() { return nvrtc_loaded(); }

StatusOr<std::pair<int, int>> NvrtcCompiler::version_numbers() const {
  StatusOr<const NvrtcLibrary*> nvrtc = library();
  if (!nvrtc) return nvrtc.status();
  int major = 0, minor = 0;
  Status status = check(**nvrtc, (*nvrtc)->nvrtcVersion(&major, &minor), "nvrtcVersion");
  if (!status) return status;
  return std::make_pair(major, minor);
}

StatusOr<std::string> NvrtcCompiler::version() const {
  StatusOr<std::pair<int, int>> numbers = version_numbers();
  if (!numbers) return numbers.status();
  return "nvrtc " + std::to_string(numbers->first) + "." + std::to_string(numbers->second);
}

StatusOr<std::vector<int>> NvrtcCompiler::supported_archs() const {
  StatusOr<const NvrtcLibrary*> nvrtc = library();
  if (!nvrtc) return nvrtc.status();
  int count = 0;
  Status status =
      check(**nvrtc, (*nvrtc)->nvrtcGetNumSupportedArchs(&count), "nvrtcGetNumSupportedArchs");
  if (!status) return status;
  std::vector<int> archs(count);
  status = check(**nvrtc, (*nvrtc)->nvrtcGetSupportedArchs(archs.data()), "nvrtcGetSupportedArchs");
  if (!status) return status;
  return archs;
}

std::vector<std::string> NvrtcCompiler::command_line(const NvrtcOptions& options) {
  bool cubin = options.output == NvrtcOutput::kCubin;
  std::vector<std::string> line = {
      "-std=c++17",
      "--gpu-architecture=" + std::string(cubin ? "sm_" : "compute_") + arch_number(options.arch)};
  if (options.default_device) line.push_back("-default-device");
  if (cubin) line.push_back("--ptxas-options=-v");
  line.insert(line.end(), options.extra.begin(), options.extra.end());
  return line;
}

StatusOr<std::vector<std::string>> NvrtcCompiler::arguments(const NvrtcOptions& options) const {
  StatusOr<std::pair<int, int>> numbers = version_numbers();
  if (!numbers) return numbers.status();
  std::vector<std::string> line = command_line(options);
  if (*numbers >= std::make_pair(12, 9)) line.push_back("--no-cache");
  return line;
}

StatusOr<CompiledKernel> NvrtcCompiler::compile_once(
    const KernelSource& source, const NvrtcOptions& options,
    const std::vector<NvrtcHeader>& headers) const {
  StatusOr<const NvrtcLibrary*> opened = library();
  if (!opened) return opened.status();
  const NvrtcLibrary& nvrtc = **opened;
  std::vector<const char*> header_texts, header_names;
  for (const NvrtcHeader& header : headers) {
    header_texts.push_back(header.content.c_str());
    header_names.push_back(header.name.c_str());
  }
  std::string file_name = (source.entry.empty() ? "kernel" : source.entry) + ".cu";
  ProgramGuard guard{nvrtc};
  Status status = check(nvrtc,
                        nvrtc.nvrtcCreateProgram(&guard.program, source.source.c_str(),
                                                 file_name.c_str(), int(headers.size()),
                                                 header_texts.data(), header_names.data()),
                        "nvrtcCreateProgram");
  if (!status) return status;

  StatusOr<std::vector<std::string>> line = arguments(options);
  if (!line) return line.status();
  std::vector<const char*> argv;
  for (const std::string& option : *line) argv.push_back(option.c_str());
  nvrtcResult compiled = nvrtc.nvrtcCompileProgram(guard.program, int(argv.size()), argv.data());

  CompiledKernel kernel;
  size_t size = 0;
  if (nvrtc.nvrtcGetProgramLogSize(guard.program, &size) == NVRTC_SUCCESS && size > 0) {
    kernel.log.resize(size);
    if (nvrtc.nvrtcGetProgramLog(guard.program, kernel.log.data()) != NVRTC_SUCCESS) {
      kernel.log.clear();
    }
    kernel.log.resize(std::strlen(kernel.log.c_str()));
  }
  std::string what = "kernel '" + source.entry + "' for " + options.arch;
  if (compiled != NVRTC_SUCCESS) {
    std::string log = kernel.log.substr(0, kernel.log.find_last_not_of(" \n") + 1);
    return Status::error("NVRTC could not compile " + what + " (" +
                         nvrtc.nvrtcGetErrorString(compiled) + "):\n" + log + "\n" +
                         dump_failed_source(source, headers));
  }

  kernel.is_cubin = options.output == NvrtcOutput::kCubin;
  if (!kernel.is_cubin || options.want_ptx) {
    status = check(nvrtc, nvrtc.nvrtcGetPTXSize(guard.program, &size), "nvrtcGetPTXSize");
    if (!status) return status;
    kernel.ptx.resize(size);
    status = check(nvrtc, nvrtc.nvrtcGetPTX(guard.program, kernel.ptx.data()), "nvrtcGetPTX");
    if (!status) return status;
    kernel.ptx.resize(std::strlen(kernel.ptx.c_str()));
  }
  if (kernel.is_cubin) {
    status = check(nvrtc, nvrtc.nvrtcGetCUBINSize(guard.program, &size), "nvrtcGetCUBINSize");
    if (!status) return status;
    kernel.binary.resize(size);
    char* cubin = reinterpret_cast<char*>(kernel.binary.data());
    status = check(nvrtc, nvrtc.nvrtcGetCUBIN(guard.program, cubin), "nvrtcGetCUBIN");
    if (!status) return status;
  } else {
    kernel.binary.assign(kernel.ptx.begin(), kernel.ptx.end());
    kernel.binary.push_back(0);  // cuModuleLoadData reads PTX as a C string
  }
  kernel.usage = parse_ptxas_report(kernel.log);
  return kernel;
}

StatusOr<CompiledKernel> NvrtcCompiler::compile_uncached(
    const KernelSource& source, const NvrtcOptions& options,
    const std::vector<NvrtcHeader>& headers) const {
  StatusOr<CompiledKernel> kernel = compile_once(source, options, headers);
  if (!kernel) return kernel.status();
  if (kernel->is_cubin && kernel->log.find("ptxas") == std::string::npos) {
    // Where a driver exists, NVRTC 13.0 answered a compile it had seen (in
    // this process or another) from the driver's compute cache without running
    // ptxas, so without the report, --no-cache notwithstanding (seen on an
    // H100). A comment no compile had before makes the source new to it (and
    // adds one entry to that cache, which the driver keeps within its size;
    // the kernel cache in front of NVRTC makes this rare: once per kernel
    // whose Spectral cache entry is gone while the driver's is not).
    static std::atomic<uint64_t> fresh_compiles{0};
    KernelSource fresh = source;
    fresh.source += "\n// spectral: compiled afresh for the ptxas report (" +
                    std::to_string(getpid()) + "." + std::to_string(++fresh_compiles) + "." +
                    std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()) +
                    ")\n";
    kernel = compile_once(fresh, options, headers);
    if (!kernel) return kernel.status();
  }
  Status status = check_entry(*kernel, source, options, headers);
  if (!status) return status;
  return kernel;
}

CacheKey NvrtcCompiler::key_for(const KernelSource& source, const NvrtcOptions& options,
                                const std::vector<NvrtcHeader>& headers) const {
  CacheKey key;
  key.source = source.source;
  for (const NvrtcHeader& header : headers) {
    key.source += "\n// header " + header.name + " (" + std::to_string(header.content.size()) +
                  " bytes)\n" + header.content;
  }
  for (const std::string& option : command_line(options)) key.options += option + " ";
  if (options.want_ptx) key.options += "+ptx";
  key.target = options.arch;
  key.compiler_version = "nvrtc " + file_.identity;
  return key;
}

StatusOr<CompiledKernel> NvrtcCompiler::cached(
    const KernelSource& source, const CacheKey& key, const std::vector<NvrtcHeader>& headers,
    const std::function<StatusOr<CompiledKernel>()>& compile) const {
  StatusOr<std::vector<uint8_t>> record =
      KernelCache::global().get_or_compile(key, [&]() -> StatusOr<std::vector<uint8_t>> {
        StatusOr<CompiledKernel> kernel = compile();
        if (!kernel) return kernel.status();
        return serialize(*kernel);
      });
  if (!record) return record.status();
  StatusOr<CompiledKernel> kernel = deserialize(*record);
  if (!kernel) return kernel.status();
  NvrtcOptions named;
  named.arch = key.target;
  Status status = check_entry(*kernel, source, named, headers);
  if (!status) return status;
  return kernel;
}

StatusOr<CompiledKernel> NvrtcCompiler::compile(const KernelSource& given,
                                                const NvrtcOptions& options,
                                                const std::vector<NvrtcHeader>& headers) const {
  const KernelSource source = with_defines(given);
  return cached(source, key_for(source, options, headers), headers,
                [&] { return compile_uncached(source, options, headers); });
}

StatusOr<CompiledKernel> NvrtcCompiler::compile_for_device(
    const KernelSource& given, int compute_capability,
    const std::vector<NvrtcHeader>& headers) const {
  const KernelSource source = with_defines(given);
  NvrtcOptions native;
  native.arch = "sm_" + std::to_string(compute_capability);
  CacheKey key = key_for(source, native, headers);
  key.options += "(for the device: CUBIN, or PTX of the newest older arch NVRTC knows)";
  return cached(source, key, headers, [&]() -> StatusOr<CompiledKernel> {
    StatusOr<std::vector<int>> archs = supported_archs();
    if (!archs) return archs.status();
    NvrtcOptions options = native;
    if (std::find(archs->begin(), archs->end(), compute_capability) == archs->end()) {
      auto older = std::find_if(archs->rbegin(), archs->rend(),
                                [&](int arch) { return arch < compute_capability; });
      if (older == archs->rend()) {
        StatusOr<std::string> nvrtc = version();
        return Status::error((nvrtc ? *nvrtc : std::string("NVRTC")) + " cannot compile for " +
                             native.arch + ": it knows no architecture at or below it");
      }
      options.arch = "sm_" + std::to_string(*older);
      options.output = NvrtcOutput::kPtx;
    }
    return compile_uncached(source, options, headers);
  });
}

std::vector<uint8_t> NvrtcCompiler::serialize(const CompiledKernel& kernel) {
  std::vector<uint8_t> record(std::begin(kRecordMagic), std::end(kRecordMagic));
  record.push_back(kernel.is_cubin ? 1 : 0);
  append_blob(record, kernel.binary.data(), kernel.binary.size());
  append_blob(record, kernel.ptx.data(), kernel.ptx.size());
  append_blob(record, kernel.log.data(), kernel.log.size());
  return record;
}

StatusOr<CompiledKernel> NvrtcCompiler::deserialize(const std::vector<uint8_t>& record) {
  CompiledKernel kernel;
  std::string binary;
  size_t at = sizeof kRecordMagic + 1;
  bool ok = record.size() >= at &&
            std::memcmp(record.data(), kRecordMagic, sizeof kRecordMagic) == 0 &&
            record[at - 1] <= 1 && read_blob(record, at, binary) &&
            read_blob(record, at, kernel.ptx) && read_blob(record, at, kernel.log) &&
            at == record.size();
  if (!ok) return Status::error("malformed NVRTC cache record (" +
                                std::to_string(record.size()) + " bytes)");
  kernel.is_cubin = record[sizeof kRecordMagic] == 1;
  kernel.binary.assign(binary.begin(), binary.end());
  kernel.usage = parse_ptxas_report(kernel.log);
  return kernel;
}

}  // namespace spectral
