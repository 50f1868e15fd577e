// executor.cc - loading a Program onto a Device and running it.
#include "runtime/program/executor.h"

#include "runtime/cache/kernel_cache.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>

namespace spectral {

int64_t HostTensor::elements() const {
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  return count;
}

std::string HostTensor::type_string() const {
  std::string text = "tensor<";
  for (int64_t d : shape) text += std::to_string(d) + "x";
  return text + dtype_name(dtype) + ">";
}

struct Executable::State {
  Program program;
  Device* device = nullptr;
  std::vector<std::shared_ptr<Kernel>> kernels;
  std::vector<void*> storage;  // per buffer id; views hold their target's pointer
  std::mutex run_mutex;

  ~State() {
    for (size_t id = 0; id < storage.size(); ++id)
      if (program.storage_of(int(id)) == int(id) && storage[id])
        (void)device->release(storage[id]);
  }
};

namespace {

/// Compiles and loads every kernel, `threads` at a time; the first error wins.
Status load_kernels(const Program& program, Device& device, int threads,
                    std::vector<std::shared_ptr<Kernel>>* kernels) {
  const size_t count = program.kernels.size();
  kernels->assign(count, nullptr);
  std::vector<Status> statuses(count);
  std::atomic<size_t> next{0};
  auto work = [&]() {
    for (size_t i = next++; i < count; i = next++) {
      StatusOr<std::shared_ptr<Kernel>> kernel = device.load(program.kernels[i].source);
      if (kernel)
        (*kernels)[i] = std::move(*kernel);
      else
        statuses[i] = kernel.status();
    }
  };
  if (threads <= 0) threads = int(std::max(1u, std::thread::hardware_concurrency()));
  const size_t workers = std::min<size_t>(size_t(threads), count);
  std::vector<std::thread> pool;
  for (size_t w = 1; w < workers; ++w) pool.emplace_back(work);
  work();
  for (std::thread& thread : pool) thread.join();
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

  state->storage.assign(p.buffers.size(), nullptr);
  for (size_t id = 0; id < p.buffers.size(); ++id) {
    const BufferDesc& buffer = p.buffers[id];
    if (p.storage_of(int(id)) != int(id)) continue;
    StatusOr<void*> pointer = device.allocate(size_t(buffer.bytes()));
    if (!pointer)
      return Status::error("allocating buffer '" + buffer.name + "' (" +
                           std::to_string(buffer.bytes()) + " bytes): " +
                           pointer.status().message());
    state->storage[id] = *pointer;
    if (buffer.role == BufferRole::kConstant) {
      const std::vector<uint8_t>& bytes = p.constants[buffer.constant];
      if (Status status = device.copy_to_device(*pointer, bytes.data(), bytes.size()); !status)
        return status;
    }
  }
  for (size_t id = 0; id < p.buffers.size(); ++id) {
    state->storage[id] = state->storage[p.storage_of(int(id))];
    if (p.buffers[id].role == BufferRole::kView)  // a contiguous slice starts further in
      state->storage[id] = static_cast<char*>(state->storage[id]) + p.buffers[id].view_offset;
  }

  if (stats) {
    stats->kernels = int(p.kernels.size());
    stats->memory_hits = after.memory_hits - before.memory_hits;
    stats->disk_hits = after.disk_hits - before.disk_hits;
    stats->compiles = after.misses - before.misses;
    stats->seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return std::unique_ptr<Executable>(new Executable(std::move(state)));
}

namespace {

/// The kernelParams of one launch: values live in `slots`, args point at them.
struct LaunchArgs {
  std::vector<uint64_t> slots;
  std::vector<void*> pointers;
};

void build_args(const Step& step, const std::vector<void*>& storage, LaunchArgs* args) {
  args->slots.assign(step.args.size(), 0);
  args->pointers.assign(step.args.size(), nullptr);
  for (size_t i = 0; i < step.args.size(); ++i) {
    const StepArg& arg = step.args[i];
    void* slot = &args->slots[i];
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
    args->pointers[i] = slot;
  }
}

}  // namespace

Status Executable::run(const std::vector<HostTensor>& inputs, std::vector<HostTensor>* outputs) {
  State& s = *state_;
  const Program& p = s.program;
  std::lock_guard<std::mutex> lock(s.run_mutex);
  if (inputs.size() != p.inputs.size())
    return Status::error("'" + p.function + "' takes " + std::to_string(p.inputs.size()) +
                         (p.inputs.size() == 1 ? " argument" : " arguments") + ", got " +
                         std::to_string(inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const BufferDesc& buffer = p.buffers[p.inputs[i]];
    const HostTensor& input = inputs[i];
    if (input.dtype != buffer.dtype || input.shape != buffer.shape ||
        int64_t(input.bytes.size()) != buffer.bytes()) {
      HostTensor expected{buffer.dtype, buffer.shape, {}};
      return Status::error("argument #" + std::to_string(i) + " must be " +
                           expected.type_string() + ", got " + input.type_string() +
                           (input.dtype == buffer.dtype && input.shape == buffer.shape
                                ? " with " + std::to_string(input.bytes.size()) + " bytes"
                                : ""));
    }
    if (Status status = s.device->copy_to_device(s.storage[p.inputs[i]], input.bytes.data(),
                                                 input.bytes.size());
        !status)
      return status;
  }

  LaunchArgs args;
  for (const Step& step : p.steps) {
    Status status;
    switch (step.kind) {
      case Step::Kind::kLaunch: {
        if (step.error_word >= 0)
          if (Status zero = s.device->fill_zero(s.storage[step.error_word], 8); !zero) return zero;
        build_args(step, s.storage, &args);
        status = s.device->launch(*s.kernels[step.kernel], step.grid, step.block,
                                  step.shared_bytes, args.pointers.data());
        break;
      }
      case Step::Kind::kCopy:
        status = s.device->copy_on_device(s.storage[step.target], s.storage[step.source],
                                          size_t(p.buffers[step.source].bytes()));
        break;
      case Step::Kind::kZero:
        status = s.device->fill_zero(s.storage[step.target], size_t(p.buffers[step.target].bytes()));
        break;
    }
    if (!status) return Status::error((step.op.empty() ? "" : step.op + ": ") + status.message());
  }

  // Error words are read once the steps are queued, so a GPU stream never
  // waits on one; kernels treat what they report as empty, so later steps
  // stay in bounds. The first failing step, in program order, is reported.
  for (const Step& step : p.steps) {
    if (step.kind != Step::Kind::kLaunch || step.error_word < 0) continue;
    uint64_t word = 0;
    if (Status status = s.device->copy_to_host(&word, s.storage[step.error_word], sizeof word);
        !status)
      return status;
    if (word != 0)
      return Status::error(step.op + ": " + step.error_message + " (at position " +
                           std::to_string(~word) + ")");
  }

  outputs->clear();
  for (int id : p.outputs) {
    const BufferDesc& buffer = p.buffers[id];
    HostTensor out{buffer.dtype, buffer.shape, std::vector<uint8_t>(size_t(buffer.bytes()))};
    if (Status status = s.device->copy_to_host(out.bytes.data(), s.storage[id], out.bytes.size());
        !status)
      return status;
    outputs->push_back(std::move(out));
  }
  return s.device->synchronize();
}

}  // namespace spectral
