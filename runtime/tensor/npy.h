// npy.h - read and write NumPy .npy files (format versions 1.0, 2.0, 3.0).
//
// The runtime's way in and out for host arrays: spectral-run reads inputs and
// writes outputs with it. No MLIR, no LLVM.
#pragma once

#include "spectral/tensor.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace spectral {

/// Element types a .npy file may hold here (little-endian on disk).
enum class NpyDtype { kFloat32, kFloat64, kInt32, kInt64, kComplex64, kComplex128, kBool };

/// numpy's name for the dtype ("float32", "complex64", ...).
const char* npy_dtype_name(NpyDtype dtype);
/// Bytes per element.
int npy_dtype_size(NpyDtype dtype);
/// The .npy dtype of a tensor's DType and back (each has exactly one match).
NpyDtype npy_dtype_of(DType dtype);
DType dtype_of_npy(NpyDtype dtype);

/// A dense C-order array as stored in a .npy file: raw little-endian bytes.
struct NpyArray {
  NpyDtype dtype = NpyDtype::kFloat32;
  std::vector<int64_t> shape;  // empty = 0-d scalar
  std::vector<uint8_t> bytes;  // element_count() * npy_dtype_size(dtype)
  /// Product of `shape` (1 for 0-d, 0 if any dim is 0); -1 if a dim is
  /// negative or the product overflows int64.
  int64_t element_count() const;
};

/// Reads `path`. On failure returns false and sets `error` to a message that
/// names the file and what is wrong (missing, not .npy, unsupported dtype,
/// Fortran order, big-endian, truncated data, ...). Lengths in the header are
/// checked against the file size before anything is allocated.
bool read_npy(const std::string& path, NpyArray* out, std::string* error);

/// Decides from a header, before any data is read, whether the array is the
/// one wanted; false refuses it, with `why` the whole message.
using NpyAccept =
    std::function<bool(NpyDtype dtype, const std::vector<int64_t>& shape, std::string* why)>;
/// As above, but a header `accept` refuses ends the read there (a huge file
/// for a small argument is never read): `error` is then `why` as given.
bool read_npy(const std::string& path, NpyArray* out, std::string* error, const NpyAccept& accept);

/// Writes `array` to `path` atomically (temporary file + rename), format 1.0
/// (2.0 when the header needs it), byte-identical to np.save. On failure
/// returns false, sets `error` and leaves no temporary file behind.
bool write_npy(const std::string& path, const NpyArray& array, std::string* error);

}  // namespace spectral
