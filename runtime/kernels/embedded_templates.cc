// embedded_templates.cc - lookup over the generated table, and its copy on disk.
#include "runtime/kernels/embedded_templates.h"

#include "runtime/kernels/embedded_templates_data.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace spectral {
namespace {

namespace fs = std::filesystem;

std::string* g_materialized_dir = nullptr;  // leaked on purpose: read by the atexit hook

void remove_materialized_dir() {
  if (g_materialized_dir == nullptr) return;
  std::error_code ignored;
  fs::remove_all(*g_materialized_dir, ignored);
}

constexpr char kPrefix[] = "spectral-templates-";

/// Removes the directories of processes that died without their atexit hook
/// (named spectral-templates-<pid>-XXXXXX, ours, and <pid> no longer runs).
void remove_stale_dirs(const std::string& tmp) {
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(tmp, error)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(kPrefix, 0) != 0) continue;
    char* end = nullptr;
    const long pid = std::strtol(name.c_str() + sizeof(kPrefix) - 1, &end, 10);
    struct stat info {};
    if (pid <= 0 || *end != '-' || pid == long(getpid()) || lstat(entry.path().c_str(), &info) != 0 ||
        !S_ISDIR(info.st_mode) || info.st_uid != getuid()) {
      continue;
    }
    if (kill(pid_t(pid), 0) != 0 && errno == ESRCH) {
      std::error_code ignored;
      fs::remove_all(entry.path(), ignored);
    }
  }
}

StatusOr<std::string> write_templates() {
  const char* tmp_env = std::getenv("TMPDIR");
  const std::string tmp = tmp_env != nullptr && *tmp_env != '\0' ? tmp_env : "/tmp";
  remove_stale_dirs(tmp);
  std::string pattern = tmp + "/" + kPrefix + std::to_string(getpid()) + "-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    return Status::error("cannot create a directory for the kernel templates (" + pattern +
                         "): " + std::strerror(errno) + "; set TMPDIR to a writable directory");
  }
  const std::string dir = pattern;
  g_materialized_dir = new std::string(dir);
  std::atexit(remove_materialized_dir);
  for (const EmbeddedFile& file : embedded_templates()) {
    const fs::path path = fs::path(dir) / file.name;
    std::error_code error;
    fs::create_directories(path.parent_path(), error);
    std::ofstream out(path, std::ios::binary);
    out.write(file.content.data(), std::streamsize(file.content.size()));
    out.close();
    if (error || !out) {
      return Status::error("cannot write the kernel template " + path.string() + ": " +
                           (error ? error.message() : std::string(std::strerror(errno))));
    }
  }
  return dir;
}

}  // namespace

const std::vector<EmbeddedFile>& embedded_templates() {
  static const std::vector<EmbeddedFile> files = [] {
    std::vector<EmbeddedFile> result;
    for (const detail::RawTemplate* raw = detail::kRawTemplates; raw->name != nullptr; ++raw) {
      result.push_back({raw->name, std::string(reinterpret_cast<const char*>(raw->data), raw->size)});
    }
    return result;
  }();
  return files;
}

const std::string* find_template(std::string_view name) {
  for (const EmbeddedFile& file : embedded_templates()) {
    if (file.name == name) return &file.content;
  }
  return nullptr;
}

const std::string& templates_digest() {
  static const std::string digest = detail::kTemplatesDigest;
  return digest;
}

StatusOr<std::string> materialized_templates_dir() {
  static const StatusOr<std::string> dir = write_templates();
  return dir;
}

}  // namespace spectral
