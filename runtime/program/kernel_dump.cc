// kernel_dump.cc - every kernel of a Program as files a person can read.
#include "runtime/program/kernel_dump.h"

#include "runtime/device/cuda/nvrtc_compiler.h"
#include "runtime/kernels/embedded_templates.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace spectral {

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\', out += c;
    else if (c == '\n') out += "\\n";
    else if (static_cast<unsigned char>(c) < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
      out += buffer;
    } else out += c;
  }
  return out + "\"";
}

namespace {

Status write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return Status::error("cannot write " + path + ": " + std::strerror(errno));
  return Status::ok();
}

Status make_directory(const std::string& path) {
  std::string partial;
  for (size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || (path[i] == '/' && i > 0)) {
      partial = path.substr(0, i);
      if (mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST)
        return Status::error("cannot create " + partial + ": " + std::strerror(errno));
    }
  }
  struct stat info;
  if (stat(path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
    return Status::error(path + " is not a directory");
  return Status::ok();
}

std::string dim3_text(Dim3 d) {
  return std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z);
}

struct Row {
  std::string entry, ops, grid, block;
  uint32_t shared = 0;
  int launches = 0;
  ResourceUsage usage;
  bool compiled = false;  // usage comes from ptxas
  int64_t read = 0, written = 0;
};

}  // namespace

StatusOr<std::string> dump_kernels(const Program& program, const DumpOptions& options) {
  if (Status status = make_directory(options.directory); !status) return status;
  // Without NVRTC the units and the launch columns are still written.
  StatusOr<NvrtcCompiler> compiler = NvrtcCompiler::create();
  std::vector<NvrtcHeader> headers;
  for (const EmbeddedFile& file : embedded_templates()) headers.push_back({file.name, file.content});

  std::vector<Row> rows(program.kernels.size());
  for (const Step& step : program.steps) {
    if (step.kind != Step::Kind::kLaunch) continue;
    Row& row = rows[step.kernel];
    if (row.launches++ == 0) {
      row.grid = dim3_text(step.grid);
      row.block = dim3_text(step.block);
      row.shared = step.shared_bytes;
    }
  }
  NvrtcOptions nvrtc;
  nvrtc.arch = options.arch;
  nvrtc.want_ptx = true;
  for (size_t k = 0; k < program.kernels.size(); ++k) {
    const KernelDesc& kernel = program.kernels[k];
    Row& row = rows[k];
    row.entry = kernel.source.entry;
    row.ops = kernel.ops;
    row.read = kernel.bytes_read;
    row.written = kernel.bytes_written;
    const std::string base = options.directory + "/" + kernel.source.entry;
    if (Status status = write_file(base + ".cu", with_defines(kernel.source).source); !status)
      return status;
    if (!compiler) continue;
    StatusOr<CompiledKernel> compiled = compiler->compile(kernel.source, nvrtc, headers);
    if (!compiled)
      return Status::error("compiling " + kernel.source.entry + " for " + options.arch + ": " +
                           compiled.status().message());
    if (Status status = write_file(base + ".ptx", compiled->ptx); !status) return status;
    if (Status status = write_file(base + ".ptxas.txt", compiled->log); !status) return status;
    if (const ResourceUsage* usage = compiled->usage_of(kernel.source.entry)) {
      row.usage = *usage;
      row.compiled = true;
    }
  }

  std::ostringstream text, json;
  char line[256];
  std::snprintf(line, sizeof line, "%-40s %-14s %-10s %8s %5s %6s %8s %12s %13s  ", "kernel",
                "grid", "block", "dyn_smem", "regs", "spills", "smem", "bytes_read",
                "bytes_written");
  text << "# " << program.function << ": " << program.kernels.size()
       << (program.kernels.size() == 1 ? " kernel, " : " kernels, ") << options.arch << "\n";
  if (!compiler)
    text << "# no PTX and no ptxas report (regs, spills and smem shown as -): "
         << compiler.status().message() << "\n";
  text << line << "ops\n";
  json << "{\n  \"function\": " << json_string(program.function) << ",\n  \"arch\": "
       << json_string(options.arch) << ",\n  \"kernels\": [";
  for (size_t k = 0; k < rows.size(); ++k) {
    const Row& r = rows[k];
    int64_t spills = r.usage.spill_store_bytes + r.usage.spill_load_bytes;
    auto column = [&](int64_t value) { return r.compiled ? std::to_string(value) : "-"; };
    // The ops column is appended whole: it can be longer than any buffer.
    std::snprintf(line, sizeof line, "%-40s %-14s %-10s %8u %5s %6s %8s %12lld %13lld  ",
                  r.entry.c_str(), r.grid.c_str(), r.block.c_str(), r.shared,
                  column(r.usage.registers).c_str(), column(spills).c_str(),
                  column(r.usage.shared_bytes).c_str(), (long long)r.read, (long long)r.written);
    text << line << r.ops << "\n";
    json << (k ? "," : "") << "\n    {\"entry\": " << json_string(r.entry)
         << ", \"ops\": " << json_string(r.ops) << ", \"grid\": [" << r.grid
         << "], \"block\": [" << r.block << "], \"dynamic_shared_bytes\": " << r.shared
         << ", \"launches\": " << r.launches;
    if (r.compiled)
      json << ", \"registers\": " << r.usage.registers
           << ", \"spill_store_bytes\": " << r.usage.spill_store_bytes
           << ", \"spill_load_bytes\": " << r.usage.spill_load_bytes
           << ", \"static_shared_bytes\": " << r.usage.shared_bytes;
    json << ", \"bytes_read\": " << r.read << ", \"bytes_written\": " << r.written << "}";
  }
  json << "\n  ]\n}\n";
  if (Status status = write_file(options.directory + "/summary.txt", text.str()); !status)
    return status;
  if (Status status = write_file(options.directory + "/summary.json", json.str()); !status)
    return status;
  return text.str();
}

}  // namespace spectral
