#include "jit/ir/graph.h"

#include <algorithm>
#include <sstream>

namespace tvk::jit {

const char* to_string(ValueType t) {
  switch (t) {
    case ValueType::Tensor: return "Tensor";
    case ValueType::Int: return "int";
    case ValueType::Float: return "float";
    case ValueType::Bool: return "bool";
    case ValueType::Str: return "str";
    case ValueType::None: return "NoneType";
    case ValueType::List: return "List";
    case ValueType::Tuple: return "Tuple";
    case ValueType::Object: return "Object";
    case ValueType::Any: return "Any";
  }
  return "?";
}

bool Node::is_op(const char* full_name) const {
  return kind == NodeKind::Op && op != nullptr && op->schema.full_name() == full_name;
}

std::string Node::describe() const {
  switch (kind) {
    case NodeKind::Op: return op ? op->schema.full_name() : "op?";
    case NodeKind::Builtin: return "builtin::" + name;
    case NodeKind::ListConstruct: return "prim::ListConstruct";
    case NodeKind::TupleConstruct: return "prim::TupleConstruct";
    case NodeKind::NamedTupleConstruct: return "prim::NamedTupleConstruct " + name;
    case NodeKind::DictConstruct: return "prim::DictConstruct";
    case NodeKind::TupleIndex: return "prim::TupleIndex";
    case NodeKind::If: return "prim::If";
    case NodeKind::Loop: return "prim::Loop";
    case NodeKind::Raise: return "prim::RaiseException";
  }
  return "?";
}

Graph::Graph() : top_(std::make_unique<NodeBlock>()) {}

Value* Graph::new_value(ValueType type, std::string name) {
  // Freezing unrolls loops of known length: a bound on the graph, so that code looping a
  // million times cannot make one of gigabytes. Real models' graphs have thousands of values.
  if (values_.size() >= kMaxValues)
    throw LimitError(detail::concat("the graph grew past ", kMaxValues,
                                    " values (a loop of fixed length unrolled too far); run the model unoptimized"));
  auto v = std::make_unique<Value>();
  v->id = static_cast<int>(values_.size());
  v->type = type;
  v->name = std::move(name);
  values_.push_back(std::move(v));
  return values_.back().get();
}

Value* Graph::add_input(std::string name, ValueType type) {
  Value* v = new_value(type, std::move(name));
  inputs_.push_back(v);
  return v;
}

Node* Graph::append(std::unique_ptr<Node> node, NodeBlock* block) {
  NodeBlock& b = block ? *block : *top_;
  node->owner = &b;
  for (Value* out : node->outputs) out->producer = node.get();
  b.nodes.push_back(std::move(node));
  return b.nodes.back().get();
}

Node* Graph::insert_before(std::unique_ptr<Node> node, Node* before) {
  NodeBlock& b = *before->owner;
  node->owner = &b;
  for (Value* out : node->outputs) out->producer = node.get();
  auto it = std::find_if(b.nodes.begin(), b.nodes.end(), [&](const auto& n) { return n.get() == before; });
  return b.nodes.insert(it, std::move(node))->get();
}

void Graph::erase(Node* node) {
  NodeBlock& b = *node->owner;
  b.nodes.remove_if([&](const auto& n) { return n.get() == node; });
}

namespace {
void collect(const NodeBlock& block, std::vector<Node*>& out) {
  for (const auto& n : block.nodes) {
    out.push_back(n.get());
    for (const auto& sub : n->blocks) collect(*sub, out);
  }
}
}  // namespace

std::vector<Node*> Graph::all_nodes() const {
  std::vector<Node*> out;
  collect(*top_, out);
  return out;
}

std::vector<Node*> Graph::uses(const Value* v) const {
  std::vector<Node*> out;
  for (Node* n : all_nodes()) {
    bool used = false;
    for (const Arg& a : n->args) used = used || a.value == v;
    for (const auto& b : n->blocks)
      for (const Arg& a : b->outputs) used = used || a.value == v;
    if (used) out.push_back(n);
  }
  return out;
}

bool Graph::is_graph_output(const Value* v) const {
  for (const Arg& a : top_->outputs)
    if (a.value == v) return true;
  return false;
}

void Graph::replace_all_uses(Value* from, const Arg& to) {
  auto fix = [&](std::vector<Arg>& args) {
    for (Arg& a : args)
      if (a.value == from) a = to;
  };
  for (Node* n : all_nodes()) {
    fix(n->args);
    for (auto& b : n->blocks) fix(b->outputs);
  }
  fix(top_->outputs);
}

std::map<std::string, int> Graph::op_histogram() const {
  std::map<std::string, int> counts;
  for (Node* n : all_nodes()) ++counts[n->describe()];
  return counts;
}

namespace {
std::string value_ref(const Value* v) {
  std::string s = "%";
  s += std::to_string(v->id);
  return s;
}

std::string arg_string(const Arg& a) {
  if (a.is_value()) return value_ref(a.value);
  if (a.constant.isTensor()) return "Tensor" + a.constant.toTensor().shape_string();
  return a.constant.repr();
}

void dump_block(const NodeBlock& block, int indent, std::ostringstream& out) {
  for (const auto& n : block.nodes) {
    out << std::string(indent, ' ');
    for (size_t i = 0; i < n->outputs.size(); ++i)
      out << (i ? ", " : "") << "%" << n->outputs[i]->id << " : " << to_string(n->outputs[i]->type);
    out << (n->outputs.empty() ? "" : " = ") << n->describe();
    if (!n->name.empty() && n->kind != NodeKind::Builtin) out << "[" << n->name << "]";
    out << "(";
    for (size_t i = 0; i < n->args.size(); ++i) out << (i ? ", " : "") << arg_string(n->args[i]);
    out << ")\n";
    for (const auto& b : n->blocks) {
      out << std::string(indent + 2, ' ') << "block(";
      for (size_t i = 0; i < b->inputs.size(); ++i) out << (i ? ", " : "") << value_ref(b->inputs[i]);
      out << "):\n";
      dump_block(*b, indent + 4, out);
      out << std::string(indent + 4, ' ') << "-> (";
      for (size_t i = 0; i < b->outputs.size(); ++i) out << (i ? ", " : "") << arg_string(b->outputs[i]);
      out << ")\n";
    }
  }
}
}  // namespace

std::string Graph::dump() const {
  std::ostringstream out;
  out << "graph(";
  for (size_t i = 0; i < inputs_.size(); ++i)
    out << (i ? ", " : "") << "%" << inputs_[i]->id << " " << inputs_[i]->name << " : " << to_string(inputs_[i]->type);
  out << "):\n";
  dump_block(*top_, 2, out);
  out << "  return (";
  for (size_t i = 0; i < top_->outputs.size(); ++i) out << (i ? ", " : "") << arg_string(top_->outputs[i]);
  out << ")\n";
  return out.str();
}

}  // namespace tvk::jit
