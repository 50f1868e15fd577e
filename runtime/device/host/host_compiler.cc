// host_compiler.cc - running the system C++ compiler.
#include "runtime/device/host/host_compiler.h"

#include "kernels_templates/host_abi.h"
#include "runtime/kernels/embedded_templates.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

extern char** environ;

namespace spectral::host {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kOptions = {
    "-std=c++17", "-fPIC", "-shared", "-fvisibility=hidden", "-fno-math-errno",
    "-ffp-contract=off",  // no fused multiply-adds: see kPhasedOptions
    "-pipe",
    "-g1",  // line tables, for the checks' reports (the code is the same without)
};

/// A unit whose kernel is phased (phased_unit) is built for speed on this
/// processor (the cache key names it), its other units for compile time.
/// No auto-vectorization there: GCC 12's vectorizer turns complex
/// multiplications into vfmaddsub wherever FMA or AVX-512 is on,
/// -ffp-contract=off notwithstanding, and a template's phased form
/// (vectorized by hand, host_lanes.h) and its per-thread form would then
/// round differently.
const std::vector<std::string> kPhasedOptions = {"-O3", "-march=native", "-fno-tree-vectorize"};
const std::vector<std::string> kPlainOptions = {"-O2"};

/// Every option of a unit but those of the checks.
std::vector<std::string> options_for(bool phased) {
  std::vector<std::string> options = phased ? kPhasedOptions : kPlainOptions;
  options.insert(options.end(), kOptions.begin(), kOptions.end());
  return options;
}

/// A unit built for the race and init checks (HostBuild::kCheckAccesses).
const std::vector<std::string> kCheckOptions = {
    "-fsanitize=thread", "-DSPECTRAL_HOST_CHECK_ACCESSES", "+host_check_access.cc",
};

std::string join(const std::vector<std::string>& words) {
  std::string text;
  for (const std::string& word : words) text += (text.empty() ? "" : " ") + word;
  return text;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

StatusOr<std::string> make_work_dir(const std::string& prefix) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/" + prefix + "-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    return Status::error("cannot create a directory like " + pattern + ": " +
                         std::strerror(errno) + "; set TMPDIR to a writable directory");
  }
  return pattern;
}

/// Runs argv with stdout and stderr into `output_path`; returns the wait status.
StatusOr<int> run_process(const std::vector<std::string>& argv, const std::string& output_path) {
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, output_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    return Status::error("cannot run '" + argv[0] + "': " + std::strerror(spawned) +
                         " (set SPECTRAL_HOST_CXX to a C++17 compiler)");
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return Status::error("waitpid: " + std::string(std::strerror(errno)));
  }
  return status;
}

std::string describe_exit(int status) {
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "wait status " + std::to_string(status);
}

/// The file `program` runs (searched on PATH like posix_spawnp, symlinks
/// resolved) with its size and modification time, or "" when not found.
std::string executable_identity(const std::string& program) {
  std::vector<std::string> candidates;
  if (program.find('/') != std::string::npos) {
    candidates.push_back(program);
  } else if (const char* path = std::getenv("PATH")) {
    std::istringstream dirs(path);
    for (std::string dir; std::getline(dirs, dir, ':');)
      candidates.push_back((dir.empty() ? "." : dir) + "/" + program);
  }
  for (const std::string& candidate : candidates) {
    std::error_code error;
    fs::path resolved = fs::canonical(candidate, error);
    struct stat info;
    if (error || stat(resolved.c_str(), &info) != 0 || !S_ISREG(info.st_mode) ||
        access(resolved.c_str(), X_OK) != 0)
      continue;
    return resolved.string() + " (" + std::to_string(info.st_size) + " bytes, modified " +
           std::to_string(info.st_mtim.tv_sec) + "." + std::to_string(info.st_mtim.tv_nsec) + ")";
  }
  return "";
}

StatusOr<HostCompiler> probe_compiler() {
  HostCompiler compiler;
  const char* configured = std::getenv("SPECTRAL_HOST_CXX");
  std::istringstream words(configured != nullptr && *configured != '\0' ? configured : "c++");
  for (std::string word; words >> word;) compiler.command.push_back(word);
  // A plain compiler is known by its file: no process is started, so a warm
  // cache never runs the compiler. A command with a wrapper or flags
  // ("ccache g++", "g++ -fsanitize=address") is asked for its --version.
  if (compiler.command.size() == 1) {
    const std::string& program = compiler.command[0];
    std::string identity = executable_identity(program);
    if (identity.empty()) {
      // A path is not searched: say what is wrong with the file itself.
      std::error_code error;
      const std::string why =
          program.find('/') == std::string::npos ? "not found on PATH"
          : !fs::exists(program, error)          ? "does not exist"
                                                 : "is not an executable file";
      return Status::error("host compiler '" + program + "' " + why +
                           " (set SPECTRAL_HOST_CXX to a C++17 compiler)");
    }
    compiler.version = compiler.command[0] + ": " + identity;
    return compiler;
  }
  StatusOr<std::string> dir = make_work_dir("spectral-host-probe");
  if (!dir) return dir.status();
  const std::string output = *dir + "/version.txt";
  std::vector<std::string> argv = compiler.command;
  argv.push_back("--version");
  StatusOr<int> status = run_process(argv, output);
  const std::string text = read_file(output);
  std::error_code ignored;
  fs::remove_all(*dir, ignored);
  if (!status) return status.status();
  if (*status != 0) {
    return Status::error("'" + join(argv) + "' failed (" + describe_exit(*status) + "): " + text +
                         " (set SPECTRAL_HOST_CXX to a C++17 compiler)");
  }
  // The command's own flags (SPECTRAL_HOST_CXX="g++ -fsanitize=address")
  // change the binary as much as the version does.
  compiler.version = join(compiler.command) + ": " + text.substr(0, text.find('\n'));
  return compiler;
}

}  // namespace

StatusOr<HostCompiler> host_compiler() {
  static std::once_flag once;
  static StatusOr<HostCompiler>* probed = nullptr;
  std::call_once(once, [] { probed = new StatusOr<HostCompiler>(probe_compiler()); });
  return *probed;
}

bool phased_unit(const std::string& source) {
  constexpr const char* kMark = "SPECTRAL_HOST_PHASED;";
  for (size_t at = source.find(kMark); at != std::string::npos; at = source.find(kMark, at + 1)) {
    size_t line = at;  // the mark starts its line, after blanks
    while (line > 0 && (source[line - 1] == ' ' || source[line - 1] == '\t')) --line;
    if (line == 0 || source[line - 1] == '\n') return true;
  }
  return false;
}

std::string native_cpu() {
  static const std::string identity = [] {
    // What tells processors apart in /proc/cpuinfo: the model and feature
    // flags on x86, the implementer, part and features on Arm.
    static const char* const kKeys[] = {"model name", "flags", "Features", "CPU implementer",
                                         "CPU architecture", "CPU variant", "CPU part"};
    std::string model, seen;
    std::ifstream cpuinfo("/proc/cpuinfo");
    for (std::string line; std::getline(cpuinfo, line) && !line.empty();) {  // the first processor
      const size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      const size_t end = line.find_last_not_of(" \t", colon == 0 ? 0 : colon - 1);
      const std::string key = line.substr(0, end == std::string::npos ? 0 : end + 1);
      for (const char* wanted : kKeys) {
        if (key != wanted) continue;
        seen += line + "\n";
        if (key == "model name") model = line.substr(colon + 1);
      }
    }
    uint64_t hash = 1469598103934665603ull;  // FNV-1a
    for (unsigned char c : seen) hash = (hash ^ c) * 1099511628211ull;
    char digest[17];
    std::snprintf(digest, sizeof digest, "%016llx", static_cast<unsigned long long>(hash));
    return (model.empty() ? std::string(" unknown") : model) + " cpuinfo " + digest;
  }();
  return identity;
}

std::string host_compile_options_key(HostBuild build, bool phased) {
  // -march=native code runs only where it was built: the key names the processor.
  return join(options_for(phased)) + (phased ? " cpu=" + native_cpu() : "") +
         (build == HostBuild::kCheckAccesses ? " " + join(kCheckOptions) : "") +
         " -include host_emulation.h templates=" + templates_digest() +
         " abi=" + std::to_string(SPECTRAL_HOST_ABI_VERSION);
}

std::string host_unit_source(const std::string& unit, const std::string& entry) {
  return unit + "\n#line 1 \"spectral-host-entry\"\nSPECTRAL_HOST_ENTRY(" + entry + ")\n";
}

/// Runs `argv` with its output into `log_path`; a failure's Status holds the
/// command, its output and the kept source.
Status run_compiler(const std::vector<std::string>& argv, const std::string& log_path,
                    const std::string& entry, const std::string& source_path) {
  StatusOr<int> status = run_process(argv, log_path);
  if (!status) return status.status();
  if (*status == 0) return Status::ok();
  std::string log = read_file(log_path);
  if (log.size() > 32768) log = log.substr(0, 32768) + "\n[... compiler output truncated]";
  return Status::error("host compiler failed on kernel '" + entry + "' (" +
                       describe_exit(*status) + "); source kept at " + source_path +
                       "\ncommand: " + join(argv) + "\n" + log);
}

StatusOr<std::vector<uint8_t>> compile_host_kernel(const HostCompiler& compiler,
                                                   const std::string& source,
                                                   const std::string& entry, HostBuild build) {
  StatusOr<std::string> templates = materialized_templates_dir();
  if (!templates) return templates.status();
  StatusOr<std::string> dir = make_work_dir("spectral-host-" + entry);
  if (!dir) return dir.status();
  const std::string source_path = *dir + "/" + entry + ".cu";
  const std::string object_path = *dir + "/" + entry + ".so";
  const std::string log_path = *dir + "/compiler.log";
  {
    std::ofstream out(source_path, std::ios::binary);
    out << source;
    if (!out) return Status::error("cannot write the kernel source " + source_path);
  }
  std::vector<std::string> argv = compiler.command;
  const std::vector<std::string> options = options_for(phased_unit(source));
  argv.insert(argv.end(), options.begin(), options.end());
  const std::vector<std::string> unit = {"-include", *templates + "/host_emulation.h", "-I",
                                         *templates, "-x", "c++", source_path, "-x", "none"};
  Status compiled = Status::ok();
  if (build == HostBuild::kPlain) {
    argv.insert(argv.end(), unit.begin(), unit.end());
    argv.insert(argv.end(), {"-o", object_path});
    compiled = run_compiler(argv, log_path, entry, source_path);
  } else {
    // The unit instrumented, into an object; then linked with the answers to
    // its calls, compiled plain (-fsanitize=thread at the link would bring
    // ThreadSanitizer's own runtime).
    const std::string unit_object = *dir + "/" + entry + ".o";
    std::vector<std::string> compile = compiler.command;
    for (const std::string& option : options)
      if (option != "-shared") compile.push_back(option);
    for (const std::string& option : kCheckOptions)
      if (option[0] == '-') compile.push_back(option);
    compile.insert(compile.end(), unit.begin(), unit.end());
    compile.insert(compile.end(), {"-c", "-o", unit_object});
    compiled = run_compiler(compile, log_path, entry, source_path);
    if (compiled) {
      argv.insert(argv.end(), {"-Wl,--wrap=memcpy,--wrap=memmove,--wrap=memset", "-I",
                               *templates, unit_object, "-x", "c++",
                               *templates + "/host_check_access.cc", "-x", "none", "-o",
                               object_path});
      compiled = run_compiler(argv, log_path, entry, source_path);
    }
  }
  std::error_code ignored;
  if (!compiled) {
    fs::remove(log_path, ignored);
    fs::remove(object_path, ignored);
    return compiled;
  }
  const std::string binary = read_file(object_path);
  fs::remove_all(*dir, ignored);
  if (binary.empty()) return Status::error("the host compiler wrote no shared object for '" + entry + "'");
  return std::vector<uint8_t>(binary.begin(), binary.end());
}

}  // namespace spectral::host
