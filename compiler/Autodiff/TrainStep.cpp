//===- TrainStep.cpp - one training step of a loss function ---------------===//
//
// The step function is the gradient function (Autodiff.cpp) with the
// optimizer's inputs appended to its arguments and its gradients replaced by
// the updates they drive: optionally clipped to a global norm together, then
// one sgd_step or adam_step per parameter, each taking the learning rate as
// data (lr_from). Parameters and optimizer state are donated, so the memory
// plan writes every update over the tensor it replaces, and the updates of
// all parameters share one launch (spectral-fuse; not plain SGD, whose
// zero velocities are constants a shared launch does not read).
//
//===----------------------------------------------------------------------===//
#include "compiler/Autodiff/Passes.h"

#include "dialects/spectral/IR/SpectralOps.h"

#include "mlir/IR/Builders.h"

namespace spectral {

#define GEN_PASS_DEF_TRAINSTEP
#include "compiler/Autodiff/Passes.h.inc"

using namespace mlir;
namespace sp = mlir::spectral;

namespace {

/// The real counterpart of a parameter's type (Adam's second moment).
Type realType(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  return RankedTensorType::get(tensor.getShape(), sp::realElementType(tensor.getElementType()));
}

} // namespace

FailureOr<func::FuncOp> trainStep(func::FuncOp forward, ArrayRef<unsigned> params,
                                  const OptimizerOptions &options, StringRef name) {
  if (params.empty())
    return forward.emitError("a training step needs parameters: list their argument numbers");
  FailureOr<func::FuncOp> differentiated = differentiate(forward, params, name);
  if (failed(differentiated)) return failure();
  func::FuncOp step = *differentiated;
  using Optimizer = OptimizerOptions::Optimizer;
  const bool adam = options.optimizer != Optimizer::kSgd;
  const bool velocity = !adam && options.momentum != 0;
  Location loc = step.getLoc();
  OpBuilder b(step.getContext());

  // The optimizer's arguments: lr, the state of each parameter, the step count.
  auto ret = cast<func::ReturnOp>(step.front().getTerminator());
  Type lossType = ret.getOperand(0).getType();
  auto append = [&](Type type, bool donated) -> Value {
    const unsigned index = step.getNumArguments();
    step.insertArgument(index, type, {}, loc);
    if (donated) step.setArgAttr(index, "spectral.donated", b.getUnitAttr());
    return step.getArgument(index);
  };
  Value lr = append(lossType, false);
  std::vector<std::vector<Value>> states(params.size());
  for (auto [k, p] : llvm::enumerate(params)) {
    Type type = step.getArgument(p).getType();
    step.setArgAttr(p, "spectral.donated", b.getUnitAttr());
    if (adam) {
      states[k].push_back(append(type, true));
      states[k].push_back(append(realType(type), true));
    } else if (velocity) {
      states[k].push_back(append(type, true));
    }
  }
  Value count = adam ? append(RankedTensorType::get({}, b.getI64Type()), false) : Value();

  b.setInsertionPoint(ret);
  SmallVector<Value> gradients(ret.getOperands().drop_front());
  Value norm;
  if (options.clip > 0) {
    auto clipped = b.create<sp::ClipGlobalNormOp>(loc, gradients, b.getF64FloatAttr(options.clip));
    gradients.assign(clipped.getResults().begin(), clipped.getResults().end());
    norm = clipped.getNorm();
  }
  SmallVector<Value> results{ret.getOperand(0)}, newStates;
  for (auto [k, p] : llvm::enumerate(params)) {
    Value param = step.getArgument(p), grad = gradients[k];
    if (adam) {
      auto update = b.create<sp::AdamStepOp>(
          loc, param, grad, states[k][0], states[k][1], count, lr, FloatAttr(),
          b.getF64FloatAttr(options.beta1), b.getF64FloatAttr(options.beta2),
          b.getF64FloatAttr(options.eps), b.getF64FloatAttr(options.weightDecay),
          options.optimizer == Optimizer::kAdamW ? b.getUnitAttr() : UnitAttr());
      results.push_back(update.getNewParam());
      newStates.push_back(update.getNewM());
      newStates.push_back(update.getNewV());
    } else {
      Value v = velocity ? states[k][0] : splatConstant(b, loc, param.getType(), 0.0);
      auto update = b.create<sp::SgdStepOp>(
          loc, param, grad, v, lr, FloatAttr(), b.getF64FloatAttr(options.momentum),
          b.getF64FloatAttr(options.weightDecay), options.nesterov ? b.getUnitAttr() : UnitAttr());
      results.push_back(update.getNewParam());
      if (velocity) newStates.push_back(update.getNewVelocity());
    }
  }
  results.append(newStates.begin(), newStates.end());
  if (norm) results.push_back(norm);
  replaceResults(step, results);
  return step;
}

namespace {

struct TrainStep : impl::TrainStepBase<TrainStep> {
  using TrainStepBase::TrainStepBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto forward = module.lookupSymbol<func::FuncOp>(function);
    if (!forward) {
      module.emitError("spectral-train-step: no function @") << function;
      return signalPassFailure();
    }
    OptimizerOptions options;
    if (optimizer == "sgd") {
      options.optimizer = OptimizerOptions::Optimizer::kSgd;
    } else if (optimizer == "adam") {
      options.optimizer = OptimizerOptions::Optimizer::kAdam;
    } else if (optimizer == "adamw") {
      options.optimizer = OptimizerOptions::Optimizer::kAdamW;
    } else {
      module.emitError("spectral-train-step: unknown optimizer '")
          << optimizer << "' (sgd, adam or adamw)";
      return signalPassFailure();
    }
    options.momentum = momentum;
    options.nesterov = nesterov;
    options.beta1 = beta1;
    options.beta2 = beta2;
    options.eps = eps;
    options.weightDecay = weightDecay;
    options.clip = clip;
    std::string stepName = name.empty() ? function + "_step" : std::string(name);
    SmallVector<unsigned> chosen(params.begin(), params.end());
    if (failed(trainStep(forward, chosen, options, stepName))) signalPassFailure();
  }
};

} // namespace

} // namespace spectral
