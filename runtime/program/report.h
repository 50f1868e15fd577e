// report.h - what a Program moves and computes, against the least it could.
//
// Per kernel: launches per run, bytes read and written and nominal FLOPs per
// run, and a roofline estimate of its time on two GPUs (each launch takes
// the longer of its bytes at the memory bandwidth and its FLOPs at the fp32
// peak). In total: bytes moved, the minimum (every input, every constant a
// step reads and every result moved once) and their ratio, FLOPs, the device
// memory the buffers hold (and would hold without the memory plan's reuse),
// and the estimates.
// Static: nothing runs, so a report needs neither a GPU nor a compiler.
#pragma once

#include "runtime/program/program.h"

#include <cstdint>
#include <string>
#include <vector>

namespace spectral {

/// A GPU the roofline estimate assumes.
struct RooflineGpu {
  const char* name;
  double bytes_per_second;
  double flops_per_second;  // fp32, without tensor cores
  int sms;                  // a launch of fewer blocks gets their share of both
};

/// A100 (1.555 TB/s, 19.5 TFLOP/s, 108 SMs) and H100 SXM (3.35 TB/s,
/// 67 TFLOP/s, 132 SMs).
const std::vector<RooflineGpu>& roofline_gpus();

struct KernelReport {
  std::string entry, ops;
  int launches = 0;
  int64_t bytes = 0;  // read + written per run
  int64_t flops = 0;  // per run
  std::vector<double> seconds;  // per roofline_gpus() entry, per run
};

struct ProgramReport {
  std::vector<KernelReport> kernels;  // in order of first launch
  int64_t bytes_moved = 0;            // kernels and device copies, per run
  int64_t minimum_bytes = 0;          // inputs, constants and results, once each
  int64_t input_bytes = 0, constant_bytes = 0, output_bytes = 0;
  int64_t flops = 0;
  int64_t storage_bytes = 0;          // device memory of the buffers
  int64_t unplanned_bytes = 0;        // the same without the memory plan's aliases
  std::vector<double> seconds;        // per roofline_gpus() entry
};

ProgramReport report_program(const Program& program);

/// The report as a table and a few lines of totals.
std::string format_report(const Program& program);

}  // namespace spectral
