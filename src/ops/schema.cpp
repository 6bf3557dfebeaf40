#include "ops/schema.h"

#include <cctype>
#include <cstdlib>

namespace tvk::ops {

namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

// Splits at commas that are not inside brackets or parentheses.
std::vector<std::string> split_top_level(const std::string& s) {
  std::vector<std::string> parts;
  int depth = 0;
  std::string cur;
  for (char c : s) {
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!trim(cur).empty()) parts.push_back(trim(cur));
  return parts;
}

IValue parse_scalar_default(const std::string& text) {
  if (text == "None") return IValue();
  if (text == "True") return IValue(true);
  if (text == "False") return IValue(false);
  if (!text.empty() && (text.front() == '"' || text.front() == '\''))
    return IValue(text.substr(1, text.size() - 2));
  if (text == "contiguous_format" || text == "long" || text == "Mean") return IValue(int64_t{0});
  char* end = nullptr;
  if (text.find_first_of(".e") != std::string::npos || text.find("inf") != std::string::npos) {
    double d = std::strtod(text.c_str(), &end);
    if (end && *end == '\0') return IValue(d);
  } else {
    long long i = std::strtoll(text.c_str(), &end, 10);
    if (end && *end == '\0') return IValue(static_cast<int64_t>(i));
  }
  throw Error(detail::concat("unsupported default value '", text, "'"));
}

IValue parse_default(const std::string& type, const std::string& text) {
  const size_t bracket = type.find('[');
  if (bracket != std::string::npos && text != "None") {
    List items;
    if (text.front() == '[') {
      for (const std::string& part : split_top_level(text.substr(1, text.size() - 2)))
        items.push_back(parse_scalar_default(part));
    } else {
      // "int[2] stride=1" means [1, 1].
      const int64_t n = std::atoll(type.c_str() + bracket + 1);
      for (int64_t i = 0; i < std::max<int64_t>(n, 1); ++i) items.push_back(parse_scalar_default(text));
    }
    return IValue::list(std::move(items));
  }
  return parse_scalar_default(text);
}

}  // namespace

int Schema::index_of(const std::string& arg) const {
  for (size_t i = 0; i < arguments.size(); ++i)
    if (arguments[i].name == arg) return static_cast<int>(i);
  return -1;
}

Schema parse_schema(const std::string& text) {
  Schema schema;
  schema.text = text;
  const size_t open = text.find('(');
  size_t close = std::string::npos;
  if (open != std::string::npos) {
    int depth = 0;
    for (size_t i = open; i < text.size(); ++i) {
      if (text[i] == '(') ++depth;
      if (text[i] == ')' && --depth == 0) {
        close = i;
        break;
      }
    }
  }
  const size_t arrow = text.find("->", close == std::string::npos ? 0 : close);
  if (open == std::string::npos || close == std::string::npos || close < open || arrow == std::string::npos)
    throw Error(detail::concat("malformed op schema '", text, "'"));
  const std::string qualified = trim(text.substr(0, open));
  const size_t dot = qualified.find('.');
  schema.name = qualified.substr(0, dot);
  if (dot != std::string::npos) schema.overload = qualified.substr(dot + 1);
  if (schema.name.find("::") == std::string::npos)
    throw Error(detail::concat("op schema '", text, "' has no namespace"));

  bool kwarg_only = false;
  for (const std::string& part : split_top_level(text.substr(open + 1, close - open - 1))) {
    if (part == "*") {
      kwarg_only = true;
      continue;
    }
    Argument arg;
    std::string decl = part;
    const size_t eq = decl.find('=');
    std::string default_text;
    if (eq != std::string::npos) {
      default_text = trim(decl.substr(eq + 1));
      decl = trim(decl.substr(0, eq));
    }
    const size_t space = decl.rfind(' ');
    if (space == std::string::npos)
      throw Error(detail::concat("op schema '", text, "': argument '", part, "' has no name"));
    arg.type = trim(decl.substr(0, space));
    arg.name = trim(decl.substr(space + 1));
    arg.kwarg_only = kwarg_only;
    if (!default_text.empty()) {
      try {
        arg.default_value = parse_default(arg.type, default_text);
      } catch (const Error& e) {
        throw Error(detail::concat("op schema '", text, "': ", e.what()));
      }
    }
    schema.arguments.push_back(std::move(arg));
  }
  std::string rets = trim(text.substr(arrow + 2));
  if (!rets.empty() && rets.front() == '(') rets = rets.substr(1, rets.size() - 2);
  for (const std::string& r : split_top_level(rets)) schema.returns.push_back(r);
  return schema;
}

}  // namespace tvk::ops
