// GraphRecorder: what turns the interpreter into a freezer. While a recorder is attached, the
// interpreter evaluates a method with the module's attributes as constants and the method's
// inputs as "dynamic" values: work on constants is done at once (constant folding), work that
// needs an input becomes a node of the Graph, and branches on input-dependent conditions become
// If nodes. The result is PyTorch's freeze_module: inlined, attribute-folded, flat.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "jit/ir/graph.h"
#include "jit/runtime/op_call.h"

namespace tvk::jit {

class GraphRecorder {
 public:
  explicit GraphRecorder(Graph& graph);

  Graph& graph() { return graph_; }

  // A dynamic value as the interpreter sees it (an IValue that stands for `v`), one per value
  // so that `is` identity holds.
  IValue wrap(Value* v);
  // The graph value behind a dynamic IValue, or nullptr for constants.
  static Value* value_of(const IValue& v);
  // True when `v` is dynamic or a list/tuple with a dynamic element.
  static bool is_dynamic(const IValue& v);
  static bool any_dynamic(const Stack& values);
  // Matches schema types, treating dynamic values by their ValueType.
  static bool matches(const std::string& schema_type, const IValue& v);
  // matches() without conversions, for overload resolution's first pass: a value of unknown type
  // (an element of a tuple the If before made, say) takes only tensor parameters there, so that
  // add(x, t[0]) is add.Tensor, not add.Scalar; constants as value_matches_type_exactly.
  static bool matches_exactly(const std::string& schema_type, const IValue& v);

  // A node argument for `v`: constants inline, lists/tuples with dynamic elements built by a
  // ListConstruct/TupleConstruct node.
  Arg to_arg(const IValue& v);

  IValue emit_op(const ops::OpEntry& op, const Stack& bound, const std::string& source);
  IValue emit_builtin(const std::string& name, const Stack& args, const std::string& source);
  IValue emit_tuple_index(const IValue& tuple, int64_t index);
  void emit_raise(const std::string& python_class, const IValue& message, const std::string& source);

  // If nodes: begin_if appends the node to the current block; enter/leave route emitted nodes
  // into one of its blocks; add_if_output adds a merged output.
  Node* begin_if(const IValue& condition, const std::string& source);
  void enter(NodeBlock* block) { blocks_.push_back(block); }
  void leave() { blocks_.pop_back(); }
  IValue add_if_output(Node* if_node, const IValue& then_value, const IValue& else_value);
  // Loop nodes: begin_loop appends the node (`trip_count` iterations, `initial` the carried
  // values) and gives the body's inputs (the iteration index, then one per carried value) as
  // dynamic values; the caller enters node->blocks[0], records the body once, leaves, and
  // end_loop sets the body's outputs and returns the node's outputs.
  Node* begin_loop(const IValue& trip_count, const std::vector<IValue>& initial, const std::string& source,
                   std::vector<IValue>* body_inputs);
  std::vector<IValue> end_loop(Node* loop, const std::vector<IValue>& body_outputs);
  // A new list each time the graph runs, holding `list`'s elements (a list a loop appends to).
  IValue fresh_list(const IValue& list);
  // Whether nodes go into a branch of an If being recorded (both branches are recorded), at any
  // depth (a loop's body inside a branch too).
  bool in_branch() const {
    for (const NodeBlock* b : blocks_)
      if (b->owner && b->owner->kind == NodeKind::If) return true;
    return false;
  }

 private:
  NodeBlock* current() { return blocks_.back(); }
  Node* append(std::unique_ptr<Node> node);
  static ValueType type_of(const IValue& v);
  // The type of element `index` of the tuple or list `from`, as far as its producer tells.
  ValueType element_type(const Value& from, int64_t index, int depth = 0);

  Graph& graph_;
  std::vector<NodeBlock*> blocks_;
  std::map<const Value*, IValue> wrapped_;
};

ValueType value_type_of_schema_return(const std::string& type);

}  // namespace tvk::jit
