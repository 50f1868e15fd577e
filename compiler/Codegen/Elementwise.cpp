//===- Elementwise.cpp - pointwise and index-map ops as one kernel --------===//
//
// A group of pointwise ops (and the injective ops that only move elements:
// broadcast, transpose, slice, pad, concat, reshape) becomes one kernel. Each
// value of the group is a member function `T vN(long long i)` of a struct
// that holds the group's inputs: i is the row-major index into that value's
// own shape, and an operand of another shape is read at its index map
// (numpy broadcasting, a permutation, a window, a padding test, a concat
// branch). The kernel stores each output with a grid-stride loop. Values
// used twice are recomputed, which costs arithmetic but never memory
// traffic; the fusion issue decides what groups are worth it. The same
// struct is also another kernel's Load or Store (renderFusedGroup): there an
// anchor's result may be "inlined", its element at the index being stored
// passed to every function as `a`, and reading it anywhere else is refused.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/Elementwise.h"

#include "compiler/Codegen/CodegenUtil.h"
#include "compiler/Codegen/Constants.h"
#include "dialects/spectral/IR/SpectralOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <cstdio>

using namespace mlir;
namespace sp = mlir::spectral;

namespace spectral::codegen {

bool isElementwiseOp(Operation *op) {
  return isa<sp::AddOp, sp::SubOp, sp::MulOp, sp::DivOp, sp::NegOp, sp::ExpOp, sp::LogOp,
             sp::SqrtOp, sp::TanhOp, sp::ReluOp, sp::GeluOp, sp::SigmoidOp, sp::ConjOp,
             sp::AbsOp, sp::RealOp, sp::ImagOp, sp::ComplexOp, sp::CastOp, sp::CmpOp,
             sp::SelectOp, sp::BroadcastOp, sp::TransposeOp, sp::SliceOp, sp::PadOp,
             sp::ConcatOp, sp::ReshapeOp>(op) ||
         (isa<sp::ConstantOp, arith::ConstantOp>(op) && splatLiteral(op));
}

namespace {

/// Writes the struct of member functions and the entry for one group.
class GroupWriter {
public:
  /// `inlined` (optional) is a value from outside the group whose element at
  /// the index being computed arrives as the functions' parameter `a`.
  explicit GroupWriter(llvm::ArrayRef<Operation *> ops, Value inlined = {})
      : ops_(ops.begin(), ops.end()), inlined_(inlined) {
    for (Operation *op : ops) inGroup_.insert(op);
  }

  llvm::Error render() {
    for (Operation *op : ops_) {
      for (Value operand : op->getOperands()) leafOf(operand);
      if (llvm::Error error = renderOp(op)) return error;
      if (!farRead_.empty())
        return CodegenContext::error(op, "reads " + farRead_ + " at another element");
    }
    return llvm::Error::success();
  }

  /// The expression reading `value` at the index expression `index` inside
  /// the struct. The inlined value exists only at index i.
  std::string read(Value value, const std::string &index) {
    if (inlined_ && value == inlined_) {
      if (index != "i") farRead_ = "the fused anchor's result";
      current_ = true;
      return "a";
    }
    auto leaf = leaves_.find(value);
    if (leaf != leaves_.end()) return "in" + std::to_string(leaf->second) + "[" + index + "]";
    Operation *def = value.getDefiningOp();
    if (std::optional<std::string> literal = splatLiteral(def)) return *literal;
    if (usesInlined_.contains(value)) {
      if (index != "i") farRead_ = "the fused anchor's result";
      current_ = true;
      return functions_.lookup(value) + "(" + index + ", a)";
    }
    return functions_.lookup(value) + "(" + index + (inlined_ ? ", a)" : ")");
  }

  /// The struct `name`: the inputs' pointers, the error word and one member
  /// function per value.
  std::string definition(const std::string &name) const {
    std::string members;
    for (size_t k = 0; k < leafOrder_.size(); ++k) {
      auto accessor = llvm::find_if(accessors_, [&](auto &a) { return a.first == leafOrder_[k]; });
      members += "  " +
                 (accessor != accessors_.end()
                      ? accessor->second + " "
                      : "const " + std::string(cppType(dtypeOf(leafOrder_[k].getType()))) + "* ") +
                 "in" + std::to_string(k) + ";\n";
    }
    return "struct " + name + " {\n" + members + "  unsigned long long* error;\n" + body_ +
           "};\n";
  }

  /// `value` at index expression `index` through the struct object
  /// `object`, with `a` the inlined value's element there.
  std::string call(Value value, const std::string &object, const std::string &index,
                   const std::string &a = "") const {
    if (inlined_ && value == inlined_) return a;
    auto leaf = leaves_.find(value);
    if (leaf != leaves_.end())
      return object + ".in" + std::to_string(leaf->second) + "[" + index + "]";
    if (std::optional<std::string> literal = splatLiteral(value.getDefiningOp())) return *literal;
    return object + "." + functions_.lookup(value) + "(" + index + (inlined_ ? ", " + a : "") + ")";
  }

  std::string unit(const std::string &entry, llvm::ArrayRef<Value> outputs) const {
    std::string params, init;
    for (size_t k = 0; k < leafOrder_.size(); ++k) {
      params += "const " + std::string(cppType(dtypeOf(leafOrder_[k].getType()))) +
                "* __restrict__ in" + std::to_string(k) + ", ";
      init += "in" + std::to_string(k) + ", ";
    }
    std::string loops;
    for (size_t k = 0; k < outputs.size(); ++k) {
      std::string out = "out" + std::to_string(k);
      params += std::string(cppType(dtypeOf(outputs[k].getType()))) + "* __restrict__ " + out + ", ";
      loops += "  spectral_pointwise::for_each_index<4, long long>(" +
               std::to_string(elementCount(outputs[k])) + "LL, [&](long long i) { " + out +
               "[i] = " + call(outputs[k], "g", "i") + "; });\n";
    }
    params += "unsigned long long* error";
    return "#include \"elementwise.cuh\"\n#include \"pointwise.cuh\"\n\n"
           "namespace {\n" + definition("Group") + "}  // namespace\n\n"
           "extern \"C\" __global__ void " + entry + "(" + params + ") {\n"
           "  const Group g{" + init + "error};\n" + loops + "}\n";
  }

  llvm::ArrayRef<Value> leaves() const { return leafOrder_; }
  /// Makes `value`, requested of the group, a leaf when no op of the group
  /// computes it (an input read as it is); a splat constant stays a literal.
  void request(Value value) {
    if (!splatLiteral(value.getDefiningOp())) leafOf(value);
  }
  /// Leaves read through a member of the given type instead of a pointer.
  std::vector<std::pair<Value, std::string>> accessors_;
  bool reportsErrors() const { return !failing_.empty(); }
  /// The ops that can fail, as steps name ops: "spectral.div (x.mlir:3:8)".
  std::string failingOps() const {
    std::string text;
    for (auto &[op, kind] : failing_)
      text += (text.empty() ? "" : " or ") + CodegenContext::describe(op);
    return text;
  }
  /// "integer division by zero", with the op when several can fail.
  std::string errorMessage() const {
    std::string message;
    for (auto &[op, kind] : failing_)
      message += (message.empty() ? "" : " or ") + kind +
                 (failing_.size() > 1 ? " in " + CodegenContext::describe(op) : "");
    return message + "; the position counts elements of the failing op's result";
  }

private:
  void leafOf(Value value) {
    Operation *def = value.getDefiningOp();
    if ((def && inGroup_.count(def)) || leaves_.count(value) || (inlined_ && value == inlined_))
      return;
    leaves_[value] = int(leafOrder_.size());
    leafOrder_.push_back(value);
  }

  /// Statements binding c0..c(R-1) to the coordinates of i in `shape`.
  static std::string coordinates(llvm::ArrayRef<int64_t> shape) {
    if (shape.empty()) return "";
    std::string code = "    long long c[" + std::to_string(shape.size()) + "];\n    {\n"
                       "      long long r = i;\n";
    for (int d = int(shape.size()) - 1; d > 0; --d)
      code += "      c[" + std::to_string(d) + "] = r % " + std::to_string(shape[d]) +
              "LL; r /= " + std::to_string(shape[d]) + "LL;\n";
    return code + "      c[0] = r;\n    }\n";
  }

  /// The index of `operand` (numpy-broadcast to `shape`) for coordinates c.
  static std::string broadcastIndex(llvm::ArrayRef<int64_t> shape, Value operand) {
    std::vector<int64_t> in = shapeOf(operand.getType());
    if (llvm::ArrayRef<int64_t>(in) == shape) return "i";
    std::vector<int64_t> strides = rowMajorStrides(in);
    std::string index;
    size_t offset = shape.size() - in.size();
    for (size_t d = 0; d < in.size(); ++d)
      if (in[d] != 1)
        index += (index.empty() ? "" : " + ") + std::string("c[") + std::to_string(d + offset) +
                 "] * " + std::to_string(strides[d]) + "LL";
    return index.empty() ? "0" : index;
  }

  std::string define(Value result, const std::string &statements, const std::string &expr) {
    std::string name = "v" + std::to_string(functions_.size());
    functions_[result] = name;
    if (current_) usesInlined_.insert(result);
    current_ = false;
    std::string parameter =
        inlined_ ? ", " + std::string(cppType(dtypeOf(inlined_.getType()))) + " a" : "";
    body_ += "  __device__ __forceinline__ " + std::string(cppType(dtypeOf(result.getType()))) +
             " " + name + "(long long i" + parameter + ") const {\n" + statements +
             "    return " + expr + ";\n  }\n";
    return name;
  }

  /// A pointwise op: operands read at their broadcast index.
  llvm::Error pointwise(Operation *op, const std::string &fn) {
    Value result = op->getResult(0);
    std::vector<int64_t> shape = shapeOf(result.getType());
    bool same = true;
    for (Value operand : op->getOperands())
      same = same && shapeOf(operand.getType()) == shape;
    std::string args;
    for (Value operand : op->getOperands())
      args += (args.empty() ? "" : ", ") + read(operand, broadcastIndex(shape, operand));
    define(result, same ? "" : coordinates(shape), fn + "(" + args + ")");
    return llvm::Error::success();
  }

  llvm::Error renderOp(Operation *op) {
    if (splatLiteral(op)) return llvm::Error::success();  // read as a literal
    Value result = op->getResult(0);
    DType type = dtypeOf(result.getType());
    std::vector<int64_t> shape = shapeOf(result.getType());
    using llvm::TypeSwitch;
    return TypeSwitch<Operation *, llvm::Error>(op)
        .Case([&](sp::AddOp) -> llvm::Error { return pointwise(op, "spectral_ew::add"); })
        .Case([&](sp::SubOp) -> llvm::Error { return pointwise(op, "spectral_ew::sub"); })
        .Case([&](sp::MulOp) -> llvm::Error { return pointwise(op, "spectral_ew::mul"); })
        .Case([&](sp::DivOp) -> llvm::Error {
          if (type == DType::kInt32 || type == DType::kInt64) {
            failing_.push_back({op, "integer division by zero"});
            Value a = op->getOperand(0), b = op->getOperand(1);
            bool same = shapeOf(a.getType()) == shape && shapeOf(b.getType()) == shape;
            define(result, same ? "" : coordinates(shape),
                   "spectral_ew::int_div(" + read(a, broadcastIndex(shape, a)) + ", " +
                       read(b, broadcastIndex(shape, b)) + ", error, i)");
            return llvm::Error::success();
          }
          return pointwise(op, "spectral_ew::div");
        })
        .Case([&](sp::NegOp) -> llvm::Error { return pointwise(op, "spectral_ew::neg"); })
        .Case([&](sp::ExpOp) -> llvm::Error { return pointwise(op, "spectral_ew::exp_of"); })
        .Case([&](sp::LogOp) -> llvm::Error { return pointwise(op, "spectral_ew::log_of"); })
        .Case([&](sp::SqrtOp) -> llvm::Error { return pointwise(op, "spectral_ew::sqrt_of"); })
        .Case([&](sp::TanhOp) -> llvm::Error { return pointwise(op, "spectral_ew::tanh_of"); })
        .Case([&](sp::ReluOp) -> llvm::Error { return pointwise(op, "spectral_ew::relu"); })
        .Case([&](sp::GeluOp) -> llvm::Error { return pointwise(op, "spectral_ew::gelu"); })
        .Case([&](sp::SigmoidOp) -> llvm::Error { return pointwise(op, "spectral_ew::sigmoid"); })
        .Case([&](sp::ConjOp) -> llvm::Error { return pointwise(op, "spectral_ew::conj_of"); })
        .Case([&](sp::AbsOp) -> llvm::Error { return pointwise(op, "spectral_ew::abs_of"); })
        .Case([&](sp::RealOp) -> llvm::Error { return pointwise(op, "spectral_ew::real_of"); })
        .Case([&](sp::ImagOp) -> llvm::Error { return pointwise(op, "spectral_ew::imag_of"); })
        .Case([&](sp::ComplexOp) -> llvm::Error { return pointwise(op, "spectral_ew::complex_of"); })
        .Case([&](sp::CastOp cast) -> llvm::Error {
          DType from = dtypeOf(cast.getX().getType());
          bool fromFloat = from != DType::kBool && from != DType::kInt32 && from != DType::kInt64;
          if ((type == DType::kInt32 || type == DType::kInt64) && fromFloat)
            failing_.push_back({op, "a NaN or infinity cast to an integer"});
          define(result, "",
                 "spectral_ew::cast<" + std::string(cppType(type)) + ">(" +
                     read(cast.getX(), "i") + ", error, i)");
          return llvm::Error::success();
        })
        .Case([&](sp::CmpOp cmp) -> llvm::Error {
          static const char *const symbols[] = {"==", "!=", "<", "<=", ">", ">="};
          const char *symbol = symbols[int(cmp.getPredicate())];
          Value a = cmp.getLhs(), b = cmp.getRhs();
          bool same = shapeOf(a.getType()) == shape && shapeOf(b.getType()) == shape;
          define(result, same ? "" : coordinates(shape),
                 "(" + read(a, broadcastIndex(shape, a)) + " " + symbol + " " +
                     read(b, broadcastIndex(shape, b)) + ")");
          return llvm::Error::success();
        })
        .Case([&](sp::SelectOp select) -> llvm::Error {
          Value c = select.getCond(), a = select.getA(), b = select.getB();
          bool same = shapeOf(c.getType()) == shape && shapeOf(a.getType()) == shape &&
                      shapeOf(b.getType()) == shape;
          define(result, same ? "" : coordinates(shape),
                 "(" + read(c, broadcastIndex(shape, c)) + " ? " +
                     read(a, broadcastIndex(shape, a)) + " : " +
                     read(b, broadcastIndex(shape, b)) + ")");
          return llvm::Error::success();
        })
        .Case([&](sp::BroadcastOp b) -> llvm::Error {
          bool same = shapeOf(b.getX().getType()) == shape;
          define(result, same ? "" : coordinates(shape), read(b.getX(), broadcastIndex(shape, b.getX())));
          return llvm::Error::success();
        })
        .Case([&](sp::ReshapeOp r) -> llvm::Error {
          define(result, "", read(r.getX(), "i"));
          return llvm::Error::success();
        })
        .Case([&](sp::TransposeOp t) -> llvm::Error {
          std::vector<int64_t> strides = rowMajorStrides(shapeOf(t.getX().getType()));
          std::string index;
          llvm::ArrayRef<int64_t> perm = t.getPerm();
          for (size_t d = 0; d < perm.size(); ++d)
            index += (index.empty() ? "" : " + ") + std::string("c[") + std::to_string(d) +
                     "] * " + std::to_string(strides[perm[d]]) + "LL";
          define(result, coordinates(shape), read(t.getX(), index.empty() ? "0" : index));
          return llvm::Error::success();
        })
        .Case([&](sp::SliceOp s) -> llvm::Error {
          std::vector<int64_t> strides = rowMajorStrides(shapeOf(s.getX().getType()));
          llvm::ArrayRef<int64_t> start = s.getStart();
          std::optional<llvm::ArrayRef<int64_t>> step = s.getStride();
          std::string index;
          for (size_t d = 0; d < shape.size(); ++d) {
            int64_t by = step ? (*step)[d] : 1;
            index += (index.empty() ? "" : " + ") + std::string("(") + std::to_string(start[d]) +
                     "LL + c[" + std::to_string(d) + "] * " + std::to_string(by) + "LL) * " +
                     std::to_string(strides[d]) + "LL";
          }
          define(result, coordinates(shape), read(s.getX(), index.empty() ? "0" : index));
          return llvm::Error::success();
        })
        .Case([&](sp::PadOp p) -> llvm::Error {
          std::vector<int64_t> in = shapeOf(p.getX().getType());
          std::vector<int64_t> strides = rowMajorStrides(in);
          llvm::ArrayRef<int64_t> low = p.getLow();
          std::string inside = "true", index;
          for (size_t d = 0; d < shape.size(); ++d) {
            std::string k = "(c[" + std::to_string(d) + "] - " + std::to_string(low[d]) + "LL)";
            inside += " && " + k + " >= 0 && " + k + " < " + std::to_string(in[d]) + "LL";
            index += (index.empty() ? "" : " + ") + k + " * " + std::to_string(strides[d]) + "LL";
          }
          double padValue = p.getValue().convertToDouble();
          bool integer = type == DType::kInt32 || type == DType::kInt64;
          bool padded = llvm::any_of(p.getLow(), [](int64_t v) { return v > 0; }) ||
                        llvm::any_of(p.getHigh(), [](int64_t v) { return v > 0; });
          if (integer && padded && !std::isfinite(padValue))
            return CodegenContext::error(op, "pads an integer tensor with a NaN or infinity");
          std::string real = dtype_is_wide(type) || integer ? "double" : "float";
          std::string literal;
          if (std::isnan(padValue)) {
            literal = "spectral_ew::quiet_nan<" + real + ">()";
          } else if (std::isinf(padValue)) {
            literal = std::string(padValue < 0 ? "-" : "") + "spectral_ew::infinity<" + real + ">()";
          } else {
            char text[64];
            std::snprintf(text, sizeof text, "%.17g", padValue);
            literal = text;
          }
          std::string fill = "spectral_ew::cast<" + std::string(cppType(type)) + ">(" + literal +
                             ", nullptr, 0)";
          define(result, coordinates(shape),
                 "(" + inside + ") ? " + read(p.getX(), index.empty() ? "0" : index) + " : " + fill);
          return llvm::Error::success();
        })
        .Case([&](sp::ConcatOp c) -> llvm::Error {
          int64_t axis = int64_t(c.getAxis());
          std::string statements = coordinates(shape), expr;
          int64_t begin = 0;
          auto inputs = c.getInputs();
          // The last input takes what the others do not: nested conditionals.
          for (size_t k = 0; k < inputs.size(); ++k) {
            std::vector<int64_t> in = shapeOf(inputs[k].getType());
            std::vector<int64_t> strides = rowMajorStrides(in);
            std::string index;
            for (size_t d = 0; d < in.size(); ++d)
              index += (index.empty() ? "" : " + ") + std::string("(c[") + std::to_string(d) +
                       "]" + (int64_t(d) == axis ? " - " + std::to_string(begin) + "LL" : "") +
                       ") * " + std::to_string(strides[d]) + "LL";
            std::string value = read(inputs[k], index.empty() ? "0" : index);
            begin += in[axis];
            expr += k + 1 < inputs.size() ? "c[" + std::to_string(axis) + "] < " +
                                                std::to_string(begin) + "LL ? " + value + " : "
                                          : value;
          }
          define(result, statements, "(" + expr + ")");
          return llvm::Error::success();
        })
        .Default([&](Operation *) -> llvm::Error {
          return CodegenContext::error(op, "is not an elementwise op");
        });
  }

  std::vector<Operation *> ops_;
  Value inlined_;
  llvm::DenseSet<Value> usesInlined_;  // values computed from the inlined one
  bool current_ = false;               // the op being rendered reads it
  std::string farRead_;                // set when it is read at another index
  llvm::DenseSet<Operation *> inGroup_;
  llvm::DenseMap<Value, int> leaves_;
  std::vector<Value> leafOrder_;
  llvm::DenseMap<Value, std::string> functions_;
  std::string body_;
  std::vector<std::pair<Operation *, std::string>> failing_;
};

/// "ew_add_gelu_f32_4x8x128": the group's op names (at most four, then the
/// count of the rest), the first output's dtype and shape.
std::string entryName(llvm::ArrayRef<Operation *> ops, Value output) {
  std::string name = "ew";
  int named = 0;
  for (Operation *op : ops) {
    if (splatLiteral(op)) continue;
    if (named++ < 4) name += "_" + op->getName().stripDialect().str();
  }
  if (named > 4) name += "_and" + std::to_string(named - 4);
  return name + "_" + shortName(dtypeOf(output.getType())) + "_" +
         shapeName(shapeOf(output.getType()));
}

} // namespace

llvm::Expected<FusedGroup> renderFusedGroup(llvm::ArrayRef<Operation *> ops, Value inlined,
                                            llvm::ArrayRef<Value> values, const std::string &name,
                                            const std::string &object, const std::string &index,
                                            const std::string &a,
                                            llvm::ArrayRef<std::pair<Value, std::string>> accessors) {
  GroupWriter writer(ops, inlined);
  writer.accessors_.assign(accessors.begin(), accessors.end());
  if (llvm::Error error = writer.render()) return error;
  for (Value value : values) writer.request(value);
  FusedGroup group;
  group.definition = writer.definition(name);
  group.leaves.assign(writer.leaves().begin(), writer.leaves().end());
  for (Value value : values) group.calls.push_back(writer.call(value, object, index, a));
  group.reportsErrors = writer.reportsErrors();
  return group;
}

llvm::Error lowerElementwise(CodegenContext &context, llvm::ArrayRef<Operation *> ops,
                             llvm::ArrayRef<Value> outputs, llvm::ArrayRef<int> outputBuffers) {
  if (outputs.empty()) return llvm::Error::success();  // nothing is used: no kernel
  GroupWriter writer(ops);
  if (llvm::Error error = writer.render()) return error;
  std::string description;
  for (Operation *op : ops)
    if (!splatLiteral(op))
      description += (description.empty() ? "" : ", ") + CodegenContext::describe(op);
  std::string entry = entryName(ops, outputs.front());
  ProgramBuilder &builder = context.builder;
  std::vector<StepArg> args;
  int64_t bytesRead = 0, bytesWritten = 0, count = 0;
  for (Value leaf : writer.leaves()) {
    int buffer = context.bufferOf(leaf);
    args.push_back(StepArg::of_buffer(buffer));
    bytesRead += builder.program().buffers[buffer].bytes();
  }
  for (int buffer : outputBuffers) {
    args.push_back(StepArg::of_buffer(buffer));
    bytesWritten += builder.program().buffers[buffer].bytes();
    count = std::max(count, builder.program().buffers[buffer].elements());
  }
  int errorWord = -1;
  if (writer.reportsErrors()) {
    errorWord = context.newScratch(ops.back(), DType::kInt64, 1);
    args.push_back(StepArg::of_buffer(errorWord));
  } else {
    args.push_back(StepArg::i64(0));  // a null error word
  }
  int kernel = builder.addKernel({writer.unit(entry, outputs), entry}, description, bytesRead,
                                 bytesWritten);
  builder.launch(kernel, gridFor(count, 256, 4), {256, 1, 1}, 0, std::move(args),
                 writer.reportsErrors() ? writer.failingOps() : CodegenContext::describe(ops.back()),
                 errorWord, writer.reportsErrors() ? writer.errorMessage() : std::string());
  return llvm::Error::success();
}

} // namespace spectral::codegen
