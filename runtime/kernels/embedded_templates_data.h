// embedded_templates_data.h - the table the build generates from kernels_templates/.
// Private to runtime/kernels: use embedded_templates.h.
#pragma once

#include <cstddef>

namespace spectral::detail {

struct RawTemplate {
  const char* name;  // relative to kernels_templates/; null ends the table
  const unsigned char* data;
  size_t size;
};

extern const RawTemplate kRawTemplates[];
extern const char kTemplatesDigest[];

}  // namespace spectral::detail
