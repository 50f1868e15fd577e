//===- Autodiff.cpp - reverse-mode differentiation of a loss function -----===//
//
// The gradient function is the forward function's body followed by its
// backward pass: walking the ops in reverse, each op that lies between the
// differentiated arguments and the loss (varied by the one, used by the
// other) turns the gradients of its results into those of its operands
// through its DifferentiableOpInterface rule, and gradients reaching a value
// along several uses are added. Values the loss does not depend on, or that
// do not depend on the arguments, get no backward ops at all; integer and
// boolean values (indices, labels, comparisons) never carry a gradient.
//
//===----------------------------------------------------------------------===//
#include "compiler/Autodiff/Passes.h"

#include "dialects/spectral/IR/SpectralOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace spectral {

#define GEN_PASS_DEF_AUTODIFF
#include "compiler/Autodiff/Passes.h.inc"

using namespace mlir;
namespace sp = mlir::spectral;

namespace {

bool isFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && (isa<FloatType>(tensor.getElementType()) ||
                    isa<ComplexType>(tensor.getElementType()));
}

/// The arguments to differentiate: `wrt`, checked, or every float argument.
FailureOr<SmallVector<unsigned>> chooseArguments(func::FuncOp forward, ArrayRef<unsigned> wrt) {
  SmallVector<unsigned> chosen;
  const unsigned count = forward.getNumArguments();
  if (wrt.empty()) {
    for (unsigned i = 0; i < count; ++i)
      if (isFloatTensor(forward.getArgument(i).getType())) chosen.push_back(i);
    return chosen;
  }
  for (unsigned i : wrt) {
    if (i >= count)
      return forward.emitError() << "cannot differentiate with respect to argument #" << i
                                 << ": @" << forward.getSymName() << " has " << count
                                 << " arguments";
    if (llvm::is_contained(chosen, i))
      return forward.emitError() << "argument #" << i << " is listed twice in wrt";
    Type type = forward.getArgument(i).getType();
    if (!isFloatTensor(type))
      return forward.emitError() << "argument #" << i << " (" << type
                                 << ") is not differentiable: only float and complex "
                                    "tensors have gradients";
    chosen.push_back(i);
  }
  return chosen;
}

/// Builds the backward pass of `grad` (a copy of the forward function) before
/// its return: the gradients of `arguments`, or failure with a diagnostic.
FailureOr<SmallVector<Value>> backward(func::FuncOp grad, ArrayRef<unsigned> arguments) {
  Block &body = grad.front();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  Value loss = ret.getOperand(0);

  // Varied: depends on a differentiated argument (through float values).
  llvm::DenseSet<Value> varied;
  for (unsigned i : arguments) varied.insert(grad.getArgument(i));
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator()) {
    ops.push_back(&op);
    if (llvm::any_of(op.getOperands(), [&](Value v) { return varied.contains(v); }))
      for (Value result : op.getResults())
        if (isFloatTensor(result.getType())) varied.insert(result);
  }
  // Useful: the loss depends on it.
  llvm::DenseSet<Value> useful{loss};
  for (Operation *op : llvm::reverse(ops))
    if (llvm::any_of(op->getResults(), [&](Value v) { return useful.contains(v); }))
      for (Value operand : op->getOperands()) useful.insert(operand);
  auto active = [&](Value v) { return varied.contains(v) && useful.contains(v); };
  for (Operation *op : ops)
    if (op->getNumRegions() != 0 && llvm::any_of(op->getResults(), active))
      return op->emitError("cannot differentiate through '")
             << op->getName() << "': it has regions (differentiate before spectral-fuse)";

  OpBuilder b(ret);
  llvm::DenseMap<Value, Value> gradients;
  if (active(loss)) gradients[loss] = splatConstant(b, loss.getLoc(), loss.getType(), 1.0);
  for (Operation *op : llvm::reverse(ops)) {
    if (llvm::none_of(op->getResults(), [&](Value v) { return gradients.count(v); }) ||
        llvm::none_of(op->getOperands(), active))
      continue;
    auto differentiable = dyn_cast<sp::DifferentiableOpInterface>(op);
    if (!differentiable)
      return op->emitError("'") << op->getName()
                                << "' has no gradient rule, and the loss depends on the "
                                   "differentiated arguments through it";
    SmallVector<Value> resultGradients;
    for (Value result : op->getResults()) {
      Value g = gradients.lookup(result);
      resultGradients.push_back(g ? g : splatConstant(b, op->getLoc(), result.getType(), 0.0));
    }
    SmallVector<Value> operandGradients;
    if (failed(differentiable.buildGradients(b, resultGradients, operandGradients)))
      return failure();
    if (operandGradients.size() != op->getNumOperands())
      return op->emitError("internal error: the gradient rule of '")
             << op->getName() << "' gave " << operandGradients.size() << " gradients for "
             << op->getNumOperands() << " operands";
    for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
      if (!active(operand)) continue;
      Value g = operandGradients[i];
      if (!g)
        return op->emitError("operand #")
               << i << " of '" << op->getName()
               << "' has no gradient, and the loss depends on the differentiated arguments "
                  "through it";
      if (g.getType() != operand.getType())
        return op->emitError("internal error: the gradient rule of '")
               << op->getName() << "' gave " << g.getType() << " for operand #" << i << " of "
               << operand.getType();
      Value &sum = gradients[operand];
      sum = sum ? b.create<sp::AddOp>(op->getLoc(), sum, g).getResult() : g;
    }
  }

  SmallVector<Value> results;
  for (unsigned i : arguments) {
    Value argument = grad.getArgument(i);
    Value g = gradients.lookup(argument);
    results.push_back(g ? g : splatConstant(b, grad.getLoc(), argument.getType(), 0.0));
  }
  return results;
}

/// Erases the ops of `function` whose results nobody uses (the gradient
/// rules build some for operands that need none).
void eraseDeadOps(func::FuncOp function) {
  SmallVector<Operation *> ops;
  for (Operation &op : function.front().without_terminator()) ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    if (op->use_empty() && isMemoryEffectFree(op)) op->erase();
}

} // namespace

Value splatConstant(OpBuilder &b, Location loc, Type type, double value) {
  auto tensor = cast<RankedTensorType>(type);
  return b.create<sp::ConstantOp>(loc, tensor,
                                  cast<ElementsAttr>(sp::constantElements(tensor, {value})));
}

void replaceResults(func::FuncOp function, ArrayRef<Value> values) {
  auto ret = cast<func::ReturnOp>(function.front().getTerminator());
  OpBuilder b(ret);
  b.create<func::ReturnOp>(ret.getLoc(), values);
  ret.erase();
  // The first result keeps its attributes (the loss's); the others have none.
  SmallVector<DictionaryAttr> attributes(values.size(), b.getDictionaryAttr({}));
  if (DictionaryAttr first = function.getResultAttrDict(0)) attributes[0] = first;
  function.setFunctionType(
      b.getFunctionType(function.getArgumentTypes(), ValueRange(values).getTypes()));
  function.setAllResultAttrs(attributes);
}

FailureOr<func::FuncOp> differentiate(func::FuncOp forward, ArrayRef<unsigned> wrt,
                                      StringRef name) {
  if (forward.isExternal())
    return forward.emitError("cannot differentiate a function without a body");
  if (!forward.getBody().hasOneBlock())
    return forward.emitError("cannot differentiate @")
           << forward.getSymName() << ": its body has more than one block";
  auto results = forward.getFunctionType().getResults();
  auto lossType = results.size() == 1 ? dyn_cast<RankedTensorType>(results[0]) : nullptr;
  if (!lossType || lossType.getRank() != 0 || !isa<FloatType>(lossType.getElementType())) {
    InFlightDiagnostic error = forward.emitError("cannot differentiate @");
    error << forward.getSymName()
          << ": it must return one real scalar (the loss, tensor<f32> or tensor<f64>), it returns ";
    if (results.size() == 1)
      error << results[0];
    else
      error << results.size() << " results";
    return error;
  }
  auto module = forward->getParentOfType<ModuleOp>();
  if (module && module.lookupSymbol(name))
    return forward.emitError("cannot add the gradient function @")
           << name << ": the module has a symbol of that name";
  FailureOr<SmallVector<unsigned>> arguments = chooseArguments(forward, wrt);
  if (failed(arguments)) return failure();

  func::FuncOp grad = forward.clone();
  grad.setName(name);
  if (module) {
    module.insert(std::next(Block::iterator(forward)), grad);
  }
  FailureOr<SmallVector<Value>> gradients = backward(grad, *arguments);
  if (failed(gradients)) {
    grad.erase();
    return failure();
  }
  auto ret = cast<func::ReturnOp>(grad.front().getTerminator());
  SmallVector<Value> values{ret.getOperand(0)};
  values.append(gradients->begin(), gradients->end());
  replaceResults(grad, values);
  eraseDeadOps(grad);
  return grad;
}

namespace {

struct Autodiff : impl::AutodiffBase<Autodiff> {
  using AutodiffBase::AutodiffBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto forward = module.lookupSymbol<func::FuncOp>(function);
    if (!forward) {
      module.emitError("spectral-autodiff: no function @") << function;
      return signalPassFailure();
    }
    std::string gradName = name.empty() ? function + "_grad" : std::string(name);
    SmallVector<unsigned> arguments(wrt.begin(), wrt.end());
    if (failed(differentiate(forward, arguments, gradName))) signalPassFailure();
  }
};

} // namespace

} // namespace spectral
