// host_compiler.h - a kernel unit to a shared object with the system C++ compiler.
//
// The compiler is $SPECTRAL_HOST_CXX (split on spaces, e.g. "ccache g++"),
// else `c++`. The unit is compiled as C++17 with host_emulation.h
// force-included and the embedded templates on the include path, with
// SPECTRAL_HOST_ENTRY(<entry>) appended (see host_emulation.h).
#pragma once

#include "runtime/status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace spectral::host {

struct HostCompiler {
  std::vector<std::string> command;  // program and leading arguments
  std::string version;  // part of the cache key: the command and its file (path, size, mtime),
                       // or for a command with a wrapper or flags the first line of --version
};

/// The configured compiler, probed once per process; the error says what
/// failed to run and how to choose another (SPECTRAL_HOST_CXX).
StatusOr<HostCompiler> host_compiler();

/// How a unit is built: plain, or with its loads and stores instrumented for
/// the race and init checks (host_checks.h): compiled with -fsanitize=thread
/// and -g1 (for the source lines of reports), then linked with
/// host_check_access.cc, which answers the instrumentation's calls.
enum class HostBuild { kPlain, kCheckAccesses };

/// Whether a line of `source` starts with SPECTRAL_HOST_PHASED; (after
/// blanks; the mark of a phased kernel, host_emulation.h): it is then built
/// with -O3 for this processor, else with -O2 for any machine of its kind.
bool phased_unit(const std::string& source);

/// This processor as /proc/cpuinfo tells it apart: its model and a hash of
/// its identifying lines (feature flags, Arm's implementer and part).
std::string native_cpu();

/// The options a kernel gets, as they enter the cache key (the per-process
/// include directory is left out; the templates' digest stands for it);
/// `phased` as phased_unit says of its source, and then native_cpu() too.
std::string host_compile_options_key(HostBuild build = HostBuild::kPlain, bool phased = false);

/// The source actually compiled: the unit and its SPECTRAL_HOST_ENTRY line.
std::string host_unit_source(const std::string& unit, const std::string& entry);

/// Compiles `source` (from host_unit_source) into the bytes of a shared object.
/// On failure the Status holds the compiler's command and output and the path
/// of the source, which is kept for inspection.
StatusOr<std::vector<uint8_t>> compile_host_kernel(const HostCompiler& compiler,
                                                   const std::string& source,
                                                   const std::string& entry,
                                                   HostBuild build = HostBuild::kPlain);

}  // namespace spectral::host
