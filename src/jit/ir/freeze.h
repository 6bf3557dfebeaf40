// freeze_method: PyTorch's freeze_module for one method. The module's attributes become
// constants, submodule calls are inlined, control flow on attributes is folded, and what depends
// on the inputs (shape checks included) stays as nodes, so the frozen graph accepts every input
// the original accepted.
#pragma once

#include <memory>
#include <string>

#include "jit/ir/graph.h"

namespace tvk::jit {

struct ModuleState;
struct Param;

// Sets `training` to False on the module and every submodule (torch's module.eval()).
void set_eval_mode(ModuleState& state);

// A parameter that defaults to None (a detection model's `targets`): the freezer freezes it as
// None, as inference calls leave it, and the graph does not take it.
bool frozen_as_none(const Param& p);

// Throws tvk::Error naming the construct and source location the freezer cannot handle.
// `input_dtypes`, where given, are the dtypes of the method's tensor arguments (after self) that
// the graph is frozen for: code asking an input's dtype (a bool padding mask, int64 token ids)
// sees them. Without, inputs are taken as float32.
std::unique_ptr<Graph> freeze_method(ModuleState& state, const std::string& method,
                                     const std::vector<std::optional<DType>>& input_dtypes = {});

}  // namespace tvk::jit
