// tvk::jit::Module: the public face of an imported model.
#include "tvk/module.h"

#include "core/run_scope.h"
#include "core/storage.h"
#include "jit/ir/freeze.h"
#include "jit/runtime/bytecode.h"
#include "jit/passes/passes.h"
#include "jit/runtime/graph_executor.h"
#include "jit/serialization/export.h"
#include "jit/serialization/import.h"
#include "jit/serialization/exported_program.h"

namespace tvk::jit {

namespace {
bool has_cpu_tensor(const std::vector<IValue>& inputs) {
  for (const IValue& v : inputs) {
    if (v.isTensor() && v.toTensor().defined() && v.toTensor().device() == Device::CPU) return true;
    if ((v.isList() || v.isTuple()) && has_cpu_tensor(v.toList())) return true;
  }
  return false;
}

void collect(const std::shared_ptr<Object>& obj, const CompilationUnit& unit, const std::string& prefix, bool recurse,
             bool parameters, std::vector<std::pair<std::string, Tensor>>& out) {
  const ClassInfo* cls = unit.find_class(obj->type_name);
  if (cls == nullptr) return;
  for (const std::string& name : parameters ? cls->parameters : cls->buffers) {
    IValue* v = obj->find(name);
    if (v && v->isTensor() && v->toTensor().defined()) out.emplace_back(prefix + name, v->toTensor());
  }
  if (!recurse) return;
  for (auto& [name, v] : obj->attributes) {
    if (!v.isObject()) continue;
    const ClassInfo* sub = unit.find_class(v.toObject()->type_name);
    if (sub && sub->is_module) collect(v.toObject(), unit, prefix + name + ".", true, parameters, out);
  }
}
}  // namespace

Module::Module(std::shared_ptr<ModuleState> state) : state_(std::move(state)) {}

Module load(const std::string& path, Device device) { return load(path, LoadOptions{device, std::nullopt, {}}); }

Module load(const std::string& path, const LoadOptions& options) {
  if (options.device == Device::Vulkan) require_device_backend(Device::Vulkan);
  Module m(import_archive(path, options.device, options.limits));
  if (options.tuning) m.set_tuning(*options.tuning);
  return m;
}

void Module::set_limits(const Limits& limits) {
  state_->limits = limits;
  state_->memory = make_memory_budget(limits);
}
const Limits& Module::limits() const { return state_->limits; }

IValue Module::forward(std::vector<IValue> inputs) { return run_method("forward", std::move(inputs)); }

namespace {
// A Vulkan-optimized model without automatic transfers takes Vulkan tensors only.
void check_inputs_for_vulkan_model(const ModuleState& state, const std::vector<IValue>& inputs) {
  const IValue* optimized = state.root->find("optimized_for_vulkan");
  if (!optimized || !optimized->isBool() || !optimized->toBool() || state.root->find("requires_backend_transfers")) return;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].isTensor() && inputs[i].toTensor().defined() && inputs[i].toTensor().device() != Device::Vulkan)
      throw Error(detail::concat("input ", i, " is a ", to_string(inputs[i].toTensor().device()),
                                 " tensor, but this Vulkan-optimized model has no automatic transfers (written with "
                                 "VULKAN_AUTOMATIC_GPU_TRANSFER blocklisted, or by PyTorch 1.x): pass Vulkan tensors "
                                 "(.vulkan()) or load it with Device::Vulkan"));
}
}  // namespace

namespace {
bool in_eval_mode(const ModuleState& state) {
  const IValue* training = state.root->find("training");
  return training && training->isBool() && !training->toBool();
}

// The inputs a frozen graph of `method` takes: those of parameters that default to None are
// frozen as None (freeze_method) and left out.
const FunctionDef* method_def(const ModuleState& state, const std::string& method) {
  const ClassInfo* cls = state.unit ? state.unit->find_class(state.root->type_name) : nullptr;
  return cls ? cls->method(method) : nullptr;
}

// Whether input i of `fn` (after self) is one the frozen graph does not take.
bool frozen_as_none_at(const FunctionDef* fn, size_t i) {
  return fn && i + 1 < fn->params.size() && frozen_as_none(fn->params[i + 1]);
}

std::vector<IValue> graph_inputs(const ModuleState& state, const std::string& method, std::vector<IValue> inputs) {
  const FunctionDef* fn = method_def(state, method);
  std::vector<IValue> kept;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!(frozen_as_none_at(fn, i) && inputs[i].isNone())) kept.push_back(std::move(inputs[i]));
  return kept;
}

// The method as a graph, frozen on first use for its inputs' dtypes (code may ask them: a bool
// padding mask, int64 token ids); nullptr when it must stay interpreted.
std::shared_ptr<GraphExecutor> graph_of(ModuleState& state, const std::string& method,
                                        const std::vector<IValue>& inputs) {
  if (!planned_execution_enabled()) return nullptr;
  std::vector<std::optional<DType>> dtypes;
  std::string key = method;  // "forward", or "forward#1:bool" for a bool second input
  for (size_t i = 0; i < inputs.size(); ++i) {
    const bool tensor = inputs[i].isTensor() && inputs[i].toTensor().defined();
    dtypes.push_back(tensor ? std::optional<DType>(inputs[i].toTensor().dtype()) : std::nullopt);
    if (tensor && inputs[i].toTensor().dtype() != DType::Float32)
      key += detail::concat("#", i, ":", to_string(inputs[i].toTensor().dtype()));
  }
  // Arguments that default to None are frozen as None (freeze_method): a call that gives one
  // runs interpreted.
  const FunctionDef* fn = method_def(state, method);
  for (size_t i = 0; i < inputs.size(); ++i)
    if (frozen_as_none_at(fn, i) && !inputs[i].isNone()) return nullptr;
  std::lock_guard<std::mutex> lock(state.graphs_mutex);
  auto found = state.graphs.find(key);
  if (found != state.graphs.end()) return found->second;
  if (state.graph_failures.count(key)) return nullptr;
  if (!in_eval_mode(state)) {
    state.graph_failures[key] = "the module is in training mode";
    return nullptr;
  }
  // A second interpreter, so freezing never records calls other threads make meanwhile.
  ModuleState view;
  view.path = state.path;
  view.device = state.device;
  view.unit = state.unit;
  view.root = state.root;
  view.interpreter = std::make_unique<Interpreter>(*state.unit, state.device);
  view.interpreter->forbid_attribute_writes(true);
  try {
    std::unique_ptr<Graph> graph = freeze_method(view, method, dtypes);
    // On Vulkan, as optimize_for_mobile does: batch norms fold into the convolutions before
    // them, and convolutions and linear layers with constant weights pack them once, here, with
    // the clamps after them in their epilogues, instead of packing on every call. The packed
    // weights are kept beside the module's own. Where this fails, the graph runs the ops as
    // written.
    if (state.device == Device::Vulkan) {
      try {
        fold_conv_batch_norm(*graph);
        if (insert_prepacked_ops(*graph) > 0) {
          fuse_clamp_into_packed_conv(*graph);
          fold_scale_into_packed_linear(*graph);
          fold_prepacking(*graph);
          remove_mutation(*graph);  // an in-place add_ after a convolution fuses below as add
          eliminate_dead_code(*graph);  // frees the folded weights the packed ones replace
        }
      } catch (const LimitError&) {
        throw;
      } catch (const OutOfMemoryError&) {
        throw;
      } catch (const Error&) {
        graph = freeze_method(view, method, dtypes);
      }
    }
    rewrite_channel_layer_norms(*graph);
    fuse_activation_into_packed_ops(*graph);
    fuse_add_into_packed_conv(*graph);
    fuse_cat_of_packed_convs(*graph);
    return state.graphs[key] = std::make_shared<GraphExecutor>(std::shared_ptr<const Graph>(std::move(graph)));
  } catch (const LimitError&) {
    throw;  // this run's limit, not the method's: a later call may freeze it
  } catch (const OutOfMemoryError&) {
    throw;
  } catch (const Error& e) {
    state.graph_failures[key] = e.what();
    return nullptr;
  }
}
}  // namespace

IValue Module::run_method(const std::string& method, std::vector<IValue> inputs) {
  return run_method(method, std::move(inputs), state_->limits);
}

IValue Module::run_method(const std::string& method, std::vector<IValue> inputs, const Limits& limits) {
  if (!has_method(method)) throw Error(detail::concat(type_name(), " has no method '", method, "'"));
  // Model code runs under limits, on a stack of known size. The module's memory count is
  // shared by its calls (memory a call returns stays counted until it is freed).
  return with_run_stack([&] {
    RunScope run(limits, limits.max_memory == state_->limits.max_memory ? state_->memory : nullptr,
                 detail::concat(type_name(), ".", method));
    return run_method_in_run(method, std::move(inputs));
  });
}

IValue Module::run_method_in_run(const std::string& method, std::vector<IValue> inputs) {
  if (state_->exported && method == "forward") state_->exported->check(inputs, state_->path);
  std::shared_ptr<void> tuning_scope;
  if (state_->tuning)
    if (DeviceBackend* backend = device_backend(Device::Vulkan)) tuning_scope = backend->tuning_scope(*state_->tuning);
  auto frozen = state_->frozen_methods.find(method);
  if (frozen != state_->frozen_methods.end()) {
    check_inputs_for_vulkan_model(*state_, inputs);
    return frozen->second->run(graph_inputs(*state_, method, std::move(inputs)));
  }
  // A module loaded for Vulkan moves CPU inputs in and CPU-bound outputs back, as the seed's
  // Java Module.load(path, Device.VULKAN) does.
  const bool back_to_cpu = state_->device != Device::CPU && has_cpu_tensor(inputs);
  // `tvk check` counts the calls the code makes: that is the interpreter's view. Bytecode has
  // no source for the freezer.
  auto graph = state_->interpreter->recording_ops() || state_->bytecode ? nullptr : graph_of(*state_, method, inputs);
  if (graph) {
    if (state_->device == Device::CPU) check_inputs_for_vulkan_model(*state_, inputs);
    return graph->run(graph_inputs(*state_, method, std::move(inputs)), state_->device, back_to_cpu);
  }
  if (state_->device != Device::CPU)
    for (IValue& v : inputs) v = to_device(v, state_->device);
  check_inputs_for_vulkan_model(*state_, inputs);
  IValue out;
  if (state_->bytecode) {
    Stack args{IValue(state_->root)};
    for (IValue& v : inputs) args.push_back(std::move(v));
    out = state_->bytecode->run(*state_->bytecode->find(type_name() + "." + method), std::move(args),
                                state_->interpreter->op_counts());
  } else {
    out = state_->interpreter->call_method(state_->root, method, std::move(inputs));
  }
  return back_to_cpu ? to_device(out, Device::CPU) : out;
}

bool Module::has_method(const std::string& method) const {
  if (!state_->frozen_methods.empty()) return state_->frozen_methods.count(method) > 0;
  if (state_->bytecode) return state_->bytecode->find(type_name() + "." + method) != nullptr;
  const ClassInfo* cls = state_->unit->find_class(state_->root->type_name);
  return cls && cls->method(method);
}

std::vector<std::string> Module::method_names() const {
  std::vector<std::string> out;
  if (!state_->frozen_methods.empty()) {
    for (auto& [name, _] : state_->frozen_methods) out.push_back(name);
    return out;
  }
  if (state_->bytecode) return state_->bytecode->methods_of(type_name());
  if (const ClassInfo* cls = state_->unit->find_class(state_->root->type_name))
    for (auto& [name, _] : cls->methods) out.push_back(name);
  return out;
}

IValue Module::attr(const std::string& name) const { return state_->interpreter->get_attr(state_->root, name); }

std::vector<std::pair<std::string, Tensor>> Module::named_parameters(bool recurse) const {
  std::vector<std::pair<std::string, Tensor>> out;
  collect(state_->root, *state_->unit, "", recurse, true, out);
  return out;
}

std::vector<std::pair<std::string, Tensor>> Module::named_buffers(bool recurse) const {
  std::vector<std::pair<std::string, Tensor>> out;
  collect(state_->root, *state_->unit, "", recurse, false, out);
  return out;
}

void Module::save(const std::string& path) const {
  if (state_->bytecode)
    throw UnsupportedError(detail::concat(state_->path, " holds bytecode only (no code/), which tvk does not write back"));
  export_module(*state_, path);
}

const std::map<std::string, std::string>& Module::extra_files() const { return state_->extras(); }

void Module::set_extra_file(const std::string& name, std::string contents) {
  TVK_CHECK(!name.empty() && name.find("..") == std::string::npos && name.front() != '/', "extra file name '", name,
            "' must be a relative name");
  state_->extras();
  state_->extra_files[name] = std::move(contents);
}

void Module::set_tuning(Tuning tuning) { state_->tuning = tuning; }
std::optional<Tuning> Module::tuning() const { return state_->tuning; }

bool Module::optimized_for_vulkan() const {
  const IValue* v = state_->root->find("optimized_for_vulkan");
  return v && v->isBool() && v->toBool();
}

std::string Module::type_name() const { return state_->root->type_name; }
Device Module::device() const { return state_->device; }
const std::shared_ptr<Object>& Module::object() const { return state_->root; }

}  // namespace tvk::jit

namespace tvk::jit {
const std::vector<IValue>& Module::example_inputs() const { return state_->example_inputs; }

namespace {
// The lines of `def <method>(` in `text` up to the next line indented as far or less.
std::string method_text(const std::string& text, const std::string& cls, const std::string& method) {
  std::vector<std::string> lines;
  for (size_t at = 0; at < text.size();) {
    const size_t end = text.find('\n', at);
    lines.push_back(text.substr(at, end == std::string::npos ? std::string::npos : end - at));
    at = end == std::string::npos ? text.size() : end + 1;
  }
  auto indent_of = [](const std::string& l) { return l.find_first_not_of(' '); };
  bool in_class = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    const size_t ind = indent_of(lines[i]);
    if (ind == std::string::npos) continue;
    if (ind == 0) in_class = lines[i].rfind("class " + cls + "(", 0) == 0 || lines[i].rfind("class " + cls + ":", 0) == 0;
    if (!in_class || lines[i].compare(ind, 5 + method.size(), "def " + method + "(") != 0) continue;
    std::string out = lines[i].substr(ind) + "\n";
    for (size_t j = i + 1; j < lines.size(); ++j) {
      const size_t inner = indent_of(lines[j]);
      if (inner != std::string::npos && inner <= ind) break;
      out += (inner == std::string::npos ? std::string() : lines[j].substr(std::min(ind, lines[j].size()))) + "\n";
    }
    return out;
  }
  return "";
}
}  // namespace

std::string Module::code(const std::string& method) const {
  if (!state_->frozen_methods.empty()) {
    TVK_CHECK(state_->frozen_methods.count(method), "the optimized module has no method '", method, "'");
    return method_text(print_frozen_code(*state_), type_name().substr(type_name().rfind('.') + 1), method);
  }
  const std::string& type = state_->root->type_name;
  const size_t dot = type.rfind('.');
  auto file = state_->code_files.find(type.substr(0, dot));
  if (file == state_->code_files.end())
    throw Error(detail::concat(state_->path, ": no code for ", type, state_->bytecode ? " (a lite file with bytecode only)" : ""));
  std::string text = method_text(file->second, type.substr(dot + 1), method);
  TVK_CHECK(!text.empty(), state_->path, ": ", type, " has no method '", method, "'");
  return text;
}

std::optional<std::string> Module::graph(const std::string& method) const {
  auto frozen = state_->frozen_methods.find(method);
  if (frozen != state_->frozen_methods.end()) return frozen->second->graph().dump();
  std::lock_guard<std::mutex> lock(state_->graphs_mutex);
  auto it = state_->graphs.find(method);  // frozen for float inputs; other dtypes have their own
  if (it == state_->graphs.end() || !it->second) return std::nullopt;
  return it->second->graph().dump();
}
bool Module::is_exported_program() const { return state_->exported != nullptr; }
}  // namespace tvk::jit
