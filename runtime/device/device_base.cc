// device_base.cc - what every Device shares: graphs as replayed lists,
// device time as wall time, for devices that have nothing better (the host),
// and the account of allocated bytes against SPECTRAL_DEVICE_MEMORY_LIMIT.
// In spectral_runtime, so that each device's library links it.
#include "runtime/device/device.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>

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

Status run_graph_ops(Device& device, const std::vector<GraphOp>& ops) {
  for (size_t i = 0; i < ops.size(); ++i) {
    const GraphOp& op = ops[i];
    const bool chained = op.kind == GraphOp::Kind::kLaunch && op.chain_parts > 1 &&
                         i + 1 < ops.size() && ops[i + 1].kind == GraphOp::Kind::kLaunch;
    if (Status status = chained ? device.launch_chain(op, ops[++i]) : run_graph_op(device, op);
        !status)
      return status;
  }
  return Status::ok();
}

Status Device::launch_chain(const GraphOp& first, const GraphOp& second) {
  if (Status status = run_graph_op(*this, first); !status) return status;
  return run_graph_op(*this, second);
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
  return run_graph_ops(*this, list->ops);
}

StatusOr<double> Device::time_on_device(const std::function<Status()>& work) {
  const auto start = std::chrono::steady_clock::now();
  if (Status status = work(); !status) return status;
  if (Status status = synchronize(); !status) return status;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

bool DeviceMemoryStats::fits(uint64_t bytes) const {
  return limit_bytes == 0 || bytes <= limit_bytes - std::min(limit_bytes, in_use_bytes);
}

Status DeviceMemoryStats::over_limit(uint64_t bytes, const std::string& device) const {
  return Status::error("device memory limit: allocating " + std::to_string(bytes) +
                       " bytes with " + std::to_string(in_use_bytes) +
                       " bytes in use would pass the limit of " + std::to_string(limit_bytes) +
                       " bytes (SPECTRAL_DEVICE_MEMORY_LIMIT) on " + device);
}

void DeviceMemoryStats::allocated(uint64_t bytes) {
  in_use_bytes += bytes;
  peak_bytes = std::max(peak_bytes, in_use_bytes);
  ++live_allocations;
  ++total_allocations;
}

void DeviceMemoryStats::released(uint64_t bytes) {
  in_use_bytes -= bytes;
  --live_allocations;
}

StatusOr<uint64_t> parse_memory_limit(const std::string& text) {
  const auto invalid = [&] {
    return Status::error("invalid memory size '" + text +
                         "': expected a positive count of bytes with an optional K, M or G "
                         "suffix, e.g. 512M");
  };
  // strtoull alone would take " 5", "-5" (as 2^64 - 5) and an overflow (as
  // its maximum).
  if (!std::isdigit(static_cast<unsigned char>(text.c_str()[0]))) return invalid();
  char* end = nullptr;
  errno = 0;
  const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  const std::string suffix = end;
  const int shift = suffix.empty() ? 0 : suffix == "K" || suffix == "k" ? 10
                  : suffix == "M" || suffix == "m" ? 20 : suffix == "G" || suffix == "g" ? 30 : -1;
  if (errno != 0 || value == 0 || shift < 0 || value > (~0ull >> shift)) return invalid();
  return uint64_t(value) << shift;
}

StatusOr<uint64_t> memory_limit_from_environment() {
  const char* text = std::getenv("SPECTRAL_DEVICE_MEMORY_LIMIT");
  if (text == nullptr || *text == 0) return uint64_t(0);
  StatusOr<uint64_t> parsed = parse_memory_limit(text);
  if (!parsed) return Status::error("SPECTRAL_DEVICE_MEMORY_LIMIT: " + parsed.status().message());
  return *parsed;
}

}  // namespace spectral
