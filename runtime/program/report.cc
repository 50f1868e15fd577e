// report.cc - what a Program moves and computes, against the least it could.
#include "runtime/program/report.h"

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdarg>
#include <cstdio>
#include <set>

namespace spectral {

const std::vector<RooflineGpu>& roofline_gpus() {
  static const std::vector<RooflineGpu> gpus = {
      {"A100", 1.555e12, 19.5e12, 108},
      {"H100 SXM", 3.35e12, 67e12, 132},
  };
  return gpus;
}

namespace {

/// The time of moving `bytes` and computing `flops` on the `blocks`' share
/// of the GPU's SMs (a block runs on one SM; the bandwidth and FLOPs of a
/// launch of fewer blocks than SMs are taken as theirs).
double roofline_seconds(const RooflineGpu& gpu, int64_t bytes, int64_t flops, int64_t blocks) {
  const double share = std::min(1.0, double(std::max<int64_t>(blocks, 1)) / gpu.sms);
  return std::max(double(bytes) / gpu.bytes_per_second, double(flops) / gpu.flops_per_second) /
         share;
}

std::string format(const char* pattern, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* pattern, ...) {
  char buffer[512];
  va_list args;
  va_start(args, pattern);
  std::vsnprintf(buffer, sizeof buffer, pattern, args);
  va_end(args);
  return buffer;
}

}  // namespace

ProgramReport report_program(const Program& program) {
  ProgramReport report;
  const size_t gpus = roofline_gpus().size();
  report.seconds.assign(gpus, 0.0);
  std::vector<int> row_of(program.kernels.size(), -1);
  for (const Step& step : program.steps) {
    int64_t bytes = 0, flops = 0, blocks = INT64_MAX;  // copies and fills use the whole GPU
    if (step.kind == Step::Kind::kLaunch) {
      blocks = int64_t(step.grid.x) * step.grid.y * step.grid.z;
      const KernelDesc& kernel = program.kernels[step.kernel];
      bytes = kernel.bytes_read + kernel.bytes_written;
      flops = kernel.flops;
    } else if (step.kind == Step::Kind::kCopy) {
      bytes = 2 * program.buffers[step.source].bytes();
    } else {
      bytes = program.buffers[step.target].bytes();
    }
    report.bytes_moved += bytes;
    report.flops += flops;
    for (size_t g = 0; g < gpus; ++g)
      report.seconds[g] += roofline_seconds(roofline_gpus()[g], bytes, flops, blocks);
    if (step.kind != Step::Kind::kLaunch) continue;
    int& row = row_of[step.kernel];
    if (row < 0) {
      row = int(report.kernels.size());
      KernelReport kernel;
      kernel.entry = program.kernels[step.kernel].source.entry;
      kernel.ops = program.kernels[step.kernel].ops;
      kernel.seconds.assign(gpus, 0.0);
      report.kernels.push_back(std::move(kernel));
    }
    KernelReport& kernel = report.kernels[row];
    ++kernel.launches;
    kernel.bytes += bytes;
    kernel.flops += flops;
    for (size_t g = 0; g < gpus; ++g)
      kernel.seconds[g] += roofline_seconds(roofline_gpus()[g], bytes, flops, blocks);
  }

  std::set<int> counted;  // storage buffers, so a result that is an input counts once
  auto count_once = [&](int id, int64_t* bytes) {
    if (counted.insert(program.storage_of(id)).second) *bytes += program.buffers[id].bytes();
  };
  for (int id : program.inputs) count_once(id, &report.input_bytes);
  // Constants that some step reads (a table no kernel takes is not traffic).
  std::vector<bool> read(program.buffers.size(), false);
  for (const Step& step : program.steps) {
    for (const StepArg& arg : step.args)
      if (arg.kind == StepArg::Kind::kBuffer) read[program.storage_of(arg.buffer)] = true;
    if (step.source >= 0) read[program.storage_of(step.source)] = true;
  }
  for (size_t id = 0; id < program.buffers.size(); ++id)
    if (program.buffers[id].role == BufferRole::kConstant && read[id])
      count_once(int(id), &report.constant_bytes);
  for (int id : program.outputs) {
    // A result written over a donated input (an alias of it) is new data
    // all the same: it counts even though it shares the input's storage.
    if (program.buffers[id].role == BufferRole::kAlias &&
        program.buffers[program.storage_of(id)].role == BufferRole::kInput)
      report.output_bytes += program.buffers[id].bytes();
    else
      count_once(id, &report.output_bytes);
  }
  report.minimum_bytes = report.input_bytes + report.constant_bytes + report.output_bytes;
  report.storage_bytes = program.storage_bytes();
  for (const BufferDesc& buffer : program.buffers)
    if (buffer.role != BufferRole::kView) report.unplanned_bytes += buffer.bytes();
  return report;
}

std::string format_report(const Program& program) {
  const ProgramReport r = report_program(program);
  const std::vector<RooflineGpu>& gpus = roofline_gpus();
  size_t width = 6;
  for (const KernelReport& k : r.kernels) width = std::max(width, k.entry.size());
  std::string text = format("# %s: %zu kernel%s, roofline estimates in microseconds\n",
                            program.function.c_str(), r.kernels.size(),
                            r.kernels.size() == 1 ? "" : "s");
  text += format("%-*s %8s %14s %14s %8s", int(width), "kernel", "launches", "bytes", "flops",
                 "flop/B");
  for (const RooflineGpu& gpu : gpus) text += format(" %9s", gpu.name);
  text += "  ops\n";
  for (const KernelReport& k : r.kernels) {
    text += format("%-*s %8d %14" PRId64 " %14" PRId64 " %8.2f", int(width), k.entry.c_str(),
                   k.launches, k.bytes, k.flops, k.bytes ? double(k.flops) / double(k.bytes) : 0.0);
    for (double s : k.seconds) text += format(" %9.2f", s * 1e6);
    text += "  " + k.ops + "\n";
  }
  text += format("bytes moved per run: %" PRId64 "; minimum %" PRId64 " (inputs %" PRId64
                 ", constants %" PRId64 ", results %" PRId64 "); ratio %.2fx\n",
                 r.bytes_moved, r.minimum_bytes, r.input_bytes, r.constant_bytes, r.output_bytes,
                 r.minimum_bytes ? double(r.bytes_moved) / double(r.minimum_bytes) : 0.0);
  text += format("flops per run: %" PRId64 " (%.2f per byte moved)\n", r.flops,
                 r.bytes_moved ? double(r.flops) / double(r.bytes_moved) : 0.0);
  text += format("device memory: %" PRId64 " bytes of buffers (%" PRId64
                 " without the memory plan's reuse)\n",
                 r.storage_bytes, r.unplanned_bytes);
  text += "roofline per run (bandwidth and FLOPs only, a launch of fewer blocks than SMs getting "
          "their share; each launch also takes a few microseconds):";
  for (size_t g = 0; g < gpus.size(); ++g)
    text += format("%s %s (%.4g TB/s, %.3g TFLOP/s fp32, %d SMs) %.2f us", g ? "," : "",
                   gpus[g].name, gpus[g].bytes_per_second / 1e12,
                   gpus[g].flops_per_second / 1e12, gpus[g].sms, r.seconds[g] * 1e6);
  text += "\n";
  // The GPU code carried per architecture, in order of first appearance.
  std::vector<std::string> archs;
  for (const KernelDesc& kernel : program.kernels)
    for (const KernelBinary& binary : kernel.binaries)
      if (std::find(archs.begin(), archs.end(), binary.arch) == archs.end())
        archs.push_back(binary.arch);
  text += "GPU code carried:";
  if (archs.empty()) text += " none (a GPU compiles the kernels' source when it loads them)";
  for (size_t a = 0; a < archs.size(); ++a) {
    size_t cubins = 0, ptxs = 0;
    for (const KernelDesc& kernel : program.kernels)
      for (const KernelBinary& binary : kernel.binaries)
        if (binary.arch == archs[a]) cubins += !binary.cubin.empty(), ptxs += !binary.ptx.empty();
    text += format("%s %s CUBIN for %zu, PTX for %zu of %zu kernel%s", a ? ";" : "",
                   archs[a].c_str(), cubins, ptxs, program.kernels.size(),
                   program.kernels.size() == 1 ? "" : "s");
  }
  text += "\n";
  return text;
}

}  // namespace spectral
