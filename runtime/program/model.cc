// model.cc - spectral::Model: an artifact's program loaded on a device.
#include "runtime/program/model.h"

#include "runtime/program/report.h"

#include <map>
#include <mutex>

namespace spectral {

const char* device_kind_name(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::kDefault: return "default";
    case DeviceKind::kHost: return "host";
    case DeviceKind::kCuda: return "cuda";
  }
  return "?";
}

StatusOr<DeviceKind> parse_device_kind(const std::string& name) {
  if (name == "default" || name == "auto") return DeviceKind::kDefault;
  if (name == "host" || name == "cpu") return DeviceKind::kHost;
  if (name == "cuda" || name == "gpu") return DeviceKind::kCuda;
  return Status::error("unknown device '" + name + "' (expected default, host or cuda)");
}

StatusOr<std::shared_ptr<Device>> shared_device(DeviceKind kind) {
  static std::mutex mutex;
  // Never destroyed: Models may outlive static destructors. One device per
  // real kind: the default is the CUDA device when there is one, else the host.
  static auto* devices = new std::map<DeviceKind, std::shared_ptr<Device>>();
  std::lock_guard<std::mutex> lock(mutex);
  auto open = [&](DeviceKind real) -> StatusOr<std::shared_ptr<Device>> {
    auto found = devices->find(real);
    if (found != devices->end()) return found->second;
    StatusOr<std::unique_ptr<Device>> device = create_device(device_kind_name(real));
    if (!device) return device.status();
    std::shared_ptr<Device> shared = std::move(*device);
    (*devices)[real] = shared;
    return shared;
  };
  if (kind != DeviceKind::kDefault) return open(kind);
  auto found = devices->find(DeviceKind::kDefault);
  if (found != devices->end()) return found->second;
  StatusOr<std::shared_ptr<Device>> device = open(DeviceKind::kCuda);
  if (!device) device = open(DeviceKind::kHost);
  if (device) (*devices)[DeviceKind::kDefault] = *device;
  return device;
}

namespace {

std::vector<TensorInfo> infos(const Program& program, const std::vector<int>& ids,
                              const char* prefix) {
  std::vector<TensorInfo> result;
  for (size_t i = 0; i < ids.size(); ++i) {
    const BufferDesc& buffer = program.buffers[ids[i]];
    result.push_back({prefix + std::to_string(i), buffer.dtype, buffer.shape, buffer.donated});
  }
  return result;
}

}  // namespace

StatusOr<Model> make_model(Artifact artifact, DeviceKind kind) {
  StatusOr<std::shared_ptr<Device>> device = shared_device(kind);
  if (!device) return device.status();
  auto impl = std::make_shared<Model::Impl>();
  impl->device = *device;
  impl->inputs = infos(artifact.program, artifact.program.inputs, "arg");
  impl->outputs = infos(artifact.program, artifact.program.outputs, "result");
  StatusOr<std::unique_ptr<Executable>> executable =
      Executable::load(artifact.program, *impl->device);
  if (!executable) return executable.status();
  impl->executable = std::move(*executable);
  impl->artifact = std::move(artifact);
  return Model(std::move(impl));
}

StatusOr<Model> Model::load(const std::string& path, DeviceKind device) {
  StatusOr<Artifact> artifact = load_artifact(path);
  if (!artifact) return artifact.status();
  StatusOr<Model> model = make_model(std::move(*artifact), device);
  if (!model) return Status::error(path + ": " + model.status().message());
  return model;
}

StatusOr<std::vector<Tensor>> Model::run(const std::vector<Tensor>& inputs) const {
  std::vector<Tensor> outputs;
  for (const TensorInfo& info : impl_->outputs) outputs.push_back(Tensor::zeros(info.dtype, info.shape));
  if (Status status = run(inputs, outputs); !status) return status;
  return outputs;
}

Status Model::run(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs) const {
  return impl_->executable->run(inputs, outputs);
}

const std::string& Model::function() const { return impl_->artifact.program.function; }
const std::vector<TensorInfo>& Model::inputs() const { return impl_->inputs; }
const std::vector<TensorInfo>& Model::outputs() const { return impl_->outputs; }
std::string Model::device_name() const { return impl_->device->name(); }
int Model::kernel_count() const {
  int launches = 0;
  for (const Step& step : impl_->artifact.program.steps) launches += step.kind == Step::Kind::kLaunch;
  return launches;
}
std::string Model::summary() const { return format_report(impl_->artifact.program); }
Status Model::save(const std::string& path) const { return save_artifact(impl_->artifact, path); }

}  // namespace spectral
