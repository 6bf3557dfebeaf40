// Export: writes an optimized module as a TorchScript archive: flat code printed from its
// frozen graphs, the packed weight contexts as module attributes in data.pkl, and constant
// tensors in constants.pkl, laid out as torch.jit.save lays them out.
#pragma once

#include <string>

#include "jit/serialization/import.h"

namespace tvk::jit {

// Throws tvk::Error when the module has no frozen methods (only optimized modules are printed
// from graphs) or the file cannot be written.
void export_module(const ModuleState& state, const std::string& path);
// The code export_module writes for an optimized module's methods (Module::code).
std::string print_frozen_code(const ModuleState& state);

}  // namespace tvk::jit
