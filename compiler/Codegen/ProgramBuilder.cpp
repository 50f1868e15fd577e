//===- ProgramBuilder.cpp - assembling a Program step by step -------------===//
#include "compiler/Codegen/ProgramBuilder.h"

#include <cctype>
#include <cstring>

namespace spectral::codegen {

ProgramBuilder::ProgramBuilder(std::string function) {
  program_.function = std::move(function);
}

int ProgramBuilder::addBuffer(std::string name, DType dtype, std::vector<int64_t> shape,
                              BufferRole role) {
  BufferDesc buffer;
  buffer.name = std::move(name);
  buffer.dtype = dtype;
  buffer.shape = std::move(shape);
  buffer.role = role;
  program_.buffers.push_back(std::move(buffer));
  int id = int(program_.buffers.size()) - 1;
  if (role == BufferRole::kInput) program_.inputs.push_back(id);
  return id;
}

int ProgramBuilder::addView(int of, std::string name, DType dtype, std::vector<int64_t> shape,
                            int64_t offsetBytes) {
  if (program_.buffers[of].role == BufferRole::kView) {
    offsetBytes += program_.buffers[of].view_offset;
    of = program_.buffers[of].view_of;
  }
  int id = addBuffer(std::move(name), dtype, std::move(shape), BufferRole::kView);
  program_.buffers[id].view_of = program_.storage_of(of);
  program_.buffers[id].view_offset = offsetBytes;
  return id;
}

int ProgramBuilder::addConstant(std::string name, DType dtype, std::vector<int64_t> shape,
                                std::vector<uint8_t> bytes) {
  std::string key = std::string(dtype_name(dtype)) + ":";
  for (int64_t d : shape) key += std::to_string(d) + "x";
  key.append(reinterpret_cast<const char *>(bytes.data()), bytes.size());
  auto found = constantsByKey_.find(key);
  if (found != constantsByKey_.end()) return found->second;
  int id = addBuffer(std::move(name), dtype, std::move(shape), BufferRole::kConstant);
  program_.buffers[id].constant = int(program_.constants.size());
  program_.constants.push_back(std::move(bytes));
  constantsByKey_.emplace(std::move(key), id);
  return id;
}

int ProgramBuilder::addComplexTable(std::string name,
                                    const std::vector<std::complex<double>> &values,
                                    bool doublePrecision) {
  std::vector<uint8_t> bytes;
  if (doublePrecision) {
    bytes.resize(values.size() * sizeof(std::complex<double>));
    std::memcpy(bytes.data(), values.data(), bytes.size());
  } else {
    std::vector<std::complex<float>> rounded(values.begin(), values.end());
    bytes.resize(rounded.size() * sizeof(std::complex<float>));
    std::memcpy(bytes.data(), rounded.data(), bytes.size());
  }
  return addConstant(std::move(name), doublePrecision ? DType::kComplex128 : DType::kComplex64,
                     {int64_t(values.size())}, std::move(bytes));
}

namespace {

/// `text` with every whole-identifier occurrence of `from` replaced by `to`.
std::string renameIdentifier(const std::string &text, const std::string &from,
                             const std::string &to) {
  auto isIdentifier = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::string out;
  size_t at = 0;
  for (size_t found; (found = text.find(from, at)) != std::string::npos; at = found + from.size()) {
    bool whole = (found == 0 || !isIdentifier(text[found - 1])) &&
                 (found + from.size() == text.size() || !isIdentifier(text[found + from.size()]));
    out.append(text, at, found - at);
    out += whole ? to : from;
  }
  return out + text.substr(at);
}

} // namespace

int ProgramBuilder::addKernel(KernelSource source, std::string ops, int64_t bytesRead,
                              int64_t bytesWritten) {
  // Two different units wanting one entry name (e.g. slices of one shape at
  // other offsets) get "_2", "_3", ... in the order codegen meets them.
  const std::string base = source.entry;
  for (int suffix = 2;; ++suffix) {
    auto found = kernelsByEntry_.find(source.entry);
    if (found == kernelsByEntry_.end()) break;
    const KernelSource &existing = program_.kernels[found->second].source;
    if (existing.source == source.source && existing.defines == source.defines) {
      // One unit serving several ops: the dump lists them all.
      std::string &listed = program_.kernels[found->second].ops;
      if (!ops.empty() && listed.find(ops) == std::string::npos) listed += ", " + ops;
      return found->second;
    }
    std::string entry = base + "_" + std::to_string(suffix);
    source.source = renameIdentifier(source.source, source.entry, entry);
    source.entry = entry;
  }
  KernelDesc kernel;
  kernel.ops = std::move(ops);
  kernel.bytes_read = bytesRead;
  kernel.bytes_written = bytesWritten;
  std::string entry = source.entry;
  kernel.source = std::move(source);
  program_.kernels.push_back(std::move(kernel));
  int id = int(program_.kernels.size()) - 1;
  kernelsByEntry_.emplace(std::move(entry), id);
  return id;
}

void ProgramBuilder::launch(int kernel, Dim3 grid, Dim3 block, uint32_t sharedBytes,
                            std::vector<StepArg> args, std::string op, int errorWord,
                            std::string errorMessage) {
  Step step;
  step.kind = Step::Kind::kLaunch;
  step.kernel = kernel;
  step.grid = grid;
  step.block = block;
  step.shared_bytes = sharedBytes;
  step.args = std::move(args);
  step.op = std::move(op);
  step.error_word = errorWord;
  step.error_message = std::move(errorMessage);
  program_.steps.push_back(std::move(step));
}

void ProgramBuilder::inPlace(int read, int written) {
  program_.steps.back().in_place.push_back({read, written});
}

void ProgramBuilder::copy(int source, int target, std::string op) {
  Step step;
  step.kind = Step::Kind::kCopy;
  step.source = source;
  step.target = target;
  step.op = std::move(op);
  program_.steps.push_back(std::move(step));
}

void ProgramBuilder::zero(int target, std::string op) {
  Step step;
  step.kind = Step::Kind::kZero;
  step.target = target;
  step.op = std::move(op);
  program_.steps.push_back(std::move(step));
}

} // namespace spectral::codegen
