// spectral-check - runs .spx artifacts with the runtime alone (no MLIR, no
// LLVM) and checks every result against a reference .npy: the runner of the
// GPU check bundle (scripts/gpu-bundle), and of any artifact whose expected
// results are known.
//
//   spectral-check CASE_DIR... [--device=auto|cuda|host] [--tolerance=X]
//                  [--runs=20] [--from-source] [--no-graphs] [--json=FILE]
//
// A case directory holds graph.spx, arg0.npy, arg1.npy, ... (its arguments
// in order) and result0.npy, ... (the expected results; spectral-run
// --device=reference --save-npy=DIR writes both). Per case it prints where the
// kernels came from (the artifact's CUBIN/PTX, the kernel cache, or compiled)
// and the load time, PASS or FAIL per result with its max abs error and that
// error relative to the largest reference magnitude (within --tolerance:
// by default 1e-4 for 32-bit results, 1e-10 for 64-bit ones, as spectral-run
// --validate), and the time of a run (min and median over --runs, inputs
// copied in and results out included), and the steps' time on the device
// alone with how they ran (from the second run on, as one CUDA graph, unless
// --no-graphs or the device refuses); the last timed run's results are
// checked too.
// --from-source leaves the artifact's CUBIN/PTX aside: every kernel comes from
// the kernel cache or is compiled from its source (NVRTC's compile times).
// --json writes the same as one JSON object. Exit status: 0 when every case
// passes, 1 when one fails or the device cannot be opened, 2 on bad usage.
#include "runtime/device/device.h"
#include "runtime/program/artifact.h"
#include "runtime/program/executor.h"
#include "runtime/program/kernel_dump.h"
#include "runtime/tensor/npy.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

using spectral::DType;
using spectral::HostTensor;
using Clock = std::chrono::steady_clock;

constexpr const char* kUsage =
    "usage: spectral-check CASE_DIR... [--device=auto|cuda|host] [--tolerance=X]\n"
    "                      [--runs=20] [--from-source] [--no-graphs] [--json=FILE]\n"
    "A case directory holds graph.spx, argN.npy (its arguments) and resultN.npy (the\n"
    "expected results): spectral-run --device=reference --save-npy=DIR writes them.\n";

struct Options {
  std::vector<std::string> cases;
  std::string device = "auto";
  double tolerance = -1;  // below 0: by the result's precision
  int runs = 20;
  bool from_source = false;
  bool graphs = true;
  std::string json;
};

struct ResultCheck {
  double max_abs = 0, relative = 0;
  bool pass = false;
  std::string error;  // a mismatch of type or shape
};

struct CaseReport {
  std::string name, error;
  spectral::LoadStats load;
  std::vector<ResultCheck> results;
  double run_min_ms = 0, run_median_ms = 0;
  double device_min_ms = 0, device_median_ms = 0;  // the steps alone
  std::string steps;  // how the last timed run's steps ran
  size_t step_count = 0;
  bool pass = false;
};

std::string base_name(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

template <typename T>
T load(const HostTensor& t, int64_t i) {
  T value;
  std::memcpy(&value, t.bytes.data() + size_t(i) * sizeof(T), sizeof(T));
  return value;
}

/// Element i as a complex number (every dtype compared the same way).
std::complex<double> element(const HostTensor& t, int64_t i) {
  switch (t.dtype) {
    case DType::kBool: return double(load<uint8_t>(t, i) != 0);
    case DType::kInt32: return double(load<int32_t>(t, i));
    case DType::kInt64: return double(load<int64_t>(t, i));
    case DType::kFloat32: return double(load<float>(t, i));
    case DType::kFloat64: return load<double>(t, i);
    case DType::kComplex64: return std::complex<double>(load<std::complex<float>>(t, i));
    case DType::kComplex128: return load<std::complex<double>>(t, i);
  }
  return 0;
}

/// The shortest text that reads back as `value` (integers without a point).
std::string number(double value) {
  char text[32];
  for (int digits = 6; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, value);
    if (std::strtod(text, nullptr) == value || std::isnan(value)) break;
  }
  return text;
}

/// spectral-run --validate's default tolerance for a result of `dtype`.
double default_tolerance(DType dtype) {
  return dtype == DType::kFloat64 || dtype == DType::kComplex128 ? 1e-10 : 1e-4;
}

/// Compares as spectral-run --validate does: NaN and infinities must stand
/// where the reference has them, integers and booleans must be equal, and the
/// largest |got - want| over finite elements, relative to the largest |want|
/// (absolute where the reference is all zeros), must be within `tolerance`.
ResultCheck compare(const HostTensor& got, const HostTensor& want, double tolerance) {
  ResultCheck check;
  if (got.dtype != want.dtype || got.shape != want.shape) {
    check.error = "is " + got.type_string() + ", the reference " + want.type_string();
    return check;
  }
  if (tolerance < 0) tolerance = default_tolerance(got.dtype);
  if (got.dtype == DType::kInt64) {  // exactly, beyond 2^53 too
    for (int64_t i = 0; i < got.elements(); ++i)
      if (load<int64_t>(got, i) != load<int64_t>(want, i)) {
        check.error = "integer element " + std::to_string(i) + " is " +
                      std::to_string(load<int64_t>(got, i)) + " where the reference has " +
                      std::to_string(load<int64_t>(want, i));
        return check;
      }
    check.pass = true;
    return check;
  }
  const bool exact = got.dtype == DType::kBool || got.dtype == DType::kInt32;
  double largest = 0;
  for (int64_t i = 0; i < got.elements(); ++i) {
    std::complex<double> a = element(got, i), b = element(want, i);
    for (int part = 0; part < 2; ++part) {
      double x = part ? a.imag() : a.real(), y = part ? b.imag() : b.real();
      bool special = !std::isfinite(x) || !std::isfinite(y);
      bool same = (std::isnan(x) && std::isnan(y)) || x == y;
      if ((special || exact) && !same && check.error.empty())
        check.error = "element " + std::to_string(i) + " is " + number(x) +
                      " where the reference has " + number(y);
    }
    if (std::isfinite(std::abs(a)) && std::isfinite(std::abs(b))) {
      check.max_abs = std::max(check.max_abs, std::abs(a - b));
      largest = std::max(largest, std::abs(b));
    }
  }
  check.relative = largest > 0 ? check.max_abs / largest : check.max_abs;
  check.pass = check.error.empty() && check.relative <= tolerance;
  return check;
}

/// Reads DIR/<prefix>0.npy, DIR/<prefix>1.npy, ... until one is missing.
spectral::Status read_all(const std::string& dir, const std::string& prefix,
                          std::vector<HostTensor>* out) {
  for (int i = 0;; ++i) {
    std::string path = dir + "/" + prefix + std::to_string(i) + ".npy";
    std::error_code ignored;
    if (!std::filesystem::exists(path, ignored)) return spectral::Status::ok();
    spectral::NpyArray array;
    std::string error;
    if (!spectral::read_npy(path, &array, &error)) return spectral::Status::error(error);
    out->push_back({spectral::dtype_of_npy(array.dtype), std::move(array.shape), std::move(array.bytes)});
  }
}

CaseReport check_case(const std::string& dir, spectral::Device& device, const Options& options) {
  CaseReport report;
  report.name = base_name(dir);
  auto failed = [&](const std::string& why) {
    report.error = why;
    return report;
  };
  spectral::StatusOr<spectral::Artifact> artifact = spectral::load_artifact(dir + "/graph.spx");
  if (!artifact) return failed(artifact.status().message());
  std::vector<HostTensor> arguments, expected;
  if (spectral::Status status = read_all(dir, "arg", &arguments); !status)
    return failed(status.message());
  if (spectral::Status status = read_all(dir, "result", &expected); !status)
    return failed(status.message());
  if (expected.empty()) return failed(dir + " holds no result0.npy to compare with");
  if (options.from_source)
    for (spectral::KernelDesc& kernel : artifact->program.kernels) kernel.binaries.clear();

  spectral::StatusOr<std::unique_ptr<spectral::Executable>> executable =
      spectral::Executable::load(std::move(artifact->program), device, &report.load);
  if (!executable) return failed(executable.status().message());
  (*executable)->use_graphs(options.graphs);
  report.step_count = (*executable)->program().steps.size();
  std::vector<HostTensor> outputs;
  if (spectral::Status status = (*executable)->run(arguments, &outputs); !status)
    return failed(status.message());
  if (outputs.size() != expected.size())
    return failed("the program has " + std::to_string(outputs.size()) + " results, " + dir +
                  " holds " + std::to_string(expected.size()));
  report.pass = true;
  for (size_t i = 0; i < outputs.size(); ++i) {
    report.results.push_back(compare(outputs[i], expected[i], options.tolerance));
    report.pass = report.pass && report.results.back().pass;
  }
  std::vector<double> times, device_times;
  for (int r = 0; r < options.runs; ++r) {
    auto start = Clock::now();
    spectral::RunStats stats;
    if (spectral::Status status = (*executable)->run(arguments, &outputs, &stats); !status) {
      report.pass = false;
      return failed("run " + std::to_string(r + 2) + ": " + status.message());
    }
    times.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    device_times.push_back(stats.device_seconds * 1e3);
    report.steps = stats.steps;
  }
  if (!times.empty()) {
    // The last run's results too: a race shows as a run that differs.
    for (size_t i = 0; i < outputs.size(); ++i) {
      ResultCheck last = compare(outputs[i], expected[i], options.tolerance);
      if (!last.pass && report.results[i].pass) {
        last.error = "in run " + std::to_string(options.runs + 1) +
                     (last.error.empty() ? "" : ": " + last.error);
        report.results[i] = last;
        report.pass = false;
      }
    }
    std::sort(times.begin(), times.end());
    std::sort(device_times.begin(), device_times.end());
    report.run_min_ms = times.front();
    report.run_median_ms = times[times.size() / 2];
    report.device_min_ms = device_times.front();
    report.device_median_ms = device_times[device_times.size() / 2];
  }
  return report;
}

/// A JSON number, or null for what JSON cannot hold (NaN, infinities).
std::string json_number(double value) {
  return std::isfinite(value) ? number(value) : "null";
}

std::string to_json(const std::string& device, const Options& options,
                    const std::vector<CaseReport>& reports) {
  std::ostringstream out;
  out << "{\"device\": " << spectral::json_string(device) << ", \"tolerance\": "
      << (options.tolerance < 0 ? "\"by precision: 1e-4 for 32-bit results, 1e-10 for 64-bit\""
                                : json_number(options.tolerance))
      << ", \"runs\": " << options.runs
      << ", \"from_source\": " << (options.from_source ? "true" : "false")
      << ", \"graphs\": " << (options.graphs ? "true" : "false") << ", \"cases\": [";
  for (size_t c = 0; c < reports.size(); ++c) {
    const CaseReport& r = reports[c];
    out << (c ? ", " : "") << "{\"name\": " << spectral::json_string(r.name)
        << ", \"pass\": " << (r.pass ? "true" : "false");
    if (!r.error.empty()) out << ", \"error\": " << spectral::json_string(r.error);
    out << ", \"kernels\": " << r.load.kernels << ", \"prebuilt\": " << r.load.prebuilt
        << ", \"compiled\": " << r.load.compiles << ", \"memory_cache_hits\": "
        << r.load.memory_hits << ", \"disk_cache_hits\": " << r.load.disk_hits
        << ", \"load_ms\": " << json_number(r.load.seconds * 1e3) << ", \"run_min_ms\": "
        << (options.runs > 0 && r.error.empty() ? json_number(r.run_min_ms) : "null")
        << ", \"run_median_ms\": "
        << (options.runs > 0 && r.error.empty() ? json_number(r.run_median_ms) : "null")
        << ", \"device_min_ms\": "
        << (options.runs > 0 && r.error.empty() ? json_number(r.device_min_ms) : "null")
        << ", \"device_median_ms\": "
        << (options.runs > 0 && r.error.empty() ? json_number(r.device_median_ms) : "null")
        << ", \"steps\": " << spectral::json_string(r.steps)
        << ", \"results\": [";
    for (size_t i = 0; i < r.results.size(); ++i)
      out << (i ? ", " : "") << "{\"max_abs_error\": " << json_number(r.results[i].max_abs)
          << ", \"relative_error\": " << json_number(r.results[i].relative)
          << ", \"pass\": " << (r.results[i].pass ? "true" : "false")
          << (r.results[i].error.empty() ? "" : ", \"error\": " + spectral::json_string(r.results[i].error))
          << "}";
    out << "]}";
  }
  out << "]}\n";
  return out.str();
}

bool parse(int argc, char** argv, Options* options) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char* name) -> const char* {
      size_t length = std::strlen(name);
      return arg.compare(0, length, name) == 0 ? arg.c_str() + length : nullptr;
    };
    char* end = nullptr;
    if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else if (const char* v = value("--device=")) {
      options->device = v;
    } else if (const char* v = value("--tolerance=")) {
      options->tolerance = std::strtod(v, &end);
      if (*v == '\0' || *end != '\0' || !(options->tolerance >= 0)) {
        std::fprintf(stderr, "spectral-check: --tolerance=%s: expected a number of at least 0\n", v);
        return false;
      }
    } else if (const char* v = value("--runs=")) {
      long runs = std::strtol(v, &end, 10);
      if (*v == '\0' || *end != '\0' || runs < 0 || runs > 1000000) {
        std::fprintf(stderr, "spectral-check: --runs=%s: expected 0 to 1000000\n", v);
        return false;
      }
      options->runs = int(runs);
    } else if (arg == "--from-source") {
      options->from_source = true;
    } else if (arg == "--no-graphs") {
      options->graphs = false;
    } else if (const char* v = value("--json=")) {
      options->json = v;
    } else if (arg.rfind("-", 0) == 0) {
      std::fprintf(stderr, "spectral-check: unknown option '%s'\n%s", arg.c_str(), kUsage);
      return false;
    } else {
      options->cases.push_back(arg);
    }
  }
  if (options->cases.empty()) {
    std::fputs(kUsage, stderr);
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!parse(argc, argv, &options)) return 2;
  spectral::StatusOr<std::unique_ptr<spectral::Device>> device =
      spectral::create_device(options.device);
  if (!device) {
    std::fprintf(stderr, "spectral-check: --device=%s: %s\n", options.device.c_str(),
                 device.status().message().c_str());
    return 1;
  }
  const std::string device_name = (*device)->name();
  std::printf("spectral-check on %s (tolerance %s, %d timed runs, graphs %s)\n",
              device_name.c_str(),
              options.tolerance < 0 ? "1e-4 for 32-bit results, 1e-10 for 64-bit"
                                    : number(options.tolerance).c_str(),
              options.runs, options.graphs ? "on" : "off");
  std::vector<CaseReport> reports;
  int failures = 0;
  for (const std::string& dir : options.cases) {
    reports.push_back(check_case(dir, **device, options));
    const CaseReport& r = reports.back();
    failures += !r.pass;
    if (!r.error.empty()) {
      std::printf("%-28s FAIL  %s\n", r.name.c_str(), r.error.c_str());
      continue;
    }
    std::printf("%-28s %s  %d kernels (%d from the artifact, %llu cache hits, %llu compiled) "
                "loaded in %.1f ms",
                r.name.c_str(), r.pass ? "PASS" : "FAIL", r.load.kernels, r.load.prebuilt,
                (unsigned long long)(r.load.memory_hits + r.load.disk_hits),
                (unsigned long long)r.load.compiles, r.load.seconds * 1e3);
    if (options.runs > 0)
      std::printf("; run min %.3f ms, median %.3f ms; on the device min %.3f ms, median %.3f ms,"
                  " %s",
                  r.run_min_ms, r.run_median_ms, r.device_min_ms, r.device_median_ms,
                  r.steps.c_str());
    std::printf("\n");
    for (size_t i = 0; i < r.results.size(); ++i) {
      const ResultCheck& c = r.results[i];
      std::printf("    result #%zu: %s", i, c.pass ? "PASS" : "FAIL");
      if (!c.error.empty()) std::printf(" (%s)", c.error.c_str());
      std::printf(", max abs error %.3g, relative %.3g\n", c.max_abs, c.relative);
    }
  }
  std::printf("%zu cases: %zu passed, %d failed", reports.size(), reports.size() - failures,
              failures);
  if (options.runs > 0) {
    double run = 0, on_device = 0;
    size_t steps = 0;
    for (const CaseReport& r : reports) {
      run += r.run_median_ms;
      on_device += r.device_median_ms;
      steps += r.step_count;
    }
    std::printf("; medians summed (%zu steps): run %.3f ms, on the device %.3f ms", steps, run,
                on_device);
  }
  std::printf("\n");
  if (!options.json.empty()) {
    std::ofstream out(options.json);
    out << to_json(device_name, options, reports);
    out.close();
    if (!out) {
      std::fprintf(stderr, "spectral-check: could not write %s\n", options.json.c_str());
      return 1;
    }
  }
  return failures ? 1 : 0;
}
