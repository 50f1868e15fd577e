//===- ProgramBuilder.h - assembling a Program step by step -----*- C++ -*-===//
//
// What every codegen family and the FFT planner write through: buffers,
// views, constants (deduplicated by content), kernels (two regions that need
// the same unit share one kernel; different units never share an entry
// name) and steps in program order. Plain C++ over runtime/program/program.h.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/program/program.h"

#include <complex>
#include <map>
#include <string>
#include <vector>

namespace spectral::codegen {

class ProgramBuilder {
public:
  explicit ProgramBuilder(std::string function);

  int addBuffer(std::string name, DType dtype, std::vector<int64_t> shape,
                BufferRole role = BufferRole::kTemporary);
  /// A view of `of` (or of the buffer `of` views) with another shape, its
  /// bytes starting `offsetBytes` into `of`'s (0: a reshape, the same bytes;
  /// else a contiguous slice).
  int addView(int of, std::string name, DType dtype, std::vector<int64_t> shape,
              int64_t offsetBytes = 0);
  /// A constant buffer holding `bytes`; identical (dtype, shape, bytes) share one.
  int addConstant(std::string name, DType dtype, std::vector<int64_t> shape,
                  std::vector<uint8_t> bytes);
  /// A table of complex values rounded to complex<f32> (or kept complex<f64>).
  int addComplexTable(std::string name, const std::vector<std::complex<double>> &values,
                      bool doublePrecision);
  /// The kernel with `source.entry`, added once: a later call with the same
  /// unit returns the same id; a different unit under a taken entry name is
  /// renamed "<entry>_2", "_3", ... (the name replaced in its source).
  int addKernel(KernelSource source, std::string ops, int64_t bytesRead,
                int64_t bytesWritten);

  void launch(int kernel, Dim3 grid, Dim3 block, uint32_t sharedBytes,
              std::vector<StepArg> args, std::string op, int errorWord = -1,
              std::string errorMessage = {});
  /// Marks args `read` and `written` of the last launch as computed element
  /// by element (Step::in_place).
  void inPlace(int read, int written);
  void copy(int source, int target, std::string op);
  void zero(int target, std::string op);

  const Program &program() const { return program_; }
  Program &program() { return program_; }
  Program take() { return std::move(program_); }

private:
  Program program_;
  std::map<std::string, int> kernelsByEntry_;
  std::map<std::string, int> constantsByKey_;
};

} // namespace spectral::codegen
