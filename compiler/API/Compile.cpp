//===- Compile.cpp - spectral::compile: a Graph to a loaded Model ---------===//
#include "compiler/API/GraphState.h"

#include "runtime/program/kernel_dump.h"
#include "runtime/program/model.h"
#include "runtime/program/prebuilt.h"

using namespace mlir;

namespace spectral {

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
  jit.passPipeline = options.pass_pipeline;
  StatusOr<std::vector<std::string>> archs = gpu_targets(options.targets);
  if (!archs) return archs.status();
  llvm::Expected<Program> program = compileProgram(*module, jit);
  if (!program) {
    std::string message = llvm::toString(program.takeError());
    std::string diagnostics = capture.take("");
    return Status::error(diagnostics.empty() ? message : diagnostics + "\n" + message);
  }
  if (Status built = embed_binaries(*program, *archs); !built) return built;
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
