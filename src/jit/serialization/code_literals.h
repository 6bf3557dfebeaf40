// Python literals as TorchScript source writes them, for code tvk prints (the optimized
// module's code export.cpp saves, the source a .pt2's graph becomes): torch reads them, and so
// does tvk's parser.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

namespace tvk::jit {

// "..." with quotes, backslashes and newlines escaped.
inline std::string python_string_literal(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

// Round-trip precision, always with a point or exponent; non-finite values as float("inf").
inline std::string python_float_literal(double d) {
  if (std::isnan(d)) return "float(\"nan\")";
  if (std::isinf(d)) return d > 0 ? "float(\"inf\")" : "float(\"-inf\")";
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.17g", d);
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".";
  return s;
}

}  // namespace tvk::jit
