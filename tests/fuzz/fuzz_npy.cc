// fuzz_npy.cc - libFuzzer target: read_npy on arbitrary bytes must return an
// error or an array whose byte count matches its shape and dtype; never
// crash, hang or allocate more than the file holds.
#include "runtime/tensor/npy.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const int fd = memfd_create("fuzz.npy", MFD_CLOEXEC);
  if (fd < 0) std::abort();
  if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != ssize_t(size)) std::abort();
  static const std::string path = "/proc/self/fd/" + std::to_string(fd);
  spectral::NpyArray array;
  std::string error;
  if (spectral::read_npy(path, &array, &error)) {
    const int64_t count = array.element_count();
    if (count < 0 || array.bytes.size() != size_t(count) * size_t(spectral::npy_dtype_size(array.dtype)))
      std::abort();  // an array that does not hold what its header says
  } else if (error.empty()) {
    std::abort();  // a failure must say why
  }
  return 0;
}
