// Calling registered ops from TorchScript code: `torch.add(x, 1.)` names no overload, so the
// overload whose schema accepts the argument values is chosen, as PyTorch's importer does.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ops/registry.h"

namespace tvk::jit {

using Kwargs = std::vector<std::pair<std::string, IValue>>;

// Decides whether an argument value fits a schema type; the freezer passes one that also
// understands values only known when the graph runs.
using TypeMatcher = bool (*)(const std::string& schema_type, const IValue& value);

// Whether a value fits a schema type ("Tensor", "int[2]", "Scalar?", "Tensor?[]"...).
bool value_matches_type(const std::string& schema_type, const IValue& value);
// The same, with list elements checked by `element_matches`.
bool value_matches_type_with(const std::string& schema_type, const IValue& value, TypeMatcher element_matches);

// Binds positional and keyword arguments to `op`'s schema (filling defaults); false with a
// reason when they do not fit.
bool bind_arguments(const ops::OpEntry& op, const Stack& args, const Kwargs& kwargs, Stack* bound,
                    std::string* why, TypeMatcher matches = value_matches_type);

// Whether `value` fits `schema_type` without a conversion: an int does not take a float or bool
// parameter, nor a bool an int or float one (then value_matches_type).
bool value_matches_type_exactly(const std::string& schema_type, const IValue& value);

// A 0-D tensor as the number it holds (float32 as a float, int64 and bool as an int), as
// TorchScript converts one where a number goes (a traced graph's sizes); other values unchanged.
IValue number_of_0d_tensor(const IValue& v);

// Picks the overload of `name` ("aten::add") that accepts the arguments: the first whose
// parameters take them as they are (`exact`), else the first that takes them with conversions
// (`matches`), as TorchScript prefers torch.tensor(3) as tensor.int over tensor.float. nullptr
// when `name` has no registered op at all; throws tvk::Error listing the overloads when none fits.
const ops::OpEntry* resolve_overload(const std::string& name, const Stack& args, const Kwargs& kwargs, Stack* bound,
                                     TypeMatcher matches = value_matches_type,
                                     TypeMatcher exact = value_matches_type_exactly);

}  // namespace tvk::jit
