// program.h - a compiled graph as plain data: buffers, constants, kernels, steps.
//
// The seam between compiler and runtime: codegen fills a Program, the
// executor (executor.h) runs it on a Device, and the artifact format will
// store it. Everything here is values and ids (no pointers, no callbacks),
// so a Program can be copied, compared and serialized as it is.
//
// Buffers are numbered; a step names its arguments by buffer id. A buffer is
// either storage of its own (an input, an output, a constant, a temporary)
// or a view: the same bytes as another buffer under another shape (reshape
// compiles to a view, no kernel). Every step runs in order on one stream.
#pragma once

#include "runtime/device/device.h"
#include "spectral/tensor.h"  // DType and its names

#include <cstdint>
#include <string>
#include <vector>

namespace spectral {


enum class BufferRole : uint8_t {
  kInput,      // an argument of the function, written by the caller before a run
  kConstant,   // bytes from Program::constants, uploaded once at load
  kTemporary,  // written and read by steps of one run
  kView,       // the bytes of `view_of`, seen with another shape
  kAlias,      // a temporary lent the first bytes of `view_of`, a temporary no step
               // uses while this one is live, or a donated input whose last reader
               // writes this one in place (the memory plan, compiler/Planning/BufferPlan.h)
};

struct BufferDesc {
  std::string name;  // "arg0", "%3", "twiddles_4096": for messages and dumps
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;
  BufferRole role = BufferRole::kTemporary;
  int view_of = -1;  // kView: the buffer whose bytes it shares (not a view); kAlias: the
                     // temporary that lends them
  int64_t view_offset = 0;  // kView: where its bytes start in view_of's (a contiguous slice)
  int constant = -1; // kConstant: index into Program::constants
  /// kInput: the caller gives its bytes to the run (a parameter or optimizer
  /// state it replaces with a result): the step that reads it last may write
  /// a result over it in place. Its contents after a run are unspecified.
  bool donated = false;
  int64_t bytes() const;
  int64_t elements() const;
  /// Whether its byte size is at most kMaxBufferBytes (bytes() and
  /// elements() are meaningful only then).
  bool size_fits() const;
};

/// The largest buffer a Program may describe: sizes stay exact in int64.
constexpr int64_t kMaxBufferBytes = int64_t(1) << 62;

/// One kernel: the instantiation unit a Device compiles, and what it computes.
struct KernelDesc {
  KernelSource source;      // unit + entry
  std::string ops;          // the ops it computes, "spectral.fft (graph.mlir:4:8), ..."
  int64_t bytes_read = 0;   // bytes of its arguments read per launch, for reports
  int64_t bytes_written = 0;
  int64_t flops = 0;        // floating-point operations per launch (nominal), for reports
  /// Code compiled ahead of time per GPU architecture (spectral-compile
  /// --target): a CUDA device loads the one that fits it, else compiles `source`.
  std::vector<KernelBinary> binaries;
};

/// A launch argument: a buffer's device address or a scalar.
struct StepArg {
  enum class Kind : uint8_t { kBuffer, kInt32, kInt64, kFloat64 };
  Kind kind = Kind::kBuffer;
  int buffer = -1;
  int64_t integer = 0;
  double real = 0;

  static StepArg of_buffer(int id) { return {Kind::kBuffer, id, 0, 0}; }
  static StepArg i32(int64_t v) { return {Kind::kInt32, -1, v, 0}; }
  static StepArg i64(int64_t v) { return {Kind::kInt64, -1, v, 0}; }
  static StepArg f64(double v) { return {Kind::kFloat64, -1, 0, v}; }
};

struct Step {
  enum class Kind : uint8_t {
    kLaunch,  // kernel over grid x block with args
    kCopy,    // bytes of buffer `source` to buffer `target` (device to device)
    kZero,    // buffer `target` set to zero bytes
  };
  Kind kind = Kind::kLaunch;
  int kernel = -1;
  Dim3 grid, block;
  uint32_t shared_bytes = 0;
  std::vector<StepArg> args;
  int source = -1, target = -1;
  /// A launch that reports bad indices: this buffer (one u64, zeroed before the
  /// launch) ends non-zero as ~(the lowest bad position) - sparse.cuh's error word.
  int error_word = -1;
  /// The op the step computes with its location, named by run-time errors.
  std::string op;
  /// What an error word means: "index out of range" with the position appended.
  std::string error_message;
  /// Pairs (read, written) of indices into `args`: buffers the launch reads
  /// and writes element by element (element i written only by the thread
  /// that read element i, after reading it, and read nowhere else in the
  /// launch), so the written one may take the read one's storage.
  std::vector<std::pair<int, int>> in_place;
  /// 2 or more: this launch and the next step (a launch) may run part by
  /// part: both grids are 1-D and split into `chain_parts` equal ranges of
  /// blocks, and part p of the next launch touches nothing that other parts
  /// of this one write, and writes nothing they read (a four-step FFT's two
  /// passes, a part per line). The host device runs each part of both on one
  /// core while the part's data is in its cache; a GPU runs the launches one
  /// after the other. 0: none.
  uint32_t chain_parts = 0;
  /// With chain_parts: a temporary only the chain uses, part by part (the
  /// four-step's intermediate): part p of both launches touches only its
  /// p-th slice of bytes, each launch passes it once, and what it holds
  /// after the chain is unspecified (a later step writes it before reading).
  /// The host gives each thread a slice-sized buffer instead, which stays in
  /// its core's cache. -1: none.
  int chain_local = -1;
};

struct Program {
  std::string function;  // the source function's name
  std::vector<BufferDesc> buffers;
  std::vector<std::vector<uint8_t>> constants;
  std::vector<KernelDesc> kernels;
  std::vector<Step> steps;
  std::vector<int> inputs;   // buffer ids of the arguments, in order
  std::vector<int> outputs;  // buffer ids of the results, in order (may repeat, or be inputs)

  /// The buffer whose storage `id` uses (itself unless a view or alias).
  int storage_of(int id) const;
  /// Checks ids, roles, view targets, constant sizes and step arguments; the
  /// error names the step or buffer. The executor refuses a Program that fails.
  Status validate() const;
  /// Bytes moved per run: what the launches read and write, plus copies.
  int64_t bytes_moved() const;
  /// Floating-point operations per run (the launches' nominal counts).
  int64_t flops() const;
  /// Device memory the buffers hold: every storage buffer once.
  int64_t storage_bytes() const;
};

}  // namespace spectral
