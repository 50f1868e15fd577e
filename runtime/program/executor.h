// executor.h - runs a Program on a Device with host arrays in and out.
//
// Executable::load checks the Program, compiles every kernel before the
// first launch (in parallel over the cores, through the kernel cache), and
// uploads the constants once. run() copies the inputs in, runs the steps in
// order, and copies the outputs out. A launch that reports bad indices
// (Step::error_word, read after the last step) fails the run with the step's
// op and location. run() may be called from several threads at once: each
// call takes a workspace (the storage of the inputs, outputs and temporaries)
// no other call holds, allocating one when all are busy; workspaces are kept
// for later runs and freed with the Executable.
//
// From a workspace's second run on, its steps are built once into a device
// graph (a CUDA graph: one submission instead of a launch per step) and
// replayed; where the device refuses, they run one by one as before.
#pragma once

#include "runtime/device/device.h"
#include "runtime/program/program.h"
#include "runtime/status.h"
#include "spectral/tensor.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace spectral {

/// A dense row-major array in host memory.
struct HostTensor {
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;

  int64_t elements() const;
  /// "tensor<4x8xf32>".
  std::string type_string() const;
};

/// Where the kernels of one load came from.
struct LoadStats {
  int kernels = 0;
  uint64_t memory_hits = 0;  // of the process's kernel cache
  uint64_t disk_hits = 0;
  uint64_t compiles = 0;
  int prebuilt = 0;          // kernels loaded from code the Program carried (no compile)
  std::vector<std::string> origins;  // per kernel, Kernel::origin()
  std::vector<bool> prebuilt_kernels;  // per kernel, Kernel::prebuilt()
  double seconds = 0;        // wall time of load(), compiling included
};

/// How one run went.
struct RunStats {
  /// The steps' time on the device, the copies in and out left out: on a GPU
  /// the time between CUDA events recorded before and after them on the
  /// device's stream (work other threads queue between them counts too, and
  /// so do gaps while steps launched one by one are still being issued); on
  /// the host, the wall time of the steps. A graph is built before the first
  /// event.
  double device_seconds = 0;
  bool replayed = false;  // the steps ran as one graph
  /// "as one CUDA graph of 12 nodes", or "one by one" and why: "(graphs off)",
  /// "(the first run of its workspace)", "(the device refused the graph: ...)".
  std::string steps;
};

class Executable {
 public:
  /// Compiles and loads `program` for `device`, which must outlive the
  /// Executable. `threads` bounds the parallel compiles (0: hardware threads).
  static StatusOr<std::unique_ptr<Executable>> load(Program program, Device& device,
                                                    LoadStats* stats = nullptr, int threads = 0);
  ~Executable();
  Executable(const Executable&) = delete;
  Executable& operator=(const Executable&) = delete;

  /// One input per Program::inputs, matching dtype and shape exactly (the
  /// error names the argument); fills `outputs` (one per Program::outputs).
  /// When `outputs` already holds tensors of the results' types (an earlier
  /// run's), their bytes are overwritten in place rather than allocated
  /// again; a failed run may then leave some of them partly written.
  /// `stats`, when given, gets a successful run's figures (measuring the device time
  /// waits for the steps before the outputs are copied out).
  Status run(const std::vector<HostTensor>& inputs, std::vector<HostTensor>* outputs,
             RunStats* stats = nullptr);
  /// The same with the caller's arrays: `outputs` must match Program::outputs'
  /// dtypes and shapes and are written in place (an input's memory may be an
  /// output's: inputs are copied in before any output is written).
  Status run(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
             RunStats* stats = nullptr);

  /// Whether runs may replay their steps as a device graph (default true);
  /// off, every run launches step by step. Safe while other threads run.
  void use_graphs(bool enabled);

  const Program& program() const;

  struct State;

 private:
  explicit Executable(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace spectral
