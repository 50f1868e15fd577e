// codegen_bench.cc - what compiling and running a graph costs.
//
//   spectral-codegen-bench [--runs=N]
//
// 1. Compile time of examples/spectral_conv.mlir and examples/fno2d_block.mlir
//    (parse, simplify, codegen, compile and load every kernel for the host
//    device) with an empty kernel cache in a fresh directory, then again in a
//    new process that finds every kernel in the disk cache.
// 2. Their run time on the host device (min and median of N runs).
// 3. A batched 1-D FFT graph (4096 lines of 1024 complex<f32>) through
//    codegen on the host device, next to FFTW on the same data in this run,
//    with the same number of threads.
#include "compiler/API/Jit.h"
#include "runtime/device/device.h"
#include "runtime/program/executor.h"

#include <fftw3.h>

#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

struct Timing {
  double min = 0, median = 0;
};

template <typename Fn>
Timing time_runs(int runs, Fn fn) {
  std::vector<double> times;
  for (int r = 0; r < runs; ++r) {
    auto start = Clock::now();
    fn();
    times.push_back(ms(Clock::now() - start));
  }
  std::sort(times.begin(), times.end());
  return {times.front(), times[times.size() / 2]};
}

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "spectral-codegen-bench: %s\n", message.c_str());
  std::exit(1);
}

spectral::Device& host() {
  static std::unique_ptr<spectral::Device> device = [] {
    auto created = spectral::create_device("host");
    if (!created) die(created.status().message());
    return std::move(*created);
  }();
  return *device;
}

/// Compiles `path` for the host; returns the executable, the load stats and
/// the whole compile time in ms.
std::unique_ptr<spectral::Executable> compile(const std::string& path, spectral::LoadStats* stats,
                                              double* total_ms) {
  auto context = spectral::createContext();
  auto start = Clock::now();
  auto module = spectral::parseFile(*context, path);
  if (!module) die(llvm::toString(module.takeError()));
  auto executable = spectral::jitCompile(**module, host(), {}, stats);
  if (!executable) die(llvm::toString(executable.takeError()));
  *total_ms = ms(Clock::now() - start);
  return std::move(*executable);
}

std::vector<spectral::HostTensor> random_inputs(const spectral::Program& program) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> uniform(-1, 1);
  std::vector<spectral::HostTensor> inputs;
  for (int id : program.inputs) {
    const spectral::BufferDesc& b = program.buffers[id];
    spectral::HostTensor t{b.dtype, b.shape, std::vector<uint8_t>(size_t(b.bytes()))};
    if (b.dtype == spectral::DType::kFloat32 || b.dtype == spectral::DType::kComplex64) {
      std::vector<float> values(t.bytes.size() / 4);
      for (float& v : values) v = uniform(rng);
      std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
    }
    inputs.push_back(std::move(t));
  }
  return inputs;
}

/// The child process of the warm-cache measurement: prints "kernels ms disk_hits compiles".
int warm_child(const std::string& path) {
  spectral::LoadStats stats;
  double total = 0;
  compile(path, &stats, &total);
  std::printf("%d %.3f %llu %llu\n", stats.kernels, total, (unsigned long long)stats.disk_hits,
              (unsigned long long)stats.compiles);
  return 0;
}

void compile_and_run(const std::string& name, int runs) {
  std::string path = std::string(SPECTRAL_SOURCE_DIR) + "/examples/" + name;
  spectral::LoadStats stats;
  double cold = 0;
  auto executable = compile(path, &stats, &cold);
  char self[4096];
  ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
  if (length <= 0) die("cannot find this program's path");
  self[length] = 0;
  std::string command = std::string(self) + " --warm-child=" + path;
  FILE* pipe = popen(command.c_str(), "r");
  int kernels = 0;
  double warm = 0;
  unsigned long long disk_hits = 0, compiles = 0;
  if (!pipe || std::fscanf(pipe, "%d %lf %llu %llu", &kernels, &warm, &disk_hits, &compiles) != 4)
    die("the warm-cache child process failed");
  pclose(pipe);
  std::printf("%-22s %3d kernels  cold %8.1f ms (%llu compiled)  warm new process %6.2f ms "
              "(%llu from disk, %llu compiled)  %5.1fx faster, %.3f ms per kernel\n",
              name.c_str(), stats.kernels, cold, (unsigned long long)stats.compiles, warm,
              disk_hits, compiles, cold / warm, warm / std::max(kernels, 1));
  std::vector<spectral::HostTensor> inputs = random_inputs(executable->program()), outputs;
  Timing t = time_runs(runs, [&] {
    if (auto status = executable->run(inputs, &outputs); !status) die(status.message());
  });
  std::printf("%-22s run on the host: min %.3f ms, median %.3f ms over %d runs\n", name.c_str(),
              t.min, t.median, runs);
}

void batched_fft(int runs) {
  constexpr int kLines = 4096, kLength = 1024;
  char path[] = "/tmp/spectral-bench-XXXXXX.mlir";
  int fd = mkstemps(path, 5);
  if (fd < 0) die("cannot create a temporary graph");
  std::string graph =
      "func.func @main(%x: tensor<4096x1024xcomplex<f32>>) -> tensor<4096x1024xcomplex<f32>> {\n"
      "  %y = spectral.fft %x axes [1] : tensor<4096x1024xcomplex<f32>>\n"
      "  return %y : tensor<4096x1024xcomplex<f32>>\n}\n";
  if (write(fd, graph.data(), graph.size()) != ssize_t(graph.size())) die("cannot write the graph");
  close(fd);
  spectral::LoadStats stats;
  double compile_ms = 0;
  auto executable = compile(path, &stats, &compile_ms);
  unlink(path);
  std::vector<spectral::HostTensor> inputs = random_inputs(executable->program()), outputs;
  Timing ours = time_runs(runs, [&] {
    if (auto status = executable->run(inputs, &outputs); !status) die(status.message());
  });

  int threads = int(std::max(1u, std::thread::hardware_concurrency()));
  if (const char* env = std::getenv("SPECTRAL_HOST_THREADS")) threads = std::max(1, std::atoi(env));
  fftwf_plan_with_nthreads(threads);
  std::vector<std::complex<float>> in(size_t(kLines) * kLength), out(in.size());
  std::memcpy(in.data(), inputs[0].bytes.data(), in.size() * sizeof(in[0]));
  int n = kLength;
  fftwf_plan plan = fftwf_plan_many_dft(
      1, &n, kLines, reinterpret_cast<fftwf_complex*>(in.data()), nullptr, 1, kLength,
      reinterpret_cast<fftwf_complex*>(out.data()), nullptr, 1, kLength, FFTW_FORWARD,
      FFTW_ESTIMATE);
  Timing fftw = time_runs(runs, [&] { fftwf_execute(plan); });
  fftwf_destroy_plan(plan);
  double bytes = 2.0 * in.size() * sizeof(in[0]);
  std::printf("batched fft 4096x1024 c64: spectral host min %.2f ms (median %.2f, %.2f GB/s, "
              "run includes copies in and out), FFTW %d threads min %.2f ms (median %.2f); "
              "ratio %.1fx\n",
              ours.min, ours.median, bytes / (ours.min * 1e6), threads, fftw.min, fftw.median,
              ours.min / fftw.min);
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 10;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--warm-child=", 0) == 0) return warm_child(arg.substr(13));
    if (arg.rfind("--runs=", 0) == 0) runs = std::max(1, std::atoi(arg.c_str() + 7));
    else if (arg == "--help" || arg == "-h") {
      std::printf("spectral-codegen-bench [--runs=N]: compile time (empty and warm cache) and "
                  "host run time of the example graphs; a batched FFT next to FFTW\n");
      return 0;
    } else die("unknown argument " + arg + " (try --help)");
  }
  // A fresh cache directory, inherited by the warm-cache child process.
  char dir[] = "/tmp/spectral-bench-cache-XXXXXX";
  if (!mkdtemp(dir)) die("cannot create a cache directory");
  setenv("SPECTRAL_CACHE_DIR", dir, 1);
  setenv("SPECTRAL_CACHE", "on", 1);
  fftwf_init_threads();
  std::printf("kernel cache: %s (empty at start)\n", dir);
  compile_and_run("spectral_conv.mlir", runs);
  compile_and_run("fno2d_block.mlir", runs);
  batched_fft(runs);
  std::string clean = std::string("rm -rf ") + dir;
  return std::system(clean.c_str()) == 0 ? 0 : 1;
}
