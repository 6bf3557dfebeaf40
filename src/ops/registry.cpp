#include "ops/registry.h"
#include "ops/shape_utils.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <set>

#include "core/run_scope.h"
#include "core/storage.h"

namespace tvk {
namespace {
std::atomic<int> g_cpu_fallback{-1};  // -1: not yet read from TVK_CPU_FALLBACK
}  // namespace

void set_cpu_fallback(bool enabled) { g_cpu_fallback = enabled ? 1 : 0; }

bool cpu_fallback_enabled() {
  int state = g_cpu_fallback.load();
  if (state < 0) {
    const char* env = std::getenv("TVK_CPU_FALLBACK");
    const int from_env = env && *env && std::strcmp(env, "0") != 0 ? 1 : 0;
    g_cpu_fallback.compare_exchange_strong(state, from_env);
    state = g_cpu_fallback.load();
  }
  return state == 1;
}

}  // namespace tvk

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
  entry.mutates_self = !entry.schema.arguments.empty() && entry.schema.arguments[0].type.find("(a!)") != std::string::npos;
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
  // With the CPU fallback on, such calls run on the CPU (call()); off, the error says so.
  if (found && *found != d)
    throw UnsupportedError(detail::concat(op.schema.full_name(), ": expected all tensors on one device, but found ",
                                          to_string(*found), " and ", to_string(d), " tensors",
                                          op.cpu ? " (the CPU fallback, --cpu-fallback or TVK_CPU_FALLBACK=1, runs "
                                                   "such calls on the CPU)" : ""));
  found = d;
}
}  // namespace

namespace {
// A 0-D CPU tensor beside tensors of another device (a traced model's scale from size
// arithmetic, say) goes with them, as PyTorch lets it: it does not choose the device.
bool is_cpu_scalar(const IValue& v) {
  return v.isTensor() && v.toTensor().defined() && v.toTensor().dim() == 0 && v.toTensor().device() == Device::CPU;
}
// A CPU bool tensor beside tensors of another device goes with them: a mask the model built
// from sizes (torch.arange(n) comparisons) meeting one computed from its input.
bool is_cpu_mask(const IValue& v) {
  return v.isTensor() && v.toTensor().defined() && v.toTensor().device() == Device::CPU &&
         v.toTensor().dtype() == DType::Bool;
}

// Argument i is a CPU scalar or mask that follows the other tensors' device (not the self an
// in-place op writes).
bool follows_other_device(const OpEntry& op, size_t i, const IValue& v) {
  return is_cpu_scalar(v) || (is_cpu_mask(v) && !(i == 0 && op.mutates_self));
}

// Index tensors on the CPU (int64, or bool masks in a list of indices), which kernels read on
// the host: alone (index_select's `index`) or as a Tensor?[] list (index's `indices`).
bool is_cpu_indices(const OpEntry& op, size_t i, const IValue& v) {
  if (i >= op.schema.arguments.size()) return false;
  const std::string& name = op.schema.arguments[i].name;
  if (name != "indices" && name != "index") return false;
  auto host_index = [](const IValue& e, bool bool_too) {
    if (!e.isTensor() || !e.toTensor().defined()) return e.isNone() || (e.isTensor() && !e.toTensor().defined());
    const Tensor& t = e.toTensor();
    return t.device() == Device::CPU && (t.dtype() == DType::Int64 || (bool_too && t.dtype() == DType::Bool));
  };
  if (v.isTensor()) return v.toTensor().defined() && host_index(v, false);
  if (!v.isList() || v.toList().empty()) return false;
  bool any_tensor = false;
  for (const IValue& e : v.toList()) {
    if (!host_index(e, true)) return false;
    any_tensor = any_tensor || (e.isTensor() && e.toTensor().defined());
  }
  return any_tensor;
}
}  // namespace

Device dispatch_device(const OpEntry& op, const Stack& args) {
  std::optional<Device> found;
  bool cpu_scalars = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const IValue& v = args[i];
    // Indices that kernels read on the host (embedding's token ids, index_select's rows) may
    // stay on the CPU beside the data: a model's torch.arange position ids, say.
    if (is_cpu_indices(op, i, v)) {
      cpu_scalars = true;
      continue;
    }
    if (follows_other_device(op, i, v)) cpu_scalars = true;
    else if (v.isTensor()) note_device(v.toTensor(), found, op);
    else if (v.isList())
      for (const IValue& e : v.toList())
        if (e.isTensor()) note_device(e.toTensor(), found, op);
  }
  if (found) return *found;
  if (cpu_scalars) return Device::CPU;
  for (const IValue& v : args)
    if (v.isDevice()) return v.toDevice();
  return Device::CPU;
}

int cpu_float_factory_device_arg(const OpEntry& op, const std::function<const IValue*(size_t)>& arg) {
  const int device_arg = op.schema.index_of("device"), dtype_arg = op.schema.index_of("dtype");
  if (device_arg < 0 || dtype_arg < 0) return -1;
  const IValue* d = arg(static_cast<size_t>(device_arg));
  const IValue* t = arg(static_cast<size_t>(dtype_arg));
  // dtype None is float32 for the factories whose dtype does not follow an argument (a traced
  // torch.zeros(b, 10) without dtype); full, arange and the _like ops infer theirs.
  static const std::set<std::string> kDefaultFloat = {"aten::zeros", "aten::ones", "aten::empty", "aten::empty_strided",
                                                      "aten::rand", "aten::randn"};
  const bool float_dtype = t && ((t->isInt() && t->toInt() == 6) ||  // PyTorch's ScalarType code of float32
                                 (t->isNone() && kDefaultFloat.count(op.schema.name)));
  // device None is the CPU for a factory proper (no tensor argument whose device it would follow:
  // a scripted torch.zeros(b, 10)).
  auto takes_tensor = [&op] {
    for (const Argument& a : op.schema.arguments)
      if (a.type.rfind("Tensor", 0) == 0) return true;
    return false;
  };
  const bool on_cpu = d && ((d->isDevice() && d->toDevice() == Device::CPU) || (d->isNone() && !takes_tensor()));
  return float_dtype && on_cpu ? device_arg : -1;
}

bool scalar_stays_on_cpu(const Tensor& t) {
  return t.defined() && t.dim() == 0 && (t.dtype() == DType::Int64 || t.dtype() == DType::Bool);
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

namespace {

// Moves the tensors in `v` (also inside lists and tuples) to `device`; with `floats_only`, only
// float32 ones (Vulkan kernels compute on float32; indices and masks stay on the CPU).
IValue move_tensors(const IValue& v, Device device, bool floats_only = false) {
  if (v.isTensor()) {
    const Tensor& t = v.toTensor();
    if (!t.defined() || (floats_only && t.dtype() != DType::Float32)) return v;
    return IValue(t.to(device));
  }
  if (v.isList() || v.isTuple()) {
    RunScope::visit("moving a nested value's tensors");
    List items;
    items.reserve(v.toList().size());
    for (const IValue& e : v.toList()) items.push_back(move_tensors(e, device, floats_only));
    return v.isTuple() ? IValue::tuple(std::move(items)) : IValue::list(std::move(items));
  }
  return v;
}

bool has_device(const IValue& v, Device d) {
  if (v.isTensor()) return v.toTensor().defined() && v.toTensor().device() == d;
  if (v.isList() || v.isTuple())
    for (const IValue& e : v.toList())
      if (has_device(e, d)) return true;
  return false;
}

// The CPU fallback: Vulkan tensors in the arguments go to the CPU and the CPU kernel runs; float
// results go back to Vulkan, others (indices, masks) stay on the CPU, where the ops that use
// them run (a call mixing CPU and Vulkan tensors runs on the CPU while the fallback is on). An
// in-place op on a Vulkan self writes its CPU result back into self's buffer.
IValue call_on_cpu(const OpEntry& op, Stack args) {
  const Tensor self = op.mutates_self && !args.empty() && args[0].isTensor() ? args[0].toTensor() : Tensor();
  const bool vulkan_self = self.defined() && self.device() == Device::Vulkan;
  for (const Argument& a : op.schema.arguments)
    if (a.type.find('!') != std::string::npos && (&a != &op.schema.arguments.front() || !op.mutates_self))
      throw UnsupportedError(detail::concat(op.schema.full_name(), " is not supported on the Vulkan backend, and the CPU",
                                            " fallback runs in-place ops only when they write their first argument"));
  if (vulkan_self && (!self.is_contiguous() || self.storage_offset() != 0))
    throw UnsupportedError(detail::concat(op.schema.full_name(), " is not supported on the Vulkan backend, and the CPU",
                                          " fallback cannot write its result into a strided Vulkan view"));
  for (IValue& v : args) v = move_tensors(v, Device::CPU);
  IValue result = op.cpu(args);
  if (!vulkan_self) return move_tensors(result, Device::Vulkan, /*floats_only=*/true);
  const Tensor written = args[0].toTensor().contiguous();
  TVK_CHECK(written.sizes() == self.sizes() && written.dtype() == self.dtype(), op.schema.full_name(),
            ": the CPU fallback's in-place result changed the tensor's shape or dtype");
  require_device_backend(Device::Vulkan).upload(self.storage(), written.raw_data(), written.nbytes());
  return IValue(self);
}
// After an in-place op on `self`: when self's storage is a copy made by a view op (Vulkan's,
// core/storage.h ViewSource), the copy goes back to where it came from, as a PyTorch view
// would have been written in place (x[a:b] = v: a slice, then copy_ into it).
void write_back_view(const OpEntry& op, const Tensor& self, const IValue& result) {
  if (!self.defined()) return;
  Storage& storage = *self.storage();
  const ViewSource* source = storage.view_source();
  if (source == nullptr) return;
  const std::shared_ptr<Storage> root = source->root.lock();
  if (!root) return;  // nothing can read the tensor the view was taken from
  if (!result.isTensor() || !result.toTensor().defined() || result.toTensor().storage() != self.storage() ||
      result.toTensor().sizes() != self.sizes()) {
    // transpose_ rearranges the copy in place, where PyTorch changes only the view's strides:
    // the copy no longer matches the view it came from.
    storage.forbid_writes_through_view();
    return;
  }
  TVK_CHECK(source->writable, op.schema.full_name(), ": writing through this view on ",
            to_string(self.device()), " is not supported (a view of a reshaped view that strides cannot express)");
  const Tensor root_view(root, source->sizes, source->strides, source->offset, source->dtype);
  const Tensor copy(self.storage(), source->sizes, contiguous_strides(source->sizes), 0, self.dtype());
  call(require_op("aten::copy_"), Stack{IValue(root_view), IValue(copy), IValue(false)});
}

// call_on_cpu, then for an in-place op the write-back to the tensor a Vulkan view came from.
std::atomic<uint64_t> g_fallback_runs{0};

IValue fall_back(const OpEntry& op, Stack args) {
  ++g_fallback_runs;
  const Tensor self = op.mutates_self && !args.empty() && args[0].isTensor() ? args[0].toTensor() : Tensor();
  IValue result = call_on_cpu(op, std::move(args));
  if (op.mutates_self) write_back_view(op, self, result);
  return result;
}

// Arguments a kernel reads on the host (index_select's rows, index's list of index tensors):
// they stay on the CPU beside Vulkan data.
bool host_read_argument(const OpEntry& op, size_t i) {
  if (i >= op.schema.arguments.size()) return false;
  const std::string& name = op.schema.arguments[i].name;
  return name == "indices" || name == "index";
}

// Inside a model's run, CPU tensors the model made (torch.arange(n).float(), a torch.tensor
// constant, a count read on the host) join the Vulkan tensors they meet in an op that has a
// Vulkan kernel, as if the model had been moved to the device whole: PyTorch's eager CUDA would
// refuse the mix, but the model was written for one device and tvk moved only its inputs.
// Integer and bool operands of arithmetic (`self`, `other`) meeting float32 ones become float32
// first, as type promotion makes them. Outside a run (the C++ API's own calls) a mix stays an
// error naming both devices; a CPU self that an in-place op writes never moves.
void cpu_tensors_join_vulkan(const OpEntry& op, Stack& args) {
  if (!op.vulkan || RunScope::current() == nullptr) return;
  bool vulkan = false, cpu = false, float_operand = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (host_read_argument(op, i)) continue;
    vulkan = vulkan || has_device(args[i], Device::Vulkan);
    cpu = cpu || (has_device(args[i], Device::CPU) && !(i == 0 && op.mutates_self));
    if (args[i].isTensor() && args[i].toTensor().defined())
      float_operand = float_operand || args[i].toTensor().dtype() == DType::Float32;
  }
  if (!vulkan || !cpu) return;
  auto join = [&](const Tensor& t, bool promote) {
    if (!t.defined() || t.device() != Device::CPU) return t;
    return (promote ? to_dtype(t, DType::Float32) : t).to(Device::Vulkan);
  };
  for (size_t i = 0; i < args.size(); ++i) {
    if ((i == 0 && op.mutates_self) || host_read_argument(op, i)) continue;
    const std::string name = i < op.schema.arguments.size() ? op.schema.arguments[i].name : "";
    const bool promote = float_operand && (name == "self" || name == "other");
    if (args[i].isTensor()) {
      args[i] = IValue(join(args[i].toTensor(), promote));
    } else if (args[i].isList() && has_device(args[i], Device::CPU)) {
      List items;
      for (const IValue& e : args[i].toList()) items.push_back(e.isTensor() ? IValue(join(e.toTensor(), false)) : e);
      args[i] = IValue::list(std::move(items));
    }
  }
}

}  // namespace

IValue call(const OpEntry& op, Stack args) {
  OpScope scope(op);
  cpu_tensors_join_vulkan(op, args);
  if (op.cpu && cpu_fallback_enabled()) {
    bool cpu = false, vulkan = false;
    for (const IValue& v : args) {
      cpu = cpu || has_device(v, Device::CPU);
      vulkan = vulkan || has_device(v, Device::Vulkan);
    }
    if (cpu && vulkan) return fall_back(op, std::move(args));
  }
  const Device device = dispatch_device(op, args);
  const BoxedKernel& kernel = device == Device::Vulkan ? op.vulkan : op.cpu;
  if (!kernel && device == Device::Vulkan && op.cpu && cpu_fallback_enabled()) return fall_back(op, std::move(args));
  if (!kernel) {
    throw UnsupportedError(detail::concat(op.schema.full_name(), " is not supported on the ", 
                                          device == Device::Vulkan ? "Vulkan" : "CPU",
                                          " backend (`tvk ops` lists what each backend supports",
                                          device == Device::Vulkan && op.cpu ? "; it has a CPU kernel: --cpu-fallback, "
                                                                               "TVK_CPU_FALLBACK=1 or set_cpu_fallback(true) "
                                                                               "runs it there)" : ")"));
  }
  if (device != Device::CPU) {
    // A 0-D integer tensor beside float32 ones is promoted to float32, as PyTorch's type
    // promotion does (a traced model's x / head_dim, the size recorded as a tensor).
    bool float_operand = false;
    for (const IValue& v : args)
      float_operand = float_operand || (v.isTensor() && v.toTensor().defined() && v.toTensor().dim() > 0 &&
                                        v.toTensor().dtype() == DType::Float32);
    for (size_t i = 0; i < args.size(); ++i) {
      if (is_cpu_scalar(args[i]) && args[i].toTensor().dtype() != DType::Float32 && float_operand &&
          !(i == 0 && op.mutates_self) && !is_cpu_indices(op, i, args[i]))
        args[i] = IValue(to_dtype(args[i].toTensor(), DType::Float32));
      if (is_cpu_indices(op, i, args[i])) continue;  // read on the host
      if (follows_other_device(op, i, args[i])) args[i] = IValue(args[i].toTensor().to(device));
    }
  }
  // A Vulkan kernel may lack a case (a dtype it does not convert, an int64 self of an in-place
  // op): it says so before it records any work, and the fallback runs the call on the CPU
  // instead (writing an in-place op's result back into self).
  const Tensor self = op.mutates_self && !args.empty() && args[0].isTensor() ? args[0].toTensor() : Tensor();
  IValue result;
  try {
    result = kernel(args);
  } catch (const UnsupportedError&) {
    if (device != Device::Vulkan || !op.cpu || !cpu_fallback_enabled()) throw;
    return fall_back(op, std::move(args));
  }
  if (op.mutates_self) write_back_view(op, self, result);
  return result;
}

uint64_t cpu_fallback_runs() { return g_fallback_runs.load(); }

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
