//===- SourceLimits.cpp - what MLIR text the spectral tools accept --------===//
#include "dialects/spectral/IR/SourceLimits.h"

#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace mlir::spectral {
namespace {

/// A character of a bare identifier (or of a %value or ^block name when
/// `suffix`: those may hold '-' too), as MLIR's lexer reads them.
bool isNameChar(char c, bool suffix = false) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.' ||
         (suffix && c == '-');
}

bool isDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

/// Reads MLIR text as the lexer would for what the limits need: whitespace,
/// comments and string literals skipped, and the position of each token.
class Scanner {
public:
  explicit Scanner(llvm::StringRef text) : text_(text) {}

  /// The position of the next token (text size at the end).
  size_t next() {
    while (at_ < text_.size()) {
      const char c = text_[at_];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++at_;
      } else if (text_.substr(at_, 2) == "//") {
        at_ = std::min(text_.size(), text_.find('\n', at_));
      } else {
        break;
      }
    }
    return at_;
  }
  /// Skips a string literal starting at the current position.
  void skipString() {
    for (++at_; at_ < text_.size() && text_[at_] != '"'; ++at_)
      if (text_[at_] == '\\') ++at_;
    ++at_;
  }
  size_t at_ = 0;

private:
  llvm::StringRef text_;
};

} // namespace

LogicalResult checkSourceLimits(const llvm::SourceMgr &sources, unsigned buffer,
                                MLIRContext *context) {
  const llvm::MemoryBuffer *file = sources.getMemoryBuffer(buffer);
  llvm::StringRef text = file->getBuffer();
  // Bytecode keeps attributes it cannot encode (affine maps) as text that
  // the parser reads unchecked: it is not accepted at all.
  if (isBytecode(*file)) {
    emitError(FileLineColLoc::get(context, file->getBufferIdentifier(), 0, 0))
        << "MLIR bytecode is not accepted (the text it embeds would bypass the source limits); "
           "give the graph as text";
    return failure();
  }
  auto fail = [&](size_t at, const std::string &message) {
    auto [line, column] = sources.getLineAndColumn(llvm::SMLoc::getFromPointer(text.data() + at),
                                                   buffer);
    emitError(FileLineColLoc::get(context, file->getBufferIdentifier(), line, column)) << message;
    return failure();
  };
  Scanner scan(text);
  int depth = 0;
  int64_t resultSlots = 0;  // what the parser allocates for the result numbers read
  bool afterValue = false;  // the previous token was a value name (%...)
  for (size_t i = scan.next(); i < text.size(); i = scan.next()) {
    const char c = text[i];
    const bool valueBefore = std::exchange(afterValue, false);
    if (c == '"') {
      scan.skipString();
      continue;
    }
    // A result number (%v#N) or count (%v:N =), whitespace between or not;
    // '#' before digits means nothing else in MLIR text.
    if ((c == '#' && i + 1 < text.size() && isDigit(text[i + 1])) ||
        ((c == '#' || c == ':') && valueBefore)) {
      scan.at_ = i + 1;
      size_t digits = scan.next();
      size_t end = digits;
      while (end < text.size() && isDigit(text[end])) ++end;
      llvm::StringRef number = text.slice(digits, end);
      if (!number.empty() && (number.size() > 6 || std::stoll(number.str()) > kMaxSourceResults))
        return fail(digits, "result " + std::string(c == '#' ? "number " : "count ") +
                                number.str() + " is beyond " + std::to_string(kMaxSourceResults));
      // The parser keeps N + 1 slots for each value used as %v#N.
      if (!number.empty() && (resultSlots += std::stoll(number.str()) + 1) > kMaxSourceResultSlots)
        return fail(digits, "result numbers add up to more than " +
                                std::to_string(kMaxSourceResultSlots) + " in one file");
      scan.at_ = end;
      continue;
    }
    if (c == '%' || c == '@' || c == '^' || c == '!' || c == '#') {  // a name, whole
      size_t end = i + 1;
      while (end < text.size() && isNameChar(text[end], c == '%' || c == '^')) ++end;
      afterValue = c == '%';
      scan.at_ = end;
      continue;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {  // a bare identifier
      size_t end = i + 1;
      while (end < text.size() && isNameChar(text[end])) ++end;
      llvm::StringRef word = text.slice(i, end);
      scan.at_ = end;
      if (word == "sparse" && scan.next() < text.size() && text[scan.at_] == '<')
        return fail(i, "sparse element literals are not accepted (spectral constants are dense)");
      if (word == "affine_map" || word == "affine_set")
        return fail(i, "affine maps and sets are not accepted (no spectral op takes one, and "
                       "MLIR 19's parser recurses on their expressions)");
      continue;
    }
    scan.at_ = i + 1;
    const char after = i + 1 < text.size() ? text[i + 1] : '\0';
    if ((c == '-' && after == '>') || ((c == '>' || c == '<') && after == '=')) {
      scan.at_ = i + 2;  // an arrow or a comparison: no bracket
      continue;
    }
    if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (++depth > kMaxSourceNesting)
        return fail(i, "nesting deeper than " + std::to_string(kMaxSourceNesting) +
                           " levels of (), [], {} and <> is not accepted");
    } else if (c == ')' || c == ']' || c == '}' || c == '>') {
      depth = std::max(0, depth - 1);  // unbalanced text is the parser's to report
    }
  }
  return success();
}

} // namespace mlir::spectral
