// GraphExecutor: runs a frozen (and optimized) Graph. Values are freed after their last use so
// activations return to memory as the model runs.
//
// Planned execution: where a graph runs on a device that can record work (Vulkan), the first
// call with a given input signature (shapes and dtypes of contiguous CPU tensors, values of
// scalars) runs with the device capturing: shape-only host work (dim checks, size arithmetic,
// If on shapes) runs once, right then; every dispatch is recorded once into a command buffer
// with its descriptor sets; activations get ranges of the recording's arena, reused as tensors
// die. Later calls with that signature copy the inputs into the recorded uploads, submit,
// wait and read the outputs back: no op dispatch, allocation or descriptor write per call.
//
// A graph with CPU parts (a partitioned model: transfers to the CPU, CPU ops, transfers back)
// is recorded in segments. A transfer to the CPU becomes a copy at the end of the current
// segment's recording; the segment is cut (submitted, and waited for) only when a CPU node
// needs that data. CPU nodes, and every node that reads what they make, are "host steps": a
// replay runs them again on each call, between the segments, and writes their results into
// the next segment's recorded uploads. Device work that depends on values a CPU part computed
// (sizes of nonzero's result, say) cannot be recorded: that signature runs op by op, as does
// any graph that reads device results back inside an op or branches on CPU data, and
// everything when TVK_PLAN=0. A replay whose CPU part makes an upload of another size than
// the recording's runs that call op by op, and the signature stays so.
#pragma once

#include <list>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "jit/ir/graph.h"

namespace tvk::jit {

struct ExecutionStats {
  uint64_t plans_built = 0;    // signatures recorded
  uint64_t replays = 0;        // calls served by a recording
  uint64_t eager_runs = 0;     // calls run op by op
  uint64_t segments = 0;       // device recordings of the last plan built (CPU parts cut them)
  uint64_t host_steps = 0;     // nodes of that plan a replay runs on the CPU
  std::string last_fallback;   // why the last signature could not be planned
};

class GraphExecutor {
 public:
  explicit GraphExecutor(std::shared_ptr<const Graph> graph);
  ~GraphExecutor();
  // The graph's single output value (a tuple or list when the method returns several).
  IValue run(Stack inputs) const;
  // As run(), for modules loaded onto `device`: CPU tensor inputs are moved there first, and
  // when `outputs_to_cpu`, device tensors in the result come back to the CPU.
  IValue run(Stack inputs, Device device, bool outputs_to_cpu) const;
  const Graph& graph() const { return *graph_; }
  ExecutionStats stats() const;

  // At most this many signatures keep a recording; the least recently used goes first.
  static constexpr size_t kMaxPlans = 8;

 private:
  struct Plan;
  struct RunState;
  // Top-level blocks free values after their last use; with `capture`, the graph is recorded.
  void run_block(const NodeBlock& block, std::vector<IValue>& env, bool top_level, RunState* capture) const;
  // One node on `args`. `check_host_work`: a node of a recording that plan_node does not see
  // (inside an If) fails the plan when its host work depends on tensor data.
  void run_node(const Node& node, Stack args, std::vector<IValue>& env, RunState* capture,
                bool check_host_work) const;
  // One top-level node of a recording: records it, cuts a segment or makes it a host step.
  void plan_node(const Node& node, size_t position, std::vector<IValue>& env, RunState& state) const;
  // Ends the current segment and runs it, so the CPU sees its downloads; `then_record` starts
  // the next one.
  void cut_segment(RunState& state, bool then_record) const;
  IValue run_eager(Stack inputs, Device device, bool outputs_to_cpu) const;
  IValue run_planned(Stack& inputs, Device device, bool outputs_to_cpu, bool* done) const;
  // A replay; false (nothing returned) when an upload's size differs from the recording's.
  bool replay(Plan& plan, const Stack& inputs, Device device, bool outputs_to_cpu, IValue* result) const;
  // Fills in defaulted inputs; throws naming a wrong count or a non-tensor for a Tensor input.
  void check_inputs(Stack& inputs) const;
  // The inputs in a value environment; run() has checked them.
  std::vector<IValue> bind_inputs(Stack inputs) const;

  std::shared_ptr<const Graph> graph_;
  // For each top-level node, the values whose last use it is.
  std::vector<std::vector<int>> dies_after_;
  // Top-level nodes that move a graph output to the CPU: while capturing they are left for
  // after the replay (a read-back cannot be recorded).
  std::set<const Node*> output_transfers_;
  bool uses_vulkan_ = false;  // any node or constant that puts work on Vulkan

  mutable std::mutex plans_mutex_;
  mutable std::list<std::pair<std::string, std::shared_ptr<Plan>>> plans_;  // most recent first
  mutable std::set<std::string> unplannable_;
  mutable ExecutionStats stats_;
};

// Whether planned execution is on (TVK_PLAN unset or not 0).
bool planned_execution_enabled();

}  // namespace tvk::jit
