//===- SourceLimits.cpp - what MLIR text the spectral tools accept --------===//
#include "dialects/spectral/IR/SourceLimits.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/StringExtras.h"

#include <cctype>
#include <string>

namespace mlir::spectral {

LogicalResult checkSourceLimits(const llvm::SourceMgr &sources, unsigned buffer,
                                MLIRContext *context) {
  const llvm::MemoryBuffer *file = sources.getMemoryBuffer(buffer);
  llvm::StringRef text = file->getBuffer();
  auto fail = [&](size_t at, const std::string &message) {
    auto [line, column] = sources.getLineAndColumn(llvm::SMLoc::getFromPointer(text.data() + at),
                                                   buffer);
    emitError(FileLineColLoc::get(context, file->getBufferIdentifier(), line, column)) << message;
    return failure();
  };
  auto isNameChar = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.' ||
           c == '-';
  };
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {  // a string literal: nothing in it counts
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
      continue;
    }
    if (c == '/' && text.substr(i, 2) == "//") {  // a comment, to the end of the line
      i = text.find('\n', i);
      if (i == llvm::StringRef::npos) break;
      continue;
    }
    if (c == '-' && text.substr(i, 2) == "->") {  // an arrow, not a closing '>'
      ++i;
      continue;
    }
    if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (++depth > kMaxSourceNesting)
        return fail(i, "nesting deeper than " + std::to_string(kMaxSourceNesting) +
                           " levels of (), [], {} and <> is not accepted");
      continue;
    }
    if (c == ')' || c == ']' || c == '}' || c == '>') {
      depth = std::max(0, depth - 1);  // unbalanced text is the parser's to report
      continue;
    }
    if (c == 's' && text.substr(i, 7) == "sparse<" && (i == 0 || !isNameChar(text[i - 1])))
      return fail(i, "sparse element literals are not accepted (spectral constants are dense)");
    if (c == '%') {  // a value: %name, then #N (a result) or :N (a result count)
      size_t end = i + 1;
      while (end < text.size() && isNameChar(text[end])) ++end;
      if (end + 1 < text.size() && (text[end] == '#' || text[end] == ':') &&
          std::isdigit(static_cast<unsigned char>(text[end + 1]))) {
        size_t digits = end + 1;
        while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])))
          ++digits;
        llvm::StringRef number = text.slice(end + 1, digits);
        if (number.size() > 6 || std::stoll(number.str()) > kMaxSourceResults)
          return fail(end + 1, "result " + std::string(text[end] == '#' ? "number " : "count ") +
                                   number.str() + " is beyond " +
                                   std::to_string(kMaxSourceResults));
        end = digits;
      }
      i = end - 1;
    }
  }
  return success();
}

} // namespace mlir::spectral
