#include "ops/registry.h"

namespace tvk::ops {

Registry& Registry::global() {
  static Registry registry;
  return registry;
}

OpEntry& Registry::define(const std::string& schema_text, BoxedKernel cpu) {
  Schema schema = parse_schema(schema_text);
  const std::string key = schema.full_name();
  if (ops_.count(key)) throw Error(detail::concat("op ", key, " is registered twice"));
  OpEntry& entry = ops_[key];
  entry.schema = std::move(schema);
  entry.cpu = std::move(cpu);
  auto pending = pending_.find(key);
  if (pending != pending_.end()) {
    for (auto& [device, kernel] : pending->second) {
      if (device == Device::Vulkan) entry.vulkan = std::move(kernel);
    }
    pending_.erase(pending);
  }
  return entry;
}

void Registry::set_kernel(const std::string& full_name, Device device, BoxedKernel kernel) {
  auto it = ops_.find(full_name);
  if (it == ops_.end()) {
    pending_[full_name].emplace_back(device, std::move(kernel));
    return;
  }
  if (device == Device::Vulkan) it->second.vulkan = std::move(kernel);
  else it->second.cpu = std::move(kernel);
}

const OpEntry* Registry::find(const std::string& full_name) const {
  auto it = ops_.find(full_name);
  return it == ops_.end() ? nullptr : &it->second;
}

std::vector<const OpEntry*> Registry::overloads(const std::string& name) const {
  std::vector<const OpEntry*> out;
  for (auto it = ops_.lower_bound(name); it != ops_.end(); ++it) {
    const std::string& key = it->first;
    if (key.compare(0, name.size(), name) != 0) break;
    if (key.size() == name.size() || key[name.size()] == '.') out.push_back(&it->second);
  }
  return out;
}

std::vector<const OpEntry*> Registry::all() const {
  std::vector<const OpEntry*> out;
  for (auto& [_, e] : ops_) out.push_back(&e);
  return out;
}

namespace {
void note_device(const Tensor& t, std::optional<Device>& found, const OpEntry& op) {
  if (!t.defined()) return;
  const Device d = t.device();
  if (found && *found != d)
    throw Error(detail::concat(op.schema.full_name(), ": expected all tensors on one device, but found ",
                               to_string(*found), " and ", to_string(d), " tensors"));
  found = d;
}
}  // namespace

Device dispatch_device(const OpEntry& op, const Stack& args) {
  std::optional<Device> found;
  for (const IValue& v : args) {
    if (v.isTensor()) note_device(v.toTensor(), found, op);
    else if (v.isList())
      for (const IValue& e : v.toList())
        if (e.isTensor()) note_device(e.toTensor(), found, op);
  }
  if (found) return *found;
  for (const IValue& v : args)
    if (v.isDevice()) return v.toDevice();
  return Device::CPU;
}

namespace {
thread_local const OpEntry* t_current_op = nullptr;

// Names the outermost op on this thread while it runs, so GPU profiles attribute the dispatches
// of composite ops (run_linear_context -> aten::linear) to the op the model called.
class OpScope {
 public:
  explicit OpScope(const OpEntry& op) : outer_(t_current_op == nullptr) {
    if (outer_) t_current_op = &op;
  }
  ~OpScope() {
    if (outer_) t_current_op = nullptr;
  }
  OpScope(const OpScope&) = delete;
  OpScope& operator=(const OpScope&) = delete;

 private:
  bool outer_;
};
}  // namespace

const OpEntry* current_op() { return t_current_op; }

IValue call(const OpEntry& op, Stack args) {
  OpScope scope(op);
  const Device device = dispatch_device(op, args);
  const BoxedKernel& kernel = device == Device::Vulkan ? op.vulkan : op.cpu;
  if (!kernel) {
    throw UnsupportedError(detail::concat(op.schema.full_name(), " is not supported on the ", 
                                          device == Device::Vulkan ? "Vulkan" : "CPU",
                                          " backend (`tvk ops` lists what each backend supports)"));
  }
  return kernel(args);
}

const OpEntry& require_op(const std::string& full_name) {
  const OpEntry* op = Registry::global().find(full_name);
  if (op == nullptr) throw UnsupportedError(detail::concat("unknown op ", full_name));
  return *op;
}

IValue call(const std::string& full_name, Stack args) {
  const OpEntry& op = require_op(full_name);
  const auto& params = op.schema.arguments;
  if (args.size() > params.size())
    throw Error(detail::concat(full_name, " takes ", params.size(), " arguments, got ", args.size()));
  for (size_t i = args.size(); i < params.size(); ++i) {
    if (!params[i].default_value)
      throw Error(detail::concat(full_name, ": missing argument '", params[i].name, "'"));
    args.push_back(*params[i].default_value);
  }
  return call(op, std::move(args));
}

}  // namespace tvk::ops
