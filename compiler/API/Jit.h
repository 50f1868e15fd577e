//===- Jit.h - one call from a .mlir func to a loaded Executable -*- C++ -*-===//
//
// Parse (or take a module), simplify (spectral-simplify), fuse (spectral-fuse),
// codegen, plan buffers (compiler/Planning/BufferPlan.h), load on a Device. The tools use it, and the embedding API will. Errors are values
// with the messages the tools print (file:line:col where a location exists).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/program/executor.h"
#include "runtime/program/program.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace spectral {

struct JitOptions {
  std::string function = "main";
  bool simplify = true;  // run spectral-simplify before codegen
  bool fuse = true;      // then spectral-fuse: ops into spectral.fusion regions
  bool fusionRemarks = false;  // spectral-fuse remarks on unfused pairs (to the diagnostics)
  bool reuseBuffers = true;    // temporaries share storage when their lives do not meet
  int compileThreads = 0;  // parallel kernel compiles at load (0: hardware threads)
  /// An MLIR pass pipeline run instead of simplify and fuse (for experiments):
  /// "builtin.module(func.func(spectral-fuse))". Any pass spectral-opt has.
  std::string passPipeline;
};

/// A context with the dialects graphs use (spectral, func, arith) loaded.
std::unique_ptr<mlir::MLIRContext> createContext();

/// Parses `path`; the parser's diagnostics go to stderr with file:line:col.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>> parseFile(mlir::MLIRContext &context,
                                                            const std::string &path);

/// The Program of `options.function` in `module` (simplified and fused in
/// place first, as options say), its temporaries planned.
llvm::Expected<Program> compileProgram(mlir::ModuleOp module, const JitOptions &options);

/// compileProgram, then Executable::load on `device`.
llvm::Expected<std::unique_ptr<Executable>> jitCompile(mlir::ModuleOp module, Device &device,
                                                       const JitOptions &options,
                                                       LoadStats *stats = nullptr);

} // namespace spectral
