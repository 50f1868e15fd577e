// embedded_templates.h - the files of kernels_templates/, compiled into the binary.
//
// The templates are embedded at build time (no install paths at run time):
// NVRTC receives them as in-memory headers, the host compiler finds them in a
// directory written once per process.
#pragma once

#include "runtime/status.h"

#include <string>
#include <string_view>
#include <vector>

namespace spectral {

struct EmbeddedFile {
  std::string name;     // relative to kernels_templates/, e.g. "fft_stockham.cuh"
  std::string content;
};

/// Every *.cuh and *.h of kernels_templates/, sorted by name.
const std::vector<EmbeddedFile>& embedded_templates();

/// The content of `name`, or null when no such template is embedded.
const std::string* find_template(std::string_view name);

/// Hex SHA-256 over every template's name and content. Units #include the
/// templates, so a cache key must include this (e.g. in its options).
const std::string& templates_digest();

/// A private directory holding every template, for a compiler's -I:
/// $TMPDIR/spectral-templates-<pid>-XXXXXX. Written once per process (the
/// first caller writes, concurrent callers wait), removed at exit; those of
/// processes that died first are removed by the next one. The error names
/// the directory that could not be written.
StatusOr<std::string> materialized_templates_dir();

}  // namespace spectral
