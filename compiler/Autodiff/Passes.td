//===- Passes.td - reverse-mode differentiation ---------------*- tablegen -*-===//
#ifndef SPECTRAL_AUTODIFF_PASSES
#define SPECTRAL_AUTODIFF_PASSES

include "mlir/Pass/PassBase.td"

def Autodiff : Pass<"spectral-autodiff", "mlir::ModuleOp"> {
  let summary = "Add the gradient function of a loss function (reverse mode)";
  let description = [{
    For `function` (returning one real scalar: the loss), adds a function
    `<function>_grad` (or `name`) with the same arguments that returns the
    loss and the gradients of the arguments listed in `wrt` (all float and
    complex arguments when empty), each of its argument's type. Every op the
    loss depends on through those arguments must have a gradient rule
    (DifferentiableOpInterface); an op without one is an error at the op.
    Integer and boolean values (indices, labels, comparisons, casts to
    integers) carry no gradient: what the loss depends on through them is
    piecewise constant, and counts as zero. Complex gradients follow the
    convention for real losses of PyTorch and JAX (dL/dRe + i dL/dIm).
  }];
  let options = [
    Option<"function", "function", "std::string", /*default=*/"\"main\"",
           "The loss function to differentiate">,
    ListOption<"wrt", "wrt", "unsigned",
               "Argument numbers to differentiate with respect to (default: every "
               "float or complex argument)">,
    Option<"name", "name", "std::string", /*default=*/"\"\"",
           "Name of the gradient function (default: <function>_grad)">
  ];
  let dependentDialects = ["mlir::spectral::SpectralDialect"];
}

def TrainStep : Pass<"spectral-train-step", "mlir::ModuleOp"> {
  let summary = "Add one training step of a loss function: gradients, clipping, update";
  let description = [{
    For `function` (returning one real scalar: the loss) and its parameter
    arguments `params`, adds `<function>_step` (or `name`): the function's
    arguments, then the learning rate (a 0-d tensor of the loss's type: a
    schedule is the caller's), then the optimizer state of each parameter in
    order (sgd with momentum: its velocity; adam and adamw: m, then v of the
    parameter's real type), then for adam and adamw the 1-based step count
    (tensor<i64>). It returns the loss, the new parameters, then the new
    state in the same order, and with `clip` the global gradient norm before
    clipping. Parameters and state are donated: the update writes over them.
  }];
  let options = [
    Option<"function", "function", "std::string", /*default=*/"\"main\"",
           "The loss function">,
    ListOption<"params", "params", "unsigned",
               "Argument numbers of the parameters to train (required)">,
    Option<"optimizer", "optimizer", "std::string", /*default=*/"\"adam\"",
           "sgd, adam or adamw">,
    Option<"momentum", "momentum", "double", /*default=*/"0.0", "SGD momentum">,
    Option<"nesterov", "nesterov", "bool", /*default=*/"false", "SGD Nesterov momentum">,
    Option<"beta1", "beta1", "double", /*default=*/"0.9", "Adam beta1">,
    Option<"beta2", "beta2", "double", /*default=*/"0.999", "Adam beta2">,
    Option<"eps", "eps", "double", /*default=*/"1e-8", "Adam epsilon">,
    Option<"weightDecay", "weight-decay", "double", /*default=*/"0.0",
           "Weight decay (decoupled for adamw)">,
    Option<"clip", "clip", "double", /*default=*/"0.0",
           "Clip the gradients to this global L2 norm (0: no clipping)">,
    Option<"name", "name", "std::string", /*default=*/"\"\"",
           "Name of the step function (default: <function>_step)">
  ];
  let dependentDialects = ["mlir::spectral::SpectralDialect"];
}

#endif // SPECTRAL_AUTODIFF_PASSES
