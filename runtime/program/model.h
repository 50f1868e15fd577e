// model.h - what a spectral::Model (spectral/runtime.h) holds, for the
// compiler's side of the API, which makes Models from what it compiled.
#pragma once

#include "runtime/device/device.h"
#include "runtime/program/artifact.h"
#include "runtime/program/executor.h"
#include "spectral/runtime.h"

#include <memory>

namespace spectral {

struct Model::Impl {
  std::shared_ptr<Device> device;          // shared by the Models of one process
  std::unique_ptr<Executable> executable;  // destroyed before the device
  Artifact artifact;                       // what save() writes (its program is the one loaded)
  std::vector<TensorInfo> inputs, outputs;
};

/// The process's device of `kind`, opened on first use and kept.
StatusOr<std::shared_ptr<Device>> shared_device(DeviceKind kind);

/// Loads `artifact`'s program on the device of `kind`.
StatusOr<Model> make_model(Artifact artifact, DeviceKind kind);

}  // namespace spectral
