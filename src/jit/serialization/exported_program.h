// torch.export programs (.pt2): the archive torch.export.save writes, read into the same module
// state as a TorchScript file. The exported ATen graph becomes TorchScript source (one call per
// node, parameters and buffers as module attributes), so freezing, the Vulkan passes and
// recorded plans treat a .pt2 exactly as they treat the same model saved with torch.jit.save.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tvk/ivalue.h"
#include "tvk/limits.h"

namespace tvk {
class MemoryBudget;
}

namespace tvk::jit {

class ZipReader;
struct ModuleState;

// Whether `zip` holds a torch.export program: the PT2 archive (archive_format, models/) or the
// layout torch 2.1-2.5 wrote (serialized_exported_program.json).
bool is_exported_program(const ZipReader& zip);

// A pytree spec (torch.utils._pytree's TreeSpec as its JSON form): how a program's flat inputs
// and outputs nest in tuples, lists and dicts.
struct TreeSpec {
  enum class Kind { Leaf, Tuple, List, Dict };
  Kind kind = Kind::Leaf;
  std::vector<IValue> keys;  // Dict: the keys, in order
  std::vector<TreeSpec> children;
  size_t leaves() const;
};

// What the program accepts as forward inputs, checked before every call: each input tensor's
// rank, its static sizes and its dynamic ones within the program's range constraints (as
// torch's own guards do), and its kind of dtype.
struct ExportedSignature {
  struct Dim {
    int64_t size = -1;   // a static size, or -1
    std::string symbol;  // a dynamic size's symbol ("s77"); empty for an expression or static
  };
  struct Input {
    std::string name;
    bool tensor = false;
    bool shape_known = false;  // the file gave its sizes and dtype
    DType dtype = DType::Float32;
    std::vector<Dim> dims;
  };
  TreeSpec in_spec;             // (args, kwargs), as the program's forward takes them
  std::vector<Input> inputs;    // the flattened user inputs
  struct Range {
    int64_t min = 0, max = 0;  // inclusive; max is INT64_MAX for no upper bound
  };
  std::map<std::string, Range> ranges;
  std::string torch_version;  // the torch that exported it, when the file says
  std::string format;         // "PT2 archive, version 0" / "torch 2.1-2.5 layout"
  std::string schema_version;  // "8.17"

  // Throws tvk::Error naming `path`, the input and the dimension.
  void check(const std::vector<IValue>& args, const std::string& path) const;
};

// Reads a .pt2 into module state for `device`, in the current run (the caller's RunScope).
// Throws tvk::Error naming the file and the record, node or field at fault; an op tvk does not
// have is a tvk::UnsupportedError listing every such op.
std::shared_ptr<ModuleState> import_exported_program(const ZipReader& zip, const std::string& path, Device device,
                                                     const Limits& limits, std::shared_ptr<MemoryBudget> memory);

// The value a torch.save file (a zip with data.pkl and data/) holds: sample inputs and the
// older layout's state dicts. `name` is what errors call it.
IValue read_torch_save(std::vector<uint8_t> bytes, const std::string& name);

}  // namespace tvk::jit
