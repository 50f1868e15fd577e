//===- Constants.cpp - dense literals as kernel literals or buffers -------===//
#include "compiler/Codegen/Constants.h"

#include "dialects/spectral/IR/SpectralOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <limits>

using namespace mlir;
namespace sp = mlir::spectral;

namespace spectral::codegen {
namespace {

DenseElementsAttr denseValue(Operation *op) {
  if (!op) return {};
  if (auto constant = dyn_cast<sp::ConstantOp>(op))
    return dyn_cast<DenseElementsAttr>(constant.getValue());
  if (auto constant = dyn_cast<arith::ConstantOp>(op))
    return dyn_cast<DenseElementsAttr>(constant.getValue());
  return {};
}

std::string real(double v, bool wide) {
  char text[64];
  std::snprintf(text, sizeof text, wide ? "%.17g" : "%.9g", v);
  std::string s = text;
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return wide ? s : s + "f";
}

/// Each element as a complex double (integers exact below 2^53; i64 beyond
/// goes through APInt in constantBuffer).
std::complex<double> element(DenseElementsAttr dense, int64_t i) {
  Type type = dense.getElementType();
  if (auto complex = dyn_cast<ComplexType>(type)) {
    auto value = dense.getValues<std::complex<APFloat>>()[i];
    return {value.real().convertToDouble(), value.imag().convertToDouble()};
  }
  if (isa<FloatType>(type)) return dense.getValues<APFloat>()[i].convertToDouble();
  if (type.isInteger(1)) return dense.getValues<bool>()[i] ? 1.0 : 0.0;
  return double(dense.getValues<APInt>()[i].getSExtValue());
}

} // namespace

std::optional<std::string> splatLiteral(Operation *op) {
  DenseElementsAttr dense = denseValue(op);
  if (!dense || !dense.isSplat()) return std::nullopt;
  DType dtype = dtypeOf(op->getResult(0).getType());
  std::complex<double> v = element(dense, 0);
  if (!std::isfinite(v.real()) || !std::isfinite(v.imag())) return std::nullopt;
  bool wide = dtype_is_wide(dtype);
  switch (dtype) {
  case DType::kBool: return std::string(v.real() != 0 ? "true" : "false");
  case DType::kInt32: return "(int)" + std::to_string(dense.getSplatValue<APInt>().getSExtValue());
  case DType::kInt64: {
    int64_t value = dense.getSplatValue<APInt>().getSExtValue();
    // -2^63 has no literal: 9223372036854775808 does not fit long long.
    if (value == std::numeric_limits<int64_t>::min()) return std::string("(-9223372036854775807LL - 1)");
    return "(long long)" + std::to_string(value) + "LL";
  }
  case DType::kFloat32:
  case DType::kFloat64: return real(v.real(), wide);
  case DType::kComplex64:
  case DType::kComplex128:
    return std::string("spectral_fft::make_cplx<") + (wide ? "double" : "float") + ">(" +
           real(v.real(), wide) + ", " + real(v.imag(), wide) + ")";
  }
  return std::nullopt;
}

llvm::Expected<int> constantBuffer(CodegenContext &context, Operation *op) {
  DenseElementsAttr dense = denseValue(op);
  if (!dense)
    return CodegenContext::error(op, "only dense literal constants can be compiled");
  Value result = op->getResult(0);
  DType dtype = dtypeOf(result.getType());
  std::vector<int64_t> shape = shapeOf(result.getType());
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  std::vector<uint8_t> bytes(size_t(count) * dtype_size(dtype));
  for (int64_t i = 0; i < count; ++i) {
    int64_t at = dense.isSplat() ? 0 : i;
    uint8_t *p = bytes.data() + i * dtype_size(dtype);
    std::complex<double> v;
    if (dtype != DType::kInt64 && dtype != DType::kInt32) v = element(dense, at);
    switch (dtype) {
    case DType::kBool: p[0] = v.real() != 0; break;
    case DType::kInt32: {
      int32_t x = int32_t(dense.getValues<APInt>()[at].getSExtValue());
      std::memcpy(p, &x, 4);
      break;
    }
    case DType::kInt64: {
      int64_t x = dense.getValues<APInt>()[at].getSExtValue();
      std::memcpy(p, &x, 8);
      break;
    }
    case DType::kFloat32: {
      float x = float(v.real());
      std::memcpy(p, &x, 4);
      break;
    }
    case DType::kFloat64: std::memcpy(p, &v, 8); break;
    case DType::kComplex64: {
      std::complex<float> x(float(v.real()), float(v.imag()));
      std::memcpy(p, &x, 8);
      break;
    }
    case DType::kComplex128: std::memcpy(p, &v, 16); break;
    }
  }
  std::string name = "constant";
  if (auto loc = dyn_cast<FileLineColLoc>(op->getLoc()))
    name += "@" + std::to_string(loc.getLine());
  int id = context.builder.addConstant(name, dtype, shape, std::move(bytes));
  context.setBuffer(result, id);
  return id;
}

} // namespace spectral::codegen
