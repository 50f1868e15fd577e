#include "runtime/device/cuda/nvrtc_library.h"

#include "runtime/device/cuda/dynamic_library.h"

#include <glob.h>
#include <sys/stat.h>

#include <atomic>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace spectral {
namespace {

/// The major version in a name such as libnvrtc.so.13 or libnvrtc.so.13.0.88.
int major_of(const std::string& path) {
  const std::string marker = ".so.";
  size_t at = path.rfind(marker);
  if (at == std::string::npos) return 0;
  return std::atoi(path.c_str() + at + marker.size());
}

/// `path`'s identity when it is a regular file (symlinks followed).
bool describe(const std::string& path, NvrtcFile& file) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return false;
  char real[PATH_MAX];
  std::string resolved = ::realpath(path.c_str(), real) ? real : path;
  long long mtime = static_cast<long long>(info.st_mtim.tv_sec) * 1000000000ll +
                    info.st_mtim.tv_nsec;
  file.path = path;
  file.identity = resolved + " " + std::to_string(info.st_size) + " " + std::to_string(mtime);
  file.major = major_of(path);
  if (file.major == 0) file.major = major_of(resolved);
  return true;
}

std::string trimmed(const std::string& line) {
  size_t begin = line.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return "";
  return line.substr(begin, line.find_last_not_of(" \t\r") - begin + 1);
}

void read_loader_config(const std::string& conf_path, std::vector<std::string>& directories,
                        std::set<std::string>& seen) {
  if (!seen.insert(conf_path).second) return;  // an include cycle
  std::ifstream in(conf_path);
  for (std::string line; std::getline(in, line);) {
    line = trimmed(line.substr(0, line.find('#')));
    if (line.rfind("include", 0) == 0 && line.size() > 7 && (line[7] == ' ' || line[7] == '\t')) {
      std::string pattern = trimmed(line.substr(8));
      if (pattern.empty()) continue;
      if (pattern[0] != '/') {  // relative to the including file's folder
        size_t slash = conf_path.rfind('/');
        pattern = (slash == std::string::npos ? "" : conf_path.substr(0, slash + 1)) + pattern;
      }
      glob_t matches{};
      if (::glob(pattern.c_str(), 0, nullptr, &matches) == 0) {
        for (size_t i = 0; i < matches.gl_pathc; ++i)
          read_loader_config(matches.gl_pathv[i], directories, seen);
      }
      ::globfree(&matches);
    } else if (!line.empty() && line[0] == '/') {
      directories.push_back(line);
    }
  }
}

std::vector<std::string> split_path_list(const char* text) {
  std::vector<std::string> parts;
  std::string list = text ? text : "";
  for (size_t begin = 0; begin <= list.size();) {
    size_t end = list.find(':', begin);
    if (end == std::string::npos) end = list.size();
    if (end > begin) parts.push_back(list.substr(begin, end - begin));
    begin = end + 1;
  }
  return parts;
}

StatusOr<const NvrtcLibrary*> open_nvrtc(const std::string& path) {
  StatusOr<OpenedLibrary> opened = open_first_library({path}, "NVRTC (libnvrtc)");
  if (!opened) return opened.status();
  auto* library = new NvrtcLibrary();  // lives as long as the process
  std::string missing;
#define X(name, result, params)                                                      \
  library->name = reinterpret_cast<result(*) params>(find_symbol(opened->handle, #name)); \
  if (!library->name) missing += " " #name;
#include "runtime/device/cuda/nvrtc_symbols.def"
#undef X
  if (!missing.empty()) {
    delete library;
    return Status::error("NVRTC at " + path + " lacks entry points:" + missing);
  }
  library->path = path;
  return static_cast<const NvrtcLibrary*>(library);
}

std::atomic<bool> loaded{false};

}  // namespace

std::vector<std::string> loader_config_directories(const std::string& conf_path) {
  std::vector<std::string> directories;
  std::set<std::string> seen;
  read_loader_config(conf_path, directories, seen);
  return directories;
}

StatusOr<NvrtcFile> find_library_file(const std::vector<std::string>& names,
                                      const std::vector<std::string>& directories,
                                      const std::string& what) {
  std::vector<std::string> tried;
  for (const std::string& name : names) {
    std::vector<std::string> paths;
    if (name.find('/') != std::string::npos) {
      paths.push_back(name);
    } else {
      for (const std::string& directory : directories) paths.push_back(directory + "/" + name);
    }
    for (const std::string& path : paths) {
      NvrtcFile file;
      if (describe(path, file)) return file;
    }
    tried.push_back(name.find('/') != std::string::npos
                        ? name
                        : name + " (in " + std::to_string(directories.size()) + " directories)");
  }
  std::string message = what + " not found; tried:";
  for (const std::string& entry : tried) message += "\n  " + entry;
  return Status::error(message);
}

StatusOr<NvrtcFile> find_nvrtc() {
  const char* explicit_path = std::getenv("SPECTRAL_NVRTC_PATH");
  if (explicit_path && *explicit_path) {
    return find_library_file({explicit_path}, {}, "NVRTC (SPECTRAL_NVRTC_PATH)");
  }
  // The dynamic loader's order: LD_LIBRARY_PATH, its cache (built from
  // ld.so.conf), then the trusted system directories.
  std::vector<std::string> directories = split_path_list(std::getenv("LD_LIBRARY_PATH"));
  for (const std::string& directory : loader_config_directories("/etc/ld.so.conf"))
    directories.push_back(directory);
  for (const char* directory : {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
                                "/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/lib64",
                                "/usr/lib64", "/lib", "/usr/lib", "/usr/local/cuda/lib64"})
    directories.push_back(directory);
  return find_library_file({"libnvrtc.so.13", "libnvrtc.so"}, directories, "NVRTC (libnvrtc)");
}

StatusOr<const NvrtcLibrary*> nvrtc_library(const std::string& path) {
  static std::mutex mutex;
  static std::string opened_path;
  static StatusOr<const NvrtcLibrary*> opened = Status::error("NVRTC was not opened");
  std::lock_guard<std::mutex> lock(mutex);
  if (opened_path.empty()) {
    opened_path = path;
    opened = open_nvrtc(path);
    loaded = opened.is_ok();
  }
  if (path != opened_path) {
    return Status::error("NVRTC was opened from " + opened_path + "; cannot also open " + path);
  }
  return opened;
}

bool nvrtc_loaded() { return loaded; }

}  // namespace spectral
