// device.h - where kernels run: a CUDA GPU or the host CPU.
//
// Both devices take the same kernel source: an instantiation unit that
// includes the templates of kernels_templates/ and defines one
// `extern "C" __global__` entry. CudaDevice compiles it with NVRTC for the
// GPU's own architecture; HostDevice compiles it with the system C++ compiler
// and the host emulation header. Both go through the KernelCache.
#pragma once

#include "runtime/status.h"

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace spectral {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
};

/// What to compile: the instantiation unit and the entry it defines.
struct KernelSource {
  std::string source;  // CUDA C++; may #include "<template>.cuh" from kernels_templates/
  std::string entry;   // the extern "C" __global__ function's name
  /// The kernel's own compile options, the same on every device: macros
  /// defined before the unit, each "NAME" or "NAME=VALUE" (one line).
  std::vector<std::string> defines;
};

/// Whether `define` is NAME or NAME=VALUE with NAME an identifier and VALUE
/// one line.
inline bool is_valid_define(const std::string& define) {
  size_t end = define.find('=');
  std::string name = define.substr(0, end);
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  // One line, not continued onto the unit's first line by a trailing backslash.
  return define.find_first_of("\r\n") == std::string::npos && define.back() != '\\';
}

/// What every compiler sees: `source` with its defines as #define lines
/// before the unit (and none left over), so that cache keys, dumps and both
/// devices agree on the text.
inline KernelSource with_defines(const KernelSource& source) {
  if (source.defines.empty()) return source;
  KernelSource unit{"", source.entry, {}};
  for (const std::string& define : source.defines) {
    size_t end = define.find('=');
    unit.source += "#define " + define.substr(0, end) +
                   (end == std::string::npos ? "" : " " + define.substr(end + 1)) + "\n";
  }
  unit.source += source.source;
  return unit;
}

/// A kernel compiled ahead of time for one GPU architecture (an artifact
/// made with `spectral-compile --target=sm_XX` carries one per target).
struct KernelBinary {
  std::string arch;            // "sm_90"
  std::vector<uint8_t> cubin;  // the ELF image for `arch`; may be empty
  std::string ptx;             // PTX for compute_XX of `arch`; may be empty
};

/// The compute capability of "sm_90" (90), or 0 when `arch` is not sm_ and
/// two or three digits (an arch-specific "sm_90a" is 0 too).
inline int sm_number(const std::string& arch) {
  if (arch.size() < 5 || arch.size() > 6 || arch.compare(0, 3, "sm_") != 0) return 0;
  for (size_t i = 3; i < arch.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(arch[i]))) return 0;
  return arch[3] == '0' ? 0 : std::stoi(arch.substr(3));
}

/// A loaded kernel, owned by the device that loaded it.
class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual const std::string& entry() const = 0;
  /// What was loaded: "CUBIN sm_90 from the artifact", "PTX compute_80 from
  /// the artifact, compiled by the driver", "compiled from source" (and why
  /// the artifact's code did not fit).
  virtual std::string origin() const { return "compiled from source"; }
  /// Whether it was loaded from a KernelBinary (no compile).
  virtual bool prebuilt() const { return false; }
};

/// One operation of a DeviceGraph, on fixed addresses: a launch with its
/// arguments' values, a device-to-device copy, or a fill of zeros.
struct GraphOp {
  enum class Kind { kLaunch, kCopy, kZero };
  Kind kind = Kind::kLaunch;
  const Kernel* kernel = nullptr;  // kLaunch; must outlive the graph
  Dim3 grid, block;
  size_t shared_bytes = 0;
  /// kLaunch: one 8-byte slot per parameter, in order, its value in the
  /// slot's first bytes (CUDA reads each parameter's own size from there).
  std::vector<uint64_t> args;
  void* target = nullptr;        // kCopy, kZero
  const void* source = nullptr;  // kCopy
  size_t bytes = 0;              // kCopy, kZero
  /// kLaunch: 2 or more when this launch and the next operation (a launch)
  /// may run part by part (Step::chain_parts; Device::launch_chain).
  uint32_t chain_parts = 0;
  /// kLaunch in a chain: the argument that points at the chain's local
  /// buffer (Step::chain_local), or -1; chain_local_bytes: that buffer's size.
  int chain_local_arg = -1;
  uint64_t chain_local_bytes = 0;
};

/// The bytes a device has allocated, and SPECTRAL_DEVICE_MEMORY_LIMIT's hard
/// cap on them (K/M/G suffixes, powers of 1024; unset or empty: none), which
/// every device keeps. The device holds its own lock around each call.
struct DeviceMemoryStats {
  uint64_t in_use_bytes = 0;
  uint64_t peak_bytes = 0;
  uint64_t live_allocations = 0;
  uint64_t total_allocations = 0;  // allocate() calls that succeeded
  uint64_t limit_bytes = 0;        // 0: no limit beyond the device's

  /// Whether `bytes` more stay within the limit.
  bool fits(uint64_t bytes) const;
  /// The error for `bytes` more that do not fit: the request, the bytes in
  /// use, the limit and `device`.
  Status over_limit(uint64_t bytes, const std::string& device) const;
  void allocated(uint64_t bytes);
  void released(uint64_t bytes);
};

/// Bytes from "1048576", "512K", "64M" or "2G" (suffixes are powers of 1024).
StatusOr<uint64_t> parse_memory_limit(const std::string& text);
/// SPECTRAL_DEVICE_MEMORY_LIMIT's bytes (0 when unset or empty); an error
/// names the variable.
StatusOr<uint64_t> memory_limit_from_environment();

/// A sequence of operations built once and submitted in one call: a CUDA
/// graph on a GPU, the list itself elsewhere.
class DeviceGraph {
 public:
  virtual ~DeviceGraph() = default;
  /// "CUDA graph of 12 nodes", "list of 12 operations".
  virtual std::string describe() const = 0;
};

class Device {
 public:
  virtual ~Device() = default;
  /// "host (2 threads)", "cuda:0 NVIDIA A100 (sm_80)".
  virtual std::string name() const = 0;

  virtual StatusOr<void*> allocate(size_t bytes) = 0;
  virtual Status release(void* pointer) = 0;
  virtual Status copy_to_device(void* device_dst, const void* host_src, size_t bytes) = 0;
  virtual Status copy_to_host(void* host_dst, const void* device_src, size_t bytes) = 0;
  /// Device-to-device copy, ordered with the launches.
  virtual Status copy_on_device(void* device_dst, const void* device_src, size_t bytes) = 0;
  /// Sets `bytes` bytes at `device_dst` to zero, ordered with the launches.
  virtual Status fill_zero(void* device_dst, size_t bytes) = 0;

  /// Compiles (through the kernel cache) and loads a kernel.
  virtual StatusOr<std::shared_ptr<Kernel>> load(const KernelSource& source) = 0;
  /// Loads the first of `binaries` that this device can run, else compiles
  /// `source` as load() does. A device without GPU code (the host) always
  /// compiles the source.
  virtual StatusOr<std::shared_ptr<Kernel>> load_prebuilt(
      const KernelSource& source, const std::vector<KernelBinary>& binaries) {
    (void)binaries;
    return load(source);
  }
  /// Launches `kernel`; `args` is CUDA's kernelParams: one pointer to each
  /// argument's value, in the entry's parameter order.
  virtual Status launch(const Kernel& kernel, Dim3 grid, Dim3 block, size_t dynamic_shared_bytes,
                        void** args) = 0;
  /// Runs `first` and then `second`, two launches where first.chain_parts
  /// says that both grids split into that many parts along x and part p of
  /// `second` touches nothing that other parts of `first` write, and writes
  /// nothing they read (Step::chain_parts):
  /// the host runs each part of both on one core while its data is in cache.
  /// The default launches them one after the other.
  virtual Status launch_chain(const GraphOp& first, const GraphOp& second);
  virtual Status synchronize() = 0;

  /// Builds `ops` into a graph that launch_graph() submits in one call. The
  /// default keeps the list and replays it operation by operation, which is
  /// what the host wants (its launches are calls; only the argument packing
  /// is saved). An error means the device cannot: run the operations one by one.
  virtual StatusOr<std::unique_ptr<DeviceGraph>> build_graph(std::vector<GraphOp> ops);
  /// Submits a graph this device built, ordered with the launches.
  virtual Status launch_graph(const DeviceGraph& graph);

  /// The device time of the work `work` submits, in seconds: between two
  /// events on the device's queue (CUDA), or the wall time of `work` where
  /// launches are synchronous (the host). Waits for the work to finish.
  virtual StatusOr<double> time_on_device(const std::function<Status()>& work);
};

/// CUDA's kernelParams for a GraphOp's launch: pointers into a copy of its
/// slots, so the op itself stays unchanged.
struct GraphOpParams {
  explicit GraphOpParams(const GraphOp& op) : slots(op.args), pointers(slots.size()) {
    for (size_t i = 0; i < slots.size(); ++i) pointers[i] = &slots[i];
  }
  std::vector<uint64_t> slots;
  std::vector<void*> pointers;
};

/// Runs one GraphOp on `device` with its plain calls.
Status run_graph_op(Device& device, const GraphOp& op);
/// Runs `ops` in order on `device`, a chained launch and the launch after it
/// through Device::launch_chain.
Status run_graph_ops(Device& device, const std::vector<GraphOp>& ops);

/// "auto" (CUDA when a working driver and device exist, else host), "host" or
/// "cuda". `auto` says on stderr which it chose, and why not CUDA.
StatusOr<std::unique_ptr<Device>> create_device(const std::string& which);

}  // namespace spectral
