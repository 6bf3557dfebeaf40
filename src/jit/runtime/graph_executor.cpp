#include "jit/runtime/graph_executor.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <exception>
#include <map>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "core/run_scope.h"
#include "core/storage.h"
#include "jit/runtime/builtins.h"
#include "jit/runtime/interpreter.h"

namespace tvk::jit {

namespace {
void note_uses(const Node& node, size_t position, std::map<int, size_t>& last_use) {
  for (const Arg& a : node.args)
    if (a.is_value()) last_use[a.value->id] = position;
  for (const auto& b : node.blocks) {
    for (const auto& n : b->nodes) note_uses(*n, position, last_use);
    for (const Arg& a : b->outputs)
      if (a.is_value()) last_use[a.value->id] = position;
  }
}

// Calls `fn` on every defined tensor in `v`, through lists, tuples, NamedTuples and dicts.
void for_each_tensor(const IValue& v, const std::function<void(const Tensor&)>& fn) {
  if (v.isTensor()) {
    if (v.toTensor().defined()) fn(v.toTensor());
  } else if (v.isList() || v.isTuple()) {
    RunScope::visit("a nested value");
    for (const IValue& e : v.toList()) for_each_tensor(e, fn);
  } else if (v.isObject() && v.toObject()->named_tuple) {
    RunScope::visit("a nested value");
    for (const auto& field : v.toObject()->attributes) for_each_tensor(field.second, fn);
  } else if (v.isDict()) {
    RunScope::visit("a nested value");
    for (const auto& item : v.toDict()->items) for_each_tensor(item.second, fn);
  }
}

// A node's arguments: values from `env`, constants as folded in.
Stack arguments_of(const Node& node, const std::vector<IValue>& env) {
  Stack args;
  args.reserve(node.args.size());
  for (const Arg& a : node.args) args.push_back(a.is_value() ? env[a.value->id] : a.constant);
  return args;
}

bool is_vulkan(const IValue& v) {
  if (v.isTensor()) return v.toTensor().defined() && v.toTensor().device() == Device::Vulkan;
  if (v.isDevice()) return v.toDevice() == Device::Vulkan;
  if (v.isList() || v.isTuple()) {
    RunScope::visit("a nested value");
    for (const IValue& e : v.toList())
      if (is_vulkan(e)) return true;
  }
  return false;
}

bool mentions_vulkan(const NodeBlock& block) {
  for (const auto& n : block.nodes) {
    if (n->kind == NodeKind::Op && n->op->schema.name.rfind("vulkan_prepack::", 0) == 0) return true;
    for (const Arg& a : n->args)
      if (!a.is_value() && (is_vulkan(a.constant) || (a.constant.isObject() && a.constant.toObject()->payload)))
        return true;
    for (const auto& b : n->blocks)
      if (mentions_vulkan(*b)) return true;
  }
  return false;
}

// A node moving its tensor to the CPU (aten::to with a constant CPU device, or aten::cpu).
bool is_transfer_to_cpu(const Node& n) {
  if (n.kind != NodeKind::Op) return false;
  const std::string& name = n.op->schema.name;
  if (name == "aten::cpu") return true;
  if (name != "aten::to" || n.args.size() < 2) return false;
  const Arg& device = n.args[1];
  return !device.is_value() && device.constant.isDevice() && device.constant.toDevice() == Device::CPU;
}

// Ops whose CPU kernel reads only shapes and dtypes (or makes new tensors): running them once
// while planning is valid for every call with the same signature. (aten::to reads data; it is
// recordable only as an upload to a device, which the capture records.)
bool reads_only_metadata(const std::string& name) {
  static const std::set<std::string> kNames = {"aten::dim", "aten::numel", "aten::size", "aten::zeros_like",
                                               "aten::ones_like", "aten::empty", "aten::empty_strided",
                                               "aten::zeros", "aten::ones", "aten::len"};
  return kNames.count(name) > 0;
}

std::string signature_of(const Stack& inputs, Device device, bool outputs_to_cpu, bool* plannable) {
  std::string sig = std::string(to_string(device)) + (outputs_to_cpu ? "+cpu" : "");
  for (const IValue& v : inputs) {
    sig += '|';
    if (v.isTensor()) {
      const Tensor& t = v.toTensor();
      if (!t.defined() || t.device() != Device::CPU || !t.is_contiguous()) {
        *plannable = false;
        return sig;
      }
      sig += std::string(to_string(t.dtype())) + t.shape_string();
    } else if (v.isInt() || v.isDouble() || v.isBool() || v.isNone() || v.isString()) {
      sig += python_str(v);
    } else {
      *plannable = false;  // lists, objects: not keyed here
      return sig;
    }
  }
  return sig;
}

// Device tensors of a recorded result live in the recording's arena, which the next replay
// overwrites: each call returns fresh tensors. `to_cpu` holds the storages whose values the
// graph moves to the CPU (transfers left out while capturing).
// Host copies of a recording's outputs that its last commands write (DeviceCapture::download_slot).
using Downloads = std::map<const Storage*, const void*>;

IValue materialize(const IValue& v, const std::set<const Storage*>& to_cpu, bool all_to_cpu,
                   const Downloads* downloads = nullptr) {
  if (v.isTensor()) {
    const Tensor& t = v.toTensor();
    if (!t.defined() || t.device() == Device::CPU) return v;
    if (all_to_cpu || to_cpu.count(t.storage().get())) {
      if (downloads) {
        // Device tensors are contiguous from offset 0, so the slot holds exactly the tensor.
        auto it = downloads->find(t.storage().get());
        if (it != downloads->end() && it->second) {
          Tensor out = empty(t.sizes(), t.dtype(), Device::CPU);
          std::memcpy(out.raw_data(), it->second, out.nbytes());
          return IValue(std::move(out));
        }
      }
      return IValue(t.cpu());
    }
    return IValue(t.clone());  // a device copy outside the arena
  }
  if (v.isList() || v.isTuple()) {
    RunScope::visit("a nested output");
    List items;
    for (const IValue& e : v.toList()) items.push_back(materialize(e, to_cpu, all_to_cpu, downloads));
    return v.isList() ? IValue::list(std::move(items)) : IValue::tuple(std::move(items));
  }
  if (v.isObject() && v.toObject()->named_tuple) {
    RunScope::visit("a nested output");
    auto fields = std::make_shared<Object>(*v.toObject());
    for (auto& field : fields->attributes) field.second = materialize(field.second, to_cpu, all_to_cpu, downloads);
    return IValue(std::move(fields));
  }
  if (v.isDict()) {
    auto dict = std::make_shared<Dict>(*v.toDict());
    for (auto& item : dict->items) item.second = materialize(item.second, to_cpu, all_to_cpu, downloads);
    return IValue(std::move(dict));
  }
  return v;
}
// Records the copies of the device tensors materialize() will bring to the CPU.
void record_downloads(const IValue& v, const std::set<const Storage*>& to_cpu, bool all_to_cpu,
                      DeviceCapture& capture, Downloads& downloads) {
  for_each_tensor(v, [&](const Tensor& t) {
    if (t.device() == Device::CPU) return;
    const Storage* s = t.storage().get();
    if ((all_to_cpu || to_cpu.count(s)) && !downloads.count(s)) downloads[s] = capture.download_slot(*s, s->nbytes());
  });
}
}  // namespace

bool planned_execution_enabled() {
  const char* v = std::getenv("TVK_PLAN");
  return v == nullptr || std::strcmp(v, "0") != 0;
}

struct GraphExecutor::Plan {
  // A device tensor a segment's last commands copy to the host, for the CPU part after it.
  struct Fetch {
    int value = -1;
    const void* slot = nullptr;
    IntList sizes;
    DType dtype = DType::Float32;
  };
  struct Step {
    enum class Kind { WriteInput, WriteValue, RunSegment, Host } kind = Kind::Host;
    size_t index = 0;          // WriteInput: the input; RunSegment: the segment
    int value = -1;            // WriteValue: the CPU tensor whose bytes an upload sends
    void* slot = nullptr;      // Write*: where those bytes go
    DeviceCapture* segment = nullptr;  // Write*: the recording whose upload slot it is
    size_t bytes = 0;          // Write*: how many the recording uploaded
    std::vector<Fetch> fetches;  // RunSegment: its downloads
    const Node* node = nullptr;  // Host: the node, its top-level position, its arguments
    size_t position = 0;
    Stack fixed_args;            // values fixed by the recording (device tensors, sizes)
    std::vector<char> from_host;  // per argument: read this call's value instead
  };
  std::vector<std::unique_ptr<DeviceCapture>> segments;
  std::vector<Step> steps;
  IValue outputs;              // as the recording leaves them
  bool output_from_host = false;  // the graph's output is made by a host step
  std::set<const Storage*> to_cpu;
  Downloads downloads;         // outputs' host copies, written by each replay
  std::mutex mutex;            // one replay at a time: the recording has one set of buffers
};

// What a capturing run collects.
struct GraphExecutor::RunState {
  std::set<const Storage*> to_cpu;
  std::string data_dependent;  // why the host work depends on tensor data, if it does
  Plan* plan = nullptr;
  DeviceBackend* backend = nullptr;
  DeviceCapture* segment = nullptr;  // the recording now open, if any
  std::vector<char> from_host;        // per value: made by a host step (or a CPU input)
  // Downloads recorded in the open segment, each with the tensor the capturing run fills.
  struct PendingDownload {
    Plan::Fetch fetch;
    Tensor host;
  };
  std::vector<PendingDownload> pending;
  bool planning() const { return data_dependent.empty(); }
  void fail(std::string why) {
    if (data_dependent.empty()) data_dependent = std::move(why);
  }
};

GraphExecutor::GraphExecutor(std::shared_ptr<const Graph> graph) : graph_(std::move(graph)) {
  std::map<int, size_t> last_use;
  size_t position = 0;
  for (const auto& n : graph_->top().nodes) note_uses(*n, position++, last_use);
  for (const Arg& a : graph_->outputs())
    if (a.is_value()) last_use[a.value->id] = position;  // never freed
  dies_after_.resize(position);
  for (auto& [id, pos] : last_use)
    if (pos < position) dies_after_[pos].push_back(id);

  // Transfers whose result is only returned (directly or in the returned tuple/list).
  std::map<int, int> uses;
  std::set<int> returned;
  for (const Arg& a : graph_->outputs())
    if (a.is_value()) returned.insert(a.value->id);
  for (const auto& n : graph_->all_nodes())
    for (const Arg& a : n->args)
      if (a.is_value()) ++uses[a.value->id];
  for (const auto& n : graph_->top().nodes) {
    if ((n->kind == NodeKind::TupleConstruct || n->kind == NodeKind::ListConstruct ||
         n->kind == NodeKind::DictConstruct) &&
        returned.count(n->outputs[0]->id) && uses[n->outputs[0]->id] == 0)
      for (const Arg& a : n->args)
        if (a.is_value() && uses[a.value->id] == 1) returned.insert(a.value->id);
  }
  for (const auto& n : graph_->top().nodes)
    if (is_transfer_to_cpu(*n) && returned.count(n->outputs[0]->id)) output_transfers_.insert(n.get());
  uses_vulkan_ = mentions_vulkan(graph_->top());
}

GraphExecutor::~GraphExecutor() = default;

void GraphExecutor::run_block(const NodeBlock& block, std::vector<IValue>& env, bool top_level,
                              RunState* capture) const {
  size_t position = 0;
  RunScope* run = RunScope::current();
  for (const auto& node_ptr : block.nodes) {
    const Node& node = *node_ptr;
    if (run != nullptr && !run->step()) throw LimitError(node.source + ": " + run->why());
    if (capture && top_level && capture->plan) plan_node(node, position, env, *capture);
    else run_node(node, arguments_of(node, env), env, capture, true);
    if (top_level)
      for (int id : dies_after_[position]) env[id] = IValue();
    ++position;
  }
}

void GraphExecutor::run_node(const Node& node, Stack args, std::vector<IValue>& env, RunState* capture,
                             bool check_host_work) const {
  const bool check = check_host_work && capture && capture->planning();
  if (check && capture->plan)
    for (const Arg& a : node.args)
      if (a.is_value() && !capture->from_host.empty() && capture->from_host[a.value->id])
        capture->fail("a node inside an If or a loop reads a value the CPU part computed");
  switch (node.kind) {
    case NodeKind::Op: {
      if (capture && output_transfers_.count(&node) && args[0].isTensor() && args[0].toTensor().defined() &&
          args[0].toTensor().device() != Device::CPU) {
        capture->to_cpu.insert(args[0].toTensor().storage().get());
        env[node.outputs[0]->id] = args[0];
        break;
      }
      // A CPU op inside a block reading a tensor the model made or was given: its result would
      // not follow new inputs on a replay. (Top-level ones become host steps.)
      bool reads_cpu_data = false;
      if (check && !reads_only_metadata(node.op->schema.name))
        for (size_t i = 0; i < node.args.size() && !reads_cpu_data; ++i)
          reads_cpu_data = node.args[i].is_value() && args[i].isTensor() && args[i].toTensor().defined() &&
                           args[i].toTensor().device() == Device::CPU;
      IValue out;
      try {
        out = ops::call(*node.op, std::move(args));
      } catch (const Error& e) {
        if (node.source.empty()) throw;
        rethrow_with_context(e, node.source);  // the type (UnsupportedError...) stays
      }
      // Except an upload (aten::to a device): the capture records it and replays re-send it.
      const bool upload = node.op->schema.name == "aten::to" && out.isTensor() && out.toTensor().defined() &&
                          out.toTensor().device() != Device::CPU;
      if (reads_cpu_data && !upload)
        capture->fail(node.op->schema.full_name() + " reads a CPU tensor made by the model");
      if (node.outputs.size() == 1) {
        env[node.outputs[0]->id] = std::move(out);
      } else if (!node.outputs.empty()) {
        const List& items = out.toTuple();
        for (size_t i = 0; i < node.outputs.size(); ++i) env[node.outputs[i]->id] = items[i];
      }
      break;
    }
    case NodeKind::Builtin: {
      IValue out;
      if (!call_builtin(node.name, args, {}, &out))
        throw Error(detail::concat(node.source, ": builtin ", node.name, " does not accept these arguments"));
      env[node.outputs[0]->id] = std::move(out);
      break;
    }
    case NodeKind::ListConstruct:
      env[node.outputs[0]->id] = IValue::list(std::move(args));
      break;
    case NodeKind::NamedTupleConstruct: {
      auto fields = std::make_shared<Object>();
      fields->type_name = node.name;
      fields->named_tuple = true;
      for (size_t i = 0; i < node.fields.size(); ++i) fields->set(node.fields[i], std::move(args[i]));
      env[node.outputs[0]->id] = IValue(std::move(fields));
      break;
    }
    case NodeKind::TupleConstruct:
      env[node.outputs[0]->id] = IValue::tuple(std::move(args));
      break;
    case NodeKind::DictConstruct: {
      auto dict = std::make_shared<Dict>();
      for (size_t i = 0; i + 1 < args.size(); i += 2) dict->set(std::move(args[i]), std::move(args[i + 1]));
      env[node.outputs[0]->id] = IValue(std::move(dict));
      break;
    }
    case NodeKind::TupleIndex: {
      const List& items = args[0].toList();
      if (node.index < 0 || node.index >= static_cast<int64_t>(items.size()))
        throw Error(detail::concat("tuple index ", node.index, " out of range"));
      env[node.outputs[0]->id] = items[node.index];
      break;
    }
    case NodeKind::If: {
      const NodeBlock& taken = *node.blocks[truthy(args[0]) ? 0 : 1];
      run_block(taken, env, false, capture);
      for (size_t i = 0; i < node.outputs.size(); ++i) {
        const Arg& a = taken.outputs[i];
        env[node.outputs[i]->id] = a.is_value() ? env[a.value->id] : a.constant;
      }
      break;
    }
    case NodeKind::Loop: {
      const int64_t trip = args[0].toInt();
      const NodeBlock& body = *node.blocks[0];
      std::vector<IValue> carried(args.begin() + 1, args.end());
      for (int64_t i = 0; i < trip; ++i) {
        env[body.inputs[0]->id] = IValue(i);
        for (size_t k = 0; k < carried.size(); ++k) env[body.inputs[k + 1]->id] = std::move(carried[k]);
        run_block(body, env, false, capture);
        for (size_t k = 0; k < carried.size(); ++k) {
          const Arg& a = body.outputs[k];
          carried[k] = a.is_value() ? env[a.value->id] : a.constant;
        }
      }
      for (size_t k = 0; k < node.outputs.size(); ++k) env[node.outputs[k]->id] = std::move(carried[k]);
      break;
    }
    case NodeKind::Raise:
      throw ScriptException(node.name, python_str(args[0]));
  }
}

void GraphExecutor::cut_segment(RunState& state, bool then_record) const {
  DeviceCapture* segment = state.segment;
  if (segment == nullptr) return;
  const bool was_recording = segment->recording();
  segment->end();
  state.segment = nullptr;
  if (!segment->replayable()) {
    // A read-back inside an op ran what was recorded and broke the recording; the work since
    // ran op by op.
    state.fail("the model reads device results back while it runs");
  } else if (was_recording && segment->commands() > 0) {
    segment->replay();
  }
  for (const RunState::PendingDownload& p : state.pending)
    std::memcpy(p.host.raw_data(), p.fetch.slot, p.host.nbytes());
  if (state.planning() && segment->commands() == 0 && state.pending.empty()) {
    // Nothing recorded since the last cut (the graph ends with its CPU part): no segment.
    if (state.plan->segments.back().get() == segment) state.plan->segments.pop_back();
  } else if (state.planning()) {
    Plan::Step step;
    step.kind = Plan::Step::Kind::RunSegment;
    step.index = state.plan->segments.size() - 1;
    for (RunState::PendingDownload& p : state.pending) step.fetches.push_back(std::move(p.fetch));
    state.plan->steps.push_back(std::move(step));
  }
  state.pending.clear();
  if (!then_record || !state.planning()) return;
  std::unique_ptr<DeviceCapture> next = state.backend->begin_capture();
  if (!next) {
    state.fail("no new recording could be started after a CPU part");
    return;
  }
  state.segment = next.get();
  state.plan->segments.push_back(std::move(next));
}

namespace {
void device_storages(const IValue& v, std::set<const Storage*>& out) {
  for_each_tensor(v, [&](const Tensor& t) {
    if (t.device() != Device::CPU) out.insert(t.storage().get());
  });
}

bool has_cpu_tensor(const IValue& v) {
  bool found = false;
  for_each_tensor(v, [&](const Tensor& t) { found = found || t.device() == Device::CPU; });
  return found;
}

// A plain move of a whole device tensor to the CPU (no dtype change): a recorded download.
bool is_plain_download(const Node& node, const Stack& args) {
  if (!is_transfer_to_cpu(node) || args.empty() || !args[0].isTensor()) return false;
  const Tensor& t = args[0].toTensor();
  if (!t.defined() || t.device() == Device::CPU || !t.is_contiguous() || t.storage_offset() != 0) return false;
  if (node.op->schema.name == "aten::cpu") return true;
  // aten::to(self, device, dtype=None, non_blocking, copy): a copy is what a download makes anyway.
  return node.args.size() < 3 || (!node.args[2].is_value() && node.args[2].constant.isNone());
}
}  // namespace

void GraphExecutor::plan_node(const Node& node, size_t position, std::vector<IValue>& env, RunState& state) const {
  Stack args = arguments_of(node, env);
  // A node reading a pending download: the segment recorded so far must run first (a replay
  // makes the downloaded tensor only then).
  bool reads_pending = false;
  for (const Arg& a : node.args)
    for (const RunState::PendingDownload& p : state.pending) reads_pending |= a.is_value() && p.fetch.value == a.value->id;
  if (reads_pending) cut_segment(state, true);
  if (!state.planning() || state.segment == nullptr) {
    run_node(node, std::move(args), env, &state, false);
    return;
  }
  bool reads_host = false, reads_cpu = false;
  for (size_t i = 0; i < node.args.size(); ++i) {
    if (!node.args[i].is_value()) continue;
    reads_host |= state.from_host[node.args[i].value->id] != 0;
    reads_cpu |= has_cpu_tensor(args[i]);
  }
  if (node.kind == NodeKind::Op && !output_transfers_.count(&node) && is_plain_download(node, args)) {
    const Tensor& t = args[0].toTensor();
    if (const void* slot = state.segment->download_slot(*t.storage(), t.nbytes())) {
      Tensor host = empty(t.sizes(), t.dtype(), Device::CPU);
      const int id = node.outputs[0]->id;
      state.pending.push_back({{id, slot, t.sizes(), t.dtype()}, host});
      state.from_host[id] = 1;
      env[id] = IValue(std::move(host));
      return;
    }
  }
  if ((node.kind == NodeKind::If || node.kind == NodeKind::Loop) && reads_host) {
    state.fail(node.kind == NodeKind::If ? "an If branches on a value the CPU part computed"
                                         : "a loop runs a number of times or on values the CPU part computed");
    run_node(node, std::move(args), env, &state, false);
    return;
  }
  // What a host step needs again on each replay: the arguments the recording fixed.
  Plan::Step step;
  step.kind = Plan::Step::Kind::Host;
  step.node = &node;
  step.position = position;
  for (size_t i = 0; i < node.args.size(); ++i) {
    const bool host = node.args[i].is_value() && state.from_host[node.args[i].value->id];
    step.from_host.push_back(host ? 1 : 0);
    step.fixed_args.push_back(host ? IValue() : args[i]);
  }
  const Tensor upload_source = node.kind == NodeKind::Op && node.op->schema.name == "aten::to" && !args.empty() &&
                                       args[0].isTensor() && args[0].toTensor().defined() &&
                                       args[0].toTensor().device() == Device::CPU
                                   ? args[0].toTensor()
                                   : Tensor();
  const size_t before = state.segment->commands();
  run_node(node, std::move(args), env, &state, false);
  if (!state.planning()) return;
  if (state.segment == nullptr || !state.segment->recording()) {
    state.fail("the model reads device results back while it runs");
    return;
  }
  const bool recorded = state.segment->commands() != before;
  if (recorded) {
    if (!reads_host) return;  // device work fixed by the signature, recorded once
    // An upload of a tensor the CPU part made: a replay writes this call's bytes into its slot.
    const IValue& out = env[node.outputs.at(0)->id];
    if (upload_source.defined() && out.isTensor() && out.toTensor().device() != Device::CPU &&
        upload_source.is_contiguous()) {
      Plan::Step write;
      write.kind = Plan::Step::Kind::WriteValue;
      write.value = node.args[0].value->id;
      write.bytes = upload_source.nbytes();
      write.slot = state.segment->upload_slot(upload_source.raw_data(), write.bytes);
      write.segment = state.segment;
      if (write.slot != nullptr) {
        state.plan->steps.push_back(std::move(write));
        return;
      }
    }
    state.fail(node.describe() + " puts work on the device that depends on values the CPU part computed");
    return;
  }
  bool makes_cpu = false;
  std::set<const Storage*> made;
  for (const Value* v : node.outputs) {
    makes_cpu |= has_cpu_tensor(env[v->id]);
    device_storages(env[v->id], made);
  }
  if (!reads_host && !reads_cpu && !makes_cpu) return;  // host work fixed by the signature
  // A host step: its device results must be tensors it was given (a tuple of them, a view),
  // which the recording fixed; new ones would not be what the recorded consumers read.
  std::set<const Storage*> given;
  for (const IValue& a : step.fixed_args) device_storages(a, given);
  for (const Storage* s : made)
    if (!given.count(s)) {
      state.fail(node.describe() + " makes a device tensor from values the CPU part computed");
      return;
    }
  for (const Value* v : node.outputs) state.from_host[v->id] = 1;
  state.plan->steps.push_back(std::move(step));
}

void GraphExecutor::check_inputs(Stack& inputs) const {
  const auto& graph_inputs = graph_->inputs();
  // Inputs left out take their defaults (a detection model's `targets=None`).
  while (inputs.size() < graph_inputs.size() && graph_inputs[inputs.size()]->default_value)
    inputs.push_back(*graph_inputs[inputs.size()]->default_value);
  if (inputs.size() != graph_inputs.size())
    throw Error(detail::concat("forward() takes ", graph_inputs.size(), " input(s), got ", inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i)
    if (graph_inputs[i]->type == ValueType::Tensor && !inputs[i].isTensor())
      throw Error(detail::concat("input '", graph_inputs[i]->name, "' must be a Tensor, got ", inputs[i].tag_name()));
}

std::vector<IValue> GraphExecutor::bind_inputs(Stack inputs) const {
  const auto& graph_inputs = graph_->inputs();
  std::vector<IValue> env(graph_->value_count());
  for (size_t i = 0; i < inputs.size(); ++i) env[graph_inputs[i]->id] = std::move(inputs[i]);
  return env;
}

IValue GraphExecutor::run_eager(Stack inputs, Device device, bool outputs_to_cpu) const {
  if (device != Device::CPU)
    for (IValue& v : inputs) v = to_device(v, device);
  std::vector<IValue> env = bind_inputs(std::move(inputs));
  run_block(graph_->top(), env, true, nullptr);
  const Arg& out = graph_->outputs().at(0);
  IValue result = out.is_value() ? env[out.value->id] : out.constant;
  {
    std::lock_guard<std::mutex> lock(plans_mutex_);
    ++stats_.eager_runs;
  }
  return outputs_to_cpu ? to_device(result, Device::CPU) : result;
}

namespace {
// Threads for copying `bytes` of a replay's input into staging memory. One core copies about
// 6 GB/s, so a batch of images (19 MB for 32 at 224x224) takes 3 ms alone: 1 MiB per thread, up
// to 8. On the H200's host that batch took 1.7 ms of host time in 4 threads of 4 MiB, 1.3-1.4
// ms in 8 (16 threads: 1.6-2.3 ms).
size_t copy_threads(size_t bytes) {
  constexpr size_t kPerThread = size_t{1} << 20, kMaxThreads = 8;
  return std::max<size_t>(
      1, std::min<size_t>({bytes / kPerThread, std::max(1u, std::thread::hardware_concurrency()), kMaxThreads}));
}

// Copies a replay's input into its staging memory over copy_threads threads, in chunks of
// `chunk` bytes: each thread copies its share of chunk 0, then of chunk 1, and so on. With
// `sender` (an upload the device takes in chunks, DeviceCapture::upload_chunk_bytes), whichever
// thread finishes a chunk's last share sends it (and any complete ones after it, in order), so
// the device copies chunk i while the host writes chunk i + 1.
void copy_input(void* dst, const void* src, size_t bytes, size_t chunk, DeviceCapture* sender) {
  if (bytes == 0) return;
  const size_t threads = copy_threads(bytes);
  const size_t chunks = (bytes + chunk - 1) / chunk;
  std::mutex mutex;
  std::vector<size_t> shares_left(chunks, threads);
  size_t next_to_send = 0;
  std::exception_ptr error;
  auto copy_shares = [&](size_t t) {
    for (size_t c = 0; c < chunks; ++c) {
      const size_t begin = c * chunk, length = std::min(chunk, bytes - begin);
      const size_t share = (length / threads + 63) / 64 * 64;
      const size_t from = std::min(length, t * share), to = std::min(length, from + share);
      std::memcpy(static_cast<uint8_t*>(dst) + begin + from, static_cast<const uint8_t*>(src) + begin + from, to - from);
      if (!sender) continue;
      std::lock_guard<std::mutex> lock(mutex);
      if (--shares_left[c] > 0) continue;
      for (; next_to_send < chunks && shares_left[next_to_send] == 0 && !error; ++next_to_send) {
        try {
          sender->send_upload_chunk(dst, next_to_send);
        } catch (...) {
          error = std::current_exception();  // the replay then sends what was not sent
        }
      }
    }
  };
  std::vector<std::thread> workers;
  size_t started = 1;
  try {
    for (; started < threads; ++started) workers.emplace_back(copy_shares, started);
  } catch (const std::system_error&) {
  }
  copy_shares(0);
  // No thread to be had: the shares not handed out are copied here (their chunks sent as they
  // complete).
  for (size_t t = started; t < threads; ++t) copy_shares(t);
  for (std::thread& w : workers) w.join();
  if (error) std::rethrow_exception(error);
}

// A replay's bytes for an upload slot: sent chunk by chunk as they are written where the
// recording allows, else written for the segment's replay to send.
void write_slot(DeviceCapture* segment, void* slot, size_t bytes, const void* source) {
  if (const size_t chunk = segment ? segment->upload_chunk_bytes(slot) : 0; chunk > 0 && bytes > chunk) {
    copy_input(slot, source, bytes, chunk, segment);
    return;
  }
  copy_input(slot, source, bytes, bytes, nullptr);
}
}  // namespace

bool GraphExecutor::replay(Plan& plan, const Stack& inputs, Device device, bool outputs_to_cpu,
                           IValue* result) const {
  // Values host steps make on this call; the rest stay as the recording fixed them.
  std::vector<IValue> env(graph_->value_count());
  if (device == Device::CPU)
    for (size_t i = 0; i < inputs.size(); ++i) env[graph_->inputs()[i]->id] = inputs[i];
  for (const Plan::Step& step : plan.steps) {
    switch (step.kind) {
      case Plan::Step::Kind::WriteInput: {
        const Tensor& input = inputs[step.index].toTensor();
        // A large input goes to the device from where it is, if the device can read it there.
        auto owner = std::dynamic_pointer_cast<const CpuStorage>(input.storage());
        if (step.segment && owner && step.segment->send_upload_from(step.slot, owner, input.raw_data(), step.bytes))
          break;
        write_slot(step.segment, step.slot, step.bytes, input.raw_data());
        break;
      }
      case Plan::Step::Kind::WriteValue: {
        const IValue& v = env[step.value];
        if (!v.isTensor() || !v.toTensor().defined() || v.toTensor().device() != Device::CPU ||
            v.toTensor().nbytes() != step.bytes || !v.toTensor().is_contiguous())
          return false;
        write_slot(step.segment, step.slot, step.bytes, v.toTensor().raw_data());
        break;
      }
      case Plan::Step::Kind::RunSegment: {
        DeviceCapture& segment = *plan.segments[step.index];
        if (segment.commands() > 0) segment.replay();
        for (const Plan::Fetch& f : step.fetches) {
          Tensor host = empty(f.sizes, f.dtype, Device::CPU);
          std::memcpy(host.raw_data(), f.slot, host.nbytes());
          env[f.value] = IValue(std::move(host));
        }
        break;
      }
      case Plan::Step::Kind::Host: {
        Stack args = step.fixed_args;
        for (size_t i = 0; i < args.size(); ++i)
          if (step.from_host[i]) args[i] = env[step.node->args[i].value->id];
        run_node(*step.node, std::move(args), env, nullptr, false);
        for (int id : dies_after_[step.position]) env[id] = IValue();
        break;
      }
    }
  }
  const Arg& out = graph_->outputs().at(0);
  const IValue& value = plan.output_from_host ? env[out.value->id] : plan.outputs;
  *result = materialize(value, plan.to_cpu, outputs_to_cpu, &plan.downloads);
  return true;
}

IValue GraphExecutor::run_planned(Stack& inputs, Device device, bool outputs_to_cpu, bool* done) const {
  *done = false;
  bool plannable = true;
  const std::string sig = signature_of(inputs, device, outputs_to_cpu, &plannable);
  if (!plannable) return IValue();
  DeviceBackend* backend = device_backend(Device::Vulkan);
  if (backend == nullptr || !backend->available() || !backend->replay_allowed()) return IValue();

  std::unique_lock<std::mutex> lock(plans_mutex_);
  if (unplannable_.count(sig)) return IValue();
  for (auto it = plans_.begin(); it != plans_.end(); ++it) {
    if (it->first != sig) continue;
    std::shared_ptr<Plan> plan = it->second;
    plans_.splice(plans_.begin(), plans_, it);  // most recently used first
    ++stats_.replays;
    lock.unlock();
    IValue result;
    bool replayed = false;
    {
      std::lock_guard<std::mutex> replay_lock(plan->mutex);
      replayed = replay(*plan, inputs, device, outputs_to_cpu, &result);
    }
    if (replayed) {
      *done = true;
      return result;
    }
    // The CPU part made an upload of another size (nonzero's count, say): this call and the
    // later ones with this signature run op by op.
    lock.lock();
    --stats_.replays;
    plans_.remove_if([&](const auto& entry) { return entry.second == plan; });
    unplannable_.insert(sig);
    stats_.last_fallback = "a CPU part made tensors of other sizes than when the plan was recorded";
    return IValue();
  }

  // A new signature: record it (other callers wait; recording is one run of the graph).
  auto plan = std::make_shared<Plan>();
  std::unique_ptr<DeviceCapture> first = backend->begin_capture();
  if (!first) return IValue();
  RunState state;
  state.plan = plan.get();
  state.backend = backend;
  state.segment = first.get();
  plan->segments.push_back(std::move(first));
  state.from_host.assign(graph_->value_count(), 0);
  IValue result;
  try {
    Stack moved = inputs;
    for (size_t i = 0; i < moved.size(); ++i) {
      if (!moved[i].isTensor()) continue;
      if (device == Device::CPU) {
        state.from_host[graph_->inputs().at(i)->id] = 1;  // a CPU input: new on every call
        continue;
      }
      const Tensor source = moved[i].toTensor();
      moved[i] = to_device(moved[i], device);
      Plan::Step write;
      write.kind = Plan::Step::Kind::WriteInput;
      write.index = i;
      write.bytes = source.nbytes();
      write.slot = state.segment->upload_slot(source.raw_data(), write.bytes);
      write.segment = state.segment;
      if (write.slot == nullptr && write.bytes > 0) state.fail("an input's upload was not recorded");
      plan->steps.push_back(write);
    }
    std::vector<IValue> env = bind_inputs(std::move(moved));
    run_block(graph_->top(), env, true, &state);
    const Arg& out = graph_->outputs().at(0);
    result = out.is_value() ? env[out.value->id] : out.constant;
    plan->output_from_host = out.is_value() && state.from_host[out.value->id];
    if (state.segment && state.segment->recording())
      record_downloads(result, state.to_cpu, outputs_to_cpu, *state.segment, plan->downloads);
    cut_segment(state, false);
  } catch (...) {
    // The recordings are dropped (the first run of each finishes as it goes); the error (a
    // model's raise, say) goes on.
    if (state.segment) state.segment->end();
    throw;
  }
  *done = true;
  if (!state.planning()) {
    // The work ran (a broken recording runs what it holds); this signature stays eager.
    unplannable_.insert(sig);
    stats_.last_fallback = state.data_dependent;
    ++stats_.eager_runs;
    return materialize(result, state.to_cpu, outputs_to_cpu);
  }
  plan->outputs = result;
  plan->to_cpu = std::move(state.to_cpu);
  ++stats_.plans_built;
  stats_.segments = plan->segments.size();
  stats_.host_steps = static_cast<uint64_t>(std::count_if(
      plan->steps.begin(), plan->steps.end(), [](const Plan::Step& s) { return s.kind == Plan::Step::Kind::Host; }));
  plans_.emplace_front(sig, plan);
  if (plans_.size() > kMaxPlans) plans_.pop_back();
  std::lock_guard<std::mutex> replay_lock(plan->mutex);
  lock.unlock();
  return materialize(result, plan->to_cpu, outputs_to_cpu, &plan->downloads);
}

IValue GraphExecutor::run(Stack inputs) const { return run(std::move(inputs), Device::CPU, false); }

IValue GraphExecutor::run(Stack inputs, Device device, bool outputs_to_cpu) const {
  check_inputs(inputs);  // before a plan is looked up by the inputs' signature
  if (planned_execution_enabled() && (uses_vulkan_ || device == Device::Vulkan)) {
    bool done = false;
    IValue out = run_planned(inputs, device, outputs_to_cpu, &done);
    if (done) return out;
  }
  return run_eager(std::move(inputs), device, outputs_to_cpu);
}

ExecutionStats GraphExecutor::stats() const {
  std::lock_guard<std::mutex> lock(plans_mutex_);
  return stats_;
}

}  // namespace tvk::jit
