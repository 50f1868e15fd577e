// fft_bench.cc - FFT throughput of the planned kernels against FFTW.
//
// For each shape (C2C of lengths 256 to 2^22 and 2-D 1024 x 1024, R2C of
// lengths 256 to 65536; each 4M points): the transform planned by
// compiler/Planning (the same Program the tests check) and run by the
// executor on the device the kernel tests use (the host, or
// SPECTRAL_TEST_DEVICE), timed after one warm-up run, against FFTW's
// single-precision batched plan (FFTW_MEASURE, one thread or --threads). Prints the median
// of several runs and the ratio spectral / FFTW; and the transform's time on
// the device alone (CUDA events around its launches; on the host, the
// launches' wall time) with the GB/s it reaches, reading its input and
// writing its result once, beside the GB/s of a device-to-device copy of
// the input's bytes.
//
//   spectral-fft-bench [RUNS] | [--threads=T] [--runs=R]
//       every shape; FFTW with T threads (default 1: its fastest per thread)
//   spectral-fft-bench --fftw=BATCHxN [--threads=T] [--runs=R]
//       FFTW alone on one batched C2C shape (min and median), the figure
//       bench/fft/spectral-run-vs-fftw.sh sets next to spectral-run's.
#include "tests/unit/kernels_templates/fft_units.h"
#include "tests/unit/kernels_templates/kernel_test_util.h"

#include <fftw3.h>

#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdio>
#include <cstring>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

template <typename F>
double median_seconds(int runs, F&& f) {
  std::vector<double> times;
  for (int r = 0; r < runs; ++r) {
    auto start = Clock::now();
    f();
    times.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

/// FFTW's batched forward C2C of `batch` x `n` complex floats with `threads`
/// threads (FFTW_MEASURE): min and median over `runs`, in milliseconds.
int fftw_only(long batch, int n, int threads, int runs) {
  fftwf_init_threads();
  fftwf_plan_with_nthreads(threads);
  std::vector<std::complex<float>> in(size_t(batch) * n), out(in.size());
  fftwf_plan plan = fftwf_plan_many_dft(1, &n, int(batch), reinterpret_cast<fftwf_complex*>(in.data()),
                                        nullptr, 1, n, reinterpret_cast<fftwf_complex*>(out.data()),
                                        nullptr, 1, n, FFTW_FORWARD, FFTW_MEASURE);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> uniform(-1, 1);
  for (auto& v : in) v = {uniform(rng), uniform(rng)};
  std::vector<double> times;
  for (int r = 0; r < runs; ++r) {
    auto start = Clock::now();
    fftwf_execute(plan);
    times.push_back(std::chrono::duration<double>(Clock::now() - start).count() * 1e3);
  }
  fftwf_destroy_plan(plan);
  std::sort(times.begin(), times.end());
  std::printf("fftw %ldx%d complex<f32> forward, %d threads: min %.3f ms, median %.3f ms over %d runs\n",
              batch, n, threads, times.front(), times[times.size() / 2], runs);
  return 0;
}

/// The median device time of copying `bytes` from one device buffer to another.
double copy_seconds(size_t bytes, int runs) {
  spectral::Device& device = spectral::testing::device();
  spectral::StatusOr<void*> from = device.allocate(bytes), to = device.allocate(bytes);
  if (!from || !to) {
    std::fprintf(stderr, "allocating %zu bytes twice: %s\n", bytes,
                 (from ? to : from).status().message().c_str());
    std::exit(1);
  }
  std::vector<double> times;
  for (int r = 0; r <= runs; ++r) {  // the first is a warm-up
    spectral::StatusOr<double> seconds =
        device.time_on_device([&] { return device.copy_on_device(*to, *from, bytes); });
    if (!seconds) {
      std::fprintf(stderr, "copying %zu bytes: %s\n", bytes, seconds.status().message().c_str());
      std::exit(1);
    }
    if (r > 0) times.push_back(*seconds);
  }
  (void)device.release(*from);
  (void)device.release(*to);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  long batch = 0;
  int n = 0, threads = 1, runs = 5;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--fftw=", 0) == 0 && std::sscanf(arg.c_str(), "--fftw=%ldx%d", &batch, &n) == 2 &&
        batch > 0 && n > 0) {
      continue;
    } else if (arg.rfind("--threads=", 0) == 0 && (threads = std::atoi(arg.c_str() + 10)) > 0) {
      continue;
    } else if (arg.rfind("--runs=", 0) == 0 && (runs = std::atoi(arg.c_str() + 7)) > 0) {
      continue;
    } else if (i == 1 && argc == 2 && (runs = std::atoi(arg.c_str())) > 0) {
      continue;
    }
    std::fprintf(stderr, "spectral-fft-bench: bad argument '%s'\n"
                         "usage: spectral-fft-bench [RUNS] | [--threads=T] [--runs=R]\n"
                         "       spectral-fft-bench --fftw=BATCHxN [--threads=T] [--runs=R]\n",
                 arg.c_str());
    return 2;
  }
  if (n > 0) return fftw_only(batch, n, threads, runs);
  fftwf_init_threads();
  fftwf_plan_with_nthreads(threads);
  std::printf("%-20s %13s %10s %7s %9s %10s %7s %10s\n", "transform", "spectral (ms)", "device ms",
              "GB/s", "copy GB/s", "fftw (ms)", "ratio", "dev ratio");
  double worst = 0, best = 1e300, slowest_share = 1e300;
  struct Case {
    const char* label;
    bool real;                   // R2C along the last axis, else C2C
    std::vector<int64_t> shape;  // the batch, then the transform's axes
  };
  const std::vector<Case> cases = {
      {"c2c 256 x 16384", false, {16384, 256}},
      {"c2c 4096 x 1024", false, {1024, 4096}},
      {"c2c 65536 x 64", false, {64, 65536}},
      {"c2c 4194304 x 1", false, {1, 4194304}},
      {"c2c 1024x1024 x 4", false, {4, 1024, 1024}},
      {"r2c 256 x 16384", true, {16384, 256}},
      {"r2c 4096 x 1024", true, {1024, 4096}},
      {"r2c 65536 x 64", true, {64, 65536}},
  };
  for (const Case& c : cases) {
    const int rank = int(c.shape.size()) - 1;
    std::vector<int> axes(rank);
    std::iota(axes.begin(), axes.end(), 1);
    const int64_t count = std::accumulate(c.shape.begin(), c.shape.end(), int64_t(1),
                                          std::multiplies<>());
    const int n_last = int(c.shape.back()), batch = int(c.shape.front());
    std::mt19937 rng(n_last);
    std::uniform_real_distribution<float> uniform(-1, 1);
    std::vector<float> x(size_t(count) * (c.real ? 1 : 2));
    for (float& v : x) v = uniform(rng);
    // axis_program's R2C runs along the middle axis of [batch, n, 1].
    std::vector<int64_t> shape = c.real ? std::vector<int64_t>{batch, n_last, 1} : c.shape;
    spectral::HostTensor input{c.real ? spectral::DType::kFloat32 : spectral::DType::kComplex64,
                               shape, std::vector<uint8_t>(x.size() * sizeof(float))};
    std::memcpy(input.bytes.data(), x.data(), input.bytes.size());
    spectral::Program program;
    if (c.real) {
      spectral::StatusOr<spectral::Program> planned = spectral::testing::axis_program(
          spectral::planning::FftKind::kRealForward, batch, n_last, 1, false);
      if (!planned) {
        std::fprintf(stderr, "%s: %s\n", c.label, planned.status().message().c_str());
        return 1;
      }
      program = std::move(*planned);
    } else {
      program = spectral::testing::c2c_program(c.shape, axes, true, false);
    }
    auto executable = spectral::Executable::load(std::move(program), spectral::testing::device());
    if (!executable) {
      std::fprintf(stderr, "%s: %s\n", c.label, executable.status().message().c_str());
      return 1;
    }
    // Built once (a vector made per call would copy the input each time),
    // by a move: an initializer list would copy it too.
    std::vector<spectral::HostTensor> inputs;
    inputs.push_back(std::move(input));
    std::vector<spectral::HostTensor> outputs;
    std::vector<double> device_seconds;
    auto run = [&] {
      spectral::RunStats stats;
      if (spectral::Status status = (*executable)->run(inputs, &outputs, &stats); !status) {
        std::fprintf(stderr, "%s: %s\n", c.label, status.message().c_str());
        std::exit(1);
      }
      device_seconds.push_back(stats.device_seconds);
    };
    run();  // warm-up
    device_seconds.clear();
    double spectral_seconds = median_seconds(runs, run);
    std::sort(device_seconds.begin(), device_seconds.end());
    const double on_device = device_seconds[device_seconds.size() / 2];
    const double moved = double(inputs[0].bytes.size() + outputs[0].bytes.size());
    const double copy = copy_seconds(inputs[0].bytes.size(), runs);

    // FFTW's batched plan of the same transform, --threads threads, out of place.
    std::vector<int> dims(c.shape.begin() + 1, c.shape.end());
    const int64_t per = count / batch, bins = c.real ? n_last / 2 + 1 : n_last;
    std::vector<std::complex<float>> out(size_t(batch) * (c.real ? bins : per));
    fftwf_plan plan;
    std::vector<float> in = x;
    if (c.real)
      plan = fftwf_plan_many_dft_r2c(rank, dims.data(), batch, in.data(), nullptr, 1, int(per),
                                     reinterpret_cast<fftwf_complex*>(out.data()), nullptr, 1,
                                     int(bins), FFTW_MEASURE);
    else
      plan = fftwf_plan_many_dft(rank, dims.data(), batch, reinterpret_cast<fftwf_complex*>(in.data()),
                                 nullptr, 1, int(per), reinterpret_cast<fftwf_complex*>(out.data()),
                                 nullptr, 1, int(per), FFTW_FORWARD, FFTW_MEASURE);
    std::copy(x.begin(), x.end(), in.begin());  // FFTW_MEASURE overwrote it
    double fftw = median_seconds(runs, [&] { fftwf_execute(plan); });
    fftwf_destroy_plan(plan);
    const double gbs = moved / on_device / 1e9, copy_gbs = 2 * inputs[0].bytes.size() / copy / 1e9;
    std::printf("%-20s %13.2f %10.3f %7.1f %9.1f %10.2f %7.2f %10.3g\n", c.label,
                spectral_seconds * 1e3, on_device * 1e3, gbs, copy_gbs, fftw * 1e3,
                spectral_seconds / fftw, on_device / fftw);
    worst = std::max(worst, spectral_seconds / fftw);
    best = std::min(best, spectral_seconds / fftw);
    slowest_share = std::min(slowest_share, gbs / copy_gbs);
  }
  std::printf("on %s; spectral's time includes copying the input in and the result out;\n"
              "fftw is %d thread%s, in cache-friendly out-of-place batched form; dev ratio: "
              "the device time alone over fftw's.\n",
              spectral::testing::device().name().c_str(), threads, threads == 1 ? "" : "s");
  std::printf("%zu transforms: spectral / fftw %.2f to %.2f; on the device at least %.1f%% of "
              "a copy's GB/s\n",
              cases.size(), best, worst, slowest_share * 100);
  return 0;
}
