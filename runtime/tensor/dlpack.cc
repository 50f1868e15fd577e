// dlpack.cc - Tensors to and from DLPack (spectral/dlpack.h).
#include "spectral/dlpack.h"

#include <string>

namespace spectral {
namespace {

StatusOr<DType> dtype_from(DLDataType type) {
  const std::string name = "DLPack dtype (code " + std::to_string(type.code) + ", " +
                           std::to_string(type.bits) + " bits, " + std::to_string(type.lanes) +
                           " lanes)";
  if (type.lanes != 1) return Status::error(name + ": vector lanes are not supported");
  switch (type.code) {
    case kDLInt:
      if (type.bits == 32) return DType::kInt32;
      if (type.bits == 64) return DType::kInt64;
      break;
    case kDLFloat:
      if (type.bits == 32) return DType::kFloat32;
      if (type.bits == 64) return DType::kFloat64;
      break;
    case kDLComplex:
      if (type.bits == 64) return DType::kComplex64;
      if (type.bits == 128) return DType::kComplex128;
      break;
#if DLPACK_VERSION >= 80
    case kDLBool:
      if (type.bits == 8) return DType::kBool;
      break;
#endif
    default: break;
  }
  return Status::error(name + " has no Spectral dtype (i32, i64, f32, f64, complex64, complex128)");
}

StatusOr<DLDataType> dtype_to(DType dtype) {
  const uint8_t bits = uint8_t(8 * dtype_size(dtype));
  switch (dtype) {
    case DType::kInt32:
    case DType::kInt64: return DLDataType{kDLInt, bits, 1};
    case DType::kFloat32:
    case DType::kFloat64: return DLDataType{kDLFloat, bits, 1};
    case DType::kComplex64:
    case DType::kComplex128: return DLDataType{kDLComplex, bits, 1};
    case DType::kBool:
#if DLPACK_VERSION >= 80
      return DLDataType{kDLBool, 8, 1};
#else
      break;
#endif
  }
  return Status::error(std::string(dtype_name(dtype)) + " tensors have no type in DLPack " +
                       std::to_string(DLPACK_VERSION));
}

/// What a DLManagedTensor made by to_dlpack carries: the Tensor keeping the
/// bytes alive and the shape the DLTensor points at.
struct Exported {
  DLManagedTensor managed;
  Tensor tensor;
  std::vector<int64_t> shape;
};

}  // namespace

StatusOr<Tensor> from_dlpack(DLManagedTensor* managed) {
  if (managed == nullptr) return Status::error("from_dlpack: null DLManagedTensor");
  const DLTensor& t = managed->dl_tensor;
  if (t.device.device_type != kDLCPU && t.device.device_type != kDLCUDAHost &&
      t.device.device_type != kDLCUDAManaged)
    return Status::error("from_dlpack: the tensor is on device type " +
                         std::to_string(int(t.device.device_type)) +
                         ", not in host memory (copy it to the CPU first)");
  StatusOr<DType> dtype = dtype_from(t.dtype);
  if (!dtype) return Status::error("from_dlpack: " + dtype.status().message());
  if (t.ndim < 0 || (t.ndim > 0 && t.shape == nullptr))
    return Status::error("from_dlpack: a tensor of rank " + std::to_string(t.ndim) +
                         " without a shape");
  std::vector<int64_t> shape(t.shape, t.shape + t.ndim);
  for (int64_t d : shape)
    if (d < 0) return Status::error("from_dlpack: negative dimension " + std::to_string(d));
  if (t.strides != nullptr) {
    int64_t expected = 1;
    for (int i = t.ndim - 1; i >= 0; --i) {
      // A dimension of size 1 may carry any stride (PyTorch writes 1 or the compact one).
      if (shape[i] != 1 && t.strides[i] != expected)
        return Status::error("from_dlpack: the tensor is not dense and row-major (stride " +
                             std::to_string(t.strides[i]) + " on axis " + std::to_string(i) +
                             ", expected " + std::to_string(expected) +
                             "); make it contiguous first");
      expected *= shape[i];
    }
  }
  int64_t elements = 1;
  for (int64_t d : shape) elements *= d;
  if (t.data == nullptr && elements > 0)
    return Status::error("from_dlpack: a tensor of " + std::to_string(elements) +
                         " elements without data");
  void* data = static_cast<char*>(t.data) + t.byte_offset;
  std::shared_ptr<void> owner(managed, [](void* p) {
    auto* m = static_cast<DLManagedTensor*>(p);
    if (m->deleter) m->deleter(m);
  });
  return Tensor::view(data, *dtype, std::move(shape), std::move(owner));
}

StatusOr<DLManagedTensor*> to_dlpack(const Tensor& tensor) {
  StatusOr<DLDataType> dtype = dtype_to(tensor.dtype());
  if (!dtype) return Status::error("to_dlpack: " + dtype.status().message());
  auto* exported = new Exported{{}, tensor, tensor.shape()};
  DLTensor& t = exported->managed.dl_tensor;
  t.data = tensor.data();
  t.device = DLDevice{kDLCPU, 0};
  t.ndim = int(exported->shape.size());
  t.dtype = *dtype;
  t.shape = exported->shape.data();
  t.strides = nullptr;  // compact row-major
  t.byte_offset = 0;
  exported->managed.manager_ctx = exported;
  exported->managed.deleter = [](DLManagedTensor* self) {
    delete static_cast<Exported*>(self->manager_ctx);
  };
  return &exported->managed;
}

}  // namespace spectral
