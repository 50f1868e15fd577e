// kernel_dump.h - every kernel of a Program as files a person can read.
//
// For each kernel: DIR/NAME.cu (the instantiation unit), DIR/NAME.ptx and
// DIR/NAME.ptxas.txt (NVRTC's log with ptxas -v for the chosen architecture,
// through the kernel cache, so a warm cache dumps without compiling), and
// one row in DIR/summary.txt and DIR/summary.json: the entry, the ops it
// computes (with file:line:col), grid, block and dynamic shared memory of its
// first launch, launches per run, registers, spill bytes, static shared
// memory, and bytes read and written per launch. Without NVRTC the .cu files
// and the summary are still written, with those ptxas columns as "-" and a
// line saying why.
#pragma once

#include "runtime/program/program.h"
#include "runtime/status.h"

#include <string>

namespace spectral {

struct DumpOptions {
  std::string directory;
  std::string arch = "sm_90";  // sm_80 or sm_90 (any sm_XX NVRTC supports)
};

/// Writes the files; the summary table is also returned for printing.
StatusOr<std::string> dump_kernels(const Program& program, const DumpOptions& options);

/// `text` as a JSON string literal, quotes included (summary.json, spectral-check).
std::string json_string(const std::string& text);

}  // namespace spectral
