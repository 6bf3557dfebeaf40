// Where a token or syntax node came from, and the error the TorchScript frontend throws.
#pragma once

#include <string>
#include <utility>

#include "tvk/error.h"

namespace tvk::jit {

// A position in a source file. `line` and `column` are 1-based; the column counts bytes, so a
// tab is one column (as in most compilers' diagnostics).
struct SourceLocation {
  std::string file;
  int line = 1;
  int column = 1;
};

inline std::string to_string(const SourceLocation& loc) {
  return loc.file + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.column);
}

// Malformed source text. The message is "<file>:<line>:<col>: <what>"; the location and the bare
// description stay available for callers that format diagnostics themselves.
class ParseError : public Error {
 public:
  ParseError(SourceLocation loc, std::string what)
      : Error(to_string(loc) + ": " + what), location_(std::move(loc)), description_(std::move(what)) {}

  const SourceLocation& location() const { return location_; }
  const std::string& description() const { return description_; }

 private:
  SourceLocation location_;
  std::string description_;
};

}  // namespace tvk::jit
