#include "jit/ir/graph_recorder.h"

#include <set>
#include <unordered_set>

#include "core/run_scope.h"

namespace tvk::jit {

namespace {
struct DynamicValue final : CustomClassPayload {
  explicit DynamicValue(Value* v) : value(v) {}
  Value* value;
};
constexpr const char* kDynamicType = "tvk.dynamic";

// A representative constant of a type, for builtins that only need to know the kind.
ValueType builtin_result_type(const std::string& name, const Stack& args) {
  if (name == "eq" || name == "ne" || name == "lt" || name == "le" || name == "gt" || name == "ge" ||
      name == "__not__" || name == "__and__" || name == "__or__" || name == "__is__" || name == "__isnot__" ||
      name == "__contains__" || name == "bool")
    return ValueType::Bool;
  if (name == "len" || name == "int" || name == "floor" || name == "ceil" || name == "__range_length" ||
      name == "__derive_index")
    return ValueType::Int;
  if (name == "str" || name == "format") return ValueType::Str;
  if (name == "float" || name == "div" || name == "sqrt") return ValueType::Float;
  if (name == "list" || name == "keys" || name == "values" || name == "items") return ValueType::List;
  if (name == "add" || name == "sub" || name == "mul" || name == "floordiv" || name == "remainder" || name == "neg" ||
      name == "abs" || name == "min" || name == "max" || name == "pow") {
    // Int when every operand is, Float when one is a float; unknown when an operand's type is
    // (swin_t's `W % 2` of a size unpacked from a slice of x.size() must still fit an int[]).
    bool all_int = true, any_float = false;
    for (const IValue& a : args) {
      Value* v = GraphRecorder::value_of(a);
      const ValueType t = v ? v->type : a.isDouble() ? ValueType::Float : (a.isInt() || a.isBool()) ? ValueType::Int
                                                                                                       : ValueType::Any;
      all_int = all_int && t == ValueType::Int;
      any_float = any_float || t == ValueType::Float;
    }
    return all_int ? ValueType::Int : any_float ? ValueType::Float : ValueType::Any;
  }
  return ValueType::Any;
}
}  // namespace

namespace {
// A schema return without its alias annotation and name: "Tensor(a)[] Y" -> "Tensor[]".
std::string schema_return_type(const std::string& raw) {
  std::string type = raw;
  const size_t paren = type.find('(');
  if (paren != std::string::npos) type = type.substr(0, paren) + type.substr(type.find(')') + 1);
  const size_t space = type.find(' ');
  if (space != std::string::npos) type = type.substr(0, space);
  return type;
}
}  // namespace

ValueType value_type_of_schema_return(const std::string& raw) {
  const std::string type = schema_return_type(raw);
  if (type.find('[') != std::string::npos) return ValueType::List;
  if (type == "Tensor") return ValueType::Tensor;
  if (type == "int" || type == "SymInt") return ValueType::Int;
  if (type == "float") return ValueType::Float;
  if (type == "bool") return ValueType::Bool;
  if (type == "str") return ValueType::Str;
  if (type.rfind("__torch__.", 0) == 0) return ValueType::Object;
  return ValueType::Any;
}

GraphRecorder::GraphRecorder(Graph& graph) : graph_(graph) { blocks_.push_back(&graph.top()); }

IValue GraphRecorder::wrap(Value* v) {
  auto it = wrapped_.find(v);
  if (it != wrapped_.end()) return it->second;
  auto obj = std::make_shared<Object>();
  obj->type_name = kDynamicType;
  obj->payload = std::make_shared<DynamicValue>(v);
  IValue iv(obj);
  wrapped_.emplace(v, iv);
  return iv;
}

Value* GraphRecorder::value_of(const IValue& v) {
  if (!v.isObject() || v.toObject()->type_name != kDynamicType) return nullptr;
  return static_cast<const DynamicValue&>(*v.toObject()->payload).value;
}

// Iterative, and each container is looked at once: model code can nest values deeper than the
// stack allows, and `a = [a, a]` in a loop makes a value whose tree is exponential in its size.
bool GraphRecorder::is_dynamic(const IValue& v) {
  std::vector<const IValue*> pending{&v};
  std::unordered_set<const void*> seen;
  while (!pending.empty()) {
    const IValue& x = *pending.back();
    pending.pop_back();
    if (value_of(x)) return true;
    if (x.isList() || x.isTuple()) {
      const List& items = x.toList();
      if (seen.insert(&items).second)
        for (const IValue& e : items) pending.push_back(&e);
    } else if (x.isObject() && x.toObject()->named_tuple) {
      if (seen.insert(x.toObject().get()).second)
        for (const auto& field : x.toObject()->attributes) pending.push_back(&field.second);
    } else if (x.isDict()) {
      if (seen.insert(x.toDict().get()).second)
        for (const auto& item : x.toDict()->items) pending.push_back(&item.second);
    }
  }
  return false;
}

bool GraphRecorder::any_dynamic(const Stack& values) {
  for (const IValue& v : values)
    if (is_dynamic(v)) return true;
  return false;
}

bool GraphRecorder::matches(const std::string& schema_type, const IValue& v) {
  Value* dyn = value_of(v);
  if (!dyn) return value_matches_type_with(schema_type, v, &GraphRecorder::matches);
  std::string type = schema_type;
  if (!type.empty() && type.back() == '?') type.pop_back();
  const size_t paren = type.find('(');
  if (paren != std::string::npos) type = type.substr(0, paren) + type.substr(type.find(')') + 1);
  switch (dyn->type) {
    case ValueType::Tensor: return type == "Tensor";
    case ValueType::Int: return type == "int" || type == "SymInt" || type == "Scalar" || type == "float" ||
                                type.rfind("int[", 0) == 0 || type.rfind("SymInt[", 0) == 0;
    case ValueType::Float: return type == "float" || type == "Scalar";
    case ValueType::Bool: return type == "bool" || type == "Scalar" || type == "int";
    case ValueType::Str: return type == "str";
    case ValueType::List: return type.find('[') != std::string::npos;
    case ValueType::Object: return type.rfind("__torch__.", 0) == 0;
    default: return true;
  }
}

bool GraphRecorder::matches_exactly(const std::string& schema_type, const IValue& v) {
  Value* dyn = value_of(v);
  if (!dyn) return value_matches_type_exactly(schema_type, v) && matches(schema_type, v);
  if (dyn->type == ValueType::Any) {
    std::string type = schema_type;
    if (!type.empty() && type.back() == '?') type.pop_back();
    return type.rfind("Tensor", 0) == 0 && type.find('[') == std::string::npos;
  }
  if (dyn->type == ValueType::Int && (schema_type.rfind("float", 0) == 0 || schema_type.rfind("bool", 0) == 0)) return false;
  return matches(schema_type, v);
}

ValueType GraphRecorder::type_of(const IValue& v) {
  if (Value* d = value_of(v)) return d->type;
  if (v.isTensor()) return ValueType::Tensor;
  if (v.isInt()) return ValueType::Int;
  if (v.isDouble()) return ValueType::Float;
  if (v.isBool()) return ValueType::Bool;
  if (v.isString()) return ValueType::Str;
  if (v.isNone()) return ValueType::None;
  if (v.isList()) return ValueType::List;
  if (v.isTuple()) return ValueType::Tuple;
  if (v.isObject()) return ValueType::Object;
  return ValueType::Any;
}

Node* GraphRecorder::append(std::unique_ptr<Node> node) { return graph_.append(std::move(node), current()); }

Arg GraphRecorder::to_arg(const IValue& v) {
  if (Value* d = value_of(v)) return Arg::of(d);
  if ((v.isList() || v.isTuple()) && is_dynamic(v)) {
    RunScope::visit("a nested value");
    auto node = std::make_unique<Node>();
    node->kind = v.isList() ? NodeKind::ListConstruct : NodeKind::TupleConstruct;
    for (const IValue& e : v.toList()) node->args.push_back(to_arg(e));
    Value* out = graph_.new_value(v.isList() ? ValueType::List : ValueType::Tuple);
    node->outputs.push_back(out);
    append(std::move(node));
    return Arg::of(out);
  }
  if (v.isDict() && is_dynamic(v)) {
    auto node = std::make_unique<Node>();
    node->kind = NodeKind::DictConstruct;
    for (const auto& [key, value] : v.toDict()->items) {
      node->args.push_back(Arg::of(key));
      node->args.push_back(to_arg(value));
    }
    Value* out = graph_.new_value(ValueType::Any);
    node->outputs.push_back(out);
    append(std::move(node));
    return Arg::of(out);
  }
  if (v.isObject() && v.toObject()->named_tuple && is_dynamic(v)) {
    auto node = std::make_unique<Node>();
    node->kind = NodeKind::NamedTupleConstruct;
    node->name = v.toObject()->type_name;
    for (const auto& [field, value] : v.toObject()->attributes) {
      node->fields.push_back(field);
      node->args.push_back(to_arg(value));
    }
    Value* out = graph_.new_value(ValueType::Object);
    node->outputs.push_back(out);
    append(std::move(node));
    return Arg::of(out);
  }
  return Arg::of(v);
}

IValue GraphRecorder::emit_op(const ops::OpEntry& op, const Stack& bound, const std::string& source) {
  auto node = std::make_unique<Node>();
  node->kind = NodeKind::Op;
  node->op = &op;
  node->source = source;
  for (const IValue& a : bound) node->args.push_back(to_arg(a));
  for (const std::string& r : op.schema.returns) node->outputs.push_back(graph_.new_value(value_type_of_schema_return(r)));
  // The dtype of a known-dtype input (a frozen-for bool mask) carries through the ops that only
  // move its elements, so code asking it further on gets it too.
  static const std::set<std::string> kKeepDtype = {
      "aten::unsqueeze", "aten::squeeze", "aten::view",  "aten::reshape", "aten::expand",  "aten::contiguous",
      "aten::transpose", "aten::permute", "aten::clone", "aten::slice",   "aten::select",  "aten::flatten",
      "aten::to",        "aten::detach",  "aten::repeat",  "aten::bitwise_not"};
  // Comparisons and logical ops make bool masks whatever their inputs.
  static const std::set<std::string> kBoolResult = {
      "aten::eq",          "aten::ne",          "aten::lt",          "aten::gt",        "aten::le",
      "aten::ge",          "aten::logical_not", "aten::logical_and", "aten::logical_or", "aten::logical_xor",
      "aten::isnan",       "aten::isinf",       "aten::isfinite"};
  if (node->outputs.size() == 1 && kBoolResult.count(op.schema.name)) node->outputs[0]->dtype = DType::Bool;
  // A number made a tensor keeps its kind (a traced size is int64).
  if (node->outputs.size() == 1 && op.schema.name == "prim::NumToTensor" && !bound.empty()) {
    const Value* in = value_of(bound[0]);
    const ValueType t = in ? in->type : type_of(bound[0]);
    if (t == ValueType::Int || t == ValueType::Bool) node->outputs[0]->dtype = DType::Int64;
    else if (t == ValueType::Float) node->outputs[0]->dtype = DType::Float32;
  }
  if (node->outputs.size() == 1 && !bound.empty() && kKeepDtype.count(op.schema.name))
    if (const Value* in = value_of(bound[0]); in && in->dtype && !(op.schema.name == "aten::to" && bound.size() > 1 &&
                                                                    bound[1].isInt()))
      node->outputs[0]->dtype = in->dtype;
  Node* n = append(std::move(node));
  if (n->outputs.empty()) return IValue();
  if (n->outputs.size() == 1) return wrap(n->outputs[0]);
  List items;
  for (Value* out : n->outputs) items.push_back(wrap(out));
  return IValue::tuple(std::move(items));
}

IValue GraphRecorder::emit_builtin(const std::string& name, const Stack& args, const std::string& source) {
  auto node = std::make_unique<Node>();
  node->kind = NodeKind::Builtin;
  node->name = name;
  node->source = source;
  for (const IValue& a : args) node->args.push_back(to_arg(a));
  ValueType type = builtin_result_type(name, args);
  // An element of a list an op or constructor made (`_1[0]` of a printed chunk): its element
  // type, so that torch.add of two such elements is the tensor op, not int addition.
  if (name == "__getitem__" && args.size() == 2 && value_of(args[0]) && !is_dynamic(args[1]) && args[1].isInt())
    type = element_type(*value_of(args[0]), args[1].toInt());
  node->outputs.push_back(graph_.new_value(type));
  return wrap(append(std::move(node))->outputs[0]);
}

ValueType GraphRecorder::element_type(const Value& from, int64_t index, int depth) {
  if (!from.producer || depth > 32) return ValueType::Any;
  const Node& p = *from.producer;
  if (p.kind == NodeKind::Op && p.outputs.size() == 1 && p.op->schema.returns.size() == 1) {
    const std::string r = schema_return_type(p.op->schema.returns[0]);
    const size_t bracket = r.find('[');
    if (bracket != std::string::npos) return value_type_of_schema_return(r.substr(0, bracket));
  } else if ((p.kind == NodeKind::TupleConstruct || p.kind == NodeKind::ListConstruct) && index >= 0 &&
             index < static_cast<int64_t>(p.args.size())) {
    return type_of(p.args[index].is_value() ? wrap(p.args[index].value) : p.args[index].constant);
  } else if (p.kind == NodeKind::If) {
    // A tuple an If outputs (`result = (a, b)` in one branch, None in the other): the element's
    // type where the branches that give a tuple agree.
    size_t position = 0;
    while (position < p.outputs.size() && p.outputs[position] != &from) ++position;
    std::optional<ValueType> agreed;
    for (const auto& block : p.blocks) {
      if (position >= block->outputs.size()) return ValueType::Any;
      const Arg& out = block->outputs[position];
      if (!out.is_value()) {
        if (out.constant.isNone()) continue;  // the None of an Optional tuple
        return ValueType::Any;
      }
      const ValueType t = element_type(*out.value, index, depth + 1);
      if (agreed && *agreed != t) return ValueType::Any;
      agreed = t;
    }
    return agreed.value_or(ValueType::Any);
  }
  return ValueType::Any;
}

IValue GraphRecorder::emit_tuple_index(const IValue& tuple, int64_t index) {
  auto node = std::make_unique<Node>();
  node->kind = NodeKind::TupleIndex;
  node->index = index;
  node->args.push_back(to_arg(tuple));
  // The element's type where the producer says it: `b, c, h, w = x.size()` gives ints, so that
  // `x.view([b, c // 2, ...])` still matches int[] (shufflenet's channel_shuffle).
  const ValueType element = node->args[0].value ? element_type(*node->args[0].value, index) : ValueType::Any;
  node->outputs.push_back(graph_.new_value(element));
  return wrap(append(std::move(node))->outputs[0]);
}

void GraphRecorder::emit_raise(const std::string& python_class, const IValue& message, const std::string& source) {
  auto node = std::make_unique<Node>();
  node->kind = NodeKind::Raise;
  node->name = python_class;
  node->source = source;
  node->args.push_back(to_arg(message));
  append(std::move(node));
}

Node* GraphRecorder::begin_if(const IValue& condition, const std::string& source) {
  auto node = std::make_unique<Node>();
  node->kind = NodeKind::If;
  node->source = source;
  node->args.push_back(to_arg(condition));
  for (int i = 0; i < 2; ++i) {
    node->blocks.push_back(std::make_unique<NodeBlock>());
    node->blocks.back()->owner = node.get();
  }
  return append(std::move(node));
}

Node* GraphRecorder::begin_loop(const IValue& trip_count, const std::vector<IValue>& initial,
                                const std::string& source, std::vector<IValue>* body_inputs) {
  auto node = std::make_unique<Node>();
  node->kind = NodeKind::Loop;
  node->source = source;
  node->args.push_back(to_arg(trip_count));
  for (const IValue& v : initial) node->args.push_back(to_arg(v));
  node->blocks.push_back(std::make_unique<NodeBlock>());
  NodeBlock& body = *node->blocks.back();
  body.owner = node.get();
  body.inputs.push_back(graph_.new_value(ValueType::Int, "i"));
  for (const IValue& v : initial) body.inputs.push_back(graph_.new_value(type_of(v)));
  body_inputs->clear();
  for (Value* v : body.inputs) body_inputs->push_back(wrap(v));
  return append(std::move(node));
}

std::vector<IValue> GraphRecorder::end_loop(Node* loop, const std::vector<IValue>& body_outputs) {
  NodeBlock& body = *loop->blocks[0];
  enter(&body);  // lists built for the outputs belong in the body
  for (const IValue& v : body_outputs) body.outputs.push_back(to_arg(v));
  leave();
  std::vector<IValue> out;
  for (size_t i = 0; i < body_outputs.size(); ++i) {
    Value* v = graph_.new_value(body.inputs[i + 1]->type);
    v->producer = loop;
    loop->outputs.push_back(v);
    out.push_back(wrap(v));
  }
  return out;
}

IValue GraphRecorder::fresh_list(const IValue& list) {
  auto node = std::make_unique<Node>();
  node->kind = NodeKind::ListConstruct;
  for (const IValue& e : list.toList()) node->args.push_back(to_arg(e));
  node->outputs.push_back(graph_.new_value(ValueType::List));
  return wrap(append(std::move(node))->outputs[0]);
}

IValue GraphRecorder::add_if_output(Node* if_node, const IValue& then_value, const IValue& else_value) {
  const ValueType t = type_of(then_value), e = type_of(else_value);
  Value* out = graph_.new_value(t == e ? t : (t == ValueType::None ? e : (e == ValueType::None ? t : ValueType::Any)));
  out->producer = if_node;
  // A dtype both branches agree on (or the one a branch that leaves None does not contradict).
  const Value* tv = value_of(then_value);
  const Value* ev = value_of(else_value);
  const std::optional<DType> td = tv ? tv->dtype : std::nullopt, ed = ev ? ev->dtype : std::nullopt;
  if (td && (td == ed || else_value.isNone())) out->dtype = td;
  else if (ed && then_value.isNone()) out->dtype = ed;
  // Lists built for the outputs belong in their branch.
  enter(if_node->blocks[0].get());
  if_node->blocks[0]->outputs.push_back(to_arg(then_value));
  leave();
  enter(if_node->blocks[1].get());
  if_node->blocks[1]->outputs.push_back(to_arg(else_value));
  leave();
  if_node->outputs.push_back(out);
  return wrap(out);
}

}  // namespace tvk::jit
