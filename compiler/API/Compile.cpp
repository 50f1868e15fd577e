//===- Compile.cpp - spectral::compile: a Graph to a loaded Model ---------===//
#include "compiler/API/GraphState.h"

#include "compiler/Fusion/Passes.h"
#include "compiler/Pipelines/Pipelines.h"
#include "runtime/program/kernel_dump.h"
#include "runtime/program/model.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include <mutex>

using namespace mlir;

namespace spectral {
namespace {

/// The passes a pipeline may name, as spectral-opt registers them (once per process).
void registerPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerTransformsPasses();
    registerPipelines();
    registerFusionPasses();
  });
}

} // namespace

StatusOr<Model> compile(const Graph &graph, const CompileOptions &options) {
  Graph::State &s = GraphAccess::state(graph);
  if (!s.first_error.is_ok()) return s.first_error;
  if (!s.finished)
    return Status::error("@" + s.function + ": the graph has no results yet (call output())");
  // Passes rewrite the module in place: compile a copy, so the graph stays as built.
  OwningOpRef<ModuleOp> module = s.module->clone();
  DiagnosticCapture capture(*s.context);
  JitOptions jit;
  jit.function = s.function;
  jit.simplify = options.simplify;
  jit.fuse = options.fuse;
  jit.reuseBuffers = options.reuse_buffers;
  if (!options.pass_pipeline.empty()) {
    registerPasses();
    PassManager pm(s.context.get());
    std::string errors;
    llvm::raw_string_ostream os(errors);
    if (failed(parsePassPipeline(options.pass_pipeline, pm, os)))
      return Status::error("pass pipeline '" + options.pass_pipeline + "': " + errors);
    if (failed(pm.run(*module)))
      return Status::error(capture.take("pass pipeline '" + options.pass_pipeline + "' failed"));
    jit.simplify = jit.fuse = false;
  }
  llvm::Expected<Program> program = compileProgram(*module, jit);
  if (!program) {
    std::string message = llvm::toString(program.takeError());
    std::string diagnostics = capture.take("");
    return Status::error(diagnostics.empty() ? message : diagnostics + "\n" + message);
  }
  if (!options.dump_dir.empty()) {
    StatusOr<std::string> dumped = dump_kernels(*program, {options.dump_dir, options.dump_arch});
    if (!dumped) return dumped.status();
  }
  Artifact artifact;
  artifact.program = std::move(*program);
  artifact.producer = "spectral " SPECTRAL_VERSION;
  artifact.graph = graph.str();
  artifact.graph_name = s.graph_name.empty() ? "@" + s.function : s.graph_name;
  return make_model(std::move(artifact), options.device);
}

} // namespace spectral
