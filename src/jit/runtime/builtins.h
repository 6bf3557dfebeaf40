// The non-tensor builtins TorchScript code calls: int/float/bool/str math and comparisons,
// list and dict helpers, string formatting, `ops.prim.*`, and Python builtins (len, range...).
#pragma once

#include <string>

#include "jit/runtime/op_call.h"

namespace tvk::jit {

// Runs the builtin called `path` ("torch.len", "ops.prim.RaiseException", "len") when one
// exists for these arguments; false otherwise (the caller then tries registered ops).
bool call_builtin(const std::string& path, Stack& args, const Kwargs& kwargs, IValue* result);

// The table name of the plain builtin `path` stands for ("torch.len" -> "len"), or "" when it
// is not one (prim ops, registered ops and unknown names).
std::string builtin_table_name(const std::string& path);

// Python's str() of a value, as TorchScript prints it.
std::string python_str(const IValue& value);

}  // namespace tvk::jit
