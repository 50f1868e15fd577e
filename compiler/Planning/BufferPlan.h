//===- BufferPlan.h - temporaries share storage when their lives do not meet -*- C++ -*-===//
//
// spectral-plan's buffer reuse, on a Program (plain data): a temporary's
// life runs from the first step that touches its bytes to the last (to the
// end of the run for the function's results). Temporaries whose lives do
// not overlap share one allocation: each later one becomes a kAlias of the
// largest member of its slot, so the Program allocates one buffer per slot.
// Inputs, constants and error words (read after the last step) keep their
// own storage; a view lives as long as what it views, and one step touching
// two buffers keeps them apart, so a kernel never reads what it writes --
// except a donated input (BufferDesc::donated) that a launch reads and
// writes element by element as its last reader (Step::in_place): the result
// then takes the input's storage (a parameter updated in place).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/program/program.h"

#include <cstdint>

namespace spectral::planning {

struct BufferPlanStats {
  int64_t bytes_before = 0;  // Program::storage_bytes() before the plan
  int64_t bytes_after = 0;   // and after
  int temporaries = 0;       // temporaries with storage of their own before
  int allocations = 0;       // and after
  int in_place = 0;          // results written over donated inputs
};

/// Lends the storage of temporaries whose lives have ended to later ones.
/// Greedy in order of first use: a temporary takes the free slot of the
/// least size that holds it, else the largest free one (which grows), else
/// a new one.
BufferPlanStats planBuffers(Program &program);

} // namespace spectral::planning
