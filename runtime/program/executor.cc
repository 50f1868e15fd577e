// executor.cc - loading a Program onto a Device and running it.
#include "runtime/program/executor.h"

#include "runtime/cache/kernel_cache.h"
#include "runtime/program/parallel.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <mutex>

namespace spectral {

int64_t HostTensor::elements() const {
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  return count;
}

std::string HostTensor::type_string() const { return spectral::type_string(dtype, shape); }

/// The storage one run uses: every buffer's address, the inputs', outputs' and
/// temporaries' its own, the constants' shared. Runs at the same time take
/// different workspaces, so a loaded Executable runs calls from many threads.
struct Workspace {
  std::vector<void*> storage;  // per buffer id; views hold their target's address
  std::vector<void*> owned;    // what this workspace allocated
  int runs = 0;                // runs that used it
  std::unique_ptr<DeviceGraph> graph;  // its steps, built on its second run
  std::string graph_refused;           // why the device could not build them
};

struct Executable::State {
  Program program;
  Device* device = nullptr;
  std::vector<std::shared_ptr<Kernel>> kernels;
  std::vector<void*> constants;  // per buffer id: a constant's storage, else null
  std::mutex mutex;              // guards idle and workspaces
  std::vector<Workspace*> idle;  // workspaces no run holds
  // After `kernels`, so destroyed first: a workspace's graph launches them.
  std::vector<std::unique_ptr<Workspace>> workspaces;
  std::atomic<bool> graphs{true};

  ~State() {
    for (const std::unique_ptr<Workspace>& workspace : workspaces)
      for (void* pointer : workspace->owned) (void)device->release(pointer);
    for (void* pointer : constants)
      if (pointer) (void)device->release(pointer);
  }

  /// A workspace for one run: an idle one, or a new one.
  StatusOr<Workspace*> acquire();
  void give_back(Workspace* workspace) {
    std::lock_guard<std::mutex> lock(mutex);
    idle.push_back(workspace);
  }
};

namespace {

Status allocation_error(const BufferDesc& buffer, const Status& status) {
  return Status::error("allocating buffer '" + buffer.name + "' (" +
                       std::to_string(buffer.bytes()) + " bytes): " + status.message());
}

}  // namespace

StatusOr<Workspace*> Executable::State::acquire() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!idle.empty()) {
      Workspace* workspace = idle.back();
      idle.pop_back();
      return workspace;
    }
  }
  const Program& p = program;
  auto workspace = std::make_unique<Workspace>();
  workspace->storage.assign(p.buffers.size(), nullptr);
  for (size_t id = 0; id < p.buffers.size(); ++id) {
    if (p.storage_of(int(id)) != int(id)) continue;
    if (constants[id]) {
      workspace->storage[id] = constants[id];
      continue;
    }
    StatusOr<void*> pointer = device->allocate(size_t(p.buffers[id].bytes()));
    if (!pointer) {
      for (void* owned : workspace->owned) (void)device->release(owned);
      return allocation_error(p.buffers[id], pointer.status());
    }
    workspace->storage[id] = *pointer;
    workspace->owned.push_back(*pointer);
  }
  for (size_t id = 0; id < p.buffers.size(); ++id) {
    workspace->storage[id] = workspace->storage[p.storage_of(int(id))];
    if (p.buffers[id].role == BufferRole::kView)  // a contiguous slice starts further in
      workspace->storage[id] = static_cast<char*>(workspace->storage[id]) + p.buffers[id].view_offset;
  }
  std::lock_guard<std::mutex> lock(mutex);
  workspaces.push_back(std::move(workspace));
  return workspaces.back().get();
}

namespace {

/// Compiles and loads every kernel, `threads` at a time; the first error wins.
Status load_kernels(const Program& program, Device& device, int threads,
                    std::vector<std::shared_ptr<Kernel>>* kernels) {
  const size_t count = program.kernels.size();
  kernels->assign(count, nullptr);
  std::vector<Status> statuses(count);
  parallel_for(count, threads, [&](size_t i) {
    StatusOr<std::shared_ptr<Kernel>> kernel =
        device.load_prebuilt(program.kernels[i].source, program.kernels[i].binaries);
    if (kernel)
      (*kernels)[i] = std::move(*kernel);
    else
      statuses[i] = kernel.status();
  });
  for (size_t i = 0; i < count; ++i)
    if (!statuses[i])
      return Status::error("compiling kernel '" + program.kernels[i].source.entry + "' for " +
                           program.kernels[i].ops + ": " + statuses[i].message());
  return Status::ok();
}

}  // namespace

Executable::Executable(std::unique_ptr<State> state) : state_(std::move(state)) {}
Executable::~Executable() = default;

const Program& Executable::program() const { return state_->program; }

void Executable::use_graphs(bool enabled) { state_->graphs = enabled; }

StatusOr<std::unique_ptr<Executable>> Executable::load(Program program, Device& device,
                                                       LoadStats* stats, int threads) {
  const auto start = std::chrono::steady_clock::now();
  if (Status status = program.validate(); !status)
    return Status::error("invalid program for '" + program.function + "': " + status.message());
  auto state = std::make_unique<State>();
  state->program = std::move(program);
  state->device = &device;
  const Program& p = state->program;

  const CacheStats before = KernelCache::global().stats();
  if (Status status = load_kernels(p, device, threads, &state->kernels); !status) return status;
  const CacheStats after = KernelCache::global().stats();

  state->constants.assign(p.buffers.size(), nullptr);
  for (size_t id = 0; id < p.buffers.size(); ++id) {
    const BufferDesc& buffer = p.buffers[id];
    if (buffer.role != BufferRole::kConstant) continue;
    StatusOr<void*> pointer = device.allocate(size_t(buffer.bytes()));
    if (!pointer) return allocation_error(buffer, pointer.status());
    state->constants[id] = *pointer;
    const std::vector<uint8_t>& bytes = p.constants[buffer.constant];
    if (Status status = device.copy_to_device(*pointer, bytes.data(), bytes.size()); !status)
      return status;
  }
  // The first workspace now, so a program too large for the device fails at load.
  StatusOr<Workspace*> workspace = state->acquire();
  if (!workspace) return workspace.status();
  state->give_back(*workspace);

  if (stats) {
    stats->kernels = int(p.kernels.size());
    stats->memory_hits = after.memory_hits - before.memory_hits;
    stats->disk_hits = after.disk_hits - before.disk_hits;
    stats->compiles = after.misses - before.misses;
    stats->prebuilt = 0;
    stats->origins.clear();
    stats->prebuilt_kernels.clear();
    for (const std::shared_ptr<Kernel>& kernel : state->kernels) {
      stats->prebuilt += kernel->prebuilt();
      stats->origins.push_back(kernel->origin());
      stats->prebuilt_kernels.push_back(kernel->prebuilt());
    }
    stats->seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return std::unique_ptr<Executable>(new Executable(std::move(state)));
}

namespace {

/// The device operations of step `index` on `storage`: the zeroing of its
/// error word, then its launch; or its copy or fill.
void append_ops(const Program& p, size_t index, const std::vector<void*>& storage,
                const std::vector<std::shared_ptr<Kernel>>& kernels, std::vector<GraphOp>* ops) {
  const Step& step = p.steps[index];
  // The chain the step is in, first or second (validated: a chain's second
  // launch is not chained itself).
  const Step* chain = step.chain_parts > 1                                  ? &step
                      : index > 0 && p.steps[index - 1].chain_parts > 1 ? &p.steps[index - 1]
                                                                          : nullptr;
  GraphOp op;
  switch (step.kind) {
    case Step::Kind::kLaunch:
      if (step.error_word >= 0) {
        GraphOp zero;
        zero.kind = GraphOp::Kind::kZero;
        zero.target = storage[step.error_word];
        zero.bytes = 8;
        ops->push_back(zero);
      }
      op.kernel = kernels[step.kernel].get();
      op.grid = step.grid;
      op.block = step.block;
      op.shared_bytes = step.shared_bytes;
      op.chain_parts = step.chain_parts;
      if (chain != nullptr && chain->chain_local >= 0) {
        for (size_t i = 0; i < step.args.size(); ++i)
          if (step.args[i].kind == StepArg::Kind::kBuffer &&
              step.args[i].buffer == chain->chain_local)
            op.chain_local_arg = int(i);
        op.chain_local_bytes = uint64_t(p.buffers[chain->chain_local].bytes());
      }
      op.args.assign(step.args.size(), 0);
      for (size_t i = 0; i < step.args.size(); ++i) {
        const StepArg& arg = step.args[i];
        void* slot = &op.args[i];
        switch (arg.kind) {
          case StepArg::Kind::kBuffer: std::memcpy(slot, &storage[arg.buffer], sizeof(void*)); break;
          case StepArg::Kind::kInt32: {
            int32_t value = int32_t(arg.integer);
            std::memcpy(slot, &value, sizeof value);
            break;
          }
          case StepArg::Kind::kInt64: std::memcpy(slot, &arg.integer, sizeof arg.integer); break;
          case StepArg::Kind::kFloat64: std::memcpy(slot, &arg.real, sizeof arg.real); break;
        }
      }
      break;
    case Step::Kind::kCopy:
      op.kind = GraphOp::Kind::kCopy;
      op.target = storage[step.target];
      op.source = storage[step.source];
      op.bytes = size_t(p.buffers[step.source].bytes());
      break;
    case Step::Kind::kZero:
      op.kind = GraphOp::Kind::kZero;
      op.target = storage[step.target];
      op.bytes = size_t(p.buffers[step.target].bytes());
      break;
  }
  ops->push_back(std::move(op));
}

/// Builds `workspace`'s graph on its second run (unless graphs are off, the
/// device refused before, or it has one), outside any device timing.
void prepare_graph(Executable::State& s, Workspace& workspace) {
  const Program& p = s.program;
  if (s.graphs && !workspace.graph && workspace.graph_refused.empty() && workspace.runs > 0) {
    std::vector<GraphOp> ops;
    for (size_t i = 0; i < p.steps.size(); ++i)
      append_ops(p, i, workspace.storage, s.kernels, &ops);
    StatusOr<std::unique_ptr<DeviceGraph>> built = s.device->build_graph(std::move(ops));
    if (built)
      workspace.graph = std::move(*built);
    else
      workspace.graph_refused = built.status().message();
  }
  workspace.runs++;
}

/// Submits the steps of `p` on `workspace`: as its graph when it has one and
/// graphs are on, else one by one, an error naming the step's op. `how` says
/// which; its text only when `describe` (runs without stats skip the string).
Status issue_steps(Executable::State& s, Workspace& workspace, RunStats* how, bool describe) {
  const Program& p = s.program;
  const bool graphs = s.graphs;
  how->replayed = graphs && workspace.graph;
  if (describe)
    how->steps = how->replayed ? "as one " + workspace.graph->describe()
                 : !graphs     ? "one by one (graphs off)"
                 : !workspace.graph_refused.empty()
                     ? "one by one (the device refused the graph: " + workspace.graph_refused + ")"
                     : "one by one (the first run of its workspace)";
  if (how->replayed) return s.device->launch_graph(*workspace.graph);
  std::vector<GraphOp> ops;
  for (size_t i = 0; i < p.steps.size(); ++i) {
    const Step& step = p.steps[i];
    ops.clear();
    append_ops(p, i, workspace.storage, s.kernels, &ops);
    if (step.chain_parts > 1 && i + 1 < p.steps.size())  // validated: the next is a launch
      append_ops(p, ++i, workspace.storage, s.kernels, &ops);
    if (Status status = run_graph_ops(*s.device, ops); !status)
      return Status::error((step.op.empty() ? "" : step.op + ": ") + status.message());
  }
  return Status::ok();
}

}  // namespace

Status Executable::run(const std::vector<HostTensor>& inputs, std::vector<HostTensor>* outputs,
                       RunStats* stats) {
  const Program& p = state_->program;
  std::vector<Tensor> in, out;
  for (const HostTensor& input : inputs) {
    Tensor view = Tensor::view(const_cast<uint8_t*>(input.bytes.data()), input.dtype, input.shape);
    if (view.bytes() != input.bytes.size())  // a HostTensor whose bytes do not fit its type
      return Status::error("argument #" + std::to_string(in.size()) + " must be " +
                           input.type_string() + " with " + std::to_string(view.bytes()) +
                           " bytes, got " + std::to_string(input.bytes.size()));
    in.push_back(view);
  }
  // Results of an earlier run of this shape are written in place: no
  // allocation (and no page faults on fresh memory) per run.
  bool reuse = outputs->size() == p.outputs.size();
  for (size_t i = 0; reuse && i < p.outputs.size(); ++i) {
    const BufferDesc& buffer = p.buffers[p.outputs[i]];
    const HostTensor& old = (*outputs)[i];
    reuse = old.dtype == buffer.dtype && old.shape == buffer.shape &&
            old.bytes.size() == size_t(buffer.bytes());
  }
  std::vector<HostTensor> results;
  for (size_t i = 0; i < p.outputs.size(); ++i) {
    const BufferDesc& buffer = p.buffers[p.outputs[i]];
    if (!reuse)
      results.push_back({buffer.dtype, buffer.shape, std::vector<uint8_t>(size_t(buffer.bytes()))});
    HostTensor& result = reuse ? (*outputs)[i] : results.back();
    out.push_back(Tensor::view(result.bytes.data(), buffer.dtype, buffer.shape));
  }
  if (Status status = run(in, out, stats); !status) return status;
  if (!reuse) *outputs = std::move(results);
  return Status::ok();
}

namespace {

/// An error unless `tensors` match the types of `ids` one by one; `verb` and
/// `what` name them: "takes" "argument", "returns" "result".
Status check_types(const Program& p, const std::vector<int>& ids,
                   const std::vector<Tensor>& tensors, const char* verb, const char* what) {
  if (tensors.size() != ids.size())
    return Status::error("'" + p.function + "' " + verb + " " +
                         std::to_string(ids.size()) + " " + what + (ids.size() == 1 ? "" : "s") +
                         ", got " + std::to_string(tensors.size()));
  for (size_t i = 0; i < ids.size(); ++i) {
    const BufferDesc& buffer = p.buffers[ids[i]];
    const Tensor& tensor = tensors[i];
    if (tensor.dtype() != buffer.dtype || tensor.shape() != buffer.shape)
      return Status::error(std::string(what) + " #" + std::to_string(i) + " must be " +
                           type_string(buffer.dtype, buffer.shape) + ", got " +
                           tensor.type_string());
    if (tensor.data() == nullptr && buffer.bytes() > 0)
      return Status::error(std::string(what) + " #" + std::to_string(i) + " has no data");
  }
  return Status::ok();
}

/// Gives a workspace back when a run ends, however it ends.
class WorkspaceLease {
 public:
  WorkspaceLease(Executable::State& state, Workspace* workspace)
      : state_(state), workspace_(workspace) {}
  ~WorkspaceLease() { state_.give_back(workspace_); }
  WorkspaceLease(const WorkspaceLease&) = delete;
  WorkspaceLease& operator=(const WorkspaceLease&) = delete;

 private:
  Executable::State& state_;
  Workspace* workspace_;
};

}  // namespace

Status Executable::run(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
                       RunStats* stats) {
  State& s = *state_;
  const Program& p = s.program;
  if (Status status = check_types(p, p.inputs, inputs, "takes", "argument"); !status) return status;
  if (Status status = check_types(p, p.outputs, outputs, "returns", "result"); !status) return status;
  StatusOr<Workspace*> workspace = s.acquire();
  if (!workspace) return workspace.status();
  WorkspaceLease lease(s, *workspace);
  const std::vector<void*>& storage = (*workspace)->storage;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (Status status = s.device->copy_to_device(storage[p.inputs[i]], inputs[i].data(),
                                                 inputs[i].bytes());
        !status)
      return status;

  prepare_graph(s, **workspace);
  RunStats how;
  // A fault inside a replayed graph surfaces later with no step to name.
  auto failed = [&how](const Status& status) {
    if (!how.replayed) return status;
    return Status::error(status.message() +
                         " (the steps ran as one graph, which hides the failing step; "
                         "--no-graphs, or Executable::use_graphs(false), runs them one by one "
                         "and names it)");
  };
  if (stats) {
    StatusOr<double> seconds =
        s.device->time_on_device([&] { return issue_steps(s, **workspace, &how, true); });
    if (!seconds) return failed(seconds.status());
    how.device_seconds = *seconds;
  } else if (Status status = issue_steps(s, **workspace, &how, false); !status) {
    return failed(status);
  }

  // Error words are read once the steps are queued, so a GPU stream never
  // waits on one; kernels treat what they report as empty, so later steps
  // stay in bounds. The first failing step, in program order, is reported.
  for (const Step& step : p.steps) {
    if (step.kind != Step::Kind::kLaunch || step.error_word < 0) continue;
    uint64_t word = 0;
    if (Status status = s.device->copy_to_host(&word, storage[step.error_word], sizeof word);
        !status)
      return failed(status);
    if (word != 0)
      return Status::error(step.op + ": " + step.error_message + " (at position " +
                           std::to_string(~word) + ")");
  }

  for (size_t i = 0; i < outputs.size(); ++i)
    if (Status status = s.device->copy_to_host(outputs[i].data(), storage[p.outputs[i]],
                                               outputs[i].bytes());
        !status)
      return failed(status);
  if (Status status = s.device->synchronize(); !status) return failed(status);
  if (stats) *stats = std::move(how);
  return Status::ok();
}

}  // namespace spectral
