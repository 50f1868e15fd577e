// CodegenTestUtil.h - graphs through codegen on the host device, checked
// against the reference evaluator.
#pragma once

#include "runtime/device/cuda/nvrtc_compiler.h"
#include "runtime/device/device.h"
#include "runtime/program/executor.h"

#include <map>
#include <string>
#include <vector>

namespace spectral::testing {

/// "tensor<4x8xcomplex<f32>>" ("tensor<f32>" for rank 0).
std::string tensorType(const std::vector<int64_t> &shape, const std::string &element);

/// func.func @main(ARGS) -> (RESULTS) { %r:N = BODY; return %r#0, ... }.
std::string graph(const std::string &args, const std::vector<std::string> &results,
                  const std::string &body);
/// The same with one result.
std::string graph(const std::string &args, const std::string &result, const std::string &body);

/// func @main(%p, %q, ...) -> RESULTS { %0 = spectral.fusion %p, %q, ... { BODY } }:
/// a region over the arguments, named %a, %b, ... inside (at most eight).
std::string fusion(const std::vector<std::string> &args, const std::vector<std::string> &results,
                   const std::string &body);

/// The process's host device.
Device &hostDevice();

/// Arguments of @main of `source`, random: floats and complex parts uniform
/// in [-1, 1) (exact in the argument's precision), integers in [0, 10), i1
/// random.
std::vector<HostTensor> randomInputs(const std::string &source, uint64_t seed = 1);

/// Compiles @main of `source` (without simplification, so the ops written
/// are the ops compiled), runs it on the host device on `inputs` (random
/// when empty) and expects every result to agree with the reference
/// evaluator: relative to max|ref| within `tolerance` (0: 1e-4 for 32-bit
/// results, 1e-10 for 64-bit), NaN where the reference has NaN, integers
/// exactly. Returns the number of kernels the program launched.
int expectMatchesReference(const std::string &source, std::vector<HostTensor> inputs = {},
                           double tolerance = 0);

/// The error text of compiling and running @main of `source` on `inputs`
/// (random when empty); empty when it succeeds.
std::string runError(const std::string &source, std::vector<HostTensor> inputs = {});

/// Compiles @main of `source` as runError does, for `device`, and runs it on
/// `inputs` into `outputs`: the error text, empty when it succeeds.
std::string runOn(const std::string &source, Device &device, const std::vector<HostTensor> &inputs,
                  std::vector<HostTensor> *outputs);

/// Compiles @main of each source as runError does and runs it on two host
/// devices of their own, with no checks whatever the environment says: one
/// phased (host_emulation.h, "Phased kernels"), one with every CUDA thread a
/// fiber, on the same random inputs. Every result must be the same bytes,
/// and the kernels of each source must include `phased` phased units. With
/// `emptyEvery` > 0, every emptyEvery-th entry of each integer input (from
/// the second) is -1: an empty slot of a sparse operand or a gather.
void expectPhasedMatchesFibers(const std::vector<std::string> &sources, int phased = 1,
                               int emptyEvery = 0);

/// KERNELS.md's static gate for generated kernels: compiles every kernel of
/// @main of each source (without simplification) with NVRTC to CUBIN (and
/// PTX) for `arch` and expects no spill stores or loads and registers that
/// leave room for two blocks of the largest block the kernel is launched
/// with. Returns the compiled kernels by entry name, for further checks.
std::map<std::string, CompiledKernel> expectCleanCubins(const std::vector<std::string> &sources,
                                                        const std::string &arch);

/// How many of `compiled` have a fused prologue or epilogue (their entry
/// names carry "_Lpro" or "_Sepi").
int fusedUnits(const std::map<std::string, CompiledKernel> &compiled);

} // namespace spectral::testing
