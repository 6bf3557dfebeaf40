// The ops a model's code calls, found by reading it (not running it): every `torch.X(...)`,
// `torch.nn.functional.X(...)` and `ops.NS.X(...)` call in every function and method, with where
// it is. `tvk check` lists those tvk has no kernel for, and those with a CPU kernel only, in one
// pass, where running the model stops at the first op it lacks. Calls on paths a given input
// does not take are listed too.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "jit/runtime/compilation_unit.h"

namespace tvk::jit {

enum class OpSupport { Unknown, CpuOnly, Vulkan };

struct OpReferences {
  // Op name ("aten::lstm", "torchvision::roi_align") -> the places that call it ("file:line:col").
  std::map<std::string, std::vector<std::string>> unknown, cpu_only, vulkan;
};

OpReferences op_references(const CompilationUnit& unit);

}  // namespace tvk::jit
