#include "jit/runtime/graph_executor.h"

#include <map>

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
}  // namespace

GraphExecutor::GraphExecutor(std::shared_ptr<const Graph> graph) : graph_(std::move(graph)) {
  std::map<int, size_t> last_use;
  size_t position = 0;
  for (const auto& n : graph_->top().nodes) note_uses(*n, position++, last_use);
  for (const Arg& a : graph_->outputs())
    if (a.is_value()) last_use[a.value->id] = position;  // never freed
  dies_after_.resize(position);
  for (auto& [id, pos] : last_use)
    if (pos < position) dies_after_[pos].push_back(id);
}

void GraphExecutor::run_block(const NodeBlock& block, std::vector<IValue>& env, bool free_dead) const {
  size_t position = 0;
  Stack args;
  for (const auto& node_ptr : block.nodes) {
    const Node& node = *node_ptr;
    args.clear();
    for (const Arg& a : node.args) args.push_back(a.is_value() ? env[a.value->id] : a.constant);
    switch (node.kind) {
      case NodeKind::Op: {
        IValue out;
        try {
          out = ops::call(*node.op, std::move(args));
        } catch (const Error& e) {
          if (node.source.empty()) throw;
          throw Error(node.source + ": " + e.what());
        }
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
      case NodeKind::TupleConstruct:
        env[node.outputs[0]->id] = IValue::tuple(std::move(args));
        break;
      case NodeKind::TupleIndex: {
        const List& items = args[0].toList();
        if (node.index < 0 || node.index >= static_cast<int64_t>(items.size()))
          throw Error(detail::concat("tuple index ", node.index, " out of range"));
        env[node.outputs[0]->id] = items[node.index];
        break;
      }
      case NodeKind::If: {
        const NodeBlock& taken = *node.blocks[truthy(args[0]) ? 0 : 1];
        run_block(taken, env, false);
        for (size_t i = 0; i < node.outputs.size(); ++i) {
          const Arg& a = taken.outputs[i];
          env[node.outputs[i]->id] = a.is_value() ? env[a.value->id] : a.constant;
        }
        break;
      }
      case NodeKind::Raise:
        throw ScriptException(node.name, python_str(args[0]));
    }
    if (free_dead)
      for (int id : dies_after_[position]) env[id] = IValue();
    ++position;
  }
}

IValue GraphExecutor::run(Stack inputs) const {
  const auto& graph_inputs = graph_->inputs();
  if (inputs.size() != graph_inputs.size())
    throw Error(detail::concat("forward() takes ", graph_inputs.size(), " input(s), got ", inputs.size()));
  std::vector<IValue> env(graph_->value_count());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (graph_inputs[i]->type == ValueType::Tensor && !inputs[i].isTensor())
      throw Error(detail::concat("input '", graph_inputs[i]->name, "' must be a Tensor, got ", inputs[i].tag_name()));
    env[graph_inputs[i]->id] = std::move(inputs[i]);
  }
  run_block(graph_->top(), env, true);
  const Arg& out = graph_->outputs().at(0);
  return out.is_value() ? env[out.value->id] : out.constant;
}

}  // namespace tvk::jit
