// run_command.h - run a tool from an end-to-end test and capture its output.
#pragma once

#include <cstdio>
#include <string>
#include <sys/wait.h>

namespace spectral::testing {

/// Runs `command` with the shell; returns its exit status (-1 when it did not
/// exit normally) and appends its stdout and stderr to `output`.
inline int run_command(const std::string& command, std::string* output) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return -1;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) output->append(buffer, n);
  int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace spectral::testing
