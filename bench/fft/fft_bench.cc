// fft_bench.cc - host-backend FFT throughput against FFTW on this machine.
//
// For each length: a batch of complex float transforms totalling ~4M points,
// planned by compiler/Planning (the same Program the tests check) and run by
// the executor on the host device, timed after one warm-up run, against
// FFTW's single-precision batched plan (FFTW_MEASURE, one thread). Prints
// the median of several runs and the ratio host / FFTW.
//
//   spectral-fft-bench [RUNS]
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
                         "usage: spectral-fft-bench [RUNS]\n"
                         "       spectral-fft-bench --fftw=BATCHxN [--threads=T] [--runs=R]\n",
                 arg.c_str());
    return 2;
  }
  if (n > 0) return fftw_only(batch, n, threads, runs);
  std::printf("%8s %6s %14s %14s %8s\n", "length", "batch", "host (ms)", "fftw (ms)", "ratio");
  for (int n : {256, 4096, 65536}) {
    int batch = std::max(1, (1 << 22) / n);
    std::vector<std::complex<float>> x(size_t(batch) * n);
    std::mt19937 rng(n);
    std::uniform_real_distribution<float> uniform(-1, 1);
    for (auto& v : x) v = {uniform(rng), uniform(rng)};
    std::vector<int64_t> shape{batch, n};
    spectral::HostTensor input{spectral::DType::kComplex64, shape,
                               std::vector<uint8_t>(x.size() * sizeof(x[0]))};
    std::memcpy(input.bytes.data(), x.data(), input.bytes.size());
    auto executable = spectral::Executable::load(
        spectral::testing::c2c_program(shape, {1}, true, false), spectral::testing::device());
    if (!executable) {
      std::fprintf(stderr, "%s\n", executable.status().message().c_str());
      return 1;
    }
    std::vector<spectral::HostTensor> outputs;
    auto run = [&] {
      if (spectral::Status status = (*executable)->run({input}, &outputs); !status) {
        std::fprintf(stderr, "%s\n", status.message().c_str());
        std::exit(1);
      }
    };
    run();  // warm-up
    double host = median_seconds(runs, run);

    std::vector<std::complex<float>> in = x, out(x.size());
    fftwf_plan plan = fftwf_plan_many_dft(1, &n, batch, reinterpret_cast<fftwf_complex*>(in.data()),
                                          nullptr, 1, n, reinterpret_cast<fftwf_complex*>(out.data()),
                                          nullptr, 1, n, FFTW_FORWARD, FFTW_MEASURE);
    std::copy(x.begin(), x.end(), in.begin());
    double fftw = median_seconds(runs, [&] { fftwf_execute(plan); });
    fftwf_destroy_plan(plan);
    std::printf("%8d %6d %14.2f %14.2f %8.2f\n", n, batch, host * 1e3, fftw * 1e3, host / fftw);
  }
  std::printf("host time includes copying the input in and the result out;\n"
              "fftw is one thread, in cache-friendly out-of-place batched form.\n");
  return 0;
}
