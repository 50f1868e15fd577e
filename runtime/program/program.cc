// program.cc - the Program's own checks and sizes.
#include "runtime/program/program.h"

#include "runtime/device/cuda/cubin_image.h"

#include <algorithm>
#include <cctype>

namespace spectral {

int64_t BufferDesc::elements() const {
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  return count;
}

bool BufferDesc::size_fits() const {
  int64_t bytes = dtype_size(dtype);
  for (int64_t d : shape) {
    if (d < 0) return false;
    if (d > 0 && bytes > kMaxBufferBytes / d) return false;
    bytes *= d;
  }
  return true;
}

int64_t BufferDesc::bytes() const { return elements() * dtype_size(dtype); }

int Program::storage_of(int id) const {
  // At most two hops (validate): a view of an alias of a temporary.
  while (buffers[id].role == BufferRole::kView || buffers[id].role == BufferRole::kAlias)
    id = buffers[id].view_of;
  return id;
}

namespace {

bool valid_id(int id, size_t count) { return id >= 0 && size_t(id) < count; }

std::string step_name(size_t index, const Step& step) {
  return "step " + std::to_string(index) + (step.op.empty() ? "" : " (" + step.op + ")");
}

}  // namespace

Status Program::validate() const {
  const size_t count = buffers.size();
  for (size_t i = 0; i < count; ++i) {
    const BufferDesc& b = buffers[i];
    const std::string name = "buffer " + std::to_string(i) + " '" + b.name + "'";
    for (int64_t d : b.shape)
      if (d < 0) return Status::error(name + " has a negative dimension");
    if (!b.size_fits())
      return Status::error(name + " holds more than 2^62 bytes");
    if (b.role == BufferRole::kView) {
      if (!valid_id(b.view_of, count) || buffers[b.view_of].role == BufferRole::kView)
        return Status::error(name + " views an invalid buffer");
      if (b.view_offset < 0 || b.view_offset % dtype_size(b.dtype) != 0 ||
          b.view_offset > buffers[b.view_of].bytes() - b.bytes())
        return Status::error(name + " views bytes beyond its buffer's (offset " +
                             std::to_string(b.view_offset) + ", " + std::to_string(b.bytes()) +
                             " of " + std::to_string(buffers[b.view_of].bytes()) + " bytes)");
    }
    if (b.role == BufferRole::kAlias) {
      if (!valid_id(b.view_of, count) ||
          !(buffers[b.view_of].role == BufferRole::kTemporary ||
            (buffers[b.view_of].role == BufferRole::kInput && buffers[b.view_of].donated)))
        return Status::error(name + " is lent the bytes of a buffer that is not a temporary or "
                                    "a donated input");
      if (buffers[b.view_of].bytes() < b.bytes())
        return Status::error(name + " is lent the bytes of a smaller buffer");
    }
    if (b.role == BufferRole::kConstant) {
      if (!valid_id(b.constant, constants.size()))
        return Status::error(name + " names a missing constant");
      if (int64_t(constants[b.constant].size()) != b.bytes())
        return Status::error(name + " holds " + std::to_string(constants[b.constant].size()) +
                             " constant bytes, expected " + std::to_string(b.bytes()));
    }
  }
  for (size_t k = 0; k < kernels.size(); ++k) {
    const std::string name = "kernel " + std::to_string(k) + " '" + kernels[k].source.entry + "'";
    for (const std::string& define : kernels[k].source.defines)
      if (!is_valid_define(define))
        return Status::error(name + " has an invalid define '" + define +
                             "' (NAME or NAME=VALUE on one line)");
    const std::vector<KernelBinary>& binaries = kernels[k].binaries;
    for (size_t i = 0; i < binaries.size(); ++i) {
      const KernelBinary& binary = binaries[i];
      // Any name is kept (a newer format may bring new kinds); only sm_XX is loaded.
      const bool named = !binary.arch.empty() && binary.arch.size() <= 32 &&
                         std::all_of(binary.arch.begin(), binary.arch.end(), [](char c) {
                           return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                         });
      if (!named)
        return Status::error(name + " carries code for an architecture named '" + binary.arch +
                             "' (expected letters, digits and _, like sm_90)");
      if (binary.cubin.empty() && binary.ptx.empty())
        return Status::error(name + " carries neither CUBIN nor PTX for " + binary.arch);
      if (!binary.cubin.empty())
        if (std::string problem = cubin_problem(binary.cubin); !problem.empty())
          return Status::error(name + " carries a CUBIN for " + binary.arch + " that is " +
                               (problem.rfind("not ", 0) == 0 ? "" : "damaged: ") + problem);
      if (binary.ptx.find('\0') != std::string::npos)
        return Status::error(name + " carries PTX for " + binary.arch + " with a NUL byte");
      for (size_t j = 0; j < i; ++j)
        if (binaries[j].arch == binary.arch)
          return Status::error(name + " carries code for " + binary.arch + " twice");
    }
  }
  for (int id : inputs)
    if (!valid_id(id, count) || buffers[id].role != BufferRole::kInput)
      return Status::error("input " + std::to_string(id) + " is not an input buffer");
  for (int id : outputs)
    if (!valid_id(id, count)) return Status::error("output " + std::to_string(id) + " is invalid");
  std::vector<bool> lent(count, false);
  for (const BufferDesc& b : buffers)
    if (b.role == BufferRole::kAlias && valid_id(b.view_of, count)) lent[b.view_of] = true;
  std::vector<int> error_word_owner(count, -1);
  // What is read after the run: the results (and what they view) and the
  // error words. No chain's local buffer may be one of them.
  std::vector<bool> shown(count, false);
  for (int output : outputs) {
    shown[output] = true;
    if (buffers[output].role == BufferRole::kView) shown[buffers[output].view_of] = true;
  }
  for (const Step& step : steps)
    if (valid_id(step.error_word, count)) shown[step.error_word] = true;
  for (size_t s = 0; s < steps.size(); ++s) {
    const Step& step = steps[s];
    switch (step.kind) {
      case Step::Kind::kLaunch:
        if (!valid_id(step.kernel, kernels.size()))
          return Status::error(step_name(s, step) + " launches a missing kernel");
        for (const StepArg& arg : step.args)
          if (arg.kind == StepArg::Kind::kBuffer && !valid_id(arg.buffer, count))
            return Status::error(step_name(s, step) + " passes an invalid buffer");
        if (step.error_word >= 0 &&
            (!valid_id(step.error_word, count) || buffers[step.error_word].bytes() != 8 ||
             buffers[step.error_word].role != BufferRole::kTemporary))
          return Status::error(step_name(s, step) + " has an invalid error word");
        // Error words are read after the last step: their bytes are never lent.
        if (step.error_word >= 0 && lent[step.error_word])
          return Status::error(step_name(s, step) + " has an error word lent to another buffer");
        // Each launch zeroes its word first: a shared one would lose reports.
        if (step.error_word >= 0 && error_word_owner[step.error_word] >= 0)
          return Status::error(step_name(s, step) + " shares its error word with step " +
                               std::to_string(error_word_owner[step.error_word]));
        if (step.error_word >= 0) error_word_owner[step.error_word] = int(s);
        for (auto [read, written] : step.in_place)
          if (!valid_id(read, step.args.size()) || !valid_id(written, step.args.size()) ||
              step.args[read].kind != StepArg::Kind::kBuffer ||
              step.args[written].kind != StepArg::Kind::kBuffer)
            return Status::error(step_name(s, step) + " names an in-place pair that is not two "
                                                      "buffer arguments");
        if (step.chain_parts > 1) {
          if (s + 1 >= steps.size() || steps[s + 1].kind != Step::Kind::kLaunch ||
              steps[s + 1].error_word >= 0 || steps[s + 1].chain_parts > 1)
            return Status::error(step_name(s, step) +
                                 " is chained to a next step that is not a launch (without an "
                                 "error word, not chained itself)");
          for (const Step* chained : {&step, &steps[s + 1]})
            if (chained->grid.y != 1 || chained->grid.z != 1 ||
                chained->grid.x % step.chain_parts != 0)
              return Status::error(step_name(s, step) + " is chained in " +
                                   std::to_string(step.chain_parts) + " parts, which a grid of " +
                                   std::to_string(chained->grid.x) + " x " +
                                   std::to_string(chained->grid.y) + " x " +
                                   std::to_string(chained->grid.z) + " blocks does not split into");
        }
        if (step.chain_local != -1) {
          const int local = step.chain_local;
          // Its storage, through whichever argument: the host redirects the
          // one naming it, so no other may reach the same bytes.
          auto passes = [&](const Step& chained) {
            return std::count_if(chained.args.begin(), chained.args.end(), [&](const StepArg& a) {
              return a.kind == StepArg::Kind::kBuffer && valid_id(a.buffer, count) &&
                     storage_of(a.buffer) == storage_of(local);
            });
          };
          auto named = [&](const Step& chained) {
            return std::count_if(chained.args.begin(), chained.args.end(), [&](const StepArg& a) {
              return a.kind == StepArg::Kind::kBuffer && a.buffer == local;
            });
          };
          if (step.chain_parts < 2 || !valid_id(local, count) ||
              (buffers[local].role != BufferRole::kTemporary &&
               buffers[local].role != BufferRole::kAlias) ||
              buffers[local].elements() % step.chain_parts != 0 || shown[local] ||
              named(step) != 1 || named(steps[s + 1]) != 1 || passes(step) != 1 ||
              passes(steps[s + 1]) != 1)
            return Status::error(step_name(s, step) + " names as its chain's local buffer " +
                                 std::to_string(local) +
                                 ", not a temporary that both chained launches pass once, in "
                                 "slices of whole elements per part, and neither a result nor an "
                                 "error word");
        }
        break;
      case Step::Kind::kCopy:
        if (!valid_id(step.source, count) || !valid_id(step.target, count))
          return Status::error(step_name(s, step) + " copies an invalid buffer");
        if (buffers[step.source].bytes() != buffers[step.target].bytes())
          return Status::error(step_name(s, step) + " copies between buffers of other sizes");
        break;
      case Step::Kind::kZero:
        if (!valid_id(step.target, count))
          return Status::error(step_name(s, step) + " zeroes an invalid buffer");
        break;
    }
    if (step.kind != Step::Kind::kLaunch && (step.chain_parts != 0 || step.chain_local != -1))
      return Status::error(step_name(s, step) + " is a copy or fill with chain fields");
    if (step.target >= 0 && valid_id(step.target, count) &&
        (buffers[storage_of(step.target)].role == BufferRole::kConstant ||
         buffers[storage_of(step.target)].role == BufferRole::kInput))
      return Status::error(step_name(s, step) + " writes an input or constant buffer");
  }
  return Status::ok();
}

int64_t Program::bytes_moved() const {
  int64_t total = 0;
  for (const Step& step : steps) {
    if (step.kind == Step::Kind::kLaunch)
      total += kernels[step.kernel].bytes_read + kernels[step.kernel].bytes_written;
    else if (step.kind == Step::Kind::kCopy)
      total += 2 * buffers[step.source].bytes();
    else
      total += buffers[step.target].bytes();
  }
  return total;
}

int64_t Program::flops() const {
  int64_t total = 0;
  for (const Step& step : steps)
    if (step.kind == Step::Kind::kLaunch) total += kernels[step.kernel].flops;
  return total;
}

int64_t Program::storage_bytes() const {
  int64_t total = 0;
  for (size_t id = 0; id < buffers.size(); ++id)
    if (storage_of(int(id)) == int(id)) total += buffers[id].bytes();
  return total;
}

}  // namespace spectral
