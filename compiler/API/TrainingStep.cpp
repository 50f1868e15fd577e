//===- TrainingStep.cpp - spectral::training_step: a loss graph to its step ===//
#include "compiler/API/GraphState.h"
#include "compiler/Autodiff/Passes.h"
#include "compiler/Pipelines/Pipelines.h"

#include "mlir/Pass/PassManager.h"

using namespace mlir;

namespace spectral {

Expected<Graph> training_step(const Graph &loss, const std::vector<int> &params,
                              const TrainOptions &options) {
  Graph::State &source = GraphAccess::state(loss);
  if (!source.first_error.is_ok()) return source.first_error;
  if (!source.finished)
    return Status::error("@" + source.function + ": the graph has no results yet (call output())");
  // A copy of the loss graph in a context of its own, then the step beside it.
  Expected<Graph> copy = Graph::parse(loss.str(),
                                      source.graph_name.empty() ? "@" + source.function
                                                                : source.graph_name,
                                      source.function);
  if (!copy) return copy.status();
  Graph::State &s = GraphAccess::state(*copy);
  OptimizerOptions optimizer;
  optimizer.optimizer = options.optimizer == TrainOptions::Optimizer::kSgd
                            ? OptimizerOptions::Optimizer::kSgd
                        : options.optimizer == TrainOptions::Optimizer::kAdam
                            ? OptimizerOptions::Optimizer::kAdam
                            : OptimizerOptions::Optimizer::kAdamW;
  optimizer.momentum = options.momentum;
  optimizer.nesterov = options.nesterov;
  optimizer.beta1 = options.beta1;
  optimizer.beta2 = options.beta2;
  optimizer.eps = options.eps;
  optimizer.weightDecay = options.weight_decay;
  optimizer.clip = options.clip_norm;
  SmallVector<unsigned> chosen;
  for (int p : params) {
    if (p < 0)
      return Status::error("@" + s.function + ": parameter " + std::to_string(p) +
                           " is not an input number");
    chosen.push_back(unsigned(p));
  }
  DiagnosticCapture capture(*s.context);
  // Simplified first: the backward pass of the cheap form is cheap too (a
  // sum over patterns of x times a pattern is x times the summed pattern).
  PassManager simplify(s.context.get());
  addSimplifyPipeline(simplify);
  if (failed(simplify.run(*s.module)))
    return Status::error(capture.take("@" + s.function + ": spectral-simplify failed"));
  const std::string name = s.function + "_step";
  FailureOr<func::FuncOp> step = trainStep(s.func, chosen, optimizer, name);
  if (failed(step)) return Status::error(capture.take("@" + s.function + ": no training step"));
  s.func.erase();
  s.func = *step;
  s.function = name;
  return copy;
}

} // namespace spectral
