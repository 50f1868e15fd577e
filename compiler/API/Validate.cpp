//===- Validate.cpp - compiled results against the reference evaluator ----===//
#include "compiler/API/Validate.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <complex>
#include <cstring>
#include <limits>

namespace spectral {

using reference::ElementKind;

DType dtypeOfKind(ElementKind kind) {
  switch (kind) {
  case ElementKind::I1: return DType::kBool;
  case ElementKind::I32: return DType::kInt32;
  case ElementKind::I64: return DType::kInt64;
  case ElementKind::F32: return DType::kFloat32;
  case ElementKind::F64: return DType::kFloat64;
  case ElementKind::C64: return DType::kComplex64;
  case ElementKind::C128: return DType::kComplex128;
  }
  return DType::kFloat32;
}

ElementKind kindOfDtype(DType dtype) {
  switch (dtype) {
  case DType::kBool: return ElementKind::I1;
  case DType::kInt32: return ElementKind::I32;
  case DType::kInt64: return ElementKind::I64;
  case DType::kFloat32: return ElementKind::F32;
  case DType::kFloat64: return ElementKind::F64;
  case DType::kComplex64: return ElementKind::C64;
  case DType::kComplex128: return ElementKind::C128;
  }
  return ElementKind::F32;
}

namespace {

template <typename T> T load(const uint8_t *p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

template <typename T> void store(uint8_t *p, T value) { std::memcpy(p, &value, sizeof(T)); }

/// `x` rounded to float as IEEE 754 does (to nearest, infinite from FLT_MAX
/// plus half an ulp on). C++ leaves the conversion of a double beyond float's
/// range undefined, and GCC 12 at -O3 keeps such a double as it is.
float roundToFloat(double x) {
  static const double overflow = std::ldexp(1.0, 128) - std::ldexp(1.0, 103);
  if (std::abs(x) >= overflow) return std::copysign(std::numeric_limits<float>::infinity(), x);
  return float(x);
}

} // namespace

HostTensor toHostTensor(const reference::Tensor &tensor) {
  HostTensor out{dtypeOfKind(tensor.kind), tensor.shape, {}};
  int size = dtype_size(out.dtype);
  out.bytes.resize(tensor.data.size() * size);
  for (size_t i = 0; i < tensor.data.size(); ++i) {
    uint8_t *p = out.bytes.data() + i * size;
    std::complex<double> v = tensor.data[i];
    switch (out.dtype) {
    case DType::kBool: p[0] = v.real() != 0; break;
    case DType::kInt32: store(p, int32_t(v.real())); break;
    case DType::kInt64: store(p, int64_t(v.real())); break;
    case DType::kFloat32: store(p, roundToFloat(v.real())); break;
    case DType::kFloat64: store(p, v.real()); break;
    case DType::kComplex64:
      store(p, std::complex<float>(roundToFloat(v.real()), roundToFloat(v.imag())));
      break;
    case DType::kComplex128: store(p, v); break;
    }
  }
  return out;
}

reference::Tensor toReferenceTensor(const HostTensor &tensor) {
  reference::Tensor out{kindOfDtype(tensor.dtype), tensor.shape, {}};
  int size = dtype_size(tensor.dtype);
  int64_t count = tensor.elements();
  out.data.reserve(count);
  for (int64_t i = 0; i < count; ++i) {
    const uint8_t *p = tensor.bytes.data() + i * size;
    switch (tensor.dtype) {
    case DType::kBool: out.data.emplace_back(p[0] ? 1.0 : 0.0); break;
    case DType::kInt32: out.data.emplace_back(double(load<int32_t>(p))); break;
    case DType::kInt64: out.data.emplace_back(double(load<int64_t>(p))); break;
    case DType::kFloat32: out.data.emplace_back(double(load<float>(p))); break;
    case DType::kFloat64: out.data.emplace_back(load<double>(p)); break;
    case DType::kComplex64: {
      auto v = load<std::complex<float>>(p);
      out.data.emplace_back(v.real(), v.imag());
      break;
    }
    case DType::kComplex128: out.data.emplace_back(load<std::complex<double>>(p)); break;
    }
  }
  return out;
}

double defaultTolerance(DType dtype) {
  return dtype == DType::kFloat64 || dtype == DType::kComplex128 ? 1e-10 : 1e-4;
}

namespace {

/// "1e+300", "-inf", "3": the shortest text that reads back as `value`
/// (every digit of a large integer, none more).
std::string number(double value) {
  char text[32];
  for (int digits = 15; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, value);
    if (std::strtod(text, nullptr) == value || std::isnan(value)) break;
  }
  return text;
}

} // namespace

Agreement compareWithReference(const HostTensor &got, const reference::Tensor &unrounded,
                               double tolerance) {
  Agreement a;
  reference::Tensor values = toReferenceTensor(got);
  // The reference rounded to the result's type, as the device writes it (an
  // f32 result beyond FLT_MAX is infinite on both sides).
  reference::Tensor expected = unrounded;
  if (got.dtype == DType::kFloat32 || got.dtype == DType::kComplex64)
    for (std::complex<double> &v : expected.data)
      v = {roundToFloat(v.real()), roundToFloat(v.imag())};
  if (values.shape != expected.shape || values.data.size() != expected.data.size()) {
    a.mismatch = "shape " + got.type_string() + " differs from the reference's";
    return a;
  }
  bool exact = got.dtype == DType::kBool || got.dtype == DType::kInt32 ||
               got.dtype == DType::kInt64;
  // A real result has no imaginary part to compare (the evaluator may carry
  // a NaN there after complex arithmetic on a NaN).
  const int parts = dtype_is_complex(got.dtype) ? 2 : 1;
  for (size_t i = 0; i < values.data.size(); ++i) {
    std::complex<double> g = values.data[i], e = expected.data[i];
    if (parts == 1) e = e.real();
    for (int part = 0; part < parts; ++part) {
      double x = part ? g.imag() : g.real(), y = part ? e.imag() : e.real();
      if (std::isnan(x) || std::isnan(y) || std::isinf(x) || std::isinf(y)) {
        bool same = (std::isnan(x) && std::isnan(y)) || x == y;
        if (!same && a.mismatch.empty())
          a.mismatch = "element " + std::to_string(i) + " is " + number(x) +
                       " where the reference has " + number(y);
        continue;
      }
      if (exact && x != y && a.mismatch.empty())
        a.mismatch = "integer element " + std::to_string(i) + " is " + number(x) +
                     " where the reference has " + number(y);
    }
    if (std::isfinite(std::abs(e)) && std::isfinite(std::abs(g))) {
      a.maxAbsError = std::max(a.maxAbsError, std::abs(g - e));
      a.maxReference = std::max(a.maxReference, std::abs(e));
    }
  }
  a.relative = a.maxReference > 0 ? a.maxAbsError / a.maxReference : a.maxAbsError;
  a.pass = a.mismatch.empty() && a.relative <= tolerance;
  return a;
}

} // namespace spectral
