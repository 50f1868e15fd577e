// spectral/tensor.h - element types and dense host arrays, as the API takes and gives them.
//
// A Tensor is a dense row-major array in host memory with a dtype and a shape.
// It either owns its bytes (zeros(), of(), clone()) or views memory that the
// caller owns (view()): running a program on a view reads or writes the
// caller's memory directly, without a copy. Copies of a Tensor share its bytes
// (a Tensor is a handle); clone() copies them.
#pragma once

#include "spectral/status.h"

#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace spectral {

/// Element types, as the dialect spells them.
enum class DType : uint8_t { kBool, kInt32, kInt64, kFloat32, kFloat64, kComplex64, kComplex128 };

/// "i1", "i32", "i64", "f32", "f64", "complex<f32>", "complex<f64>".
const char* dtype_name(DType dtype);
/// Bytes per element (i1 is one byte).
int dtype_size(DType dtype);
bool dtype_is_complex(DType dtype);
/// Whether the dtype's reals are 64-bit (f64, complex<f64>, i64).
bool dtype_is_wide(DType dtype);
/// "tensor<4x8xf32>".
std::string type_string(DType dtype, const std::vector<int64_t>& shape);

/// The DType of a C++ element type: bool, int32_t, int64_t, float, double,
/// std::complex<float>, std::complex<double>.
template <typename T>
struct dtype_of;
template <> struct dtype_of<bool> { static constexpr DType value = DType::kBool; };
template <> struct dtype_of<int32_t> { static constexpr DType value = DType::kInt32; };
template <> struct dtype_of<int64_t> { static constexpr DType value = DType::kInt64; };
template <> struct dtype_of<float> { static constexpr DType value = DType::kFloat32; };
template <> struct dtype_of<double> { static constexpr DType value = DType::kFloat64; };
template <> struct dtype_of<std::complex<float>> { static constexpr DType value = DType::kComplex64; };
template <> struct dtype_of<std::complex<double>> {
  static constexpr DType value = DType::kComplex128;
};

class Tensor {
 public:
  /// An empty f32 tensor of shape [0].
  Tensor();
  /// Zero-filled, owning its bytes (a negative dimension counts as 0 elements;
  /// a program refuses such a tensor by its type). Like any allocation it
  /// throws std::bad_alloc when memory runs out.
  static Tensor zeros(DType dtype, std::vector<int64_t> shape);
  /// Views `data`, which must hold elements(shape) values of `dtype` and
  /// outlive every Tensor sharing it. Nothing is copied.
  static Tensor view(void* data, DType dtype, std::vector<int64_t> shape);
  /// Views `data` and keeps `owner` alive while any copy of the Tensor lives
  /// (how DLPack tensors are held; see spectral/dlpack.h).
  static Tensor view(void* data, DType dtype, std::vector<int64_t> shape,
                     std::shared_ptr<void> owner);
  /// An owning copy of `values`, row-major; an error unless there are
  /// exactly elements(shape) of them.
  template <typename T>
  static Expected<Tensor> of(std::vector<int64_t> shape, const std::vector<T>& values);

  DType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int rank() const { return int(shape_.size()); }
  /// The element count (INT64_MAX when it overflows).
  int64_t elements() const;
  /// The byte count (SIZE_MAX when it overflows).
  size_t bytes() const;
  void* data() const { return data_; }
  /// The elements as T, or nullptr when T is not this tensor's element type.
  template <typename T>
  T* as() const {
    return dtype_of<T>::value == dtype_ ? static_cast<T*>(data_) : nullptr;
  }
  /// An owning copy of the bytes.
  Tensor clone() const;
  /// "tensor<4x8xf32>".
  std::string type_string() const { return spectral::type_string(dtype_, shape_); }

 private:
  Tensor(DType dtype, std::vector<int64_t> shape, void* data, std::shared_ptr<void> owner)
      : dtype_(dtype), shape_(std::move(shape)), data_(data), owner_(std::move(owner)) {}
  DType dtype_ = DType::kFloat32;
  std::vector<int64_t> shape_;
  void* data_ = nullptr;
  std::shared_ptr<void> owner_;  // owned bytes, or what keeps a view's bytes alive
};

template <typename T>
Expected<Tensor> Tensor::of(std::vector<int64_t> shape, const std::vector<T>& values) {
  Tensor tensor = zeros(dtype_of<T>::value, std::move(shape));
  if (size_t(tensor.elements()) != values.size())
    return Status::error(tensor.type_string() + " holds " + std::to_string(tensor.elements()) +
                         " values, got " + std::to_string(values.size()));
  T* out = tensor.as<T>();
  for (size_t i = 0; i < values.size(); ++i) out[i] = values[i];
  return tensor;
}

}  // namespace spectral
