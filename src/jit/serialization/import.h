// Import: reads a torch.jit.save archive into a CompilationUnit (code and constants) and the
// module object graph (data.pkl), as PyTorch's import.cpp does.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <mutex>
#include <string>
#include <vector>

#include "jit/runtime/compilation_unit.h"
#include "jit/runtime/interpreter.h"
#include "jit/serialization/zip_reader.h"
#include "core/run_scope.h"
#include "tvk/limits.h"
#include "tvk/vulkan_info.h"

namespace tvk::jit {

class GraphExecutor;
class BytecodeUnit;
struct ExportedSignature;

struct ModuleState {
  std::string path;
  Device device = Device::CPU;
  std::shared_ptr<CompilationUnit> unit;
  std::unique_ptr<Interpreter> interpreter;
  std::shared_ptr<Object> root;
  // The archive's extra/ records by name ("mobile_info.json", what torch.jit.save's
  // _extra_files wrote): kept with the module and written back by Module::save. They stay
  // compressed until first asked for (extras()): nothing the model runs reads them.
  const std::map<std::string, std::string>& extras() const;
  mutable std::map<std::string, std::string> extra_files;
  mutable std::map<std::string, ZipReader::StoredRecord> stored_extra_files;
  mutable std::mutex extras_mutex;
  // The limits its runs (load, methods, freezing) run under, and the host memory they share.
  Limits limits;
  std::shared_ptr<MemoryBudget> memory;
  // A lite-interpreter file without code/: its methods run as bytecode.
  std::shared_ptr<BytecodeUnit> bytecode;
  // Methods frozen and optimized by optimize_for_mobile; they run as graphs, not as code.
  std::map<std::string, std::shared_ptr<GraphExecutor>> frozen_methods;
  // Methods of a loaded module, frozen on first call to run as (planned) graphs; a method the
  // freezer cannot express keeps running in the interpreter, with the reason kept here.
  std::map<std::string, std::shared_ptr<GraphExecutor>> graphs;
  std::map<std::string, std::string> graph_failures;
  std::mutex graphs_mutex;
  // A torch.export program (.pt2): the inputs it accepts (checked before each forward), the
  // TorchScript source its graph became, and the sample inputs the archive holds.
  // The archive's code files by qualifier ("__torch__.torchvision.models.mobilenetv2"), as
  // written: what Module::code shows of a loaded module.
  std::map<std::string, std::string> code_files;
  std::shared_ptr<const ExportedSignature> exported;
  std::string exported_source;
  std::vector<IValue> example_inputs;
  // Module::set_tuning's mode for this module's Vulkan kernels; unset: TVK_TUNE's (cached).
  std::optional<Tuning> tuning;
};

// Fresh state for a module read from `path` (no code, no root yet), under `limits` and `memory`.
std::shared_ptr<ModuleState> new_module_state(const std::string& path, Device device, const Limits& limits,
                                              std::shared_ptr<MemoryBudget> memory);

// Throws tvk::Error naming the file and the record/offset/line at fault.
std::shared_ptr<ModuleState> import_archive(const std::string& path, Device device, const Limits& limits = {});
// The same from an archive already read (ZipReader::from_bytes: fuzzing, bytes from Python);
// `path` is what errors call it.
std::shared_ptr<ModuleState> import_archive(const ZipReader& zip, const std::string& path, Device device,
                                            const Limits& limits = {});

// What an archive is, for `tvk check`: its format version and the kinds of parts it carries.
struct ArchiveSummary {
  int64_t format_version = 0;
  bool has_code = false;       // code/ (TorchScript source)
  bool lite = false;           // bytecode.pkl (PyTorch Mobile lite interpreter)
  std::vector<std::string> extra_files;  // extra/..., mobile_info.json among them
  // Custom-class objects in the module graph by qualified class name (quantized packed
  // parameters, XNNPACK and Vulkan contexts), and modules whose class name says quantized.
  std::map<std::string, int64_t> custom_classes;
  int64_t quantized_modules = 0;
  // The code's calls that keep the meaning of the archive's older format version (see
  // CompilationUnit::format_version), described: "torch.div of integer tensors rounds toward zero".
  std::vector<std::string> old_meanings;
};
ArchiveSummary summarize_archive(const ZipReader& zip, const ModuleState& module);

// The archive format versions tvk reads (PyTorch 1.x to 2.x write 1 to 10).
constexpr int64_t kMinFileFormatVersion = 1;
constexpr int64_t kMaxFileFormatVersion = 10;

}  // namespace tvk::jit
