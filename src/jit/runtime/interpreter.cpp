#include "jit/runtime/interpreter.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "core/int_math.h"
#include "core/run_scope.h"
#include "jit/runtime/builtins.h"
#include "ops/shape_utils.h"

namespace tvk::jit {

namespace {

// The payload behind make_path_ref values.
struct PathRef final : CustomClassPayload {
  explicit PathRef(std::string p) : path(std::move(p)) {}
  std::string path;
};
constexpr const char* kPathRefType = "tvk.path";

// Python builtins that code files call by bare name.
bool is_python_builtin(const std::string& name) {
  static const char* names[] = {"range", "len",  "str", "int",   "float", "bool", "isinstance", "annotate",
                                "unchecked_cast", "uninitialized", "getattr", "hasattr", "print", "min", "max",
                                "abs", "list", "tuple", "dict", "enumerate", "zip", "round", "sum", "all", "any"};
  for (const char* n : names)
    if (name == n) return true;
  return false;
}

// The number of values range(lo, hi, step) yields (step != 0), without overflow.
uint64_t range_length(int64_t lo, int64_t hi, int64_t step) {
  if (step > 0 ? lo >= hi : lo <= hi) return 0;
  const uint64_t span = step > 0 ? static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo)
                                 : static_cast<uint64_t>(lo) - static_cast<uint64_t>(hi);
  const uint64_t stride = step > 0 ? static_cast<uint64_t>(step) : uint64_t{0} - static_cast<uint64_t>(step);
  return (span - 1) / stride + 1;
}

[[noreturn]] void fail_at(const SourceLocation& loc, const std::string& what) {
  throw Error(to_string(loc) + ": " + what);
}

bool contains_tensor(const Stack& args) {
  RunScope::visit("a nested value");
  for (const IValue& a : args) {
    if (a.isTensor()) return true;
    if ((a.isList() || a.isTuple()) && contains_tensor(a.toList())) return true;
  }
  return false;
}

}  // namespace

IValue make_path_ref(const std::string& path) {
  auto obj = std::make_shared<Object>();
  obj->type_name = kPathRefType;
  obj->payload = std::make_shared<PathRef>(path);
  return IValue(obj);
}

const std::string* path_of(const IValue& v) {
  if (!v.isObject() || v.toObject()->type_name != kPathRefType) return nullptr;
  return &static_cast<const PathRef&>(*v.toObject()->payload).path;
}

bool truthy(const IValue& v) {
  if (v.isBool()) return v.toBool();
  if (v.isInt()) return v.toInt() != 0;
  if (v.isDouble()) return v.toDouble() != 0;
  if (v.isNone()) return false;
  if (v.isString()) return !v.toStringRef().empty();
  if (v.isList() || v.isTuple()) return !v.toList().empty();
  if (v.isTensor()) return v.toTensor().item() != 0;
  return true;
}

// ---- calls -----------------------------------------------------------------------------------

IValue Interpreter::call_method(const std::shared_ptr<Object>& self, const std::string& method, Stack args,
                                const Kwargs& kwargs) {
  const ClassInfo* cls = unit_.find_class(self->type_name);
  if (cls == nullptr) throw Error(detail::concat("no code for class ", self->type_name, " (method '", method, "')"));
  const FunctionDef* fn = cls->method(method);
  if (fn == nullptr) throw Error(detail::concat(self->type_name, " has no method '", method, "'"));
  args.insert(args.begin(), IValue(self));
  return call_function(*fn, self->type_name + "." + method, std::move(args), kwargs);
}

namespace {
// Nested script calls on this thread, across interpreters: the guard against recursive model
// code exhausting the C++ stack. Per thread, as the stack is, so concurrent forward() calls on
// one module do not race on it.
thread_local int t_call_depth = 0;
}  // namespace

IValue Interpreter::call_function(const FunctionDef& fn, const std::string& qualified_name, Stack args,
                                  const Kwargs& kwargs) {
  if (t_call_depth >= kMaxCallDepth)
    throw LimitError(detail::concat("call depth exceeds ", kMaxCallDepth, " in ", qualified_name, " (recursive model code?)"));
  // Model code runs under a run's limits; a call from outside any run (an internal use of the
  // interpreter) gets the default ones.
  std::optional<RunScope> default_run;
  if (RunScope::current() == nullptr) default_run.emplace(Limits{}, nullptr, qualified_name);
  RunScope::check_stack(qualified_name.c_str());
  Frame frame;
  frame.function = qualified_name;
  const auto& params = fn.params;
  if (args.size() > params.size())
    throw Error(detail::concat(qualified_name, "() takes ", params.size(), " arguments but ", args.size(),
                               " were given"));
  std::vector<bool> set(params.size(), false);
  for (size_t i = 0; i < args.size(); ++i) {
    frame.vars[params[i].name] = std::move(args[i]);
    set[i] = true;
  }
  for (const auto& [name, value] : kwargs) {
    size_t i = 0;
    while (i < params.size() && params[i].name != name) ++i;
    if (i == params.size()) throw Error(detail::concat(qualified_name, "() got an unexpected keyword argument '", name, "'"));
    frame.vars[name] = value;
    set[i] = true;
  }
  for (size_t i = 0; i < params.size(); ++i) {
    if (set[i]) continue;
    if (!params[i].default_value)
      throw Error(detail::concat(qualified_name, "() missing argument '", params[i].name, "'"));
    frame.vars[params[i].name] = eval(*params[i].default_value, frame);
  }
  ++t_call_depth;
  struct DepthGuard {
    ~DepthGuard() { --t_call_depth; }
  } guard;
  IValue result;
  exec_block(fn.body, frame, result);
  return result;
}

namespace {
// Whether the registry has any overload of `op_name` ("aten::squeeze"): an op that exists but
// whose overloads do not match the arguments is a real error, not a missing op.
bool registry_has(const std::string& op_name) {
  for (const ops::OpEntry* e : ops::Registry::global().all())
    if (e->schema.name == op_name) return true;
  return false;
}
}  // namespace

// A factory a traced model told to make a float32 tensor on the CPU (traced swin_t's mask:
// new_zeros(..., dtype=6, device=cpu)) makes it on the model's device, as optimize_for_mobile's
// move_constants has it do in optimized graphs.
void Interpreter::factory_on_model_device(const ops::OpEntry& op, Stack& bound) const {
  if (device_ == Device::CPU) return;
  const int d = ops::cpu_float_factory_device_arg(op, [&](size_t i) { return i < bound.size() ? &bound[i] : nullptr; });
  if (d >= 0) bound[static_cast<size_t>(d)] = IValue(device_);
}

IValue Interpreter::call_op(const std::string& op_name, Stack args, const Kwargs& kwargs) {
  Stack bound;
  if (recorder_) {
    Stack all = args;
    for (const auto& [k, v] : kwargs) all.push_back(v);
    if (GraphRecorder::any_dynamic(all)) {
      const ops::OpEntry* op =
          resolve_overload(op_name, args, kwargs, &bound, &GraphRecorder::matches, &GraphRecorder::matches_exactly);
      if (op == nullptr && recorder_->in_branch() && !registry_has(op_name)) {
        // An op tvk does not have, in a branch that depends on the input (both branches are
        // recorded, taken or not): the branch raises the interpreter's error if it ever runs,
        // as TorchScript fails an op only when it executes. nn.MultiheadAttention's slow path,
        // say, behind its fast path.
        recorder_->emit_raise("builtins.RuntimeError",
                              IValue(detail::concat("unknown op ", op_name, " (`tvk ops` lists the ops tvk has)")), "");
        raised_ = true;
        return IValue();
      }
      if (op == nullptr) throw UnsupportedError(detail::concat("unknown op ", op_name));
      factory_on_model_device(*op, bound);
      return recorder_->emit_op(*op, bound, "");
    }
  }
  const ops::OpEntry* op = resolve_overload(op_name, args, kwargs, &bound);
  if (op == nullptr) throw UnsupportedError(detail::concat("unknown op ", op_name, " (`tvk ops` lists the ops tvk has)"));
  if (op_counts_) ++(*op_counts_)[op->schema.full_name()];
  factory_on_model_device(*op, bound);
  const bool had_tensors = contains_tensor(bound);
  IValue out = ops::call(*op, std::move(bound));
  // Factories (torch.zeros(...), no tensor inputs) make CPU tensors; a Vulkan model wants its
  // float ones where its other tensors live. Integer and bool ones (prim::NumToTensor of a size,
  // torch.arange, masks) stay on the CPU with the size arithmetic and selection they feed.
  if (device_ != Device::CPU && !had_tensors && !(out.isTensor() && out.toTensor().dtype() != DType::Float32))
    out = to_device(out, device_);
  return out;
}

namespace {
// A dynamic value that is a tensor, or of unknown type (an element of a list the model was given:
// prim.dtype and prim.device take tensors only, so such a value is one).
bool is_tensor_like(const IValue& v) {
  const Value* d = GraphRecorder::value_of(v);
  return d && (d->type == ValueType::Tensor || d->type == ValueType::Any);
}
}  // namespace

bool Interpreter::builtin(const std::string& path, Stack& args, const Kwargs& kwargs, IValue* result,
                          const SourceLocation& loc) {
  // tvk has no nested tensors and no CUDA tensors, so x.is_nested and x.is_cuda are False for
  // every tensor, also while freezing (nn.MultiheadAttention asks before choosing its path).
  if ((path == "ops.prim.is_nested" || path == "ops.prim.is_cuda") && args.size() == 1 && kwargs.empty()) {
    *result = IValue(false);
    return true;
  }
  // Nor autocast: models that ask (nn.MultiheadAttention) run in their own precision.
  if ((path == "torch.is_autocast_enabled" || path == "ops.aten.is_autocast_enabled") && args.empty()) {
    *result = IValue(false);
    return true;
  }
  // Nor autograd: tvk runs inference, so gradients are never enabled nor required.
  if ((path == "torch.is_grad_enabled" && args.empty()) ||
      (path == "ops.prim.requires_grad" && args.size() == 1 && kwargs.empty())) {
    *result = IValue(false);
    return true;
  }
  // While freezing, every tensor's device is the CPU's, the module's weights included (see the
  // input case below): a fast-path check that asks both the input's and the weights' devices
  // (nn.TransformerEncoderLayer's) must see one answer.
  if (recorder_ && path == "ops.prim.device" && args.size() == 1 && args[0].isTensor() &&
      !GraphRecorder::value_of(args[0])) {
    *result = IValue(Device::CPU);
    return true;
  }
  if (recorder_ && GraphRecorder::any_dynamic(args)) {
    // The dtype of an input tensor while freezing: float32, the only dtype Vulkan kernels
    // compute in, so what an optimized model is frozen for (nn.MultiheadAttention compares
    // its input's dtype with its weights' to choose its path).
    if (path == "ops.prim.dtype" && args.size() == 1 && is_tensor_like(args[0])) {
      // An input the graph is frozen for gives its dtype (a bool mask, int64 token ids).
      const Value* v = GraphRecorder::value_of(args[0]);
      *result = IValue(v->dtype ? ops::dtype_code(*v->dtype) : int64_t{6});  // 6: float32's ScalarType code
      return true;
    }
    const std::string name = builtin_table_name(path);
    if (name.empty() || !kwargs.empty()) return false;
    // A list the code builds (densenet's `features = [x]` then `features.append(y)`): its
    // structure is known while freezing, only its elements are the model's values, so it grows
    // here and reaches the graph as the list its users get. Not inside a branch, which is
    // recorded whether or not it runs.
    // Likewise a dict the code fills under known keys (torchvision's IntermediateLayerGetter and
    // segmentation heads: `out["out"] = x`).
    const bool list_grows = (name == "append" || name == "extend") && !args.empty() && args[0].isList() &&
                            !GraphRecorder::value_of(args[0]);
    // Merges and edits of such dicts under known keys (update, setdefault, pop, copy, clear:
    // torchvision's detectors merge their loss dicts) run here too.
    static const std::set<std::string> kDictEdits = {"_set_item", "update", "setdefault", "pop", "copy", "clear"};
    const bool dict_fills = kDictEdits.count(name) && !args.empty() && args[0].isDict() &&
                            !GraphRecorder::value_of(args[0]) &&
                            (args.size() < 2 || args[1].isDict() || !GraphRecorder::is_dynamic(args[1]));
    if (list_grows || dict_fills) {
      if (recorder_->in_branch())
        fail_at(loc, list_grows ? "the model appends to a list in an if statement that depends on its input, which "
                                  "the optimizer cannot freeze"
                                : "the model fills a dict in an if statement that depends on its input, which the "
                                  "optimizer cannot freeze");
      return call_builtin(path, args, kwargs, result);
    }
    // The device of an input tensor while freezing: the CPU, where freezing runs. Models ask it
    // to choose a path (nn.MultiheadAttention's fast path needs CPU or CUDA tensors; tvk's
    // kernel for it runs on Vulkan too). A model that makes new tensors on its input's device
    // would get CPU tensors in a Vulkan graph; none of torchvision's classifiers does.
    if (path == "ops.prim.device" && args.size() == 1 && is_tensor_like(args[0])) {
      *result = IValue(Device::CPU);
      return true;
    }
    // `x is y` / `x is not None` on the model's tensors: decided while freezing, by graph value
    // (the same value is the same tensor; a tensor is never None). nn.MultiheadAttention asks
    // whether query, key and value are one tensor to choose its path.
    if ((name == "__is__" || name == "__isnot__") && args.size() == 2) {
      const Value* a = GraphRecorder::value_of(args[0]);
      const Value* b = GraphRecorder::value_of(args[1]);
      // Except a branch's result, which one branch may leave None (nn.TransformerEncoder's
      // padding mask for its layers): asked when the graph runs.
      auto from_branch = [](const Value* v) {
        return v && v->producer && v->producer->kind == NodeKind::If;
      };
      if ((from_branch(a) && args[1].isNone()) || (from_branch(b) && args[0].isNone())) {
        *result = recorder_->emit_builtin(name, {args[0], args[1]}, to_string(loc));
        return true;
      }
      const bool same = (a || b) ? a == b : args[0].is(args[1]);
      *result = IValue(name == "__is__" ? same : !same);
      return true;
    }
    // An element of a list or tuple whose structure is known (a multi-output op's results,
    // packed by the model and read back): the element itself, no node.
    if (name == "__getitem__" && args.size() == 2 && (args[0].isList() || args[0].isTuple()) &&
        !GraphRecorder::value_of(args[0]) && args[1].isInt()) {
      const List& items = args[0].toList();
      int64_t i = args[1].toInt();
      if (i < 0) i += static_cast<int64_t>(items.size());
      if (i < 0 || i >= static_cast<int64_t>(items.size())) fail_at(loc, "list index out of range");
      *result = items[static_cast<size_t>(i)];
      return true;
    }
    // A value of a dict whose structure is known, under a known key: the value itself.
    if (name == "__getitem__" && args.size() == 2 && args[0].isDict() && !GraphRecorder::value_of(args[0]) &&
        !GraphRecorder::is_dynamic(args[1])) {
      const IValue* v = args[0].toDict()->find(args[1]);
      if (!v) fail_at(loc, "KeyError: " + python_str(args[1]));
      *result = *v;
      return true;
    }
    // A list the graph makes or was given (one a loop over the input's size grows, an element
    // replaced in a list of images): the change is a node.
    const bool grows_dynamic_list =
        (name == "append" || name == "extend" || name == "insert" || name == "_set_item") && !args.empty() &&
        GraphRecorder::value_of(args[0]) &&
        (GraphRecorder::value_of(args[0])->type == ValueType::List || GraphRecorder::value_of(args[0])->type == ValueType::Any);
    if (grows_dynamic_list) {
      *result = recorder_->emit_builtin(name, args, to_string(loc));
      return true;
    }
    // Tensors go to registered ops (torch.add(t, u) is aten::add), not to the scalar builtins.
    for (const IValue& a : args) {
      const Value* v = GraphRecorder::value_of(a);
      if (a.isTensor() || (v && v->type == ValueType::Tensor)) return false;
    }
    *result = recorder_->emit_builtin(name, args, to_string(loc));
    return true;
  }
  return call_builtin(path, args, kwargs, result);
}

bool Interpreter::condition(const IValue& value, const SourceLocation& loc) {
  if (recorder_ && GraphRecorder::is_dynamic(value))
    fail_at(loc, "this condition depends on the model's input, which the optimizer can only freeze in an if "
                 "statement");
  return truthy(value);
}

namespace {
// Whether `v` is, or (while freezing) stands for, a value of type `type`.
bool has_type(const IValue& v, ValueType type) {
  if (const Value* dyn = GraphRecorder::value_of(v)) return dyn->type == type;
  switch (type) {
    case ValueType::Tensor: return v.isTensor();
    case ValueType::Int: return v.isInt();
    case ValueType::Float: return v.isDouble();
    case ValueType::Bool: return v.isBool();
    case ValueType::None: return v.isNone();
    default: return false;
  }
}

// An op whose meaning changed after archives of format `version` were written, called as that
// version meant it: PyTorch's operator upgraders (torch/csrc/jit/operator_upgraders), which
// torch applies when it loads such archives. Integer tensor division rounded toward zero up to
// version 3 (div_Tensor_0_3, div_Scalar_0_3); full with an int or bool fill and no dtype made
// floats up to version 4 (full_0_4). The op to call instead and its keyword arguments, or
// nothing where the call means today what it meant then.
std::optional<std::pair<std::string, Kwargs>> upgraded_call(int64_t version, const std::string& path, Stack& args,
                                                            const Kwargs& kwargs) {
  const bool aten = path.rfind("torch.", 0) == 0 || path.rfind("ops.aten.", 0) == 0;
  if (!aten) return std::nullopt;
  const std::string name = path.substr(path.rfind('.') + 1);
  if (name == "div" && version <= 3 && args.size() == 2 && kwargs.empty() && has_type(args[0], ValueType::Tensor) &&
      (has_type(args[1], ValueType::Tensor) || has_type(args[1], ValueType::Int)))
    return std::make_pair(std::string("tvk::legacy_div"), Kwargs{});
  if (name == "full" && version <= 4 && args.size() >= 2 &&
      (has_type(args[1], ValueType::Int) || has_type(args[1], ValueType::Bool))) {
    constexpr int64_t kFloat32 = 6;  // ScalarType code
    if (args.size() > 2) {
      if (!args[2].isNone()) return std::nullopt;
      args[2] = IValue(kFloat32);
      return std::make_pair(std::string("aten::full"), kwargs);
    }
    Kwargs upgraded = kwargs;
    bool has_dtype = false;
    for (auto& [key, value] : upgraded) {
      if (key != "dtype") continue;
      has_dtype = true;
      if (!value.isNone()) return std::nullopt;
      value = IValue(kFloat32);
    }
    if (!has_dtype) upgraded.emplace_back("dtype", IValue(kFloat32));
    return std::make_pair(std::string("aten::full"), std::move(upgraded));
  }
  return std::nullopt;
}
}  // namespace

IValue Interpreter::call_path(const std::string& path, Stack args, const Kwargs& kwargs, const SourceLocation& loc) {
  if (unit_.format_version <= 4)
    if (auto upgraded = upgraded_call(unit_.format_version, path, args, kwargs))
      return call_op(upgraded->first, std::move(args), upgraded->second);
  // Older printers' forms of unchecked_cast(T, x) on an Optional (PyTorch 1.3-1.5 archives).
  if (path == "ops.prim.unchecked_unwrap_optional" || path == "torch._unwrap_optional") {
    if (args.size() != 1 || !kwargs.empty()) fail_at(loc, path + "() takes one argument");
    if (args[0].isNone()) fail_at(loc, path + "(): the Optional is None");
    return args[0];
  }
  if (recorder_ && path == "ops.prim.RaiseException") {
    // Freezing: the raise becomes a node; the block it ends stops here.
    const IValue message = args.empty() ? IValue(std::string()) : args[0];
    const std::string cls = args.size() > 1 && args[1].isString() ? args[1].toStringRef() : "builtins.Exception";
    recorder_->emit_raise(cls, message, to_string(loc));
    raised_ = true;
    return IValue();
  }
  if (const FunctionDef* fn = unit_.find_function(path)) return call_function(*fn, path, std::move(args), kwargs);
  // An empty object of a script class.
  auto new_object = [](const std::string& class_name, const ClassInfo& cls) {
    auto obj = std::make_shared<Object>();
    obj->type_name = class_name;
    obj->named_tuple = cls.is_named_tuple;
    return obj;
  };
  if (const ClassInfo* cls = unit_.find_class(path)) {
    // Constructing a script class (NamedTuple-like or with __init__).
    auto obj = new_object(path, *cls);
    if (const FunctionDef* init = cls->method("__init__")) {
      args.insert(args.begin(), IValue(obj));
      call_function(*init, path + ".__init__", std::move(args), kwargs);
    } else {
      for (size_t i = 0; i < args.size() && i < cls->declared.size(); ++i) obj->set(cls->declared[i], args[i]);
      for (const auto& [k, v] : kwargs) obj->set(k, v);
    }
    return IValue(obj);
  }
  // The printer's form of constructing a script class: `C.__new__(C)`, then `(obj).__init__(...)`.
  if (path.size() > 8 && path.compare(path.size() - 8, 8, ".__new__") == 0) {
    const std::string class_name = path.substr(0, path.size() - 8);
    if (const ClassInfo* cls = unit_.find_class(class_name)) return IValue(new_object(class_name, *cls));
  }
  if (path == "range" || path == "builtins.range") {
    if (args.empty() || args.size() > 3) fail_at(loc, "range() takes 1 to 3 arguments");
    if (recorder_)
      for (const IValue& a : args)
        if (GraphRecorder::is_dynamic(a))
          fail_at(loc, "a loop whose length depends on the model's input (a list argument's length, a tensor's "
                       "value): the optimizer freezes loops of fixed length only; run the model unoptimized");
    const int64_t lo = args.size() > 1 ? args[0].toInt() : 0;
    const int64_t hi = args.size() > 1 ? args[1].toInt() : args[0].toInt();
    const int64_t step = args.size() > 2 ? args[2].toInt() : 1;
    if (step == 0) fail_at(loc, "range() arg 3 must not be zero");
    const uint64_t n = range_length(lo, hi, step);
    if (n > UINT64_MAX / sizeof(IValue)) fail_at(loc, "range() too long");
    RunScope::charge_value(n * sizeof(IValue), "range()");
    List items;
    items.reserve(n);
    for (uint64_t k = 0; k < n; ++k) items.emplace_back(wrapping_add(lo, wrapping_mul(static_cast<int64_t>(k), step)));
    return IValue::list(std::move(items));
  }
  if (path == "getattr" || path == "hasattr") {
    if (args.size() < 2 || !args[0].isObject() || !args[1].isString()) fail_at(loc, path + "() needs an object and a name");
    IValue* v = args[0].toObject()->find(args[1].toStringRef());
    if (path == "hasattr") return IValue(v != nullptr);
    if (v) return *v;
    if (args.size() > 2) return args[2];
    return get_attr(args[0].toObject(), args[1].toStringRef());
  }
  if (path == "tuple" && args.size() == 1) return IValue::tuple(args[0].toList());
  if (path == "enumerate" && args.size() == 1) {
    List items;
    int64_t i = 0;
    for (const IValue& v : args[0].toList()) {
      List pair;
      pair.emplace_back(i++);
      pair.push_back(v);
      items.push_back(IValue::tuple(std::move(pair)));
    }
    return IValue::list(std::move(items));
  }
  if (path == "zip" && args.size() >= 2) {
    size_t n = std::numeric_limits<size_t>::max();
    for (const IValue& a : args) n = std::min(n, a.toList().size());
    List items;
    for (size_t i = 0; i < n; ++i) {
      List row;
      for (const IValue& a : args) row.push_back(a.toList()[i]);
      items.push_back(IValue::tuple(std::move(row)));
    }
    return IValue::list(std::move(items));
  }
  IValue result;
  if (builtin(path, args, kwargs, &result, loc)) return result;
  // Registered ops: torch.X -> aten::X, ops.NS.X -> NS::X.
  std::string op_name;
  if (path.rfind("torch.", 0) == 0 && path.find('.', 6) == std::string::npos) op_name = "aten::" + path.substr(6);
  else if (path.rfind("ops.", 0) == 0) {
    const size_t dot = path.find('.', 4);
    if (dot != std::string::npos) op_name = path.substr(4, dot - 4) + "::" + path.substr(dot + 1);
  } else if (path.rfind("torch.nn.functional.", 0) == 0 || path.rfind("torch._C._nn.", 0) == 0) {
    op_name = "aten::" + path.substr(path.rfind('.') + 1);
  } else if (path == "float" || path == "int") {
    // float(t) / int(t) of a tensor being frozen: the op TorchScript itself emits for them.
    op_name = path == "float" ? "aten::Float" : "aten::Int";
  }
  if (op_name.empty()) fail_at(loc, "unknown function " + path);
  try {
    return call_op(op_name, std::move(args), kwargs);
  } catch (const ScriptException&) {
    throw;
  } catch (const Error& e) {
    rethrow_with_context(e, to_string(loc));  // the location added, the type kept
  }
}

IValue Interpreter::call_value(const IValue& callee, Stack args, const Kwargs& kwargs, const SourceLocation& loc) {
  if (const std::string* path = path_of(callee)) return call_path(*path, std::move(args), kwargs, loc);
  fail_at(loc, std::string("a value of type ") + callee.tag_name() + " is not callable");
}

// ---- attributes --------------------------------------------------------------------------------

IValue Interpreter::class_constant(const ClassInfo& cls, const std::string& name) {
  auto it = cls.constants.find(name);
  if (it == cls.constants.end())
    throw Error(detail::concat("object of type ", cls.qualified_name, " has no attribute '", name, "'"));
  Frame scratch;
  scratch.function = cls.qualified_name;
  return eval(*it->second, scratch);
}

IValue Interpreter::get_attr(const std::shared_ptr<Object>& self, const std::string& name) {
  if (IValue* v = self->find(name)) return *v;
  const ClassInfo* cls = unit_.find_class(self->type_name);
  if (cls == nullptr) throw Error(detail::concat("object of type ", self->type_name, " has no attribute '", name, "'"));
  if (cls->method(name)) return make_path_ref(self->type_name + "." + name);
  return class_constant(*cls, name);
}

// ---- statements --------------------------------------------------------------------------------

Interpreter::Flow Interpreter::exec_block(const Block& block, Frame& frame, IValue& result) {
  for (const StmtPtr& stmt : block) {
    Flow flow = exec(*stmt, frame, result);
    if (raised_) return Flow::Raised;
    if (flow != Flow::Normal) return flow;
  }
  return Flow::Normal;
}

void Interpreter::step(const SourceLocation& loc) {
  if (RunScope* run = RunScope::current(); run != nullptr && !run->step())
    throw LimitError(to_string(loc) + ": " + run->why());
}

Interpreter::Flow Interpreter::exec(const Stmt& stmt, Frame& frame, IValue& result) {
  step(stmt.loc);
  switch (stmt.kind) {
    case StmtKind::Expr:
      eval(*stmt.as<ExprStmt>().value, frame);
      return Flow::Normal;
    case StmtKind::Assign: {
      const auto& s = stmt.as<AssignStmt>();
      IValue value = eval(*s.value, frame);
      for (const ExprPtr& target : s.targets) assign(*target, value, frame);
      return Flow::Normal;
    }
    case StmtKind::AnnAssign: {
      const auto& s = stmt.as<AnnAssignStmt>();
      if (s.value) assign(*s.target, eval(*s.value, frame), frame);
      return Flow::Normal;
    }
    case StmtKind::AugAssign: {
      const auto& s = stmt.as<AugAssignStmt>();
      assign(*s.target, eval_binary(s.op, eval(*s.target, frame), eval(*s.value, frame)), frame);
      return Flow::Normal;
    }
    case StmtKind::If: {
      const auto& s = stmt.as<IfStmt>();
      IValue cond = eval(*s.test, frame);
      if (recorder_ && GraphRecorder::is_dynamic(cond)) return exec_dynamic_if(s, cond, frame, result);
      return exec_block(truthy(cond) ? s.body : s.orelse, frame, result);
    }
    case StmtKind::For: {
      const auto& s = stmt.as<ForStmt>();
      if (recorder_ && s.iter->is<CallExpr>() && s.iter->as<CallExpr>().func->is<NameExpr>() &&
          s.iter->as<CallExpr>().func->as<NameExpr>().id == "range" && s.iter->as<CallExpr>().keywords.empty()) {
        // range(n) of an input's size while freezing: a Loop node, not an unrolled loop.
        const auto& call = s.iter->as<CallExpr>();
        Stack bounds;
        for (const ExprPtr& a : call.args) bounds.push_back(eval(*a, frame));
        if (GraphRecorder::any_dynamic(bounds)) {
          if (bounds.empty() || bounds.size() > 3) fail_at(s.loc, "range() takes 1 to 3 arguments");
          const IValue lo = bounds.size() > 1 ? bounds[0] : IValue(int64_t{0});
          const IValue hi = bounds.size() > 1 ? bounds[1] : bounds[0];
          const IValue step = bounds.size() > 2 ? bounds[2] : IValue(int64_t{1});
          const std::string where = to_string(s.loc);
          const IValue trip = recorder_->emit_builtin("__range_length", {lo, hi, step}, where);
          const bool plain = !GraphRecorder::is_dynamic(lo) && !GraphRecorder::is_dynamic(step) && lo.isInt() &&
                             step.isInt() && lo.toInt() == 0 && step.toInt() == 1;
          return exec_dynamic_for(s, trip, [&](const IValue& i) {
            return plain ? i : recorder_->emit_builtin("__derive_index", {i, lo, step}, where);
          }, frame, result);
        }
        if (bounds.empty() || bounds.size() > 3) fail_at(s.loc, "range() takes 1 to 3 arguments");
        return exec_range_for(s, bounds, frame, result);
      }
      if (!recorder_ && s.iter->is<CallExpr>() && s.iter->as<CallExpr>().func->is<NameExpr>() &&
          s.iter->as<CallExpr>().func->as<NameExpr>().id == "range" && s.iter->as<CallExpr>().keywords.empty() &&
          !s.iter->as<CallExpr>().args.empty() && s.iter->as<CallExpr>().args.size() <= 3) {
        Stack bounds;
        for (const ExprPtr& a : s.iter->as<CallExpr>().args) bounds.push_back(eval(*a, frame));
        return exec_range_for(s, bounds, frame, result);
      }
      IValue iter = eval(*s.iter, frame);
      if (recorder_ && GraphRecorder::value_of(iter)) {
        // A list of unknown length (x.size() of an input of unknown rank): len() times.
        const Value* v = GraphRecorder::value_of(iter);
        if (v->type != ValueType::List && v->type != ValueType::Any)
          fail_at(s.loc, "the optimizer cannot freeze a loop over a value that depends on the model's input");
        const std::string where = to_string(s.loc);
        const IValue trip = recorder_->emit_builtin("len", {iter}, where);
        return exec_dynamic_for(s, trip, [&](const IValue& i) {
          return recorder_->emit_builtin("__getitem__", {iter, i}, where);
        }, frame, result);
      }
      return exec_static_for(s, iter, frame, result);
    }
    case StmtKind::While: {
      const auto& s = stmt.as<WhileStmt>();
      // Each test is a step: the run's step budget bounds every loop, nested or not.
      while (step(s.loc), condition(eval(*s.test, frame), s.loc)) {
        Flow flow = exec_block(s.body, frame, result);
        if (flow == Flow::Break) break;
        if (flow == Flow::Return) return flow;
      }
      return Flow::Normal;
    }
    case StmtKind::Return: {
      const auto& s = stmt.as<ReturnStmt>();
      result = s.value ? eval(*s.value, frame) : IValue();
      return Flow::Return;
    }
    case StmtKind::Raise: {
      const auto& s = stmt.as<RaiseStmt>();
      std::string message = "Exception";
      if (s.exception) {
        IValue e = eval(*s.exception, frame);
        message = python_str(e);
      }
      throw ScriptException("builtins.Exception", message);
    }
    case StmtKind::Assert: {
      const auto& s = stmt.as<AssertStmt>();
      IValue test = eval(*s.test, frame);
      if (recorder_ && GraphRecorder::is_dynamic(test)) {
        // assert c, m  ==  if c: pass else: raise AssertionError(m)
        Node* node = recorder_->begin_if(test, to_string(s.loc));
        recorder_->enter(node->blocks[1].get());
        recorder_->emit_raise("builtins.AssertionError", s.message ? eval(*s.message, frame) : IValue("AssertionError"),
                              to_string(s.loc));
        recorder_->leave();
        return Flow::Normal;
      }
      if (!truthy(test))
        throw ScriptException("builtins.AssertionError",
                              s.message ? python_str(eval(*s.message, frame)) : "AssertionError");
      return Flow::Normal;
    }
    case StmtKind::Pass:
      return Flow::Normal;
    case StmtKind::Break:
      return Flow::Break;
    case StmtKind::Continue:
      return Flow::Continue;
    case StmtKind::Delete:
      for (const ExprPtr& t : stmt.as<DeleteStmt>().targets)
        if (t->is<NameExpr>()) frame.vars.erase(t->as<NameExpr>().id);
      return Flow::Normal;
    case StmtKind::Import:
    case StmtKind::Global:
      return Flow::Normal;
    default:
      fail_at(stmt.loc, "this statement is not supported inside a function");
  }
}

// for i in range(...) with known bounds: counted, never made into a list.
Interpreter::Flow Interpreter::exec_range_for(const ForStmt& s, const Stack& bounds, Frame& frame, IValue& result) {
  const int64_t lo = bounds.size() > 1 ? bounds[0].toInt() : 0;
  const int64_t hi = bounds.size() > 1 ? bounds[1].toInt() : bounds[0].toInt();
  const int64_t stride = bounds.size() > 2 ? bounds[2].toInt() : 1;
  if (stride == 0) fail_at(s.loc, "range() arg 3 must not be zero");
  const uint64_t n = range_length(lo, hi, stride);
  for (uint64_t k = 0; k < n; ++k) {
    assign(*s.target, IValue(wrapping_add(lo, wrapping_mul(static_cast<int64_t>(k), stride))), frame);
    Flow flow = exec_block(s.body, frame, result);
    if (flow == Flow::Break) break;
    if (flow == Flow::Return || flow == Flow::Raised) return flow;
  }
  return Flow::Normal;
}

Interpreter::Flow Interpreter::exec_static_for(const ForStmt& s, const IValue& iter, Frame& frame, IValue& result) {
  List items;
  if (iter.isList() || iter.isTuple()) items = iter.toList();
  else if (iter.isDict()) for (auto& [k, v] : iter.toDict()->items) items.push_back(k);
  else if (iter.isTensor()) {
    const Tensor& t = iter.toTensor();
    TVK_CHECK(t.dim() > 0, to_string(s.loc), ": iteration over a 0-d tensor");
    for (int64_t i = 0; i < t.size(0); ++i) items.push_back(call_op("aten::select", {t, int64_t{0}, i}, {}));
  } else fail_at(s.loc, std::string("cannot iterate over a value of type ") + iter.tag_name());
  for (IValue& item : items) {
    assign(*s.target, std::move(item), frame);
    Flow flow = exec_block(s.body, frame, result);
    if (flow == Flow::Break) break;
    if (flow == Flow::Return) return flow;
  }
  return Flow::Normal;
}

void Interpreter::assign(const Expr& target, IValue value, Frame& frame) {
  switch (target.kind) {
    case ExprKind::Name:
      frame.vars[target.as<NameExpr>().id] = std::move(value);
      return;
    case ExprKind::Tuple:
    case ExprKind::List: {
      const auto& elements = target.is<TupleExpr>() ? target.as<TupleExpr>().elements : target.as<ListExpr>().elements;
      if (recorder_ && GraphRecorder::value_of(value)) {
        for (size_t i = 0; i < elements.size(); ++i)
          assign(*elements[i], recorder_->emit_tuple_index(value, static_cast<int64_t>(i)), frame);
        return;
      }
      if (!value.isTuple() && !value.isList()) fail_at(target.loc, std::string("cannot unpack a ") + value.tag_name());
      const List items = value.toList();
      if (items.size() != elements.size())
        fail_at(target.loc, detail::concat("expected ", elements.size(), " values to unpack, got ", items.size()));
      for (size_t i = 0; i < items.size(); ++i) assign(*elements[i], items[i], frame);
      return;
    }
    case ExprKind::Attribute: {
      const auto& a = target.as<AttributeExpr>();
      IValue obj = eval(*a.value, frame);
      if (!obj.isObject()) fail_at(target.loc, std::string("cannot set an attribute on a ") + obj.tag_name());
      if (forbid_attribute_writes_) fail_at(target.loc, "the method assigns attribute '" + a.attr + "'");
      obj.toObject()->set(a.attr, std::move(value));
      return;
    }
    case ExprKind::Subscript: {
      const auto& s = target.as<SubscriptExpr>();
      IValue container = eval(*s.value, frame);
      if (s.indices.size() != 1) fail_at(target.loc, "multi-index assignment is not supported");
      Stack args{container, eval(*s.indices[0], frame), value};
      IValue ignored;
      if (!builtin("_set_item", args, {}, &ignored, target.loc))
        fail_at(target.loc, std::string("cannot assign into a ") + container.tag_name());
      return;
    }
    default:
      fail_at(target.loc, "invalid assignment target");
  }
}

// ---- expressions -------------------------------------------------------------------------------

IValue Interpreter::eval(const Expr& expr, Frame& frame) {
  RunScope::check_stack("an expression");
  switch (expr.kind) {
    case ExprKind::Name:
      return eval_name(expr.as<NameExpr>(), frame);
    case ExprKind::Constant: {
      const auto& c = expr.as<ConstantExpr>();
      switch (c.type) {
        case ConstantExpr::Type::None: return IValue();
        case ConstantExpr::Type::Bool: return IValue(c.bool_value);
        case ConstantExpr::Type::Int: return IValue(c.int_value);
        case ConstantExpr::Type::Float: return IValue(c.float_value);
        case ConstantExpr::Type::String: return IValue(c.string_value);
        default: fail_at(expr.loc, "unsupported constant");
      }
    }
    case ExprKind::Attribute:
      return eval_attribute(expr.as<AttributeExpr>(), frame);
    case ExprKind::Subscript:
      return eval_subscript(expr.as<SubscriptExpr>(), frame);
    case ExprKind::Call:
      return eval_call(expr.as<CallExpr>(), frame);
    case ExprKind::Tuple: {
      List items;
      for (const ExprPtr& e : expr.as<TupleExpr>().elements) items.push_back(eval(*e, frame));
      return IValue::tuple(std::move(items));
    }
    case ExprKind::List: {
      List items;
      for (const ExprPtr& e : expr.as<ListExpr>().elements) items.push_back(eval(*e, frame));
      return IValue::list(std::move(items));
    }
    case ExprKind::Dict: {
      const auto& d = expr.as<DictExpr>();
      auto dict = std::make_shared<Dict>();
      for (size_t i = 0; i < d.keys.size(); ++i) dict->set(eval(*d.keys[i], frame), eval(*d.values[i], frame));
      return IValue(dict);
    }
    case ExprKind::Unary: {
      const auto& u = expr.as<UnaryExpr>();
      IValue v = eval(*u.operand, frame);
      if (recorder_ && GraphRecorder::value_of(v) && u.op != UnaryOp::Pos) {
        if (GraphRecorder::value_of(v)->type == ValueType::Tensor) return call_op("aten::neg", {v}, {});
        Stack args{v};
        return recorder_->emit_builtin(u.op == UnaryOp::Not ? "__not__" : "neg", args, to_string(expr.loc));
      }
      if (u.op == UnaryOp::Not) return IValue(!truthy(v));
      if (u.op == UnaryOp::Pos) return v;
      if (u.op == UnaryOp::Neg) {
        if (v.isInt()) return IValue(wrapping_negate(v.toInt()));
        if (v.isDouble()) return IValue(-v.toDouble());
        return call_op("aten::neg", {v}, {});
      }
      if (v.isInt()) return IValue(~v.toInt());
      fail_at(expr.loc, "~ needs an int");
    }
    case ExprKind::Binary: {
      const auto& b = expr.as<BinaryExpr>();
      return eval_binary(b.op, eval(*b.left, frame), eval(*b.right, frame));
    }
    case ExprKind::Compare: {
      const auto& c = expr.as<CompareExpr>();
      IValue left = eval(*c.left, frame);
      if (recorder_ && c.ops.size() == 1) {
        IValue right = eval(*c.comparators[0], frame);
        if (GraphRecorder::is_dynamic(left) || GraphRecorder::is_dynamic(right)) {
          static const char* names[] = {"eq", "ne", "lt", "le", "gt", "ge", "__is__", "__isnot__"};
          const int op = static_cast<int>(c.ops[0]);
          if (op >= 8) fail_at(expr.loc, "'in' on values that depend on the model's input cannot be frozen");
          Stack args{left, right};
          return recorder_->emit_builtin(names[op], args, to_string(expr.loc));
        }
        return IValue(eval_compare(c.ops[0], left, right));
      }
      for (size_t i = 0; i < c.ops.size(); ++i) {
        IValue right = eval(*c.comparators[i], frame);
        if (!eval_compare(c.ops[i], left, right)) return IValue(false);
        left = std::move(right);
      }
      return IValue(true);
    }
    case ExprKind::BoolOp: {
      const auto& b = expr.as<BoolOpExpr>();
      IValue v;
      if (recorder_) {
        Stack values;
        for (const ExprPtr& e : b.values) values.push_back(eval(*e, frame));
        if (GraphRecorder::any_dynamic(values)) {
          IValue acc = values[0];
          for (size_t i = 1; i < values.size(); ++i) {
            Stack pair{acc, values[i]};
            acc = recorder_->emit_builtin(b.op == BoolOp::And ? "__and__" : "__or__", pair, to_string(expr.loc));
          }
          return acc;
        }
      }
      for (const ExprPtr& e : b.values) {
        v = eval(*e, frame);
        if (b.op == BoolOp::And ? !truthy(v) : truthy(v)) return v;
      }
      return v;
    }
    case ExprKind::IfExp: {
      const auto& e = expr.as<IfExpExpr>();
      return condition(eval(*e.test, frame), e.loc) ? eval(*e.body, frame) : eval(*e.orelse, frame);
    }
    case ExprKind::ListComp: {
      const auto& c = expr.as<ListCompExpr>();
      IValue iter = eval(*c.iter, frame);
      List out;
      for (const IValue& item : iter.toList()) {
        assign(*c.target, item, frame);
        out.push_back(eval(*c.element, frame));
      }
      return IValue::list(std::move(out));
    }
    default:
      fail_at(expr.loc, "this expression is not supported");
  }
}

IValue Interpreter::eval_name(const NameExpr& name, Frame& frame) {
  auto it = frame.vars.find(name.id);
  if (it != frame.vars.end()) return it->second;
  if (name.id == "inf") return IValue(std::numeric_limits<double>::infinity());
  if (name.id == "nan") return IValue(std::numeric_limits<double>::quiet_NaN());
  if (name.id == "torch" || name.id == "ops" || name.id == "__torch__" || name.id == "CONSTANTS" ||
      name.id == "math" || name.id == "builtins" || is_python_builtin(name.id))
    return make_path_ref(name.id);
  fail_at(name.loc, "name '" + name.id + "' is not defined in " + frame.function);
}

IValue Interpreter::eval_attribute(const AttributeExpr& attr, Frame& frame) {
  IValue base = eval(*attr.value, frame);
  if (const std::string* path = path_of(base)) {
    if (*path == "CONSTANTS") {
      if (attr.attr.size() < 2 || attr.attr[0] != 'c') fail_at(attr.loc, "bad constant name " + attr.attr);
      const size_t index = std::strtoull(attr.attr.c_str() + 1, nullptr, 10);
      if (index >= unit_.constants.size())
        fail_at(attr.loc, detail::concat("CONSTANTS.", attr.attr, " does not exist (the archive has ",
                                         unit_.constants.size(), " constants)"));
      return unit_.constants[index];
    }
    return make_path_ref(*path + "." + attr.attr);
  }
  if (base.isObject()) {
    try {
      return get_attr(base.toObject(), attr.attr);
    } catch (const Error& e) {
      rethrow_with_context(e, to_string(attr.loc));
    }
  }
  if (GraphRecorder::value_of(base))
    fail_at(attr.loc, "the optimizer cannot freeze attribute '" + attr.attr + "' of a value that depends on the input");
  if (base.isTensor()) {
    const Tensor& t = base.toTensor();
    if (attr.attr == "shape") return IValue(t.sizes());
    if (attr.attr == "is_cuda") return IValue(false);
    if (attr.attr == "device") return IValue(t.device());
  }
  fail_at(attr.loc, std::string("a value of type ") + base.tag_name() + " has no attribute '" + attr.attr + "'");
}

IValue Interpreter::eval_subscript(const SubscriptExpr& sub, Frame& frame) {
  IValue base = eval(*sub.value, frame);
  if (sub.indices.size() != 1) fail_at(sub.loc, "multi-dimensional subscripts are not supported here");
  const Expr& index_expr = *sub.indices[0];
  if (index_expr.is<SliceExpr>()) {
    const auto& s = index_expr.as<SliceExpr>();
    if (!base.isList() && !base.isTuple() && !base.isString()) fail_at(sub.loc, "slicing needs a list, tuple or str");
    const int64_t n = base.isString() ? static_cast<int64_t>(base.toStringRef().size())
                                      : static_cast<int64_t>(base.toList().size());
    auto bound = [&](const ExprPtr& e, int64_t dflt) {
      if (!e) return dflt;
      int64_t v = eval(*e, frame).toInt();
      if (v < 0) v += n;
      return std::clamp<int64_t>(v, 0, n);
    };
    const int64_t step = s.step ? eval(*s.step, frame).toInt() : 1;
    if (step != 1) fail_at(sub.loc, "slices with a step are not supported on lists");
    const int64_t lo = bound(s.lower, 0), hi = std::max(bound(s.upper, n), bound(s.lower, 0));
    if (base.isString()) return IValue(base.toStringRef().substr(lo, hi - lo));
    const List& items = base.toList();
    List out(items.begin() + lo, items.begin() + hi);
    return base.isList() ? IValue::list(std::move(out)) : IValue::tuple(std::move(out));
  }
  IValue index = eval(index_expr, frame);
  if (recorder_ && GraphRecorder::value_of(base) && GraphRecorder::value_of(base)->type == ValueType::Tensor)
    return call_op("aten::select", {base, int64_t{0}, index}, {});
  Stack args{base, index};
  IValue result;
  if (builtin("__getitem__", args, {}, &result, sub.loc)) return result;
  if (base.isTensor() && index.isInt()) return call_op("aten::select", {base, int64_t{0}, index}, {});
  fail_at(sub.loc, std::string("cannot index a ") + base.tag_name() + " with a " + index.tag_name());
}

IValue Interpreter::number_of_tensor(const IValue& v, const std::string& type, const SourceLocation& loc) {
  if (const Value* d = GraphRecorder::value_of(v); recorder_ && d && d->type == ValueType::Tensor) {
    // While freezing: the conversion as a node, by the tensor's dtype where it is known.
    const bool integral = type == "int" || (type == "number" && d->dtype && *d->dtype != DType::Float32);
    if (type == "number" && !d->dtype) return v;
    return call_op(integral ? "aten::Int" : "aten::Float", {v}, {});
  }
  if (type == "number" || !v.isTensor() || !v.toTensor().defined() || v.toTensor().dim() != 0)
    return number_of_0d_tensor(v);
  const double x = v.toTensor().item();
  return type == "float" ? IValue(x) : IValue(float_to_int(x, to_string(loc).c_str()));
}

IValue Interpreter::eval_call(const CallExpr& call, Frame& frame) {
  // Type-taking builtins read their type argument as syntax, not as a value.
  if (call.func->is<NameExpr>()) {
    const std::string& fname = call.func->as<NameExpr>().id;
    if ((fname == "annotate" || fname == "unchecked_cast") && call.args.size() == 2) {
      IValue v = eval(*call.args[1], frame);
      // annotate(number, t): a traced graph's 0-D tensor (prim::NumToTensor of a size) where a
      // number goes, which TorchScript converts implicitly.
      const Expr& type = *call.args[0];
      if (fname == "annotate" && type.is<NameExpr>() &&
          (type.as<NameExpr>().id == "number" || type.as<NameExpr>().id == "int" || type.as<NameExpr>().id == "float"))
        return number_of_tensor(v, type.as<NameExpr>().id, call.loc);
      return v;
    }
    if (fname == "uninitialized") return IValue();
    if (fname == "isinstance" && call.args.size() == 2) return IValue(matches_type(*call.args[1], eval(*call.args[0], frame)));
  }
  Stack args;
  args.reserve(call.args.size());
  for (const ExprPtr& a : call.args) args.push_back(eval(*a, frame));
  Kwargs kwargs;
  for (const Keyword& k : call.keywords) kwargs.emplace_back(k.name, eval(*k.value, frame));

  // obj.method(...) on a script object, or value.method(...) on a builtin value.
  if (call.func->is<AttributeExpr>()) {
    const auto& a = call.func->as<AttributeExpr>();
    IValue base = eval(*a.value, frame);
    if (base.isObject() && !path_of(base) && !GraphRecorder::value_of(base)) {
      const auto& obj = base.toObject();
      const ClassInfo* cls = unit_.find_class(obj->type_name);
      if (cls && cls->method(a.attr)) return call_method(obj, a.attr, std::move(args), kwargs);
      IValue callee = get_attr(obj, a.attr);
      return call_value(callee, std::move(args), kwargs, call.loc);
    }
    // The variable an in-place op works on: x in x.transpose_(0, 1) or torch.transpose_(x, 0, 1).
    const Expr* operand = nullptr;
    IValue out;
    if (!path_of(base)) {
      // e.g. "{}".format(x) or a list method: the same builtins as torch.X(value, ...).
      args.insert(args.begin(), base);
      operand = a.value.get();
      out = call_path("torch." + a.attr, std::move(args), kwargs, call.loc);
    } else {
      const std::string& ns = *path_of(base);
      if ((ns == "torch" || ns == "ops.aten") && !call.args.empty()) operand = call.args[0].get();
      out = call_path(ns + "." + a.attr, std::move(args), kwargs, call.loc);
    }
    // An in-place tensor op (its name ends in '_') may change its operand's shape (transpose_,
    // unsqueeze_). tvk tensors are values, so the variable holding the operand is rebound to the
    // result, which is that operand with its new shape.
    const bool in_place = a.attr.size() > 1 && a.attr.back() == '_' && a.attr.front() != '_';
    const bool tensor_out = out.isTensor() || (GraphRecorder::value_of(out) &&
                                               GraphRecorder::value_of(out)->type == ValueType::Tensor);
    if (in_place && tensor_out && operand && operand->is<NameExpr>()) frame.vars[operand->as<NameExpr>().id] = out;
    return out;
  }
  IValue callee = eval(*call.func, frame);
  return call_value(callee, std::move(args), kwargs, call.loc);
}

IValue Interpreter::eval_binary(BinaryOp op, const IValue& a, const IValue& b) {
  static const char* names[] = {"add", "sub", "mul", "div", "floordiv", "remainder", "pow", "matmul",
                                "__and__", "__or__", "__xor__", "__lshift__", "__rshift__"};
  const std::string name = names[static_cast<int>(op)];
  Stack args{a, b};
  IValue result;
  const bool tensor_operand = a.isTensor() || b.isTensor() ||
                              (GraphRecorder::value_of(a) && GraphRecorder::value_of(a)->type == ValueType::Tensor) ||
                              (GraphRecorder::value_of(b) && GraphRecorder::value_of(b)->type == ValueType::Tensor);
  if (!tensor_operand && builtin(name, args, {}, &result, SourceLocation{})) return result;
  return call_op("aten::" + name, {a, b}, {});
}

bool Interpreter::eval_compare(CompareOp op, const IValue& a, const IValue& b) {
  switch (op) {
    case CompareOp::Is: return a.is(b);
    case CompareOp::IsNot: return !a.is(b);
    case CompareOp::In:
    case CompareOp::NotIn: {
      Stack args{b, a};
      IValue r;
      if (!call_builtin("__contains__", args, {}, &r)) throw Error("'in' needs a list, tuple, dict or str");
      return op == CompareOp::In ? r.toBool() : !r.toBool();
    }
    default: break;
  }
  static const char* names[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  Stack args{a, b};
  IValue r;
  if (!call_builtin(names[static_cast<int>(op)], args, {}, &r))
    throw Error(std::string("cannot compare a ") + a.tag_name() + " with a " + b.tag_name());
  return r.toBool();
}

bool Interpreter::matches_type(const Expr& type, const IValue& v) {
  if (const Value* dyn = GraphRecorder::value_of(v)) {
    // Freezing: decide from the value's static type where that is enough.
    if (type.is<NameExpr>()) {
      const std::string& n = type.as<NameExpr>().id;
      if (n == "Tensor") return dyn->type == ValueType::Tensor;
      if (n == "int") return dyn->type == ValueType::Int;
      if (n == "float") return dyn->type == ValueType::Float;
      if (n == "bool") return dyn->type == ValueType::Bool;
      if (n == "str") return dyn->type == ValueType::Str;
    }
    if (type.is<SubscriptExpr>() && type.as<SubscriptExpr>().value->is<NameExpr>() &&
        type.as<SubscriptExpr>().value->as<NameExpr>().id == "Optional" && dyn->type != ValueType::Any)
      return matches_type(*type.as<SubscriptExpr>().indices[0], v);
    throw Error("the optimizer cannot decide isinstance() on a value that depends on the model's input");
  }
  if (type.is<TupleExpr>()) {
    for (const ExprPtr& t : type.as<TupleExpr>().elements)
      if (matches_type(*t, v)) return true;
    return false;
  }
  if (type.is<NameExpr>()) {
    const std::string& n = type.as<NameExpr>().id;
    if (n == "Tensor") return v.isTensor();
    if (n == "int") return v.isInt();
    if (n == "float") return v.isDouble();
    if (n == "bool") return v.isBool();
    if (n == "str") return v.isString();
    if (n == "NoneType") return v.isNone();
    if (n == "Any") return true;
    if (n == "list" || n == "List") return v.isList();
    if (n == "tuple" || n == "Tuple") return v.isTuple();
    if (n == "dict" || n == "Dict") return v.isDict();
    return false;
  }
  if (type.is<SubscriptExpr>()) {
    const auto& s = type.as<SubscriptExpr>();
    if (!s.value->is<NameExpr>()) return false;
    const std::string& n = s.value->as<NameExpr>().id;
    if (n == "Optional") return v.isNone() || matches_type(*s.indices[0], v);
    if (n == "List") {
      if (!v.isList()) return false;
      RunScope::visit("checking a nested value's type");
      for (const IValue& e : v.toList())
        if (!matches_type(*s.indices[0], e)) return false;
      return true;
    }
    if (n == "Tuple") {
      if (!v.isTuple() || v.toList().size() != s.indices.size()) return false;
      for (size_t i = 0; i < s.indices.size(); ++i)
        if (!matches_type(*s.indices[i], v.toList()[i])) return false;
      return true;
    }
    if (n == "Dict") return v.isDict();
    return false;
  }
  if (type.is<AttributeExpr>()) {
    // A script class: compare qualified names.
    std::string qualified;
    const Expr* e = &type;
    while (e->is<AttributeExpr>()) {
      qualified = "." + e->as<AttributeExpr>().attr + qualified;
      e = e->as<AttributeExpr>().value.get();
    }
    if (!e->is<NameExpr>()) return false;
    qualified = e->as<NameExpr>().id + qualified;
    return v.isObject() && v.toObject()->type_name == qualified;
  }
  return false;
}

}  // namespace tvk::jit

namespace tvk::jit {

Interpreter::Flow Interpreter::exec_dynamic_if(const IfStmt& s, const IValue& cond, Frame& frame, IValue& result) {
  Node* node = recorder_->begin_if(cond, to_string(s.loc));
  Frame branches[2] = {frame, frame};
  // Each branch changes its own copy of the lists it can see (swin_t: `if window >= pad_H:
  // shift_size[0] = 0`), so that a change recorded in one branch reaches neither the other nor
  // the code after the If unless that branch is taken: where the copies end up different, the
  // list becomes an output of the If. Variables that share a list share its copy.
  std::unordered_map<std::string, IValue> list_before;
  for (auto& [name, value] : frame.vars)
    if (value.isList() && !GraphRecorder::is_dynamic(value)) list_before[name] = value;
  for (Frame& branch : branches) {
    std::map<const List*, IValue> copies;
    for (auto& [name, original] : list_before) {
      auto [it, fresh] = copies.emplace(original.toListRef().get(), IValue());
      if (fresh) it->second = IValue::list(original.toList());
      branch.vars[name] = it->second;
    }
  }
  Flow flows[2];
  const Block* bodies[2] = {&s.body, &s.orelse};
  for (int i = 0; i < 2; ++i) {
    recorder_->enter(node->blocks[i].get());
    raised_ = false;
    flows[i] = exec_block(*bodies[i], branches[i], result);
    raised_ = false;
    recorder_->leave();
    if (flows[i] == Flow::Return || flows[i] == Flow::Break || flows[i] == Flow::Continue)
      fail_at(s.loc, "the optimizer cannot freeze return/break/continue inside a branch that depends on the input");
  }
  const bool raised[2] = {flows[0] == Flow::Raised, flows[1] == Flow::Raised};
  if (raised[0] && raised[1]) {
    raised_ = true;
    return Flow::Raised;
  }
  if (raised[0] || raised[1]) {
    // Only the other branch continues: its variables are the ones that exist afterwards.
    frame.vars = branches[raised[0] ? 1 : 0].vars;
    return Flow::Normal;
  }
  // A list copy that neither branch changed is the list from before the If again.
  for (Frame& branch : branches)
    for (auto& [name, original] : list_before) {
      auto it = branch.vars.find(name);
      if (it != branch.vars.end() && it->second.isList() && !GraphRecorder::is_dynamic(it->second) &&
          ivalue_equal(it->second, original))
        it->second = original;
    }
  std::unordered_map<std::string, IValue> merged;
  for (auto& [name, then_value] : branches[0].vars) {
    auto other = branches[1].vars.find(name);
    if (other == branches[1].vars.end()) continue;  // defined on one path only: unusable afterwards
    const IValue& else_value = other->second;
    if (then_value.is(else_value) && !(then_value.isList() && GraphRecorder::is_dynamic(then_value))) {
      merged[name] = then_value;
      continue;
    }
    merged[name] = recorder_->add_if_output(node, then_value, else_value);
  }
  frame.vars = std::move(merged);
  return Flow::Normal;
}

namespace {

// The names a block assigns (targets of =, +=, annotated assignments and for loops, in nested
// blocks too).
void assigned_names(const Expr& target, std::set<std::string>& out) {
  if (target.is<NameExpr>()) out.insert(target.as<NameExpr>().id);
  else if (target.is<TupleExpr>())
    for (const ExprPtr& e : target.as<TupleExpr>().elements) assigned_names(*e, out);
  else if (target.is<ListExpr>())
    for (const ExprPtr& e : target.as<ListExpr>().elements) assigned_names(*e, out);
}

// A statement-level call that grows a list in place: `xs.append(v)`, or as TorchScript prints
// it, `torch.append(xs, v)` (extend and insert too). Gives the list's name.
std::optional<std::string> grown_list(const Expr& e) {
  if (!e.is<CallExpr>()) return std::nullopt;
  const auto& call = e.as<CallExpr>();
  if (!call.func->is<AttributeExpr>()) return std::nullopt;
  const auto& f = call.func->as<AttributeExpr>();
  if (f.attr != "append" && f.attr != "extend" && f.attr != "insert") return std::nullopt;
  if (f.value->is<NameExpr>() && f.value->as<NameExpr>().id != "torch") return f.value->as<NameExpr>().id;
  if (!call.args.empty() && call.args[0]->is<NameExpr>()) return call.args[0]->as<NameExpr>().id;
  return std::nullopt;
}

void scan_block(const Block& block, std::set<std::string>& assigned, std::set<std::string>& grown) {
  for (const StmtPtr& stmt : block) {
    switch (stmt->kind) {
      case StmtKind::Assign: {
        const auto& s = stmt->as<AssignStmt>();
        for (const ExprPtr& t : s.targets) assigned_names(*t, assigned);
        if (auto g = grown_list(*s.value)) grown.insert(*g);
        break;
      }
      case StmtKind::AnnAssign: assigned_names(*stmt->as<AnnAssignStmt>().target, assigned); break;
      case StmtKind::AugAssign: assigned_names(*stmt->as<AugAssignStmt>().target, assigned); break;
      case StmtKind::Expr:
        if (auto g = grown_list(*stmt->as<ExprStmt>().value)) grown.insert(*g);
        break;
      case StmtKind::If:
        scan_block(stmt->as<IfStmt>().body, assigned, grown);
        scan_block(stmt->as<IfStmt>().orelse, assigned, grown);
        break;
      case StmtKind::For:
        assigned_names(*stmt->as<ForStmt>().target, assigned);
        scan_block(stmt->as<ForStmt>().body, assigned, grown);
        break;
      case StmtKind::While: scan_block(stmt->as<WhileStmt>().body, assigned, grown); break;
      default: break;
    }
  }
}

}  // namespace

Interpreter::Flow Interpreter::exec_dynamic_for(const ForStmt& s, const IValue& trip,
                                                const std::function<IValue(const IValue&)>& item, Frame& frame,
                                                IValue& result) {
  std::set<std::string> assigned, grown;
  scan_block(s.body, assigned, grown);
  // Lists the body grows become lists the graph makes afresh on each run, which the Loop grows
  // in place (every variable naming the same list names the new one).
  for (const std::string& name : grown) {
    auto it = frame.vars.find(name);
    if (it == frame.vars.end() || !it->second.isList() || GraphRecorder::value_of(it->second)) continue;
    const IValue original = it->second, fresh = recorder_->fresh_list(original);
    for (auto& [other, value] : frame.vars)
      if (value.isList() && value.is(original)) value = fresh;
  }
  // Carried: the variables from before the loop that the body assigns, where they hold values
  // the graph can carry (tensors, numbers, dynamic values); the others (submodules fetched again
  // in the body, say) are the same constants on every iteration.
  std::vector<std::string> carried;
  std::vector<IValue> initial;
  for (const std::string& name : assigned) {
    auto it = frame.vars.find(name);
    if (it == frame.vars.end()) continue;
    const IValue& v = it->second;
    if (!(GraphRecorder::value_of(v) || v.isTensor() || v.isInt() || v.isDouble() || v.isBool())) continue;
    if (const Value* d = GraphRecorder::value_of(v); d && d->type == ValueType::None)
      fail_at(s.loc, "the optimizer cannot freeze a loop over the input's size that assigns the Optional '" + name + "'");
    carried.push_back(name);
    initial.push_back(v);
  }
  std::vector<IValue> inputs;
  Node* loop = recorder_->begin_loop(trip, initial, to_string(s.loc), &inputs);
  Frame body = frame;
  for (size_t i = 0; i < carried.size(); ++i) body.vars[carried[i]] = inputs[i + 1];
  recorder_->enter(loop->blocks[0].get());
  assign(*s.target, item(inputs[0]), body);
  const Flow flow = exec_block(s.body, body, result);
  recorder_->leave();
  if (flow != Flow::Normal)
    fail_at(s.loc, "the optimizer cannot freeze break, continue, return or an unconditional raise in a loop over the "
                   "input's size");
  std::vector<IValue> outputs;
  for (size_t i = 0; i < carried.size(); ++i) {
    const IValue& out = body.vars[carried[i]];
    const Value* in = GraphRecorder::value_of(inputs[i + 1]);
    const Value* d = GraphRecorder::value_of(out);
    const ValueType t = d ? d->type : out.isTensor() ? ValueType::Tensor : out.isInt() ? ValueType::Int
                                    : out.isDouble() ? ValueType::Float : out.isBool() ? ValueType::Bool
                                                                       : ValueType::Any;
    if (in->type != ValueType::Any && t != ValueType::Any && t != in->type)
      fail_at(s.loc, "the loop changes the type of '" + carried[i] + "' (" + jit::to_string(in->type) + " to " +
                         jit::to_string(t) + "), which the optimizer cannot freeze");
    outputs.push_back(out);
  }
  const std::vector<IValue> final_values = recorder_->end_loop(loop, outputs);
  for (size_t i = 0; i < carried.size(); ++i) frame.vars[carried[i]] = final_values[i];
  return Flow::Normal;
}

}  // namespace tvk::jit
