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
    (DifferentiableOpInterface); an op without one, or a dependence through
    an index or a label, is an error at the op. Complex gradients follow the
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

#endif // SPECTRAL_AUTODIFF_PASSES
