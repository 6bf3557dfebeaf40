// GraphExecutor: runs a frozen (and optimized) Graph. Values are freed after their last use so
// activations return to the memory pool as the model runs.
#pragma once

#include <memory>
#include <vector>

#include "jit/ir/graph.h"

namespace tvk::jit {

class GraphExecutor {
 public:
  explicit GraphExecutor(std::shared_ptr<const Graph> graph);
  // The graph's single output value (a tuple or list when the method returns several).
  IValue run(Stack inputs) const;
  const Graph& graph() const { return *graph_; }

 private:
  void run_block(const NodeBlock& block, std::vector<IValue>& env, bool free_dead) const;

  std::shared_ptr<const Graph> graph_;
  // For each top-level node, the values whose last use it is.
  std::vector<std::vector<int>> dies_after_;
};

}  // namespace tvk::jit
