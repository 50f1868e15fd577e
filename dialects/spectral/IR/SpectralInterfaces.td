//===- SpectralInterfaces.td - interfaces of spectral ops -----*- tablegen -*-===//
#ifndef SPECTRAL_INTERFACES_TD
#define SPECTRAL_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Spectral_DifferentiableOpInterface : OpInterface<"DifferentiableOpInterface"> {
  let cppNamespace = "::mlir::spectral";
  let description = [{
    An op with a vector-Jacobian rule (SpectralGradients.cpp): reverse-mode
    differentiation (compiler/Autodiff, spectral-autodiff) asks it for the
    gradients of its operands given the gradients of its results.

    Gradients are those of a real-valued loss L. For a complex value z = x + iy
    the gradient is dL/dx + i dL/dy (PyTorch's and JAX's convention for real
    losses: a descent step is z - lr * gradient), and a real value's is dL/dx.
  }];
  let methods = [
    InterfaceMethod<[{
        Appends one gradient per operand, of the operand's type, computed from
        `resultGradients` (one per result, of the result's type, zeros for a
        result the loss does not use) with ops built at `builder`'s insertion
        point; a null Value for an operand that has no gradient (an index, a
        label, a condition). Fails, with a diagnostic at the op, for operands
        whose gradient is not defined here.
      }],
      "::mlir::LogicalResult", "buildGradients",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::ValueRange":$resultGradients,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandGradients)>
  ];
}

#endif // SPECTRAL_INTERFACES_TD
