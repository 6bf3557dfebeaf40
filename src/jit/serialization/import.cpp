#include "jit/serialization/import.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/run_scope.h"
#include "core/storage.h"
#include "jit/frontend/parser.h"
#include "jit/serialization/exported_program.h"
#include "jit/runtime/bytecode.h"
#include "ops/custom_class.h"
#include "ops/registry.h"
#include "tvk/version.h"
#include "jit/serialization/storage_record.h"
#include "jit/serialization/unpickler.h"
#include "jit/serialization/zip_reader.h"

namespace tvk::jit {

namespace {

void count_parts(const IValue& v, ArchiveSummary& out, std::set<const void*>& seen) {
  if (v.isObject()) {
    const Object& o = *v.toObject();
    if (!seen.insert(&o).second) return;
    if (o.payload) ++out.custom_classes[o.type_name];
    if (o.type_name.find(".quantized.") != std::string::npos && !o.payload) ++out.quantized_modules;
    for (const auto& [name, attr] : o.attributes) count_parts(attr, out, seen);
  } else if (v.isList() || v.isTuple()) {
    RunScope::visit("a nested value");
    for (const IValue& e : v.toList()) count_parts(e, out, seen);
  } else if (v.isDict()) {
    for (const auto& [k, e] : v.toDict()->items) count_parts(e, out, seen);
  }
}

// Zip archives that torch writes but that hold no TorchScript: a clear error saying what to save
// instead. torch.save writes data.pkl and tensor data but no code/ and no constants.pkl;
// torch.export.save writes archive_format and models/.
void refuse_other_formats(const ZipReader& zip, const std::string& path) {
  const std::vector<std::string> records = zip.records();
  const auto has_prefix = [&](const char* prefix) {
    return std::any_of(records.begin(), records.end(), [&](const std::string& r) { return r.rfind(prefix, 0) == 0; });
  };
  if (has_prefix("models/") && !zip.has("data.pkl"))
    throw Error(detail::concat(path, ": a torch.export program (models/) without its archive_format record"));
  if (zip.has("data.pkl") && !has_prefix("code/") && !zip.has("constants.pkl") && !zip.has("bytecode.pkl"))
    throw UnsupportedError(detail::concat(path, ": a torch.save file (a pickled state_dict, tensor or nn.Module), not "
                                                "TorchScript: save the model with "
                                                "torch.jit.save(torch.jit.script(model), path)"));
}

int64_t read_version(const ZipReader& zip) {
  const std::string record = zip.has(".data/version") ? ".data/version" : "version";
  if (!zip.has(record))
    throw Error(detail::concat(zip.display_name(), ": no 'version' record (not a TorchScript archive?)"));
  std::vector<uint8_t> bytes = zip.read(record);
  std::string text(bytes.begin(), bytes.end());
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
  if (text.empty() || text.size() > 6 || text.find_first_not_of("0123456789") != std::string::npos)
    throw Error(detail::concat(zip.display_name(), ": record '", record, "' is not a version number"));
  const int64_t version = std::stoll(text);
  if (version < kMinFileFormatVersion || version > kMaxFileFormatVersion)
    throw Error(detail::concat(zip.display_name(), ": archive format version ", version, " is not supported (tvk reads ",
                               kMinFileFormatVersion, " to ", kMaxFileFormatVersion, ")"));
  return version;
}

// Moves every tensor reachable from `v` (objects, lists, tuples, dicts) to `device`, once each.
void move_tensors(IValue& v, Device device, std::map<const Object*, bool>& seen) {
  RunScope::visit("moving a nested value's tensors");
  if (v.isTensor()) {
    if (v.toTensor().defined() && !ops::scalar_stays_on_cpu(v.toTensor())) v = IValue(v.toTensor().to(device));
  } else if (v.isList() || v.isTuple()) {
    for (IValue& e : *v.toListRef()) move_tensors(e, device, seen);
  } else if (v.isDict()) {
    for (auto& [k, e] : v.toDict()->items) move_tensors(e, device, seen);
  } else if (v.isObject()) {
    Object* obj = v.toObject().get();
    if (seen[obj]) return;
    seen[obj] = true;
    for (auto& [name, e] : obj->attributes) move_tensors(e, device, seen);
  }
}

// A TorchScript source record: code/....py (not its .py.debug_pkl).
bool is_code_source(const std::string& record) {
  return record.rfind("code/", 0) == 0 && record.size() >= 3 && record.compare(record.size() - 3, 3, ".py") == 0;
}

}  // namespace

ArchiveSummary summarize_archive(const ZipReader& zip, const ModuleState& module) {
  ArchiveSummary out;
  out.format_version = read_version(zip);
  const std::string& prefix = zip.prefix();
  // Since PyTorch 1.6 torch.jit.save writes version 4+ for code calling div, 5+ for full.
  bool div = false, full = false;
  for (const std::string& record : zip.records()) {
    const std::string name = record.rfind(prefix, 0) == 0 ? record.substr(prefix.size()) : record;
    if (name.rfind("code/", 0) == 0) out.has_code = true;
    if (name == "bytecode.pkl") out.lite = true;
    if (name.rfind("extra/", 0) == 0) out.extra_files.push_back(name);
    if (!is_code_source(name)) continue;
    const std::vector<uint8_t> bytes = zip.read(name);
    const std::string_view code(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    div = div || code.find("torch.div(") != std::string_view::npos || code.find("torch.div_(") != std::string_view::npos;
    full = full || code.find("torch.full(") != std::string_view::npos;
  }
  if (div && out.format_version <= 3) out.old_meanings.push_back("torch.div of integer tensors rounds toward zero");
  if (full && out.format_version <= 4) out.old_meanings.push_back("torch.full with an integer fill makes floats");
  // The module graph (data.pkl) and the code's constants (constants.pkl: a frozen file's
  // prepacked contexts live there).
  std::set<const void*> seen{module.root.get()};
  for (const auto& [name, attr] : module.root->attributes) count_parts(attr, out, seen);
  if (module.unit)
    for (const IValue& c : module.unit->constants) count_parts(c, out, seen);
  return out;
}

const std::map<std::string, std::string>& ModuleState::extras() const {
  std::lock_guard<std::mutex> lock(extras_mutex);
  for (auto& [name, stored] : stored_extra_files) {
    const std::vector<uint8_t> bytes = ZipReader::inflate(stored);
    extra_files.emplace(name, std::string(bytes.begin(), bytes.end()));  // a name set since is kept
  }
  stored_extra_files.clear();
  return extra_files;
}

std::shared_ptr<ModuleState> new_module_state(const std::string& path, Device device, const Limits& limits,
                                              std::shared_ptr<MemoryBudget> memory) {
  auto state = std::make_shared<ModuleState>();
  state->path = path;
  state->device = device;
  state->limits = limits;
  state->memory = std::move(memory);
  state->unit = std::make_shared<CompilationUnit>();
  return state;
}

std::shared_ptr<ModuleState> import_archive(const std::string& path, Device device, const Limits& limits) {
  return import_archive(ZipReader::open(path), path, device, limits);
}

namespace {
std::shared_ptr<ModuleState> import_in_run(const ZipReader& zip, const std::string& path, Device device,
                                           const Limits& limits, std::shared_ptr<MemoryBudget> memory);
}  // namespace

// Loading runs model code (__setstate__): under the limits, on a stack of known size.
std::shared_ptr<ModuleState> import_archive(const ZipReader& zip, const std::string& path, Device device,
                                            const Limits& limits) {
  auto memory = make_memory_budget(limits);
  return with_run_stack([&] {
    RunScope run(limits, memory, "loading " + path);
    return import_in_run(zip, path, device, limits, memory);
  });
}

namespace {
std::shared_ptr<ModuleState> import_in_run(const ZipReader& zip, const std::string& path, Device device,
                                           const Limits& limits, std::shared_ptr<MemoryBudget> memory) {
  if (is_exported_program(zip)) return import_exported_program(zip, path, device, limits, std::move(memory));
  refuse_other_formats(zip, path);
  const int64_t format_version = read_version(zip);
  if (!zip.has("data.pkl") && zip.has("model.json"))
    throw UnsupportedError(detail::concat(
        path, ": a PyTorch 1.0-1.2 archive (model.json and attributes.pkl, no data.pkl), a format tvk does not read; "
              "loading it with torch 1.x and saving it again with torch.jit.save writes one it does"));
  if (!zip.has("data.pkl"))
    throw Error(detail::concat(path, ": no 'data.pkl' record (not a TorchScript module archive)"));

  auto state = new_module_state(path, device, limits, std::move(memory));
  CompilationUnit& unit = *state->unit;
  unit.format_version = format_version;

  bool has_code = false;
  for (const std::string& record : zip.records()) {  // names relative to the top folder
    const bool extra = record.rfind("extra/", 0) == 0 && record.size() > 6;
    if (!extra && !is_code_source(record)) continue;
    if (extra) {
      state->stored_extra_files.emplace(record.substr(6), zip.stored(record));
      continue;
    }
    const std::vector<uint8_t> bytes = zip.read(record);
    std::string text(bytes.begin(), bytes.end());
    unit.add_source(parse_source(text, path + "/" + record), qualifier_of_code_record(record));
    state->code_files[qualifier_of_code_record(record)] = std::move(text);  // for Module::code
    has_code = true;
  }
  // A lite-interpreter file without source runs its bytecode (runtime/bytecode.h).
  const bool bytecode_only = !has_code && zip.has("bytecode.pkl");

  if (zip.has("constants.pkl")) {
    StorageLoader constants_storage(zip, "constants");
    UnpicklerHooks hooks;
    hooks.load_storage = std::ref(constants_storage);
    // Custom-class objects among the constants (XNNPACK contexts that PyTorch's CPU
    // optimize_for_mobile folds in) are rebuilt by their class; plain states stay attributes.
    hooks.set_state = [&](const std::shared_ptr<Object>& obj, IValue state_value) {
      if (const ops::CustomClass* custom = ops::find_custom_class(obj->type_name)) {
        custom->set_state(*obj, state_value);
        return;
      }
      if (!state_value.isDict())
        throw Error(detail::concat("constant of class ", obj->type_name, " has a ", state_value.tag_name(),
                                   " state, not a dict"));
      for (auto& [k, v] : state_value.toDict()->items) {
        if (!k.isString()) throw Error(detail::concat("state of ", obj->type_name, " has a non-string key"));
        obj->set(k.toStringRef(), v);
      }
    };
    IValue constants = Unpickler::unpickle(zip.read("constants.pkl"), path + ": record 'constants.pkl'", hooks);
    if (!constants.isTuple()) throw Error(path + ": record 'constants.pkl' is not a tuple");
    unit.constants = constants.toTuple();
  }

  if (bytecode_only) {
    // Bytecode 5 and later keep its tensors in constants/, beside constants.pkl's; earlier
    // versions in bytecode/.
    StorageLoader in_constants(zip, "constants"), in_bytecode(zip, "bytecode");
    UnpicklerHooks hooks;
    hooks.load_storage = [&](const std::string& key, const std::string& type, int64_t numel, const std::string& loc) {
      return zip.has("constants/" + key) ? in_constants(key, type, numel, loc) : in_bytecode(key, type, numel, loc);
    };
    hooks.set_state = [&](const std::shared_ptr<Object>& obj, IValue state_value) {
      const ops::CustomClass* custom = ops::find_custom_class(obj->type_name);
      if (custom == nullptr)
        throw Error(detail::concat("bytecode constant of class ", obj->type_name, " is not a class tvk knows"));
      custom->set_state(*obj, state_value);
    };
    state->bytecode = BytecodeUnit::load(zip, path, std::move(hooks));
  }

  state->interpreter = std::make_unique<Interpreter>(unit, device);
  Interpreter& interpreter = *state->interpreter;
  StorageLoader data_storage(zip, "data");
  UnpicklerHooks hooks;
  hooks.load_storage = std::ref(data_storage);
  hooks.make_object = [&](const std::string& type) {
    if (type.rfind("__torch__.torch.classes.", 0) == 0) {
      if (!ops::find_custom_class(type))
        throw Error(detail::concat("custom class ", type, " is not available in this tvk build",
                                   TVK_USE_VULKAN ? "" : " (Vulkan classes need TVK_USE_VULKAN=ON)"));
    } else if (!unit.find_class(type) && !bytecode_only) {
      throw Error(detail::concat("class ", type, " has no code in the archive"));
    }
    auto obj = std::make_shared<Object>();
    obj->type_name = type;
    return obj;
  };
  hooks.set_state = [&](const std::shared_ptr<Object>& obj, IValue state_value) {
    if (const ops::CustomClass* custom = ops::find_custom_class(obj->type_name)) {
      custom->set_state(*obj, state_value);
      return;
    }
    if (state->bytecode) {
      if (const BytecodeFunction* setstate = state->bytecode->find(obj->type_name + ".__setstate__")) {
        state->bytecode->run(*setstate, {IValue(obj), std::move(state_value)});
        return;
      }
    }
    const ClassInfo* cls = unit.find_class(obj->type_name);
    if (cls && cls->method("__setstate__")) {
      Stack args;
      args.push_back(std::move(state_value));
      interpreter.call_method(obj, "__setstate__", std::move(args));
      return;
    }
    if (!state_value.isDict())
      throw Error(detail::concat("state of ", obj->type_name, " is a ", state_value.tag_name(), ", not a dict"));
    for (auto& [k, v] : state_value.toDict()->items) {
      if (!k.isString()) throw Error(detail::concat("state of ", obj->type_name, " has a non-string key"));
      obj->set(k.toStringRef(), v);
    }
  };
  IValue root = Unpickler::unpickle(zip.read("data.pkl"), path + ": record 'data.pkl'", hooks);
  if (!root.isObject()) throw Error(detail::concat(path, ": data.pkl holds a ", root.tag_name(), ", not a module"));

  // A Vulkan-optimized file computes on the GPU whatever device it was loaded for: its code
  // constants join the packed weights there.
  const IValue* optimized = root.toObject()->find("optimized_for_vulkan");
  if (optimized && optimized->isBool() && optimized->toBool() && device == Device::CPU) {
    require_device_backend(Device::Vulkan);
    std::map<const Object*, bool> seen;
    for (IValue& c : unit.constants) move_tensors(c, Device::Vulkan, seen);
  }
  if (device != Device::CPU) {
    std::map<const Object*, bool> seen;
    move_tensors(root, device, seen);
    for (IValue& c : unit.constants) move_tensors(c, device, seen);
    if (state->bytecode)
      for (IValue* c : state->bytecode->constants()) move_tensors(*c, device, seen);
  }
  state->root = root.toObject();
  return state;
}
}  // namespace

}  // namespace tvk::jit
