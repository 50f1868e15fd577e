//===- Evaluator.cpp - reference evaluator: tensors and the walk ----------===//
#include "compiler/Reference/Evaluator.h"
#include "compiler/Reference/EvaluatorInternal.h"

#include "dialects/spectral/IR/SpectralOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <new>

using namespace mlir;
namespace sp = mlir::spectral;

namespace spectral::reference {

const char *elementKindName(ElementKind kind) {
  switch (kind) {
  case ElementKind::I1: return "i1";
  case ElementKind::I32: return "i32";
  case ElementKind::I64: return "i64";
  case ElementKind::F32: return "f32";
  case ElementKind::F64: return "f64";
  case ElementKind::C64: return "complex<f32>";
  case ElementKind::C128: return "complex<f64>";
  }
  return "?";
}

bool isComplexKind(ElementKind kind) {
  return kind == ElementKind::C64 || kind == ElementKind::C128;
}

bool isIntegerKind(ElementKind kind) {
  return kind == ElementKind::I1 || kind == ElementKind::I32 ||
         kind == ElementKind::I64;
}

llvm::Expected<ElementKind> elementKindOf(Type type) {
  if (type.isF32()) return ElementKind::F32;
  if (type.isF64()) return ElementKind::F64;
  if (type.isInteger(1)) return ElementKind::I1;
  if (type.isInteger(32)) return ElementKind::I32;
  if (type.isInteger(64)) return ElementKind::I64;
  if (auto complex = dyn_cast<ComplexType>(type)) {
    if (complex.getElementType().isF32()) return ElementKind::C64;
    if (complex.getElementType().isF64()) return ElementKind::C128;
  }
  std::string name;
  llvm::raw_string_ostream(name) << type;
  return llvm::createStringError("element type " + name +
                                 " is not supported by the reference evaluator");
}

std::string Tensor::typeString() const {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + elementKindName(kind) + ">";
}

llvm::Error checkMatches(const Tensor &tensor, Type type, const std::string &what) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked || !ranked.hasStaticShape())
    return llvm::createStringError(what + " has no static tensor type");
  llvm::Expected<ElementKind> kind = elementKindOf(ranked.getElementType());
  if (!kind)
    return kind.takeError();
  std::vector<int64_t> shape(ranked.getShape().begin(), ranked.getShape().end());
  if (tensor.kind != *kind || tensor.shape != shape) {
    Tensor expected{*kind, shape, {}};
    return llvm::createStringError(what + " must be " + expected.typeString() +
                                   ", got " + tensor.typeString());
  }
  std::optional<int64_t> count = sp::checkedElementCount(shape);
  if (!count || *count > kMaxReferenceElements)
    return llvm::createStringError(
        what + " of type " + tensor.typeString() + " has more than " +
        std::to_string(kMaxReferenceElements) +
        " elements, too many for the reference evaluator");
  // Ops index `data` by the shape: a shorter vector would be read past its end.
  if (tensor.size() != *count)
    return llvm::createStringError(what + " of type " + tensor.typeString() +
                                   " has " + std::to_string(tensor.size()) +
                                   " elements, not " + std::to_string(*count));
  return llvm::Error::success();
}

llvm::Error opError(Operation *op, const llvm::Twine &message) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto file = op->getLoc()->findInstanceOf<FileLineColLoc>())
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn();
  else
    os << op->getLoc();
  os << ": '" << op->getName() << "': " << message;
  return llvm::createStringError(text);
}

llvm::Expected<Tensor> zerosLike(Operation *op, Type type) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked || !ranked.hasStaticShape())
    return opError(op, "result has no static tensor type");
  llvm::Expected<ElementKind> kind = elementKindOf(ranked.getElementType());
  if (!kind)
    return opError(op, llvm::toString(kind.takeError()));
  std::optional<int64_t> count = sp::checkedElementCount(ranked.getShape());
  if (!count || *count > kMaxReferenceElements)
    return opError(op, "result has more than " + llvm::Twine(kMaxReferenceElements) +
                           " elements, too many for the reference evaluator");
  Tensor tensor;
  tensor.kind = *kind;
  tensor.shape.assign(ranked.getShape().begin(), ranked.getShape().end());
  tensor.data.assign(*count, Complex(0.0, 0.0));
  return tensor;
}

std::vector<int64_t> stridesOf(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

Complex roundToKind(ElementKind kind, Complex value) {
  auto wrap = [](double v, double bits) {
    if (!std::isfinite(v)) // no integer; evaluate() reports it
      return v;
    double modulus = std::ldexp(1.0, int(bits));
    double w = std::fmod(std::trunc(v), modulus); // in (-2^bits, 2^bits)
    if (w >= modulus / 2)
      w -= modulus;
    else if (w < -modulus / 2)
      w += modulus;
    return w;
  };
  // Through APFloat (as the folds round), not (double)(float)v: GCC 12 at -O2
  // drops that pair when its SLP vectorizer pairs the two parts of a complex.
  auto toFloat = [](double v) {
    APFloat f(v);
    bool lost = false;
    f.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
    return f.convertToDouble();
  };
  switch (kind) {
  case ElementKind::I1: return value.real() != 0.0 ? 1.0 : 0.0;
  case ElementKind::I32: return wrap(value.real(), 32);
  case ElementKind::I64: return wrap(value.real(), 64);
  case ElementKind::F32: return toFloat(value.real());
  case ElementKind::F64: return value.real();
  case ElementKind::C64: return Complex(toFloat(value.real()), toFloat(value.imag()));
  case ElementKind::C128: return value;
  }
  return value;
}

llvm::Error checkContractionCost(Operation *op, int64_t outputs, int64_t terms) {
  int64_t cost;
  if (!__builtin_mul_overflow(outputs, terms, &cost) && cost <= kMaxReferenceContractionCost)
    return llvm::Error::success();
  return opError(op, "is too large for the reference evaluator: " + llvm::Twine(outputs) +
                         " results of " + llvm::Twine(terms) +
                         " multiply-adds each, more than the 2^34 allowed");
}

Results single(Tensor tensor) {
  std::vector<Tensor> out;
  out.push_back(std::move(tensor));
  return out;
}

/// The elements of a constant (spectral.constant, or arith.constant of a
/// tensor type) of result type `type`, read from its dense attribute.
static Results evaluateConstant(Operation *op, Type type, Attribute value) {
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!dense || !isa<RankedTensorType>(type))
    return opError(op, "is supported by the reference evaluator only with a "
                       "dense tensor value");
  llvm::Expected<Tensor> out = zerosLike(op, type);
  if (!out)
    return out.takeError();
  Type element = dense.getElementType();
  for (int64_t i = 0; i < out->size(); ++i) {
    int64_t at = dense.isSplat() ? 0 : i;
    if (isa<FloatType>(element)) {
      out->data[i] = dense.getValues<APFloat>()[at].convertToDouble();
    } else if (isa<ComplexType>(element)) {
      std::complex<APFloat> v = dense.getValues<std::complex<APFloat>>()[at];
      out->data[i] = Complex(v.real().convertToDouble(), v.imag().convertToDouble());
    } else {
      APInt v = dense.getValues<APInt>()[at];
      const int64_t n = element.isInteger(1) ? int64_t(v.getZExtValue()) : v.getSExtValue();
      // Values are doubles here: most integers beyond 2^53 would change value.
      const double d = double(n);
      if (d == 9223372036854775808.0 || int64_t(d) != n)
        return opError(op, "holds the integer " + std::to_string(n) +
                               ", which the reference evaluator (double precision) cannot "
                               "represent exactly (beyond 2^53)");
      out->data[i] = d;
    }
  }
  return single(std::move(*out));
}

/// Runs the ops of `block` with its arguments bound to `args`; returns the
/// operands of its terminator.
static Results evaluateBlock(Block &block, std::vector<Tensor> args);

static Results evaluateOp(Operation *op, Operands in) {
  if (auto constant = dyn_cast<sp::ConstantOp>(op))
    return evaluateConstant(op, constant.getType(), constant.getValue());
  // Of the arith dialect (registered by the tools), only tensor constants.
  if (auto constant = dyn_cast<arith::ConstantOp>(op))
    return evaluateConstant(op, constant.getType(), constant.getValue());
  if (auto fusion = dyn_cast<sp::FusionOp>(op)) {
    std::vector<Tensor> args;
    for (const Tensor *t : in)
      args.push_back(*t);
    return evaluateBlock(fusion.getBody().front(), std::move(args));
  }
  for (auto family : {evaluatePointwise, evaluateShape, evaluateSpectral,
                      evaluateTraining})
    if (std::optional<Results> results = family(op, in))
      return std::move(*results);
  return opError(op, "is not supported by the reference evaluator");
}

static Results evaluateBlock(Block &block, std::vector<Tensor> args) {
  llvm::DenseMap<Value, Tensor> values;
  for (auto [arg, tensor] : llvm::zip(block.getArguments(), args))
    values[arg] = std::move(tensor);
  for (Operation &op : block) {
    std::vector<const Tensor *> in;
    for (Value operand : op.getOperands()) {
      auto it = values.find(operand);
      if (it == values.end())
        return opError(&op, "reads a value defined outside the graph");
      in.push_back(&it->second);
    }
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      std::vector<Tensor> out;
      for (const Tensor *t : in)
        out.push_back(*t);
      return out;
    }
    // Every value is held as complex doubles (16 bytes an element): a graph
    // too large for the memory left is an error at the op, not an abort.
    Results results = [&]() -> Results {
      try {
        return evaluateOp(&op, in);
      } catch (const std::bad_alloc &) {
        return opError(&op, "ran out of memory in the reference evaluator, which holds every "
                            "element as a complex double (16 bytes)");
      }
    }();
    if (!results)
      return results.takeError();
    if (results->size() != op.getNumResults())
      return opError(&op, "evaluated to the wrong number of results");
    for (auto [value, tensor] : llvm::zip(op.getResults(), *results)) {
      if (llvm::Error error = checkMatches(tensor, value.getType(), "result"))
        return opError(&op, "internal error: " + llvm::toString(std::move(error)));
      if (isIntegerKind(tensor.kind))
        for (auto [i, v] : llvm::enumerate(tensor.data)) {
          // A NaN or infinity has no integer value; later it would be
          // undefined behaviour (a C++ cast, a .npy write, a kernel).
          if (tensor.kind != ElementKind::I1 && !std::isfinite(v.real()))
            return opError(&op, "cannot represent " +
                                    llvm::Twine(std::isnan(v.real()) ? "nan"
                                                : v.real() > 0       ? "inf"
                                                                     : "-inf") +
                                    " in " + elementKindName(tensor.kind) +
                                    " (result #" +
                                    llvm::Twine(value.getResultNumber()) +
                                    ", element " + llvm::Twine(i) + ")");
          v = roundToKind(tensor.kind, v);
        }
      values[value] = std::move(tensor);
    }
  }
  return llvm::createStringError("block has no terminator");
}

llvm::Expected<std::vector<Tensor>> evaluate(func::FuncOp function,
                                             const std::vector<Tensor> &inputs) {
  if (function.isExternal())
    return llvm::createStringError("function @" + function.getSymName().str() +
                                   " has no body");
  auto argumentTypes = function.getArgumentTypes();
  if (inputs.size() != argumentTypes.size())
    return llvm::createStringError(
        "function @" + function.getSymName().str() + " takes " +
        std::to_string(argumentTypes.size()) + " arguments, got " +
        std::to_string(inputs.size()) + " inputs");
  for (size_t i = 0; i < inputs.size(); ++i)
    if (llvm::Error error =
            checkMatches(inputs[i], argumentTypes[i], "argument #" + std::to_string(i)))
      return error;
  try {
    return evaluateBlock(function.getBody().front(), inputs);
  } catch (const std::bad_alloc &) {  // copying arguments or results; ops say where
    return llvm::createStringError("@" + function.getSymName().str() +
                                   " ran out of memory in the reference evaluator, which holds "
                                   "every element as a complex double (16 bytes)");
  }
}

} // namespace spectral::reference
