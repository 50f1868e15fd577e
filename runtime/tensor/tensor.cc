// tensor.cc - element types and the API's host arrays (spectral/tensor.h).
#include "spectral/tensor.h"

#include <cstring>

namespace spectral {

const char* dtype_name(DType dtype) {
  switch (dtype) {
    case DType::kBool: return "i1";
    case DType::kInt32: return "i32";
    case DType::kInt64: return "i64";
    case DType::kFloat32: return "f32";
    case DType::kFloat64: return "f64";
    case DType::kComplex64: return "complex<f32>";
    case DType::kComplex128: return "complex<f64>";
  }
  return "?";
}

int dtype_size(DType dtype) {
  switch (dtype) {
    case DType::kBool: return 1;
    case DType::kInt32:
    case DType::kFloat32: return 4;
    case DType::kInt64:
    case DType::kFloat64:
    case DType::kComplex64: return 8;
    case DType::kComplex128: return 16;
  }
  return 0;
}

bool dtype_is_complex(DType dtype) {
  return dtype == DType::kComplex64 || dtype == DType::kComplex128;
}

bool dtype_is_wide(DType dtype) {
  return dtype == DType::kFloat64 || dtype == DType::kComplex128 || dtype == DType::kInt64;
}

std::string type_string(DType dtype, const std::vector<int64_t>& shape) {
  std::string text = "tensor<";
  for (int64_t d : shape) text += std::to_string(d) + "x";
  return text + dtype_name(dtype) + ">";
}

Tensor::Tensor() : shape_{0} {}

int64_t Tensor::elements() const {
  int64_t count = 1;
  for (int64_t d : shape_)
    if (__builtin_mul_overflow(count, d < 0 ? 0 : d, &count)) count = INT64_MAX;
  return count;
}

size_t Tensor::bytes() const {
  size_t total = 0;
  if (__builtin_mul_overflow(size_t(elements()), size_t(dtype_size(dtype_)), &total))
    return SIZE_MAX;
  return total;
}

Tensor Tensor::zeros(DType dtype, std::vector<int64_t> shape) {
  Tensor tensor(dtype, std::move(shape), nullptr, nullptr);
  // One byte at least, so data() is never null; operator new aligns for every dtype.
  std::shared_ptr<uint8_t[]> bytes(new uint8_t[std::max<size_t>(tensor.bytes(), 1)]());
  tensor.data_ = bytes.get();
  tensor.owner_ = std::move(bytes);
  return tensor;
}

Tensor Tensor::view(void* data, DType dtype, std::vector<int64_t> shape) {
  return Tensor(dtype, std::move(shape), data, nullptr);
}

Tensor Tensor::view(void* data, DType dtype, std::vector<int64_t> shape,
                    std::shared_ptr<void> owner) {
  return Tensor(dtype, std::move(shape), data, std::move(owner));
}

Tensor Tensor::clone() const {
  Tensor copy = zeros(dtype_, shape_);
  if (bytes() > 0) std::memcpy(copy.data_, data_, bytes());
  return copy;
}

}  // namespace spectral
