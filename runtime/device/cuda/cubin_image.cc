// cubin_image.cc - the checks a CUBIN passes before the driver reads it.
#include "runtime/device/cuda/cubin_image.h"

namespace spectral {

std::string cubin_problem(const std::vector<uint8_t>& cubin) {
  const size_t size = cubin.size();
  auto field = [&](size_t offset, int bytes) {  // little endian, inside the image
    uint64_t value = 0;
    for (int i = 0; i < bytes; ++i) value |= uint64_t(cubin[offset + i]) << (8 * i);
    return value;
  };
  // A table of `count` entries of `entry` bytes at `offset` lies inside the image.
  auto inside = [&](uint64_t offset, uint64_t count, uint64_t entry) {
    return offset <= size && count <= (size - offset) / entry;
  };
  constexpr int kEm_Cuda = 190, kSection = 64, kSegment = 56, kNoBits = 8;
  if (size < 64 || cubin[0] != 0x7f || cubin[1] != 'E' || cubin[2] != 'L' || cubin[3] != 'F')
    return "not an ELF image";
  if (cubin[4] != 2 || cubin[5] != 1 || field(18, 2) != kEm_Cuda)
    return "not a 64-bit little-endian CUDA ELF image";
  const uint64_t phoff = field(32, 8), shoff = field(40, 8);
  const uint64_t phnum = field(56, 2), shnum = field(60, 2);
  if (phnum && (field(54, 2) != kSegment || !inside(phoff, phnum, kSegment)))
    return "its segment table lies outside the image";
  if (shnum && (field(58, 2) != kSection || !inside(shoff, shnum, kSection) ||
                field(62, 2) >= shnum))
    return "its section table lies outside the image";
  for (uint64_t i = 0; i < shnum; ++i) {
    const size_t header = size_t(shoff + i * kSection);
    if (field(header + 4, 4) != kNoBits && !inside(field(header + 24, 8), field(header + 32, 8), 1))
      return "section " + std::to_string(i) + " lies outside the image";
  }
  for (uint64_t i = 0; i < phnum; ++i) {
    const size_t header = size_t(phoff + i * kSegment);
    if (!inside(field(header + 8, 8), field(header + 32, 8), 1))
      return "segment " + std::to_string(i) + " lies outside the image";
  }
  return "";
}

}  // namespace spectral
