//===- CodegenContext.cpp - buffers of values, names, types ---------------===//
#include "compiler/Codegen/CodegenContext.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;

namespace spectral::codegen {

int CodegenContext::bufferOf(Value value) const {
  auto found = buffers_.find(value);
  if (found == buffers_.end()) {
    // An invariant of the driver (every operand is lowered before its users),
    // not a user error: stop with the value named rather than read past the map.
    std::string text;
    llvm::raw_string_ostream os(text);
    value.print(os);
    llvm::report_fatal_error(llvm::Twine("codegen: no buffer for ") + os.str());
  }
  return found->second;
}

int CodegenContext::newResultBuffer(Value result) {
  std::string name;
  llvm::raw_string_ostream os(name);
  OpPrintingFlags flags;
  result.printAsOperand(os, flags);
  int id = builder.addBuffer(os.str(), dtypeOf(result.getType()), shapeOf(result.getType()));
  setBuffer(result, id);
  return id;
}

int CodegenContext::newScratch(Operation *op, DType dtype, int64_t elements) {
  return builder.addBuffer(op->getName().stripDialect().str() + "_scratch" +
                               std::to_string(scratchCount_++),
                           dtype, {elements});
}

/// "graph.mlir:4:8" for a file location (or the first one inside a fused
/// location, as folded constants get), else "".
std::string locationText(Location location) {
  if (auto loc = dyn_cast<FileLineColLoc>(location))
    return loc.getFilename().str() + ":" + std::to_string(loc.getLine()) + ":" +
           std::to_string(loc.getColumn());
  if (auto fused = dyn_cast<FusedLoc>(location))
    for (Location inner : fused.getLocations())
      if (std::string text = locationText(inner); !text.empty()) return text;
  return "";
}


std::string CodegenContext::describe(Operation *op) {
  std::string where = locationText(op->getLoc());
  return op->getName().getStringRef().str() + (where.empty() ? "" : " (" + where + ")");
}

llvm::Error CodegenContext::error(Operation *op, const llvm::Twine &message) {
  std::string where = locationText(op->getLoc());
  return llvm::createStringError((where.empty() ? "" : where + ": ") + "'" +
                                 op->getName().getStringRef().str() + "': " + message.str());
}

DType dtypeOf(Type type) {
  Type element = cast<ShapedType>(type).getElementType();
  if (auto complex = dyn_cast<ComplexType>(element))
    return complex.getElementType().isF64() ? DType::kComplex128 : DType::kComplex64;
  if (element.isF64()) return DType::kFloat64;
  if (element.isF32()) return DType::kFloat32;
  if (element.isInteger(1)) return DType::kBool;
  if (element.isInteger(64)) return DType::kInt64;
  return DType::kInt32;
}

std::vector<int64_t> shapeOf(Type type) {
  auto shape = cast<ShapedType>(type).getShape();
  return {shape.begin(), shape.end()};
}

const char *cppType(DType dtype) {
  switch (dtype) {
  case DType::kBool: return "bool";
  case DType::kInt32: return "int";
  case DType::kInt64: return "long long";
  case DType::kFloat32: return "float";
  case DType::kFloat64: return "double";
  case DType::kComplex64: return "spectral_fft::cplx<float>";
  case DType::kComplex128: return "spectral_fft::cplx<double>";
  }
  return "?";
}

const char *shortName(DType dtype) {
  switch (dtype) {
  case DType::kBool: return "i1";
  case DType::kInt32: return "i32";
  case DType::kInt64: return "i64";
  case DType::kFloat32: return "f32";
  case DType::kFloat64: return "f64";
  case DType::kComplex64: return "c64";
  case DType::kComplex128: return "c128";
  }
  return "?";
}

std::string shapeName(llvm::ArrayRef<int64_t> shape) {
  if (shape.empty()) return "scalar";
  std::string name;
  for (int64_t d : shape) name += (name.empty() ? "" : "x") + std::to_string(d);
  return name;
}

Dim3 gridFor(int64_t count, int threads, int items) {
  int64_t perBlock = int64_t(threads) * items;
  int64_t blocks = std::max<int64_t>(1, (count + perBlock - 1) / perBlock);
  return {uint32_t(std::min<int64_t>(blocks, 65535 * 16)), 1, 1};
}

} // namespace spectral::codegen
