// spectral/runtime.h - run compiled programs: the part of the API that needs
// only the runtime library (Spectral::runtime), no MLIR and no LLVM.
//
//   spectral::Expected<spectral::Model> model = spectral::Model::load("fno.spx");
//   if (!model) { std::cerr << model.status().message() << "\n"; return 1; }
//   spectral::Expected<std::vector<spectral::Tensor>> outputs = model->run({input});
//
// A Model is a compiled program loaded on a device, its kernels compiled
// (through the kernel cache: memory, then disk) before the first run. run()
// may be called from several threads at once. Copies of a Model share it.
#pragma once

#include "spectral/status.h"
#include "spectral/tensor.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace spectral {

/// Where a Model runs: kDefault is the first GPU when a CUDA driver and a
/// device are there, else the host (the CPU, running the same kernel source).
enum class DeviceKind { kDefault, kHost, kCuda };

/// "default", "host", "cuda".
const char* device_kind_name(DeviceKind kind);
/// The kind a name spells ("default"/"auto", "host"/"cpu", "cuda"/"gpu").
Expected<DeviceKind> parse_device_kind(const std::string& name);

/// An argument or a result of a program.
struct TensorInfo {
  std::string name;  // "arg0", "result1"
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;
  /// An argument the run may overwrite (a parameter updated in place).
  bool donated = false;
  std::string type_string() const { return spectral::type_string(dtype, shape); }
};

class Model {
 public:
  /// Loads a .spx artifact (spectral-compile, or Model::save) on `device`.
  static Expected<Model> load(const std::string& path, DeviceKind device = DeviceKind::kDefault);

  /// Runs once: one input per inputs(), matching its dtype and shape
  /// exactly; returns one new tensor per outputs().
  Expected<std::vector<Tensor>> run(const std::vector<Tensor>& inputs) const;
  /// Runs once, writing the results into `outputs` (one per outputs(), of
  /// their dtypes and shapes; views of the caller's memory are written in place).
  Status run(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs) const;

  /// The compiled function's name.
  const std::string& function() const;
  const std::vector<TensorInfo>& inputs() const;
  const std::vector<TensorInfo>& outputs() const;
  /// The device it runs on, in words: "host (2 threads)", "cuda: NVIDIA H100 ...".
  std::string device_name() const;
  /// Kernels launched per run.
  int kernel_count() const;
  /// The kernel table: per kernel its ops, launches, bytes and flops, and the
  /// totals against the least traffic possible (spectral-run --report).
  std::string summary() const;
  /// Writes the program as a .spx artifact, atomically.
  Status save(const std::string& path) const;

  struct Impl;
  explicit Model(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  const Impl& impl() const { return *impl_; }

 private:
  std::shared_ptr<const Impl> impl_;
};

}  // namespace spectral
