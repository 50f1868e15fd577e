#include "runtime/device/cuda/cuda_device.h"

#include "runtime/device/cuda/cuda_driver.h"

#include <cstdlib>

namespace spectral {

struct CudaDevice::Context {
  explicit Context(const CudaDriver& driver) : driver(driver) {}
  const CudaDriver& driver;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  ~Context() {
    if (stream && driver.cuCtxPushCurrent_v2(context) == CUDA_SUCCESS) {
      (void)driver.cuStreamDestroy_v2(stream);
      CUcontext popped;
      (void)driver.cuCtxPopCurrent_v2(&popped);
    }
    if (context) (void)driver.cuCtxDestroy_v2(context);
  }
};

namespace {

/// Makes the device's context current on this thread for one call; a failed
/// push shows up as the next call's CUDA_ERROR_INVALID_CONTEXT.
struct ScopedContext {
  explicit ScopedContext(const CudaDevice::Context& c)
      : driver(c.driver), pushed(driver.cuCtxPushCurrent_v2(c.context) == CUDA_SUCCESS) {}
  ~ScopedContext() {
    CUcontext popped;
    if (pushed) (void)driver.cuCtxPopCurrent_v2(&popped);
  }
  const CudaDriver& driver;
  const bool pushed;
};

/// "cuMemAlloc_v2 failed for 4096 bytes: CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
Status driver_error(const CudaDriver& driver, CUresult result, const std::string& what) {
  return Status::error(what + ": " + driver.error_text(result));
}

class CudaKernel final : public Kernel {
 public:
  CudaKernel(std::shared_ptr<CudaDevice::Context> context, std::string entry, CUmodule module,
             CUfunction function, std::string origin, bool prebuilt)
      : context_(std::move(context)), entry_(std::move(entry)), module_(module),
        function_(function), origin_(std::move(origin)), prebuilt_(prebuilt) {}
  ~CudaKernel() override {
    ScopedContext current(*context_);
    // A launch of this kernel may still be running: wait before unloading it.
    (void)context_->driver.cuStreamSynchronize(context_->stream);
    (void)context_->driver.cuModuleUnload(module_);
  }
  const std::string& entry() const override { return entry_; }
  std::string origin() const override { return origin_; }
  bool prebuilt() const override { return prebuilt_; }
  CUfunction function() const { return function_; }

 private:
  std::shared_ptr<CudaDevice::Context> context_;
  std::string entry_;
  CUmodule module_;
  CUfunction function_;
  std::string origin_;
  bool prebuilt_;
};

CUdeviceptr device_pointer(const void* pointer) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(pointer));
}

}  // namespace

Status check_driver_for_nvrtc(int driver_version, const std::string& nvrtc_version) {
  int nvrtc_major = 0;
  size_t space = nvrtc_version.find(' ');
  if (space != std::string::npos) nvrtc_major = std::atoi(nvrtc_version.c_str() + space + 1);
  int driver_major = driver_version / 1000;
  if (nvrtc_major == 0 || driver_major >= nvrtc_major) return Status::ok();
  return Status::error("the CUDA driver supports CUDA " + std::to_string(driver_major) + "." +
                       std::to_string(driver_version % 1000 / 10) + " but " + nvrtc_version +
                       " builds code for CUDA " + std::to_string(nvrtc_major) +
                       " drivers: update the driver, or set SPECTRAL_NVRTC_PATH to an NVRTC of "
                       "CUDA " + std::to_string(driver_major) + " or older");
}

StatusOr<std::unique_ptr<CudaDevice>> CudaDevice::create(int ordinal,
                                                         std::vector<NvrtcHeader> headers) {
  const StatusOr<const CudaDriver*>& loaded = cuda_driver();
  if (!loaded) return Status::error("no CUDA driver: " + loaded.status().message());
  const CudaDriver& driver = *loaded.value();
  CUresult result = driver.cuInit(0);
  if (result != CUDA_SUCCESS) {
    return Status::error("no CUDA driver: cuInit failed with " + driver.error_text(result));
  }
  int count = 0, version = 0;
  result = driver.cuDeviceGetCount(&count);
  if (result != CUDA_SUCCESS) {
    return driver_error(driver, result, "no CUDA device: cuDeviceGetCount");
  }
  (void)driver.cuDriverGetVersion(&version);
  if (ordinal < 0 || ordinal >= count) {
    std::string cuda = std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
    return Status::error("no CUDA device " + std::to_string(ordinal) + ": the driver (CUDA " +
                         cuda + ") reports " + std::to_string(count) + " device(s)");
  }

  StatusOr<uint64_t> limit = memory_limit_from_environment();
  if (!limit) return limit.status();
  // NVRTC is found here but opened only when a kernel misses the cache.
  StatusOr<NvrtcCompiler> compiler = NvrtcCompiler::create();
  if (!compiler) return Status::error("CUDA device without a kernel compiler: " +
                                      compiler.status().message());
  std::string nvrtc_version = "nvrtc " + std::to_string(compiler->major_version());
  if (compiler->major_version() == 0) {  // a file name without one: ask NVRTC
    StatusOr<std::string> asked = compiler->version();
    if (!asked) return Status::error("CUDA device without a kernel compiler: " +
                                     asked.status().message());
    nvrtc_version = *asked;
  }
  if (Status fits = check_driver_for_nvrtc(version, nvrtc_version); !fits) return fits;

  CUdevice handle = 0;
  int major = 0, minor = 0;
  char name[256] = {};
  auto context = std::make_shared<Context>(driver);
  std::string where = "cuda:" + std::to_string(ordinal);
  if ((result = driver.cuDeviceGet(&handle, ordinal)) ||
      (result = driver.cuDeviceGetName(name, sizeof name - 1, handle)) ||
      (result = driver.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                            handle)) ||
      (result = driver.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                            handle))) {
    return driver_error(driver, result, "querying " + where);
  }
  if ((result = driver.cuCtxCreate_v2(&context->context, 0, handle))) {
    return driver_error(driver, result, "cuCtxCreate_v2 on " + where);
  }
  result = driver.cuStreamCreate(&context->stream, 0);
  CUcontext popped;
  (void)driver.cuCtxPopCurrent_v2(&popped);  // cuCtxCreate made it current here
  if (result) return driver_error(driver, result, "cuStreamCreate on " + where);

  std::unique_ptr<CudaDevice> device(new CudaDevice(context, std::move(*compiler)));
  device->headers_ = std::move(headers);
  device->compute_capability_ = major * 10 + minor;
  device->arch_ = "sm_" + std::to_string(device->compute_capability_);
  device->name_ = where + " " + name + " (" + device->arch_ + ")";
  device->memory_.limit_bytes = *limit;
  return device;
}

CudaDevice::~CudaDevice() {
  ScopedContext current(*context_);
  for (const auto& [pointer, bytes] : allocations_) {
    (void)context_->driver.cuMemFree_v2(static_cast<CUdeviceptr>(pointer));
  }
}

std::string CudaDevice::name() const { return name_; }

DeviceMemoryStats CudaDevice::memory_stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return memory_;
}

StatusOr<void*> CudaDevice::allocate(size_t bytes) {
  if (bytes == 0) return static_cast<void*>(nullptr);
  std::lock_guard<std::mutex> lock(mutex_);
  if (!memory_.fits(bytes)) return memory_.over_limit(bytes, name_);
  const std::string in_use = std::to_string(memory_.in_use_bytes) + " bytes in use";
  ScopedContext current(*context_);
  CUdeviceptr pointer = 0;
  if (CUresult result = context_->driver.cuMemAlloc_v2(&pointer, bytes)) {
    return driver_error(context_->driver, result, "cuMemAlloc_v2 of " + std::to_string(bytes) +
                                                      " bytes (" + in_use + ") on " + name_);
  }
  allocations_[uintptr_t(pointer)] = bytes;
  memory_.allocated(bytes);
  return reinterpret_cast<void*>(uintptr_t(pointer));
}

Status CudaDevice::release(void* pointer) {
  if (!pointer) return Status::ok();
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = allocations_.find(reinterpret_cast<uintptr_t>(pointer));
  if (found == allocations_.end()) {
    return Status::error("release of a pointer " + name_ + " did not allocate");
  }
  ScopedContext current(*context_);
  if (CUresult result = context_->driver.cuMemFree_v2(device_pointer(pointer))) {
    return driver_error(context_->driver, result, "cuMemFree_v2 on " + name_);
  }
  memory_.released(found->second);
  allocations_.erase(found);
  return Status::ok();
}

Status CudaDevice::copy_to_device(void* device_dst, const void* host_src, size_t bytes) {
  ScopedContext current(*context_);
  CUresult result = context_->driver.cuMemcpyHtoD_v2(device_pointer(device_dst), host_src, bytes);
  if (!result) return Status::ok();
  return driver_error(context_->driver, result,
                      "cuMemcpyHtoD_v2 of " + std::to_string(bytes) + " bytes on " + name_);
}

Status CudaDevice::copy_to_host(void* host_dst, const void* device_src, size_t bytes) {
  ScopedContext current(*context_);
  CUresult result = context_->driver.cuMemcpyDtoH_v2(host_dst, device_pointer(device_src), bytes);
  if (!result) return Status::ok();
  std::lock_guard<std::mutex> lock(mutex_);
  return driver_error(context_->driver, result,
                      "cuMemcpyDtoH_v2 of " + std::to_string(bytes) + " bytes on " + name_ +
                          " (a fault of an earlier kernel shows here too; last launched: '" +
                          last_launched_ + "')");
}

Status CudaDevice::copy_on_device(void* device_dst, const void* device_src, size_t bytes) {
  return copy_on(context_->stream, device_dst, device_src, bytes);
}

Status CudaDevice::copy_on(CUstream stream, void* device_dst, const void* device_src,
                           size_t bytes) {
  if (bytes == 0) return Status::ok();
  ScopedContext current(*context_);
  CUresult result = context_->driver.cuMemcpyDtoDAsync_v2(
      device_pointer(device_dst), device_pointer(device_src), bytes, stream);
  if (!result) return Status::ok();
  return driver_error(context_->driver, result,
                      "cuMemcpyDtoDAsync_v2 of " + std::to_string(bytes) + " bytes on " + name_);
}

Status CudaDevice::fill_zero(void* device_dst, size_t bytes) {
  return zero_on(context_->stream, device_dst, bytes);
}

Status CudaDevice::zero_on(CUstream stream, void* device_dst, size_t bytes) {
  if (bytes == 0) return Status::ok();
  ScopedContext current(*context_);
  CUresult result = context_->driver.cuMemsetD8Async(device_pointer(device_dst), 0, bytes, stream);
  if (!result) return Status::ok();
  return driver_error(context_->driver, result,
                      "cuMemsetD8Async of " + std::to_string(bytes) + " bytes on " + name_);
}

std::vector<PrebuiltChoice> prebuilt_order(const std::vector<KernelBinary>& binaries,
                                           int compute_capability) {
  // (architecture, index) of each candidate, sorted newest first.
  std::vector<std::pair<int, size_t>> cubins, ptxs;
  for (size_t i = 0; i < binaries.size(); ++i) {
    const int arch = sm_number(binaries[i].arch);
    if (arch == 0 || arch > compute_capability) continue;
    if (!binaries[i].cubin.empty() && arch / 10 == compute_capability / 10)
      cubins.push_back({arch, i});
    if (!binaries[i].ptx.empty()) ptxs.push_back({arch, i});
  }
  auto newest_first = [](const auto& a, const auto& b) { return a.first > b.first; };
  std::stable_sort(cubins.begin(), cubins.end(), newest_first);
  std::stable_sort(ptxs.begin(), ptxs.end(), newest_first);
  std::vector<PrebuiltChoice> order;
  for (const auto& [arch, i] : cubins) order.push_back({i, true});
  for (const auto& [arch, i] : ptxs) order.push_back({i, false});
  return order;
}

StatusOr<std::shared_ptr<Kernel>> CudaDevice::load_image(const std::string& entry,
                                                         const void* image,
                                                         const std::string& what,
                                                         std::string origin, bool prebuilt,
                                                         CUresult* failure) {
  ScopedContext current(*context_);
  const CudaDriver& driver = context_->driver;
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  if (CUresult result = driver.cuModuleLoadData(&module, image)) {
    if (failure) *failure = result;
    return driver_error(driver, result, "cuModuleLoadData" + what);
  }
  if (CUresult result = driver.cuModuleGetFunction(&function, module, entry.c_str())) {
    (void)driver.cuModuleUnload(module);
    if (failure) *failure = result;
    return driver_error(driver, result, "cuModuleGetFunction" + what);
  }
  return std::shared_ptr<Kernel>(std::make_shared<CudaKernel>(context_, entry, module, function,
                                                              std::move(origin), prebuilt));
}

StatusOr<std::shared_ptr<Kernel>> CudaDevice::load(const KernelSource& source) {
  return compile_and_load(source, "");
}

StatusOr<std::shared_ptr<Kernel>> CudaDevice::compile_and_load(const KernelSource& source,
                                                               const std::string& why) {
  StatusOr<CompiledKernel> compiled =
      compiler_.compile_for_device(source, compute_capability_, headers_);
  if (!compiled) return compiled.status();
  const std::string kind = compiled->is_cubin ? "CUBIN " + arch_ : "PTX";
  return load_image(source.entry, compiled->binary.data(),
                    " of kernel '" + source.entry + "' (" + kind + ") on " + name_,
                    "compiled from source by NVRTC (" + kind + ")" + why, false);
}

namespace {

/// Whether the driver refused an image as one that does not fit this GPU or
/// driver (the next candidate may), rather than for want of memory or a
/// broken context (which the next would meet too).
bool image_does_not_fit(CUresult result) {
  constexpr CUresult kInvalidImage = 200, kNoBinaryForGpu = 209, kInvalidPtx = 218,
                     kJitCompilerNotFound = 221, kUnsupportedPtxVersion = 222,
                     kJitCompilationDisabled = 223, kInvalidSource = 300, kNotFound = 500;
  for (CUresult fits : {kInvalidImage, kNoBinaryForGpu, kInvalidPtx, kJitCompilerNotFound,
                        kUnsupportedPtxVersion, kJitCompilationDisabled, kInvalidSource, kNotFound})
    if (result == fits) return true;
  return false;
}

}  // namespace

StatusOr<std::shared_ptr<Kernel>> CudaDevice::load_prebuilt(
    const KernelSource& source, const std::vector<KernelBinary>& binaries) {
  if (binaries.empty()) return load(source);
  std::string refused;  // why embedded code that should fit did not load
  for (const PrebuiltChoice& choice : prebuilt_order(binaries, compute_capability_)) {
    const KernelBinary& binary = binaries[choice.binary];
    const std::string kind = choice.cubin ? "CUBIN " + binary.arch
                                          : "PTX compute_" + binary.arch.substr(3);
    if (choice.cubin)
      if (std::string problem = cubin_problem(binary.cubin); !problem.empty()) {
        refused += "; the " + kind + " is " + problem;
        continue;
      }
    CUresult failure = CUDA_SUCCESS;
    StatusOr<std::shared_ptr<Kernel>> kernel = load_image(
        source.entry,
        choice.cubin ? static_cast<const void*>(binary.cubin.data()) : binary.ptx.c_str(),
        " of kernel '" + source.entry + "' (" + kind + " from the artifact) on " + name_,
        kind + " from the artifact" + (choice.cubin ? "" : ", compiled by the driver") +
            (refused.empty() ? "" : " (after" + refused.substr(1) + ")"),
        true, &failure);
    if (kernel || !image_does_not_fit(failure)) return kernel;
    refused += "; " + kernel.status().message();
  }
  std::string archs;
  for (const KernelBinary& binary : binaries) archs += (archs.empty() ? "" : ", ") + binary.arch;
  return compile_and_load(source, refused.empty()
                                      ? ": the artifact's code (" + archs + ") does not fit " + arch_
                                      : ": the artifact's code (" + archs + ") did not load" +
                                            refused);
}

Status CudaDevice::launch(const Kernel& kernel, Dim3 grid, Dim3 block,
                          size_t dynamic_shared_bytes, void** args) {
  return launch_on(context_->stream, kernel, grid, block, dynamic_shared_bytes, args);
}

Status CudaDevice::launch_on(CUstream stream, const Kernel& kernel, Dim3 grid, Dim3 block,
                             size_t dynamic_shared_bytes, void** args) {
  const auto* cuda_kernel = dynamic_cast<const CudaKernel*>(&kernel);
  if (!cuda_kernel) {
    return Status::error("kernel '" + kernel.entry() + "' was not loaded by a CUDA device");
  }
  const CudaDriver& driver = context_->driver;
  std::string what = " for kernel '" + kernel.entry() + "' (grid " + std::to_string(grid.x) +
                     "x" + std::to_string(grid.y) + "x" + std::to_string(grid.z) + ", block " +
                     std::to_string(block.x) + "x" + std::to_string(block.y) + "x" +
                     std::to_string(block.z) + ", " + std::to_string(dynamic_shared_bytes) +
                     " bytes dynamic shared memory) on " + name_;
  ScopedContext current(*context_);
  // Static plus dynamic shared memory beyond the default 48 KiB needs the
  // kernel's opt-in for its dynamic part.
  int static_shared = 0;
  if (CUresult result = driver.cuFuncGetAttribute(
          &static_shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, cuda_kernel->function())) {
    return driver_error(driver, result, "cuFuncGetAttribute" + what);
  }
  if (size_t(static_shared) + dynamic_shared_bytes > 48 * 1024) {
    if (CUresult result = driver.cuFuncSetAttribute(
            cuda_kernel->function(), CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            int(dynamic_shared_bytes))) {
      return driver_error(driver, result, "cuFuncSetAttribute" + what);
    }
  }
  CUresult result = driver.cuLaunchKernel(cuda_kernel->function(), grid.x, grid.y, grid.z,
                                          block.x, block.y, block.z,
                                          unsigned(dynamic_shared_bytes), stream, args,
                                          nullptr);
  if (result) return driver_error(driver, result, "cuLaunchKernel" + what);
  if (stream != context_->stream) return Status::ok();  // captured, not run
  std::lock_guard<std::mutex> lock(mutex_);
  last_launched_ = kernel.entry();
  return Status::ok();
}

Status CudaDevice::synchronize() {
  ScopedContext current(*context_);
  CUresult result = context_->driver.cuStreamSynchronize(context_->stream);
  if (!result) return Status::ok();
  std::lock_guard<std::mutex> lock(mutex_);
  return driver_error(context_->driver, result,
                      "cuStreamSynchronize on " + name_ + " (last kernel launched: '" +
                          last_launched_ + "')");
}

namespace {

/// A captured and instantiated CUDA graph.
class CudaGraph final : public DeviceGraph {
 public:
  CudaGraph(std::shared_ptr<CudaDevice::Context> context, CUgraph graph, CUgraphExec executable,
            size_t nodes)
      : context(std::move(context)), graph(graph), executable(executable), nodes(nodes) {}
  ~CudaGraph() override {
    // A launch still in flight is freed by the driver once it completes.
    (void)context->driver.cuGraphExecDestroy(executable);
    (void)context->driver.cuGraphDestroy(graph);
  }
  std::string describe() const override {
    return "CUDA graph of " + std::to_string(nodes) + (nodes == 1 ? " node" : " nodes");
  }
  std::shared_ptr<CudaDevice::Context> context;
  CUgraph graph;
  CUgraphExec executable;
  size_t nodes;
};

/// A stream or an event, destroyed with its scope.
struct ScopedStream {
  ScopedStream(const CudaDriver& driver, unsigned int flags) : driver(driver) {
    result = driver.cuStreamCreate(&stream, flags);
  }
  ~ScopedStream() {
    if (stream) (void)driver.cuStreamDestroy_v2(stream);
  }
  const CudaDriver& driver;
  CUstream stream = nullptr;
  CUresult result;
};

struct ScopedEvent {
  explicit ScopedEvent(const CudaDriver& driver) : driver(driver) {
    result = driver.cuEventCreate(&event, CU_EVENT_DEFAULT);
  }
  ~ScopedEvent() {
    if (event) (void)driver.cuEventDestroy_v2(event);
  }
  const CudaDriver& driver;
  CUevent event = nullptr;
  CUresult result;
};

}  // namespace

Status CudaDevice::issue_on(CUstream stream, const GraphOp& op) {
  switch (op.kind) {
    case GraphOp::Kind::kLaunch: {
      if (!op.kernel) return Status::error("a graph launch without a kernel");
      GraphOpParams params(op);
      return launch_on(stream, *op.kernel, op.grid, op.block, op.shared_bytes,
                       params.pointers.data());
    }
    case GraphOp::Kind::kCopy: return copy_on(stream, op.target, op.source, op.bytes);
    case GraphOp::Kind::kZero: return zero_on(stream, op.target, op.bytes);
  }
  return Status::error("a graph operation of unknown kind");
}

StatusOr<std::unique_ptr<DeviceGraph>> CudaDevice::build_graph(std::vector<GraphOp> ops) {
  const CudaDriver& driver = context_->driver;
  ScopedContext current(*context_);
  // Non-blocking: a synchronous copy of another thread on the legacy stream
  // neither waits for nor invalidates the capture.
  ScopedStream capture(driver, CU_STREAM_NON_BLOCKING);
  if (capture.result) return driver_error(driver, capture.result, "cuStreamCreate for a graph on " + name_);
  if (CUresult result =
          driver.cuStreamBeginCapture_v2(capture.stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL))
    return driver_error(driver, result, "cuStreamBeginCapture on " + name_);
  Status issued;
  for (const GraphOp& op : ops)
    if (!(issued = issue_on(capture.stream, op))) break;
  CUgraph graph = nullptr;
  CUresult ended = driver.cuStreamEndCapture(capture.stream, &graph);
  if (!issued || ended) {
    if (graph) (void)driver.cuGraphDestroy(graph);
    if (!issued) return Status::error("capturing a graph on " + name_ + ": " + issued.message());
    return driver_error(driver, ended, "cuStreamEndCapture on " + name_);
  }
  size_t nodes = 0;
  (void)driver.cuGraphGetNodes(graph, nullptr, &nodes);
  CUgraphExec executable = nullptr;
  if (CUresult result = driver.cuGraphInstantiateWithFlags(&executable, graph, 0)) {
    (void)driver.cuGraphDestroy(graph);
    return driver_error(driver, result, "cuGraphInstantiate of " + std::to_string(nodes) +
                                            " nodes on " + name_);
  }
  return std::unique_ptr<DeviceGraph>(
      std::make_unique<CudaGraph>(context_, graph, executable, nodes));
}

Status CudaDevice::launch_graph(const DeviceGraph& graph) {
  const auto* cuda_graph = dynamic_cast<const CudaGraph*>(&graph);
  if (!cuda_graph || cuda_graph->context != context_)
    return Status::error("a graph built by another device launched on " + name_);
  ScopedContext current(*context_);
  if (CUresult result = context_->driver.cuGraphLaunch(cuda_graph->executable, context_->stream))
    return driver_error(context_->driver, result,
                        "cuGraphLaunch of a " + graph.describe() + " on " + name_);
  std::lock_guard<std::mutex> lock(mutex_);
  last_launched_ = "a " + graph.describe();
  return Status::ok();
}

StatusOr<double> CudaDevice::time_on_device(const std::function<Status()>& work) {
  const CudaDriver& driver = context_->driver;
  ScopedContext current(*context_);
  ScopedEvent start(driver), end(driver);
  if (start.result || end.result)
    return driver_error(driver, start.result ? start.result : end.result,
                        "cuEventCreate on " + name_);
  if (CUresult result = driver.cuEventRecord(start.event, context_->stream))
    return driver_error(driver, result, "cuEventRecord on " + name_);
  if (Status status = work(); !status) return status;
  if (CUresult result = driver.cuEventRecord(end.event, context_->stream))
    return driver_error(driver, result, "cuEventRecord on " + name_);
  if (CUresult result = driver.cuEventSynchronize(end.event)) {
    std::lock_guard<std::mutex> lock(mutex_);
    return driver_error(driver, result, "cuEventSynchronize on " + name_ +
                                            " (last launched: '" + last_launched_ + "')");
  }
  float milliseconds = 0;
  if (CUresult result = driver.cuEventElapsedTime(&milliseconds, start.event, end.event))
    return driver_error(driver, result, "cuEventElapsedTime on " + name_);
  return milliseconds * 1e-3;
}

}  // namespace spectral
