//===- BufferPlan.cpp - temporaries share storage when their lives do not meet ===//
#include "compiler/Planning/BufferPlan.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace spectral::planning {
namespace {

struct Life {
  int first = std::numeric_limits<int>::max();
  int last = -1;
  bool pinned = false;  // keeps its own storage
};

/// When each step runs, as far as lives go: its own index, or for the
/// second launch of a chain (Step::chain_parts) the first's, since parts of
/// the two interleave (what either touches is live across both).
int timeOf(const Program &program, size_t step) {
  return step > 0 && program.steps[step - 1].chain_parts > 1 ? int(step) - 1 : int(step);
}

/// The life of every storage buffer, over step indices (the end of the run
/// is steps.size()).
std::vector<Life> lives(const Program &program) {
  std::vector<Life> life(program.buffers.size());
  auto touch = [&](int buffer, int step) {
    if (buffer < 0) return;
    Life &l = life[program.storage_of(buffer)];
    l.first = std::min(l.first, step);
    l.last = std::max(l.last, step);
  };
  for (size_t s = 0; s < program.steps.size(); ++s) {
    const Step &step = program.steps[s];
    const int time = timeOf(program, s);
    for (const StepArg &arg : step.args)
      if (arg.kind == StepArg::Kind::kBuffer) touch(arg.buffer, time);
    touch(step.source, time);
    touch(step.target, time);
    touch(step.error_word, time);
    if (step.error_word >= 0) life[program.storage_of(step.error_word)].pinned = true;
  }
  for (int output : program.outputs) touch(output, int(program.steps.size()));
  return life;
}

struct Slot {
  int owner = -1;       // the largest member: the buffer that keeps the storage
  int64_t bytes = 0;
  int last = -1;        // the last step of its latest member
  std::vector<int> members;
};

/// Results written in place over donated inputs: a launch's (read, written)
/// pair (Step::in_place) whose read buffer is a donated input that no later
/// step reads and that is not a result, whose written buffer is a temporary
/// of the same type and size, and which the launch passes once (and not a
/// chain's launch: its parts interleave with the other's). The written
/// buffer becomes an alias of the input; returns how many did.
int planInPlace(Program &program, std::vector<Life> &life) {
  int updated = 0;
  for (size_t s = 0; s < program.steps.size(); ++s) {
    const Step &step = program.steps[s];
    for (auto [read, written] : step.in_place) {
      const int in = step.args[read].buffer, out = step.args[written].buffer;
      BufferDesc &source = program.buffers[in], &target = program.buffers[out];
      auto passes = [&](int buffer) {
        return std::count_if(step.args.begin(), step.args.end(), [&](const StepArg &arg) {
          return arg.kind == StepArg::Kind::kBuffer && program.storage_of(arg.buffer) == buffer;
        });
      };
      bool result = std::any_of(program.outputs.begin(), program.outputs.end(),
                                [&](int o) { return program.storage_of(o) == in; });
      if (source.role != BufferRole::kInput || !source.donated || result ||
          life[in].last != int(s) || step.chain_parts > 1 || timeOf(program, s) != int(s) ||
          target.role != BufferRole::kTemporary ||
          target.dtype != source.dtype || target.bytes() != source.bytes() || passes(in) != 1 ||
          passes(out) != 1 || life[out].pinned)
        continue;
      target.role = BufferRole::kAlias;
      target.view_of = in;
      life[in].last = life[out].last;
      life[out] = Life{};
      ++updated;
    }
  }
  return updated;
}

} // namespace

BufferPlanStats planBuffers(Program &program) {
  BufferPlanStats stats;
  stats.bytes_before = program.storage_bytes();
  std::vector<Life> life = lives(program);
  stats.in_place = planInPlace(program, life);
  std::vector<int> order;
  for (size_t id = 0; id < program.buffers.size(); ++id) {
    if (program.buffers[id].role != BufferRole::kTemporary) continue;
    ++stats.temporaries;
    if (life[id].last >= 0 && !life[id].pinned) order.push_back(int(id));
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return life[a].first < life[b].first; });

  std::vector<Slot> slots;
  for (int id : order) {
    const int64_t bytes = program.buffers[id].bytes();
    Slot *fit = nullptr, *largest = nullptr;
    for (Slot &slot : slots) {
      if (slot.last >= life[id].first) continue;  // still live at this buffer's first step
      if (slot.bytes >= bytes && (!fit || slot.bytes < fit->bytes)) fit = &slot;
      if (!largest || slot.bytes > largest->bytes) largest = &slot;
    }
    Slot *slot = fit ? fit : largest;
    if (!slot) slot = &slots.emplace_back();
    slot->members.push_back(id);
    slot->last = life[id].last;
    if (slot->owner < 0 || bytes > slot->bytes) {
      slot->bytes = bytes;
      slot->owner = id;
    }
  }

  for (const Slot &slot : slots)
    for (int member : slot.members) {
      if (member == slot.owner) continue;
      program.buffers[member].role = BufferRole::kAlias;
      program.buffers[member].view_of = slot.owner;
    }
  stats.allocations = int(stats.temporaries - order.size() + slots.size());
  stats.bytes_after = program.storage_bytes();
  return stats;
}

} // namespace spectral::planning
