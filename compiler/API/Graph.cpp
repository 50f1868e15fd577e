//===- Graph.cpp - spectral::Graph: the C++ graph builder -----------------===//
//
// Each builder call makes one op through its generic OperationState, infers
// its result types through the op's own InferTypeOpInterface (or takes them
// from the operand, or from the call), and verifies it; a failure erases the
// op and turns the diagnostics into the Value's Status. Nothing aborts: ops'
// ODS builders report_fatal_error on a failed inference, so they are not used.
//
//===----------------------------------------------------------------------===//
#include "compiler/API/GraphState.h"

#include "compiler/Codegen/Codegen.h"
#include "compiler/Codegen/CodegenContext.h"
#include "dialects/spectral/IR/SourceLimits.h"
#include "dialects/spectral/IR/SpectralOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/SourceMgr.h"

#include <complex>

using namespace mlir;

namespace spectral {
DiagnosticCapture::DiagnosticCapture(MLIRContext &context)
    : handler_(&context, [this](Diagnostic &diagnostic) {
        append(diagnostic);
        for (Diagnostic &note : diagnostic.getNotes()) append(note);
        return success();
      }) {}

void DiagnosticCapture::append(Diagnostic &diagnostic) {
  if (!text_.empty()) text_ += "\n";
  std::string where = codegen::locationText(diagnostic.getLocation());
  const char *severity = diagnostic.getSeverity() == DiagnosticSeverity::Error     ? "error"
                         : diagnostic.getSeverity() == DiagnosticSeverity::Warning ? "warning"
                         : diagnostic.getSeverity() == DiagnosticSeverity::Note    ? "note"
                                                                                   : "remark";
  text_ += (where.empty() ? "" : where + ": ") + severity + ": " + diagnostic.str();
}

std::string DiagnosticCapture::take(const std::string &fallback) {
  std::string text = text_.empty() ? fallback : text_;
  text_.clear();
  return text;
}

Type elementType(MLIRContext *context, DType dtype) {
  Builder b(context);
  switch (dtype) {
  case DType::kBool: return b.getI1Type();
  case DType::kInt32: return b.getI32Type();
  case DType::kInt64: return b.getI64Type();
  case DType::kFloat32: return b.getF32Type();
  case DType::kFloat64: return b.getF64Type();
  case DType::kComplex64: return ComplexType::get(b.getF32Type());
  case DType::kComplex128: return ComplexType::get(b.getF64Type());
  }
  return Type();
}

namespace {

bool validSymbol(const std::string &name) {
  if (name.empty()) return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$' ||
          c == '-'))
      return false;
  return !std::isdigit(static_cast<unsigned char>(name[0]));
}

} // namespace

// --- the state --------------------------------------------------------------

Graph::Graph(std::string function) : state_(std::make_unique<State>()) {
  State &s = *state_;
  s.context = createContext();
  s.function = std::move(function);
  OpBuilder b(s.context.get());
  s.module = ModuleOp::create(b.getUnknownLoc());
  if (!validSymbol(s.function)) {
    s.first_error = Status::error("'" + s.function +
                                  "' is not a function name (letters, digits, _ . $ -, not "
                                  "starting with a digit)");
    s.function = "main";
  }
  b.setInsertionPointToEnd(s.module->getBody());
  s.func = b.create<func::FuncOp>(FileLineColLoc::get(s.context.get(), "@" + s.function, 0, 1),
                                  s.function, b.getFunctionType({}, {}));
  s.builder = std::make_unique<OpBuilder>(s.context.get());
  s.builder->setInsertionPointToEnd(s.func.addEntryBlock());
}

Graph::Graph(std::unique_ptr<State> state) : state_(std::move(state)) {}
Graph::~Graph() = default;
Graph::Graph(Graph &&) noexcept = default;
Graph &Graph::operator=(Graph &&) noexcept = default;

Status Graph::status() const { return state_->first_error; }
const std::string &Graph::function() const { return state_->function; }

std::string Graph::str() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  state_->module->print(os);
  return text;
}

Expected<Graph> Graph::parse(const std::string &text, const std::string &name,
                             const std::string &function) {
  auto state = std::make_unique<State>();
  state->context = createContext();
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, name), llvm::SMLoc());
  DiagnosticCapture capture(*state->context);
  if (failed(mlir::spectral::checkSourceLimits(sources, sources.getMainFileID(),
                                               state->context.get())))
    return Status::error(capture.take(name + ": could not be parsed"));
  state->module = parseSourceFile<ModuleOp>(sources, state->context.get());
  if (!state->module) return Status::error(capture.take(name + ": could not be parsed"));
  std::vector<func::FuncOp> functions;
  state->module->walk([&](func::FuncOp f) { functions.push_back(f); });
  std::string wanted = function;
  if (wanted.empty()) wanted = functions.size() == 1 ? functions[0].getSymName().str() : "main";
  for (func::FuncOp f : functions)
    if (f.getSymName() == wanted) state->func = f;
  if (!state->func) {
    std::string names;
    for (func::FuncOp f : functions) names += " @" + f.getSymName().str();
    return Status::error(name + ": no function @" + wanted +
                         " (there is:" + (names.empty() ? " none" : names) + ")");
  }
  state->function = wanted;
  state->finished = true;
  state->graph_name = name;
  return Graph(std::move(state));
}

Expected<Graph> Graph::parse_file(const std::string &path, const std::string &function) {
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!file) return Status::error(path + ": " + file.getError().message());
  return parse((*file)->getBuffer().str(), path, function);
}

// --- making ops -------------------------------------------------------------

namespace {

Status recordError(Graph::State &s, Status status) {
  if (s.first_error.is_ok()) s.first_error = status;
  return status;
}

/// Why `what` cannot be added to a complete graph.
Status finishedError(const Graph::State &s, const std::string &what) {
  return Status::error("@" + s.function + ": " + what +
                       (s.graph_name.empty() ? " after output(): the graph is complete"
                                             : ": a parsed graph takes no new ops"));
}

} // namespace

Value GraphAccess::value(Graph::State &s, mlir::Value v) {
  Value result;
  result.graph_ = &s;
  result.id_ = int(s.values.size());
  result.status_ = Status::ok();
  auto type = cast<RankedTensorType>(v.getType());
  result.dtype_ = codegen::dtypeOf(type);
  result.shape_.assign(type.getShape().begin(), type.getShape().end());
  s.values.push_back(v);
  return result;
}

Value GraphAccess::error(Graph::State &s, Status status, bool record) {
  Value result;
  result.graph_ = &s;
  result.status_ = record ? recordError(s, std::move(status)) : std::move(status);
  return result;
}

StatusOr<mlir::Value> GraphAccess::lookup(Graph::State &s, const Value &v, const std::string &op,
                                          size_t index) {
  if (!v.status_.is_ok()) return v.status_;
  if (v.graph_ != &s || v.id_ < 0 || size_t(v.id_) >= s.values.size())
    return Status::error("@" + s.function + ": operand #" + std::to_string(index) + " of " + op +
                         " is not a value of this graph");
  return s.values[v.id_];
}

std::vector<Value> GraphAccess::make(Graph::State &s, const std::string &name,
                                     const std::vector<Value> &operands,
                                     ArrayRef<NamedAttribute> attributes, int results,
                                     ArrayRef<Type> types) {
  auto fail = [&](Status status, bool record = true) {
    Value failed = error(s, std::move(status), record);
    return std::vector<Value>(size_t(std::max(results, 1)), failed);
  };
  // A complete graph stays compilable: this call fails, the graph does not.
  if (s.finished) return fail(finishedError(s, name), /*record=*/false);
  OperationState state(FileLineColLoc::get(s.context.get(), "@" + s.function, ++s.ops, 1), name);
  for (size_t i = 0; i < operands.size(); ++i) {
    StatusOr<mlir::Value> operand = lookup(s, operands[i], name, i);
    if (!operand) return fail(operand.status());
    state.addOperands(*operand);
  }
  state.addAttributes(attributes);
  if (!types.empty())
    state.addTypes(types);
  else
    state.addTypes(SmallVector<Type>(size_t(results), NoneType::get(s.context.get())));

  DiagnosticCapture capture(*s.context);
  Operation *op = s.builder->create(state);
  auto refuse = [&](const std::string &fallback) {
    op->erase();
    std::string message = capture.take(fallback);
    // Inference reports at the op's location; say which op it was.
    const size_t severity = message.find("error: ");
    if (message.find(name) == std::string::npos && severity != std::string::npos)
      message.insert(severity + 7, name + ": ");
    return fail(Status::error(message));
  };
  const std::string where = "@" + s.function + ":" + std::to_string(s.ops) + ":1: error: " + name;
  if (types.empty()) {
    SmallVector<Type> inferred;
    if (auto infer = dyn_cast<InferTypeOpInterface>(op)) {
      if (failed(infer.inferReturnTypes(s.context.get(), op->getLoc(), op->getOperands(),
                                        op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
                                        op->getRegions(), inferred)))
        return refuse(where + ": its result types cannot be inferred from these operands");
    } else if (op->hasTrait<OpTrait::SameOperandsAndResultType>() && op->getNumOperands() > 0) {
      inferred.assign(size_t(results), op->getOperand(0).getType());
    }
    if (inferred.size() != op->getNumResults())
      return refuse(where + ": " + std::to_string(inferred.size()) + " result types for " +
                    std::to_string(op->getNumResults()) + " results");
    for (unsigned i = 0; i < op->getNumResults(); ++i) op->getResult(i).setType(inferred[i]);
  }
  if (failed(verify(op))) return refuse(where + ": invalid operands or attributes");
  std::vector<Value> made;
  for (OpResult result : op->getResults()) made.push_back(value(s, result));
  return made;
}

namespace {

Value one(Graph::State &s, const char *name, const std::vector<Value> &operands,
          ArrayRef<NamedAttribute> attributes = {}, ArrayRef<Type> types = {}) {
  return GraphAccess::make(s, name, operands, attributes, 1, types)[0];
}

Attribute normAttr(Builder &b, Norm norm) {
  switch (norm) {
  case Norm::kBackward: return mlir::spectral::NormAttr::get(b.getContext(), mlir::spectral::Norm::backward);
  case Norm::kOrtho: return mlir::spectral::NormAttr::get(b.getContext(), mlir::spectral::Norm::ortho);
  case Norm::kForward: return mlir::spectral::NormAttr::get(b.getContext(), mlir::spectral::Norm::forward);
  }
  return Attribute();
}

/// The tensor type of `dtype` and `shape`, or an error for a negative dimension.
StatusOr<RankedTensorType> tensorType(Graph::State &s, DType dtype,
                                      const std::vector<int64_t> &shape, const char *what) {
  int64_t elements = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return Status::error("@" + s.function + ": " + what + " of type " +
                           type_string(dtype, shape) + " has a negative dimension");
    // At most 2^58 elements: a Program's buffer sizes stay exact in int64.
    if (__builtin_mul_overflow(elements, d, &elements) || elements > (int64_t(1) << 58))
      return Status::error("@" + s.function + ": " + what + " of type " +
                           type_string(dtype, shape) + " has more than 2^58 elements");
  }
  return RankedTensorType::get(shape, elementType(s.context.get(), dtype));
}

} // namespace

Value Graph::input(DType dtype, std::vector<int64_t> shape, bool donated) {
  State &s = *state_;
  if (s.finished) return GraphAccess::error(s, finishedError(s, "input()"), /*record=*/false);
  StatusOr<RankedTensorType> type = tensorType(s, dtype, shape, "an input");
  if (!type) return GraphAccess::error(s, type.status());
  Block &entry = s.func.getBody().front();
  BlockArgument argument = entry.addArgument(*type, s.func.getLoc());
  SmallVector<Type> inputs(entry.getArgumentTypes());
  s.func.setFunctionType(FunctionType::get(s.context.get(), inputs, {}));
  s.donated.push_back(donated);
  return GraphAccess::value(s, argument);
}

Value Graph::constant(const Tensor &value) {
  State &s = *state_;
  StatusOr<RankedTensorType> type = tensorType(s, value.dtype(), value.shape(), "a constant");
  if (!type) return GraphAccess::error(s, type.status());
  DenseElementsAttr attr;
  if (value.dtype() == DType::kBool) {
    SmallVector<bool> bits(size_t(value.elements()));
    for (size_t i = 0; i < bits.size(); ++i) bits[i] = value.as<bool>()[i];
    attr = DenseElementsAttr::get(*type, bits);
  } else {
    attr = DenseElementsAttr::getFromRawBuffer(
        *type, ArrayRef<char>(static_cast<const char *>(value.data()), value.bytes()));
  }
  Builder b(s.context.get());
  return one(s, "spectral.constant", {}, {b.getNamedAttr("value", attr)}, {*type});
}

Value Graph::scalar(double value, DType dtype) {
  const bool integer = dtype == DType::kInt32 || dtype == DType::kInt64;
  const double limit = dtype == DType::kInt32 ? 2147483648.0 : 9223372036854775808.0;
  if (integer && !(value > -limit - 1 && value < limit))  // NaN fails both
    return GraphAccess::error(*state_, Status::error("@" + state_->function + ": scalar " +
                                                     std::to_string(value) + " is not an " +
                                                     dtype_name(dtype)));
  Tensor t = Tensor::zeros(dtype, {});
  switch (dtype) {
  case DType::kBool: *t.as<bool>() = value != 0; break;
  case DType::kInt32: *t.as<int32_t>() = int32_t(value); break;
  case DType::kInt64: *t.as<int64_t>() = int64_t(value); break;
  case DType::kFloat32: *t.as<float>() = float(value); break;
  case DType::kFloat64: *t.as<double>() = value; break;
  case DType::kComplex64: *t.as<std::complex<float>>() = float(value); break;
  case DType::kComplex128: *t.as<std::complex<double>>() = value; break;
  }
  return constant(t);
}

Status Graph::output(const std::vector<Value> &results) {
  State &s = *state_;
  if (s.finished) return finishedError(s, "output()");
  if (!s.first_error.is_ok()) return s.first_error;
  SmallVector<mlir::Value> values;
  for (size_t i = 0; i < results.size(); ++i) {
    StatusOr<mlir::Value> v = GraphAccess::lookup(s, results[i], "output()", i);
    if (!v) return recordError(s, v.status());
    values.push_back(*v);
  }
  s.builder->create<func::ReturnOp>(FileLineColLoc::get(s.context.get(), "@" + s.function, ++s.ops, 1),
                                    values);
  SmallVector<Type> inputs(s.func.getBody().front().getArgumentTypes());
  SmallVector<Type> outputs;
  for (mlir::Value v : values) outputs.push_back(v.getType());
  s.func.setFunctionType(FunctionType::get(s.context.get(), inputs, outputs));
  for (size_t i = 0; i < s.donated.size(); ++i)
    if (s.donated[i]) s.func.setArgAttr(unsigned(i), codegen::kDonatedAttr, UnitAttr::get(s.context.get()));
  s.finished = true;
  return Status::ok();
}

// --- the ops ----------------------------------------------------------------

#define SPECTRAL_UNARY(method, name)                                                              \
  Value Graph::method(Value x) { return one(*state_, "spectral." name, {x}); }
SPECTRAL_UNARY(neg, "neg")
SPECTRAL_UNARY(exp, "exp")
SPECTRAL_UNARY(log, "log")
SPECTRAL_UNARY(sqrt, "sqrt")
SPECTRAL_UNARY(tanh, "tanh")
SPECTRAL_UNARY(relu, "relu")
SPECTRAL_UNARY(gelu, "gelu")
SPECTRAL_UNARY(sigmoid, "sigmoid")
SPECTRAL_UNARY(conj, "conj")
SPECTRAL_UNARY(abs, "abs")
SPECTRAL_UNARY(real, "real")
SPECTRAL_UNARY(imag, "imag")
#undef SPECTRAL_UNARY

#define SPECTRAL_BINARY(method, name)                                                             \
  Value Graph::method(Value a, Value b) { return one(*state_, "spectral." name, {a, b}); }
SPECTRAL_BINARY(add, "add")
SPECTRAL_BINARY(sub, "sub")
SPECTRAL_BINARY(mul, "mul")
SPECTRAL_BINARY(div, "div")
SPECTRAL_BINARY(complex, "complex")
SPECTRAL_BINARY(matmul, "matmul")
SPECTRAL_BINARY(channel_mix, "channel_mix")
SPECTRAL_BINARY(gather, "gather")
SPECTRAL_BINARY(cross_entropy, "cross_entropy")
SPECTRAL_BINARY(mse, "mse")
#undef SPECTRAL_BINARY

Value Graph::compare(Compare predicate, Value a, Value b) {
  Builder builder(state_->context.get());
  auto attr = mlir::spectral::CmpPredicateAttr::get(
      builder.getContext(), static_cast<mlir::spectral::CmpPredicate>(int(predicate)));
  return one(*state_, "spectral.cmp", {a, b}, {builder.getNamedAttr("predicate", attr)});
}

Value Graph::select(Value condition, Value a, Value b) {
  return one(*state_, "spectral.select", {condition, a, b});
}

Value Graph::cast(Value x, DType dtype) {
  if (!x.ok()) return one(*state_, "spectral.cast", {x});
  StatusOr<RankedTensorType> type = tensorType(*state_, dtype, x.shape(), "a cast");
  if (!type) return GraphAccess::error(*state_, type.status());
  return one(*state_, "spectral.cast", {x}, {}, {*type});
}

namespace {

Value transform(Graph::State &s, const char *name, Value x, const std::vector<int64_t> &axes,
                Norm norm, std::vector<NamedAttribute> extra = {}) {
  Builder b(s.context.get());
  if (!normAttr(b, norm))
    return GraphAccess::error(s, Status::error("@" + s.function + ": " + name + ": norm " +
                                               std::to_string(int(norm)) + " is not a Norm"));
  extra.push_back(b.getNamedAttr("axes", b.getDenseI64ArrayAttr(axes)));
  extra.push_back(b.getNamedAttr("norm", normAttr(b, norm)));
  return one(s, name, {x}, extra);
}

} // namespace

Value Graph::fft(Value x, std::vector<int64_t> axes, Norm norm) {
  return transform(*state_, "spectral.fft", x, axes, norm);
}
Value Graph::ifft(Value x, std::vector<int64_t> axes, Norm norm) {
  return transform(*state_, "spectral.ifft", x, axes, norm);
}
Value Graph::rfft(Value x, std::vector<int64_t> axes, Norm norm) {
  return transform(*state_, "spectral.rfft", x, axes, norm);
}
Value Graph::irfft(Value x, std::vector<int64_t> axes, int64_t length, Norm norm) {
  Builder b(state_->context.get());
  return transform(*state_, "spectral.irfft", x, axes, norm,
                   {b.getNamedAttr("length", b.getI64IntegerAttr(length))});
}
Value Graph::dct(Value x, std::vector<int64_t> axes, int type, Norm norm) {
  Builder b(state_->context.get());
  return transform(*state_, "spectral.dct", x, axes, norm,
                   {b.getNamedAttr("dct_type", b.getI64IntegerAttr(type))});
}
Value Graph::idct(Value x, std::vector<int64_t> axes, int type, Norm norm) {
  Builder b(state_->context.get());
  return transform(*state_, "spectral.idct", x, axes, norm,
                   {b.getNamedAttr("dct_type", b.getI64IntegerAttr(type))});
}

std::vector<Value> Graph::topk_modes(Value x, int64_t k, bool flat) {
  Builder b(state_->context.get());
  std::vector<NamedAttribute> attributes{b.getNamedAttr("k", b.getI64IntegerAttr(k))};
  if (flat) attributes.push_back(b.getNamedAttr("flat", b.getUnitAttr()));
  return GraphAccess::make(*state_, "spectral.topk_modes", {x}, attributes, 2);
}

Value Graph::scatter(Value values, Value indices, std::vector<int64_t> shape) {
  if (!values.ok()) return one(*state_, "spectral.scatter", {values, indices});
  StatusOr<RankedTensorType> type = tensorType(*state_, values.dtype(), shape, "a scatter");
  if (!type) return GraphAccess::error(*state_, type.status());
  return one(*state_, "spectral.scatter", {values, indices}, {}, {*type});
}

std::vector<Value> Graph::sparse_add(Value lv, Value li, Value rv, Value ri) {
  return GraphAccess::make(*state_, "spectral.sparse_add", {lv, li, rv, ri}, {}, 2);
}
std::vector<Value> Graph::sparse_mul(Value lv, Value li, Value rv, Value ri) {
  return GraphAccess::make(*state_, "spectral.sparse_mul", {lv, li, rv, ri}, {}, 2);
}

namespace {

Value reduce(Graph::State &s, const char *name, Value x, const std::vector<int64_t> &axes,
             bool keepdims) {
  Builder b(s.context.get());
  std::vector<NamedAttribute> attributes{b.getNamedAttr("axes", b.getDenseI64ArrayAttr(axes))};
  if (keepdims) attributes.push_back(b.getNamedAttr("keepdims", b.getUnitAttr()));
  return one(s, name, {x}, attributes);
}

} // namespace

Value Graph::reduce_sum(Value x, std::vector<int64_t> axes, bool keepdims) {
  return reduce(*state_, "spectral.reduce_sum", x, axes, keepdims);
}
Value Graph::reduce_mean(Value x, std::vector<int64_t> axes, bool keepdims) {
  return reduce(*state_, "spectral.reduce_mean", x, axes, keepdims);
}
Value Graph::reduce_max(Value x, std::vector<int64_t> axes, bool keepdims) {
  return reduce(*state_, "spectral.reduce_max", x, axes, keepdims);
}
Value Graph::softmax(Value x, int64_t axis) {
  Builder b(state_->context.get());
  return one(*state_, "spectral.softmax", {x}, {b.getNamedAttr("axis", b.getI64IntegerAttr(axis))});
}
Value Graph::log_softmax(Value x, int64_t axis) {
  Builder b(state_->context.get());
  return one(*state_, "spectral.log_softmax", {x}, {b.getNamedAttr("axis", b.getI64IntegerAttr(axis))});
}

namespace {

/// An op whose result is x's dtype in a shape the caller gives.
Value reshaped(Graph::State &s, const char *name, Value x, const std::vector<int64_t> &shape) {
  if (!x.ok()) return one(s, name, {x});
  StatusOr<RankedTensorType> type = tensorType(s, x.dtype(), shape, name);
  if (!type) return GraphAccess::error(s, type.status());
  return one(s, name, {x}, {}, {*type});
}

} // namespace

Value Graph::reshape(Value x, std::vector<int64_t> shape) {
  return reshaped(*state_, "spectral.reshape", x, shape);
}
Value Graph::broadcast(Value x, std::vector<int64_t> shape) {
  return reshaped(*state_, "spectral.broadcast", x, shape);
}
Value Graph::transpose(Value x, std::vector<int64_t> perm) {
  Builder b(state_->context.get());
  return one(*state_, "spectral.transpose", {x}, {b.getNamedAttr("perm", b.getDenseI64ArrayAttr(perm))});
}
Value Graph::slice(Value x, std::vector<int64_t> start, std::vector<int64_t> limit,
                   std::vector<int64_t> stride) {
  Builder b(state_->context.get());
  std::vector<NamedAttribute> attributes{b.getNamedAttr("start", b.getDenseI64ArrayAttr(start)),
                                         b.getNamedAttr("limit", b.getDenseI64ArrayAttr(limit))};
  if (!stride.empty()) attributes.push_back(b.getNamedAttr("stride", b.getDenseI64ArrayAttr(stride)));
  return one(*state_, "spectral.slice", {x}, attributes);
}
Value Graph::pad(Value x, std::vector<int64_t> low, std::vector<int64_t> high, double value) {
  Builder b(state_->context.get());
  return one(*state_, "spectral.pad", {x},
             {b.getNamedAttr("low", b.getDenseI64ArrayAttr(low)),
              b.getNamedAttr("high", b.getDenseI64ArrayAttr(high)),
              b.getNamedAttr("value", b.getF64FloatAttr(value))});
}
Value Graph::concat(const std::vector<Value> &xs, int64_t axis) {
  Builder b(state_->context.get());
  return one(*state_, "spectral.concat", xs, {b.getNamedAttr("axis", b.getI64IntegerAttr(axis))});
}

std::vector<Value> Graph::sgd_step(Value param, Value grad, Value velocity,
                                   const SgdOptions &options) {
  Builder b(state_->context.get());
  std::vector<NamedAttribute> attributes{
      b.getNamedAttr("momentum", b.getF64FloatAttr(options.momentum)),
      b.getNamedAttr("weight_decay", b.getF64FloatAttr(options.weight_decay))};
  if (options.nesterov) attributes.push_back(b.getNamedAttr("nesterov", b.getUnitAttr()));
  std::vector<Value> operands{param, grad, velocity};
  if (options.lr_input)
    operands.push_back(*options.lr_input);
  else
    attributes.push_back(b.getNamedAttr("lr", b.getF64FloatAttr(options.lr)));
  return GraphAccess::make(*state_, "spectral.sgd_step", operands, attributes, 2);
}

std::vector<Value> Graph::adam_step(Value param, Value grad, Value m, Value v, Value step,
                                    const AdamOptions &options) {
  Builder b(state_->context.get());
  std::vector<NamedAttribute> attributes{
      b.getNamedAttr("beta1", b.getF64FloatAttr(options.beta1)),
      b.getNamedAttr("beta2", b.getF64FloatAttr(options.beta2)),
      b.getNamedAttr("eps", b.getF64FloatAttr(options.eps)),
      b.getNamedAttr("weight_decay", b.getF64FloatAttr(options.weight_decay))};
  if (options.decoupled) attributes.push_back(b.getNamedAttr("decoupled", b.getUnitAttr()));
  std::vector<Value> operands{param, grad, m, v, step};
  if (options.lr_input)
    operands.push_back(*options.lr_input);
  else
    attributes.push_back(b.getNamedAttr("lr", b.getF64FloatAttr(options.lr)));
  return GraphAccess::make(*state_, "spectral.adam_step", operands, attributes, 3);
}

std::vector<Value> Graph::clip_global_norm(const std::vector<Value> &xs, double max_norm) {
  Builder b(state_->context.get());
  return GraphAccess::make(*state_, "spectral.clip_global_norm", xs,
                           {b.getNamedAttr("max_norm", b.getF64FloatAttr(max_norm))},
                           int(xs.size()) + 1);
}

} // namespace spectral
