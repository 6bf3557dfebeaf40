// Graph IR: SSA values and nodes in blocks, built by freezing a module's method (see
// freeze.h), rewritten by the passes in src/jit/passes, run by GraphExecutor and printed back
// to TorchScript code by the exporter.
#pragma once

#include <list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ops/registry.h"

namespace tvk::jit {

struct Node;
struct NodeBlock;

// What a value holds, as far as passes and the printer need to know.
enum class ValueType { Tensor, Int, Float, Bool, Str, None, List, Tuple, Object, Any };
const char* to_string(ValueType t);

struct Value {
  int id = 0;
  ValueType type = ValueType::Any;
  std::string name;        // a readable name for the printer ("x", "input")
  Node* producer = nullptr;  // nullptr for graph inputs
  // A tensor input's dtype where the graph was frozen for one (a module frozen on its first
  // call): what prim::dtype of it gives while freezing. Unset: float32 is assumed.
  std::optional<DType> dtype;
  // A graph input's default (a constant the method's signature gives): a call may leave it out.
  std::optional<IValue> default_value;
};

// An argument of a node: either a value of the graph or a constant folded in at build time.
struct Arg {
  Value* value = nullptr;
  IValue constant;
  bool is_value() const { return value != nullptr; }
  static Arg of(Value* v) { return Arg{v, IValue()}; }
  static Arg of(IValue c) { return Arg{nullptr, std::move(c)}; }
};

enum class NodeKind {
  Op,              // a registered op (`op` set), arguments bound to its schema
  Builtin,         // a non-tensor builtin ("eq", "len", "format"...) on ints, strings, lists
  ListConstruct,   // [args...]
  TupleConstruct,  // (args...)
  NamedTupleConstruct,  // name(args...): a NamedTuple of class `name` whose fields are `fields`
  DictConstruct,   // {args[0]: args[1], args[2]: args[3], ...}, keys constant, in insertion order
  TupleIndex,      // args[0][index]
  If,              // blocks[0] if args[0] else blocks[1]; outputs = the taken block's outputs
  Loop,            // args[0] times blocks[0], whose inputs are the iteration index and the carried values
                   // (args[1..] at first, then the block's outputs); outputs = the last carried values
  Raise,           // raise ScriptException(python_class, args[0])
};

struct Node {
  NodeKind kind = NodeKind::Op;
  const ops::OpEntry* op = nullptr;  // NodeKind::Op
  std::string name;                  // builtin name, attribute name, or raised class
  int64_t index = 0;                 // TupleIndex
  std::vector<std::string> fields;   // NamedTupleConstruct: the field names, in order
  std::vector<Arg> args;
  std::vector<Value*> outputs;
  std::vector<std::unique_ptr<NodeBlock>> blocks;
  NodeBlock* owner = nullptr;
  std::string source;                // "file:line:col" the node came from, for errors

  std::string describe() const;
  bool is_op(const char* full_name) const;
};

struct NodeBlock {
  std::list<std::unique_ptr<Node>> nodes;
  std::vector<Arg> outputs;     // If branches: the values the If node outputs; a Loop body: the carried values
  std::vector<Value*> inputs;   // a Loop body: the iteration index, then the carried values
  Node* owner = nullptr;        // the If or Loop node, or nullptr for the graph's top block
};

class Graph {
 public:
  static constexpr size_t kMaxValues = 1 << 20;
  Graph();
  Value* add_input(std::string name, ValueType type);
  Value* new_value(ValueType type, std::string name = "");
  // Appends a node to `block` (the top block by default) before `before` (end when null).
  Node* append(std::unique_ptr<Node> node, NodeBlock* block = nullptr);
  Node* insert_before(std::unique_ptr<Node> node, Node* before);
  // Removes a node whose outputs have no uses.
  void erase(Node* node);
  // Nodes that take `v` as an argument (block outputs count as a use by the block's owner).
  std::vector<Node*> uses(const Value* v) const;
  bool is_graph_output(const Value* v) const;
  // Redirects every use of `from` (node arguments and block outputs) to `to`.
  void replace_all_uses(Value* from, const Arg& to);

  NodeBlock& top() { return *top_; }
  const NodeBlock& top() const { return *top_; }
  const std::vector<Value*>& inputs() const { return inputs_; }
  std::vector<Arg>& outputs() { return top_->outputs; }
  const std::vector<Arg>& outputs() const { return top_->outputs; }
  size_t value_count() const { return values_.size(); }
  // Nodes in execution order, descending into blocks (a snapshot: safe to mutate while walking).
  std::vector<Node*> all_nodes() const;
  // Op counts by full name, for `tvk optimize` reports and tests.
  std::map<std::string, int> op_histogram() const;
  std::string dump() const;

 private:
  std::unique_ptr<NodeBlock> top_;
  std::vector<Value*> inputs_;
  std::vector<std::unique_ptr<Value>> values_;
};

}  // namespace tvk::jit
