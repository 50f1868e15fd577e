#include "runtime/device/cuda/ptxas_report.h"

#include <cstdlib>
#include <sstream>
#include <string_view>

namespace spectral {
namespace {

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '.')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\r')) text.remove_suffix(1);
  return text;
}

/// The text after "ptxas info    :" (or "ptxas         ."), or empty.
std::string_view ptxas_message(std::string_view line) {
  if (!starts_with(line, "ptxas")) return {};
  line.remove_prefix(5);
  size_t start = line.find_first_not_of(' ');
  if (start == std::string_view::npos) return {};
  line.remove_prefix(start);
  if (starts_with(line, "info")) {
    size_t colon = line.find(':');
    return colon == std::string_view::npos ? std::string_view() : trim(line.substr(colon + 1));
  }
  return starts_with(line, ".") ? trim(line) : std::string_view();
}

/// The name between the first pair of quotes, or everything after `prefix`.
std::string function_name(std::string_view message, std::string_view prefix) {
  std::string_view rest = message.substr(prefix.size());
  size_t open = rest.find('\'');
  if (open == std::string_view::npos) return std::string(trim(rest));
  size_t close = rest.find('\'', open + 1);
  return std::string(rest.substr(open + 1, close - open - 1));
}

/// Applies "Used 12 registers, used 1 barriers, 1024 bytes smem, ..." or
/// "0 bytes stack frame, 8 bytes spill stores, ..." to `usage`.
void apply_items(std::string_view message, ResourceUsage& usage) {
  while (!message.empty()) {
    size_t comma = message.find(',');
    std::string_view item = trim(message.substr(0, comma));
    message = comma == std::string_view::npos ? std::string_view() : message.substr(comma + 1);
    if (starts_with(item, "Used ") || starts_with(item, "used ")) item.remove_prefix(5);
    std::string number(item.substr(0, item.find(' ')));
    char* end = nullptr;
    int64_t value = std::strtoll(number.c_str(), &end, 10);
    if (number.empty() || *end != '\0') continue;
    std::string_view unit = trim(item.substr(number.size()));
    if (unit == "registers") usage.registers = value;
    else if (unit == "barriers") usage.barriers = value;
    else if (unit == "bytes smem") usage.shared_bytes = value;
    else if (starts_with(unit, "bytes cmem[")) usage.constant_bytes += value;
    else if (unit == "bytes stack frame") usage.stack_bytes = value;
    else if (unit == "bytes spill stores") usage.spill_store_bytes = value;
    else if (unit == "bytes spill loads") usage.spill_load_bytes = value;
  }
}

}  // namespace

std::map<std::string, ResourceUsage> parse_ptxas_report(const std::string& log) {
  constexpr std::string_view kEntry = "Compiling entry function";
  constexpr std::string_view kProperties = "Function properties for";
  std::map<std::string, ResourceUsage> usage;
  std::string entry;       // whose "Used" line comes next
  std::string properties;  // whose stack/spill line comes next
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    std::string_view message = ptxas_message(line);
    if (starts_with(message, kEntry)) {
      entry = function_name(message, kEntry);
      usage[entry].is_entry = true;
    } else if (starts_with(message, kProperties)) {
      properties = function_name(message, kProperties);
      usage[properties];
    } else if (message.find("bytes stack frame") != std::string_view::npos) {
      if (!properties.empty()) apply_items(message, usage[properties]);
      properties.clear();
    } else if (starts_with(message, "Used ")) {
      if (!entry.empty()) apply_items(message, usage[entry]);
      entry.clear();
    }
  }
  return usage;
}

}  // namespace spectral
