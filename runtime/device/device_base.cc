// device_base.cc - what every Device shares: graphs as replayed lists and
// device time as wall time, for devices that have nothing better (the host).
// In spectral_runtime, so that each device's library links it.
#include "runtime/device/device.h"

#include <chrono>

namespace spectral {
namespace {

/// The default DeviceGraph: the operations, replayed in order.
class OpList final : public DeviceGraph {
 public:
  OpList(const Device* device, std::vector<GraphOp> ops) : device(device), ops(std::move(ops)) {}
  std::string describe() const override {
    return "list of " + std::to_string(ops.size()) +
           (ops.size() == 1 ? " operation" : " operations");
  }
  const Device* device;
  std::vector<GraphOp> ops;
};

}  // namespace

Status run_graph_op(Device& device, const GraphOp& op) {
  switch (op.kind) {
    case GraphOp::Kind::kLaunch: {
      if (!op.kernel) return Status::error("a graph launch without a kernel");
      GraphOpParams params(op);
      return device.launch(*op.kernel, op.grid, op.block, op.shared_bytes,
                           params.pointers.data());
    }
    case GraphOp::Kind::kCopy: return device.copy_on_device(op.target, op.source, op.bytes);
    case GraphOp::Kind::kZero: return device.fill_zero(op.target, op.bytes);
  }
  return Status::error("a graph operation of unknown kind");
}

StatusOr<std::unique_ptr<DeviceGraph>> Device::build_graph(std::vector<GraphOp> ops) {
  for (const GraphOp& op : ops)
    if (op.kind == GraphOp::Kind::kLaunch && !op.kernel)
      return Status::error("a graph launch without a kernel");
  return std::unique_ptr<DeviceGraph>(std::make_unique<OpList>(this, std::move(ops)));
}

Status Device::launch_graph(const DeviceGraph& graph) {
  const auto* list = dynamic_cast<const OpList*>(&graph);
  if (!list || list->device != this) return Status::error("a graph built by another device");
  for (const GraphOp& op : list->ops)
    if (Status status = run_graph_op(*this, op); !status) return status;
  return Status::ok();
}

StatusOr<double> Device::time_on_device(const std::function<Status()>& work) {
  const auto start = std::chrono::steady_clock::now();
  if (Status status = work(); !status) return status;
  if (Status status = synchronize(); !status) return status;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace spectral
