// Operator schemas in PyTorch's text form, e.g.
//   "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tvk/ivalue.h"

namespace tvk::ops {

struct Argument {
  std::string name;
  std::string type;               // as written, e.g. "Tensor", "int[2]", "Scalar?", "Tensor(a!)"
  std::optional<IValue> default_value;
  bool kwarg_only = false;
  bool is_optional() const { return !type.empty() && type.back() == '?'; }
};

struct Schema {
  std::string name;      // "aten::add"
  std::string overload;  // "Tensor" (empty for the default overload)
  std::vector<Argument> arguments;
  std::vector<std::string> returns;
  std::string text;

  std::string full_name() const { return overload.empty() ? name : name + "." + overload; }
  // Index of the argument called `arg`, or -1.
  int index_of(const std::string& arg) const;
};

// Parses the text form; throws tvk::Error naming the schema and the column on bad text.
Schema parse_schema(const std::string& text);

}  // namespace tvk::ops
