//===- SpectralOps.cpp - verifiers and result type inference -------------===//
//
// Checks are written once as functions returning an error message (empty when
// fine), so inferReturnTypes (which may run without an op) and verify() (which
// has one) report the same words. Every message names the operand, axis or
// shape at fault. Longer than most files on purpose: every op family shares
// the checks at the top; split it by op family if it grows further.
//
//===----------------------------------------------------------------------===//
#include "dialects/spectral/IR/SpectralOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <optional>
#include <string>

using namespace mlir;
using namespace mlir::spectral;

#include "dialects/spectral/IR/SpectralEnums.cpp.inc"
#include "dialects/spectral/IR/SpectralInterfaces.cpp.inc"

namespace {

/// An error message, or nothing when the check passed.
using Check = std::optional<std::string>;

std::string typeString(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? ", " : "") + std::to_string(d);
  return s + "]";
}

LogicalResult fail(std::optional<Location> loc, const std::string &message) {
  return emitOptionalError(loc, message);
}

/// The static tensor type of operand `name`, or an error.
FailureOr<RankedTensorType> tensorOf(std::optional<Location> loc, Value value,
                                     StringRef name) {
  auto type = dyn_cast_or_null<RankedTensorType>(value ? value.getType() : Type());
  if (!type || !type.hasStaticShape()) {
    (void)fail(loc, llvm::formatv("operand '{0}' must be a statically shaped "
                                  "tensor, got {1}",
                                  name, value ? typeString(value.getType())
                                              : std::string("nothing")));
    return failure();
  }
  return type;
}

/// A builder given a generic attribute list may leave out a required
/// attribute; the parser and verifier catch that before inference, builders do
/// not, so inference names the attribute instead of reading a null one.
LogicalResult requireAttributes(std::optional<Location> loc,
                                ArrayRef<std::pair<Attribute, StringRef>> attrs) {
  for (auto [attr, name] : attrs)
    if (!attr)
      return fail(loc, llvm::formatv("requires attribute '{0}'", name));
  return success();
}

/// Axes must be non-empty, distinct and within [0, rank).
Check checkAxes(ArrayRef<int64_t> axes, int64_t rank, StringRef attrName = "axes") {
  if (axes.empty())
    return llvm::formatv("'{0}' must not be empty", attrName).str();
  llvm::SmallSet<int64_t, 8> seen;
  for (auto [i, axis] : llvm::enumerate(axes)) {
    if (axis < 0 || axis >= rank)
      return llvm::formatv("{0}[{1}] = {2} is out of range for an operand of "
                           "rank {3} (axes are in [0, {3}))",
                           attrName, i, axis, rank)
          .str();
    if (!seen.insert(axis).second)
      return llvm::formatv("axis {0} appears twice in '{1}'", axis, attrName).str();
  }
  return std::nullopt;
}

/// Transformed axes must have at least one element.
Check checkTransformAxes(ArrayRef<int64_t> axes, RankedTensorType type) {
  if (Check error = checkAxes(axes, type.getRank()))
    return error;
  for (int64_t axis : axes)
    if (type.getDimSize(axis) < 1)
      return llvm::formatv("cannot transform axis {0} of length {1}", axis,
                           type.getDimSize(axis))
          .str();
  return std::nullopt;
}

Check checkSameElementType(Type a, StringRef aName, Type b, StringRef bName) {
  if (getElementTypeOrSelf(a) == getElementTypeOrSelf(b))
    return std::nullopt;
  return llvm::formatv("operand '{0}' has element type {1} but operand '{2}' "
                       "has {3}; they must match",
                       bName, typeString(getElementTypeOrSelf(b)), aName,
                       typeString(getElementTypeOrSelf(a)))
      .str();
}

/// Infers a broadcast result with `element` from operands `names`.
LogicalResult inferBroadcast(std::optional<Location> loc, ValueRange operands,
                             ArrayRef<StringRef> names, Type element,
                             SmallVectorImpl<Type> &results) {
  SmallVector<int64_t> shape;
  for (auto [value, name] : llvm::zip(operands, names)) {
    FailureOr<RankedTensorType> type = tensorOf(loc, value, name);
    if (failed(type))
      return failure();
    FailureOr<SmallVector<int64_t>> joined =
        broadcastShapes(shape, type->getShape());
    if (failed(joined))
      return fail(loc, llvm::formatv("operand '{0}' of shape {1} does not "
                                     "broadcast with shape {2}",
                                     name, shapeString(type->getShape()),
                                     shapeString(shape)));
    shape = std::move(*joined);
  }
  results.push_back(RankedTensorType::get(shape, element));
  return success();
}

/// Checks two operands share an element type, then infers their broadcast.
LogicalResult inferBinary(std::optional<Location> loc, Value lhs, Value rhs,
                          function_ref<Type(Type)> resultElement,
                          SmallVectorImpl<Type> &results) {
  if (failed(tensorOf(loc, lhs, "lhs")) || failed(tensorOf(loc, rhs, "rhs")))
    return failure();
  if (Check error = checkSameElementType(lhs.getType(), "lhs", rhs.getType(), "rhs"))
    return fail(loc, *error);
  return inferBroadcast(loc, {lhs, rhs}, {"lhs", "rhs"},
                        resultElement(getElementTypeOrSelf(lhs.getType())),
                        results);
}

Type identity(Type t) { return t; }

/// Tensors must all have the same type.
Check checkSameTypes(ArrayRef<std::pair<Value, StringRef>> operands) {
  for (auto [value, name] : operands.drop_front())
    if (value.getType() != operands.front().first.getType())
      return llvm::formatv("operand '{0}' has type {1} but '{2}' has {3}; they "
                           "must match",
                           name, typeString(value.getType()),
                           operands.front().second,
                           typeString(operands.front().first.getType()))
          .str();
  return std::nullopt;
}

} // namespace

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<int64_t>>
mlir::spectral::broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return failure();
    out[i] = da == 1 ? db : da;
  }
  return out;
}

int64_t mlir::spectral::broadcastSourceIndex(ArrayRef<int64_t> resultShape,
                                             ArrayRef<int64_t> shape,
                                             int64_t flat) {
  int64_t source = 0, stride = 1;
  for (int64_t r = resultShape.size() - 1, s = shape.size() - 1; s >= 0; --r, --s) {
    int64_t coordinate = flat % resultShape[r];
    flat /= resultShape[r];
    if (shape[s] != 1)
      source += coordinate * stride;
    stride *= shape[s];
  }
  return source;
}

std::optional<int64_t>
mlir::spectral::checkedElementCount(ArrayRef<int64_t> shape) {
  if (llvm::is_contained(shape, 0))
    return 0;
  int64_t count = 1;
  for (int64_t d : shape)
    if (__builtin_mul_overflow(count, d, &count))
      return std::nullopt;
  return count;
}

Type mlir::spectral::realElementType(Type element) {
  if (auto complex = dyn_cast<ComplexType>(element))
    return complex.getElementType();
  return element;
}

Type mlir::spectral::complexElementType(Type element) {
  if (isa<ComplexType>(element))
    return element;
  return ComplexType::get(element);
}

static Type withElement(Type tensor, Type element) {
  return RankedTensorType::get(cast<RankedTensorType>(tensor).getShape(), element);
}

//===----------------------------------------------------------------------===//
// Constants and pointwise
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::verify() {
  auto dense = dyn_cast<DenseElementsAttr>(getValue());
  if (!dense)
    return emitOpError("value must be a dense<...> literal, got ") << getValue();
  // MLIR 19 accepts dense<0.5> for a complex type but stores one real per
  // element; reading it back (printing, evaluating) then runs off the end.
  if (auto complex = dyn_cast<ComplexType>(dense.getElementType())) {
    size_t part = complex.getElementType().getIntOrFloatBitWidth() / 8;
    size_t count = dense.isSplat() ? 1 : size_t(dense.getNumElements());
    if (dense.getRawData().size() != 2 * part * count)
      // Located at the op without printing it: printing this attribute crashes.
      return mlir::emitError(getLoc(), "'spectral.constant' op a complex literal needs (re, im) "
                                       "pairs, e.g. dense<(0.5, 0.0)>");
  }
  return success();
}

template <typename Op>
static LogicalResult inferToReal(std::optional<Location> loc,
                                 typename Op::Adaptor adaptor,
                                 SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> type = tensorOf(loc, adaptor.getX(), "x");
  if (failed(type))
    return failure();
  results.push_back(withElement(*type, realElementType(type->getElementType())));
  return success();
}

LogicalResult AbsOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                      Adaptor adaptor, SmallVectorImpl<Type> &results) {
  return inferToReal<AbsOp>(loc, adaptor, results);
}
LogicalResult RealOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                       Adaptor adaptor, SmallVectorImpl<Type> &results) {
  return inferToReal<RealOp>(loc, adaptor, results);
}
LogicalResult ImagOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                       Adaptor adaptor, SmallVectorImpl<Type> &results) {
  return inferToReal<ImagOp>(loc, adaptor, results);
}

#define SPECTRAL_INFER_BINARY(OP, ELEMENT)                                     \
  LogicalResult OP::inferReturnTypes(MLIRContext *,                           \
                                     std::optional<Location> loc,             \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &results) {         \
    return inferBinary(loc, adaptor.getLhs(), adaptor.getRhs(), ELEMENT,       \
                       results);                                               \
  }
SPECTRAL_INFER_BINARY(AddOp, identity)
SPECTRAL_INFER_BINARY(SubOp, identity)
SPECTRAL_INFER_BINARY(MulOp, identity)
SPECTRAL_INFER_BINARY(DivOp, identity)
SPECTRAL_INFER_BINARY(ComplexOp, complexElementType)
SPECTRAL_INFER_BINARY(CmpOp, [](Type t) -> Type {
  return IntegerType::get(t.getContext(), 1);
})
#undef SPECTRAL_INFER_BINARY

LogicalResult SelectOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  if (failed(tensorOf(loc, adaptor.getA(), "a")) ||
      failed(tensorOf(loc, adaptor.getB(), "b")))
    return failure();
  if (Check error = checkSameElementType(adaptor.getA().getType(), "a",
                                         adaptor.getB().getType(), "b"))
    return fail(loc, *error);
  return inferBroadcast(loc, adaptor.getOperands(), {"cond", "a", "b"},
                        getElementTypeOrSelf(adaptor.getA().getType()), results);
}

LogicalResult CastOp::verify() {
  auto from = getX().getType(), to = getResult().getType();
  if (from.getShape() != to.getShape())
    return emitOpError("result shape ") << shapeString(to.getShape())
           << " differs from operand shape " << shapeString(from.getShape());
  if (isa<ComplexType>(from.getElementType()) &&
      !isa<ComplexType>(to.getElementType()))
    return emitOpError("cannot cast complex ")
           << from.getElementType() << " to " << to.getElementType()
           << "; use spectral.real or spectral.abs";
  return success();
}

//===----------------------------------------------------------------------===//
// Transforms
//===----------------------------------------------------------------------===//

LogicalResult FftOp::verify() {
  if (Check error = checkTransformAxes(getAxes(), getX().getType()))
    return emitOpError(*error);
  return success();
}

LogicalResult IfftOp::verify() {
  if (Check error = checkTransformAxes(getAxes(), getX().getType()))
    return emitOpError(*error);
  return success();
}

LogicalResult RfftOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &results) {
  if (failed(requireAttributes(loc, {{adaptor.getProperties().axes, "axes"}})))
    return failure();
  FailureOr<RankedTensorType> type = tensorOf(loc, adaptor.getX(), "x");
  if (failed(type))
    return failure();
  if (Check error = checkTransformAxes(adaptor.getAxes(), *type))
    return fail(loc, *error);
  SmallVector<int64_t> shape(type->getShape());
  shape[adaptor.getAxes().back()] = shape[adaptor.getAxes().back()] / 2 + 1;
  results.push_back(
      RankedTensorType::get(shape, complexElementType(type->getElementType())));
  return success();
}

LogicalResult IrfftOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  if (failed(requireAttributes(loc, {{adaptor.getProperties().axes, "axes"},
                                     {adaptor.getProperties().length, "length"}})))
    return failure();
  FailureOr<RankedTensorType> type = tensorOf(loc, adaptor.getX(), "x");
  if (failed(type))
    return failure();
  if (Check error = checkTransformAxes(adaptor.getAxes(), *type))
    return fail(loc, *error);
  int64_t length = (int64_t)adaptor.getLength();
  int64_t last = adaptor.getAxes().back();
  if (length < 1)
    return fail(loc, llvm::formatv("length must be positive, got {0}", length));
  if (type->getDimSize(last) != length / 2 + 1)
    return fail(loc, llvm::formatv("axis {0} has {1} bins but length {2} needs "
                                   "{3} (length / 2 + 1)",
                                   last, type->getDimSize(last), length,
                                   length / 2 + 1));
  SmallVector<int64_t> shape(type->getShape());
  shape[last] = length;
  results.push_back(
      RankedTensorType::get(shape, realElementType(type->getElementType())));
  return success();
}

template <typename Op>
static LogicalResult verifyDct(Op op) {
  if (Check error = checkTransformAxes(op.getAxes(), op.getX().getType()))
    return op.emitOpError(*error);
  int64_t type = (int64_t)op.getDctType();
  if (type != 2 && type != 3)
    return op.emitOpError("type must be 2 or 3, got ") << type;
  return success();
}

LogicalResult DctOp::verify() { return verifyDct(*this); }
LogicalResult IdctOp::verify() { return verifyDct(*this); }

//===----------------------------------------------------------------------===//
// Sparse spectral modes
//===----------------------------------------------------------------------===//

LogicalResult TopkModesOp::inferReturnTypes(MLIRContext *ctx,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  if (failed(requireAttributes(loc, {{adaptor.getProperties().k, "k"}})))
    return failure();
  FailureOr<RankedTensorType> type = tensorOf(loc, adaptor.getX(), "x");
  if (failed(type))
    return failure();
  int64_t k = (int64_t)adaptor.getK();
  bool flat = adaptor.getFlat();
  if (!flat && type->getRank() == 0)
    return fail(loc, "operand 'x' is 0-d and has no rows; use 'flat'");
  std::optional<int64_t> available =
      flat ? checkedElementCount(type->getShape()) : type->getShape().back();
  if (!available)
    return fail(loc, llvm::formatv("operand 'x' of shape {0} has more elements "
                                   "than fit in 64 bits",
                                   shapeString(type->getShape())));
  if (k < 1 || k > *available)
    return fail(loc, llvm::formatv("k = {0} must be in [1, {1}], the number of "
                                   "entries {2}",
                                   k, *available, flat ? "in x" : "per row"));
  SmallVector<int64_t> shape{k};
  if (!flat) {
    shape.assign(type->getShape().begin(), type->getShape().end());
    shape.back() = k;
  }
  results.push_back(RankedTensorType::get(shape, type->getElementType()));
  results.push_back(RankedTensorType::get(shape, IntegerType::get(ctx, 64)));
  return success();
}

/// Per-row sparse operands share leading dims with the dense side; flat ones
/// are rank 1. `dense` and `sparse` are the dense and [.., k] shapes.
static Check checkSparseLayout(ArrayRef<int64_t> dense, ArrayRef<int64_t> sparse,
                               StringRef denseName, StringRef sparseName) {
  if (sparse.size() == 1 && dense.size() != 1)
    return std::nullopt; // flat indices
  if (dense.empty())
    return llvm::formatv("operand '{0}' has rank {1}; it must be 1 (flat "
                         "indices) since '{2}' is 0-d",
                         sparseName, sparse.size(), denseName)
        .str();
  if (sparse.size() != dense.size())
    return llvm::formatv("operand '{0}' has rank {1}; it must be 1 (flat "
                         "indices) or {2}, the rank of '{3}' (per row)",
                         sparseName, sparse.size(), dense.size(), denseName)
        .str();
  if (dense.drop_back() != sparse.drop_back())
    return llvm::formatv("leading dims {0} of '{1}' differ from {2} of '{3}'",
                         shapeString(sparse.drop_back()), sparseName,
                         shapeString(dense.drop_back()), denseName)
        .str();
  return std::nullopt;
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> x = tensorOf(loc, adaptor.getX(), "x");
  FailureOr<RankedTensorType> indices =
      tensorOf(loc, adaptor.getIndices(), "indices");
  if (failed(x) || failed(indices))
    return failure();
  if (Check error = checkSparseLayout(x->getShape(), indices->getShape(), "x",
                                      "indices"))
    return fail(loc, *error);
  results.push_back(withElement(*indices, x->getElementType()));
  return success();
}

LogicalResult ScatterOp::verify() {
  auto values = getValues().getType(), indices = getIndices().getType();
  auto result = getResult().getType();
  if (values.getShape() != indices.getShape())
    return emitOpError("operand 'values' of shape ")
           << shapeString(values.getShape())
           << " differs from operand 'indices' of shape "
           << shapeString(indices.getShape());
  if (values.getElementType() != result.getElementType())
    return emitOpError("result element type ")
           << result.getElementType() << " differs from operand 'values' "
           << values.getElementType();
  if (Check error = checkSparseLayout(result.getShape(), values.getShape(),
                                      "result", "values"))
    return emitOpError(*error);
  return success();
}

template <typename Op>
static LogicalResult inferSparseBinary(std::optional<Location> loc,
                                       typename Op::Adaptor adaptor,
                                       bool isUnion,
                                       SmallVectorImpl<Type> &results) {
  StringRef names[] = {"lhs_values", "lhs_indices", "rhs_values", "rhs_indices"};
  SmallVector<RankedTensorType, 4> types;
  for (auto [value, name] : llvm::zip(adaptor.getOperands(), names)) {
    FailureOr<RankedTensorType> type = tensorOf(loc, value, name);
    if (failed(type))
      return failure();
    if (type->getRank() == 0)
      return fail(loc, llvm::formatv("operand '{0}' must have rank >= 1", name));
    types.push_back(*type);
  }
  for (int side : {0, 2})
    if (types[side].getShape() != types[side + 1].getShape())
      return fail(loc, llvm::formatv("operand '{0}' of shape {1} differs from "
                                     "'{2}' of shape {3}",
                                     names[side + 1],
                                     shapeString(types[side + 1].getShape()),
                                     names[side], shapeString(types[side].getShape())));
  if (Check error = checkSameElementType(types[0], "lhs_values", types[2],
                                         "rhs_values"))
    return fail(loc, *error);
  ArrayRef<int64_t> lhs = types[0].getShape(), rhs = types[2].getShape();
  if (lhs.size() != rhs.size() || lhs.drop_back() != rhs.drop_back())
    return fail(loc, llvm::formatv("leading dims of 'lhs_values' {0} and "
                                   "'rhs_values' {1} must match",
                                   shapeString(lhs), shapeString(rhs)));
  SmallVector<int64_t> shape(lhs);
  if (!isUnion)
    shape.back() = std::min(lhs.back(), rhs.back());
  else if (__builtin_add_overflow(lhs.back(), rhs.back(), &shape.back()))
    return fail(loc, llvm::formatv("capacity {0} + {1} of the sum overflows",
                                   lhs.back(), rhs.back()));
  results.push_back(RankedTensorType::get(shape, types[0].getElementType()));
  results.push_back(RankedTensorType::get(shape, types[1].getElementType()));
  return success();
}

LogicalResult SparseAddOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  return inferSparseBinary<SparseAddOp>(loc, adaptor, /*isUnion=*/true, results);
}
LogicalResult SparseMulOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  return inferSparseBinary<SparseMulOp>(loc, adaptor, /*isUnion=*/false, results);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

template <typename Op>
static LogicalResult inferReduce(std::optional<Location> loc,
                                 typename Op::Adaptor adaptor,
                                 SmallVectorImpl<Type> &results) {
  if (failed(requireAttributes(loc, {{adaptor.getProperties().axes, "axes"}})))
    return failure();
  FailureOr<RankedTensorType> type = tensorOf(loc, adaptor.getX(), "x");
  if (failed(type))
    return failure();
  if (Check error = checkAxes(adaptor.getAxes(), type->getRank()))
    return fail(loc, *error);
  SmallVector<int64_t> shape;
  for (auto [i, d] : llvm::enumerate(type->getShape())) {
    bool reduced = llvm::is_contained(adaptor.getAxes(), (int64_t)i);
    if (!reduced)
      shape.push_back(d);
    else if (adaptor.getKeepdims())
      shape.push_back(1);
  }
  results.push_back(RankedTensorType::get(shape, type->getElementType()));
  return success();
}

LogicalResult ReduceSumOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  return inferReduce<ReduceSumOp>(loc, adaptor, results);
}
LogicalResult ReduceMeanOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &results) {
  return inferReduce<ReduceMeanOp>(loc, adaptor, results);
}
LogicalResult ReduceMaxOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  return inferReduce<ReduceMaxOp>(loc, adaptor, results);
}

template <typename Op>
static LogicalResult verifySoftmax(Op op) {
  int64_t rank = op.getX().getType().getRank();
  int64_t axis = (int64_t)op.getAxis();
  if (axis < 0 || axis >= rank)
    return op.emitOpError("axis ")
           << axis << " is out of range for an operand of rank " << rank
           << " (axes are in [0, " << rank << "))";
  return success();
}
LogicalResult SoftmaxOp::verify() { return verifySoftmax(*this); }
LogicalResult LogSoftmaxOp::verify() { return verifySoftmax(*this); }

//===----------------------------------------------------------------------===//
// Shape
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  auto from = getX().getType(), to = getResult().getType();
  if (from.getElementType() != to.getElementType())
    return emitOpError("result element type ")
           << to.getElementType() << " differs from operand element type "
           << from.getElementType();
  std::optional<int64_t> a = checkedElementCount(from.getShape());
  std::optional<int64_t> b = checkedElementCount(to.getShape());
  if (!a || !b)
    return emitOpError("shape ")
           << shapeString(a ? to.getShape() : from.getShape())
           << " has more elements than fit in 64 bits";
  if (*a != *b)
    return emitOpError("cannot reshape ")
           << shapeString(from.getShape()) << " (" << *a << " elements) to "
           << shapeString(to.getShape()) << " (" << *b << " elements)";
  return success();
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  if (failed(requireAttributes(loc, {{adaptor.getProperties().perm, "perm"}})))
    return failure();
  FailureOr<RankedTensorType> type = tensorOf(loc, adaptor.getX(), "x");
  if (failed(type))
    return failure();
  ArrayRef<int64_t> perm = adaptor.getPerm();
  if ((int64_t)perm.size() != type->getRank())
    return fail(loc, llvm::formatv("'perm' has {0} entries but the operand has "
                                   "rank {1}",
                                   perm.size(), type->getRank()));
  if (!perm.empty())
    if (Check error = checkAxes(perm, type->getRank(), "perm"))
      return fail(loc, *error);
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type->getDimSize(p));
  results.push_back(RankedTensorType::get(shape, type->getElementType()));
  return success();
}

LogicalResult BroadcastOp::verify() {
  auto from = getX().getType(), to = getResult().getType();
  if (from.getElementType() != to.getElementType())
    return emitOpError("result element type ")
           << to.getElementType() << " differs from operand element type "
           << from.getElementType();
  FailureOr<SmallVector<int64_t>> joined =
      broadcastShapes(from.getShape(), to.getShape());
  if (failed(joined) || ArrayRef<int64_t>(*joined) != to.getShape())
    return emitOpError("operand shape ")
           << shapeString(from.getShape()) << " does not broadcast to "
           << shapeString(to.getShape());
  return success();
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  if (failed(requireAttributes(loc, {{adaptor.getProperties().start, "start"},
                                     {adaptor.getProperties().limit, "limit"}})))
    return failure();
  FailureOr<RankedTensorType> type = tensorOf(loc, adaptor.getX(), "x");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  ArrayRef<int64_t> start = adaptor.getStart(), limit = adaptor.getLimit();
  SmallVector<int64_t> stride(rank, 1);
  if (adaptor.getStride())
    stride.assign(adaptor.getStride()->begin(), adaptor.getStride()->end());
  for (auto [name, size] : {std::pair<StringRef, size_t>{"start", start.size()},
                            {"limit", limit.size()},
                            {"stride", stride.size()}})
    if ((int64_t)size != rank)
      return fail(loc, llvm::formatv("'{0}' has {1} entries but the operand "
                                     "has rank {2}",
                                     name, size, rank));
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t dim = type->getDimSize(i);
    if (start[i] < 0 || start[i] > limit[i] || limit[i] > dim)
      return fail(loc, llvm::formatv("dim {0}: need 0 <= start ({1}) <= limit "
                                     "({2}) <= size ({3})",
                                     i, start[i], limit[i], dim));
    if (stride[i] < 1)
      return fail(loc, llvm::formatv("dim {0}: stride {1} must be positive", i,
                                     stride[i]));
    int64_t extent = limit[i] - start[i];
    shape.push_back(extent == 0 ? 0 : (extent - 1) / stride[i] + 1);
  }
  results.push_back(RankedTensorType::get(shape, type->getElementType()));
  return success();
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &results) {
  if (failed(requireAttributes(loc, {{adaptor.getProperties().low, "low"},
                                     {adaptor.getProperties().high, "high"}})))
    return failure();
  FailureOr<RankedTensorType> type = tensorOf(loc, adaptor.getX(), "x");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  ArrayRef<int64_t> low = adaptor.getLow(), high = adaptor.getHigh();
  if ((int64_t)low.size() != rank || (int64_t)high.size() != rank)
    return fail(loc, llvm::formatv("'low' and 'high' need {0} entries (the "
                                   "operand's rank), got {1} and {2}",
                                   rank, low.size(), high.size()));
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    if (low[i] < 0 || high[i] < 0)
      return fail(loc, llvm::formatv("dim {0}: padding {1}/{2} must not be "
                                     "negative",
                                     i, low[i], high[i]));
    int64_t size = type->getDimSize(i);
    if (__builtin_add_overflow(size, low[i], &size) ||
        __builtin_add_overflow(size, high[i], &size))
      return fail(loc, llvm::formatv("dim {0}: padded size overflows", i));
    shape.push_back(size);
  }
  results.push_back(RankedTensorType::get(shape, type->getElementType()));
  return success();
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  if (failed(requireAttributes(loc, {{adaptor.getProperties().axis, "axis"}})))
    return failure();
  if (adaptor.getInputs().empty())
    return fail(loc, "needs at least one input");
  SmallVector<RankedTensorType> types;
  for (auto [i, value] : llvm::enumerate(adaptor.getInputs())) {
    FailureOr<RankedTensorType> type =
        tensorOf(loc, value, ("inputs#" + std::to_string(i)));
    if (failed(type))
      return failure();
    types.push_back(*type);
  }
  RankedTensorType first = types.front();
  int64_t axis = (int64_t)adaptor.getAxis();
  if (axis < 0 || axis >= first.getRank())
    return fail(loc, llvm::formatv("axis {0} is out of range for inputs of "
                                   "rank {1}",
                                   axis, first.getRank()));
  SmallVector<int64_t> shape(first.getShape());
  for (auto [i, type] : llvm::enumerate(ArrayRef(types).drop_front())) {
    bool sameRest = type.getRank() == first.getRank();
    for (int64_t d = 0; sameRest && d < first.getRank(); ++d)
      sameRest = d == axis || type.getDimSize(d) == first.getDimSize(d);
    if (type.getElementType() != first.getElementType() || !sameRest)
      return fail(loc, llvm::formatv("input #{0} of type {1} does not match "
                                     "input #0 of type {2} outside axis {3}",
                                     i + 1, typeString(type), typeString(first),
                                     axis));
    if (__builtin_add_overflow(shape[axis], type.getDimSize(axis), &shape[axis]))
      return fail(loc, llvm::formatv("size along axis {0} overflows at input "
                                     "#{1}",
                                     axis, i + 1));
  }
  results.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> lhs = tensorOf(loc, adaptor.getLhs(), "lhs");
  FailureOr<RankedTensorType> rhs = tensorOf(loc, adaptor.getRhs(), "rhs");
  if (failed(lhs) || failed(rhs))
    return failure();
  if (lhs->getRank() < 2 || rhs->getRank() < 2)
    return fail(loc, llvm::formatv("operands need rank >= 2, got 'lhs' rank "
                                   "{0} and 'rhs' rank {1}",
                                   lhs->getRank(), rhs->getRank()));
  if (Check error = checkSameElementType(*lhs, "lhs", *rhs, "rhs"))
    return fail(loc, *error);
  ArrayRef<int64_t> a = lhs->getShape(), b = rhs->getShape();
  if (a.back() != b[b.size() - 2])
    return fail(loc, llvm::formatv("contracted dims differ: 'lhs' {0} has K = "
                                   "{1}, 'rhs' {2} has K = {3}",
                                   shapeString(a), a.back(), shapeString(b),
                                   b[b.size() - 2]));
  FailureOr<SmallVector<int64_t>> batch =
      broadcastShapes(a.drop_back(2), b.drop_back(2));
  if (failed(batch))
    return fail(loc, llvm::formatv("batch dims {0} and {1} do not broadcast",
                                   shapeString(a.drop_back(2)),
                                   shapeString(b.drop_back(2))));
  batch->push_back(a[a.size() - 2]);
  batch->push_back(b.back());
  results.push_back(RankedTensorType::get(*batch, lhs->getElementType()));
  return success();
}

LogicalResult ChannelMixOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> x = tensorOf(loc, adaptor.getX(), "x");
  FailureOr<RankedTensorType> w = tensorOf(loc, adaptor.getWeights(), "weights");
  if (failed(x) || failed(w))
    return failure();
  if (Check error = checkSameElementType(*x, "x", *w, "weights"))
    return fail(loc, *error);
  ArrayRef<int64_t> xs = x->getShape(), ws = w->getShape();
  if (xs.size() < 2 || ws.size() != xs.size())
    return fail(loc, llvm::formatv("'x' must be [B, I, s...] and 'weights' [I, "
                                   "O, s...] of the same rank >= 2, got {0} and "
                                   "{1}",
                                   shapeString(xs), shapeString(ws)));
  if (xs[1] != ws[0])
    return fail(loc, llvm::formatv("'x' has {0} input channels but 'weights' "
                                   "has {1}",
                                   xs[1], ws[0]));
  if (xs.drop_front(2) != ws.drop_front(2))
    return fail(loc, llvm::formatv("mode dims differ: 'x' {0}, 'weights' {1}",
                                   shapeString(xs.drop_front(2)),
                                   shapeString(ws.drop_front(2))));
  SmallVector<int64_t> shape(xs);
  shape[1] = ws[1];
  results.push_back(RankedTensorType::get(shape, x->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Loss and training
//===----------------------------------------------------------------------===//

LogicalResult CrossEntropyOp::inferReturnTypes(MLIRContext *,
                                               std::optional<Location> loc,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> logits = tensorOf(loc, adaptor.getLogits(), "logits");
  FailureOr<RankedTensorType> labels = tensorOf(loc, adaptor.getLabels(), "labels");
  if (failed(logits) || failed(labels))
    return failure();
  if (logits->getRank() != 2 || labels->getRank() != 1 ||
      labels->getDimSize(0) != logits->getDimSize(0))
    return fail(loc, llvm::formatv("'logits' must be [N, C] and 'labels' [N], "
                                   "got {0} and {1}",
                                   shapeString(logits->getShape()),
                                   shapeString(labels->getShape())));
  results.push_back(RankedTensorType::get({}, logits->getElementType()));
  return success();
}

LogicalResult MseOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &results) {
  if (failed(tensorOf(loc, adaptor.getPrediction(), "prediction")) ||
      failed(tensorOf(loc, adaptor.getTarget(), "target")))
    return failure();
  if (Check error = checkSameTypes({{adaptor.getPrediction(), "prediction"},
                                    {adaptor.getTarget(), "target"}}))
    return fail(loc, *error);
  Type element = getElementTypeOrSelf(adaptor.getPrediction().getType());
  results.push_back(RankedTensorType::get({}, realElementType(element)));
  return success();
}

/// An optimizer step's learning rate: the attribute `lr` or the 0-d real
/// operand `lr_from`, exactly one.
static LogicalResult checkLearningRate(std::optional<Location> loc, FloatAttr attr, Value value) {
  if (bool(attr) == bool(value))
    return fail(loc, attr ? "give the learning rate once: 'lr' or 'lr_from', not both"
                          : "a learning rate is needed: 'lr 0.01' or 'lr_from(%lr : tensor<f32>)'");
  if (value) {
    FailureOr<RankedTensorType> type = tensorOf(loc, value, "lr_from");
    if (failed(type))
      return failure();
    if (type->getRank() != 0)
      return fail(loc, llvm::formatv("operand 'lr_from' must be 0-d, got {0}",
                                     typeString(*type)));
  }
  return success();
}

LogicalResult SgdStepOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  if (failed(tensorOf(loc, adaptor.getParam(), "param")) ||
      failed(checkLearningRate(loc, adaptor.getLrAttr(), adaptor.getLrValue())))
    return failure();
  if (Check error = checkSameTypes({{adaptor.getParam(), "param"},
                                    {adaptor.getGrad(), "grad"},
                                    {adaptor.getVelocity(), "velocity"}}))
    return fail(loc, *error);
  results.push_back(adaptor.getParam().getType());
  results.push_back(adaptor.getParam().getType());
  return success();
}

LogicalResult AdamStepOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> param = tensorOf(loc, adaptor.getParam(), "param");
  FailureOr<RankedTensorType> step = tensorOf(loc, adaptor.getStep(), "step");
  if (failed(param) || failed(step) ||
      failed(checkLearningRate(loc, adaptor.getLrAttr(), adaptor.getLrValue())))
    return failure();
  if (Check error = checkSameTypes({{adaptor.getParam(), "param"},
                                    {adaptor.getGrad(), "grad"},
                                    {adaptor.getM(), "m"}}))
    return fail(loc, *error);
  Type realParam = withElement(*param, realElementType(param->getElementType()));
  if (adaptor.getV().getType() != realParam)
    return fail(loc, llvm::formatv("operand 'v' has type {0} but must be {1}, "
                                   "the real counterpart of 'param'",
                                   typeString(adaptor.getV().getType()),
                                   typeString(realParam)));
  if (step->getRank() != 0)
    return fail(loc, llvm::formatv("operand 'step' must be 0-d, got {0}",
                                   typeString(*step)));
  // 1 - beta^t is the bias correction: beta = 1 divides by zero, beta outside
  // [0, 1) makes it negative or growing; eps < 0 can divide by zero.
  // Absent attributes take their (valid) defaults.
  for (auto [attr, name] : {std::pair{adaptor.getBeta1Attr(), "beta1"},
                            std::pair{adaptor.getBeta2Attr(), "beta2"}}) {
    double beta = attr ? attr.getValueAsDouble() : 0.0;
    if (!(beta >= 0 && beta < 1)) {
      std::string message = llvm::formatv("'{0}' must be in [0, 1), got ", name);
      llvm::raw_string_ostream(message) << beta;
      return fail(loc, message);
    }
  }
  double eps = adaptor.getEpsAttr() ? adaptor.getEpsAttr().getValueAsDouble() : 0.0;
  if (!(eps >= 0)) {
    std::string message = "'eps' must be non-negative, got ";
    llvm::raw_string_ostream(message) << eps;
    return fail(loc, message);
  }
  results.append({*param, *param, realParam});
  return success();
}

LogicalResult ClipGlobalNormOp::inferReturnTypes(MLIRContext *,
                                                 std::optional<Location> loc,
                                                 Adaptor adaptor,
                                                 SmallVectorImpl<Type> &results) {
  if (failed(requireAttributes(loc, {{adaptor.getProperties().max_norm, "max_norm"}})))
    return failure();
  if (adaptor.getInputs().empty())
    return fail(loc, "needs at least one input");
  Type real;
  for (auto [i, value] : llvm::enumerate(adaptor.getInputs())) {
    FailureOr<RankedTensorType> type =
        tensorOf(loc, value, "inputs#" + std::to_string(i));
    if (failed(type))
      return failure();
    Type element = realElementType(type->getElementType());
    if (real && element != real)
      return fail(loc, llvm::formatv("input #{0} has real element type {1} but "
                                     "input #0 has {2}; they must match",
                                     i, typeString(element), typeString(real)));
    real = element;
    results.push_back(*type);
  }
  double maxNorm = adaptor.getMaxNorm().convertToDouble();
  if (!(maxNorm > 0)) {
    std::string message = "'max_norm' must be positive, got ";
    llvm::raw_string_ostream(message) << maxNorm;
    return fail(loc, message);
  }
  results.push_back(RankedTensorType::get({}, real));
  return success();
}

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

LogicalResult FusionOp::verify() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError("body has ")
           << body.getNumArguments() << " arguments but there are "
           << getInputs().size() << " inputs";
  for (auto [i, pair] : llvm::enumerate(llvm::zip(body.getArgumentTypes(),
                                                  getInputs().getTypes())))
    if (std::get<0>(pair) != std::get<1>(pair))
      return emitOpError("body argument #")
             << i << " has type " << std::get<0>(pair) << " but input #" << i
             << " has type " << std::get<1>(pair);
  auto yield = body.empty() ? YieldOp() : dyn_cast<YieldOp>(body.back());
  if (!yield)
    return emitOpError("body must end with spectral.yield");
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError("yields ")
           << yield.getValues().size() << " values of types "
           << yield.getValues().getTypes() << " but the results are "
           << getResultTypes();
  return success();
}

#define GET_OP_CLASSES
#include "dialects/spectral/IR/SpectralOps.cpp.inc"
