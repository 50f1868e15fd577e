// cubin_image.h - the checks a CUBIN passes before the driver reads it.
//
// Plain C++ over bytes (no driver, no NVRTC): the artifact loader checks every
// embedded CUBIN with it, and so does the CUDA device before cuModuleLoadData.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace spectral {

/// Why `cubin` is not a CUDA ELF image whose headers, sections and segments
/// lie inside it (the driver reads an image without its size), or "" when it is.
std::string cubin_problem(const std::vector<uint8_t>& cubin);

}  // namespace spectral
