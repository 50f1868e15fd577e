#include "runtime/device/cuda/dynamic_library.h"

#include <dlfcn.h>

namespace spectral {

StatusOr<OpenedLibrary> open_first_library(const std::vector<std::string>& candidates,
                                           const std::string& what) {
  std::vector<std::string> reasons;
  for (const std::string& candidate : candidates) {
    if (void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      return OpenedLibrary{handle, candidate};
    }
    const char* error = dlerror();
    std::string reason = error ? error : "dlopen failed";
    if (reason.find(candidate) == std::string::npos) reason = candidate + ": " + reason;
    reasons.push_back(reason);
  }
  if (reasons.size() == 1) return Status::error(what + " not found (" + reasons[0] + ")");
  std::string message = what + " not found; tried:";
  for (const std::string& reason : reasons) message += "\n  " + reason;
  return Status::error(message);
}

void* find_symbol(void* handle, const char* symbol) { return dlsym(handle, symbol); }

}  // namespace spectral
