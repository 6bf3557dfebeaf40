// The CPU fallback's partition: which device each op of a frozen graph runs on when some ops
// have no kernel for the device.
//
// Placement is a minimum s-t cut (the CPU is the source, the device the sink). Ops with only a
// CPU kernel are tied to the CPU, ops with only a device kernel to the device; an op with both
// costs its weight when it goes to the CPU. Each value costs kTransferCost once per direction
// it crosses, however many consumers sit on the other side (one transfer per value serves them
// all), which takes two helper vertices per value:
//   download: consumers -> d (infinite), d -> producer (kTransferCost): cut when a consumer is
//             on the CPU and the producer on the device;
//   upload:   producer -> u (kTransferCost), u -> consumers (infinite): the other way round.
// The cut found from the source side is the smallest CPU side among the cheapest placements,
// so ties go to the device. An argmax of a CPU cumsum that the method returns costs 1 on the
// CPU and two transfers on the device: it stays; a chain of elementwise ops between a CPU op
// and a convolution needs its transfer either way: it goes to the device.
#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <queue>
#include <tuple>

#include "jit/passes/passes.h"
#include "ops/registry.h"

namespace tvk::jit {

namespace {

constexpr int64_t kInfinite = int64_t{1} << 40;
// A transfer is a copy and, before a CPU op, a wait for the GPU: worth a few small ops.
constexpr int64_t kTransferCost = 4;
constexpr int64_t kLightOpCost = 1;
// Ops whose work grows with weights or whole activations: moving one to the CPU to save a
// transfer or two is rarely a gain.
constexpr int64_t kHeavyOpCost = 64;

bool is_heavy(const std::string& name) {
  static const char* const kParts[] = {"conv", "linear", "matmul", "mm", "einsum", "prepack", "_norm",
                                       "pool", "upsample", "attention", "softmax", "lstm", "gru", "baddbmm"};
  for (const char* part : kParts)
    if (name.find(part) != std::string::npos) return true;
  return false;
}

// Dinic's maximum flow; the graphs have a vertex per op and two per value.
class MinCut {
 public:
  explicit MinCut(size_t vertices) : adjacent_(vertices) {}

  void add_edge(size_t from, size_t to, int64_t capacity) {
    adjacent_[from].push_back(edges_.size());
    edges_.push_back({to, capacity});
    adjacent_[to].push_back(edges_.size());
    edges_.push_back({from, 0});
  }

  void solve(size_t source, size_t sink) {
    while (levels(source, sink)) {
      next_.assign(adjacent_.size(), 0);
      while (push(source, sink, kInfinite) > 0) {
      }
    }
  }

  // Vertices still reachable from the source: the source side of a minimum cut.
  std::vector<char> source_side(size_t source) const {
    std::vector<char> seen(adjacent_.size(), 0);
    std::vector<size_t> stack{source};
    seen[source] = 1;
    while (!stack.empty()) {
      const size_t v = stack.back();
      stack.pop_back();
      for (size_t e : adjacent_[v])
        if (edges_[e].capacity > 0 && !seen[edges_[e].to]) {
          seen[edges_[e].to] = 1;
          stack.push_back(edges_[e].to);
        }
    }
    return seen;
  }

 private:
  struct Edge {
    size_t to;
    int64_t capacity;
  };

  bool levels(size_t source, size_t sink) {
    level_.assign(adjacent_.size(), -1);
    std::queue<size_t> queue;
    queue.push(source);
    level_[source] = 0;
    while (!queue.empty()) {
      const size_t v = queue.front();
      queue.pop();
      for (size_t e : adjacent_[v])
        if (edges_[e].capacity > 0 && level_[edges_[e].to] < 0) {
          level_[edges_[e].to] = level_[v] + 1;
          queue.push(edges_[e].to);
        }
    }
    return level_[sink] >= 0;
  }

  int64_t push(size_t v, size_t sink, int64_t flow) {
    if (v == sink) return flow;
    for (size_t& i = next_[v]; i < adjacent_[v].size(); ++i) {
      Edge& edge = edges_[adjacent_[v][i]];
      if (edge.capacity <= 0 || level_[edge.to] != level_[v] + 1) continue;
      const int64_t pushed = push(edge.to, sink, std::min(flow, edge.capacity));
      if (pushed > 0) {
        edge.capacity -= pushed;
        edges_[adjacent_[v][i] ^ 1].capacity += pushed;
        return pushed;
      }
    }
    return 0;
  }

  std::vector<Edge> edges_;
  std::vector<std::vector<size_t>> adjacent_;
  std::vector<int> level_;
  std::vector<size_t> next_;
};

// Schemas mark views by an alias annotation on the return: "Tensor(a)".
bool returns_view(const Node& n) {
  for (const std::string& r : n.op->schema.returns)
    if (r.find("Tensor(a") != std::string::npos) return true;
  return false;
}

bool returns_tensors(const Node& n) {
  for (const std::string& r : n.op->schema.returns)
    if (r.find("Tensor") != std::string::npos) return true;
  return false;
}

// An op that writes its first argument ("Tensor(a!) self"), as the registry reads its schema.
bool is_in_place(const Node& n) { return n.op->mutates_self; }

// The device an explicit transfer (`to`, aten::to.prim_Device) moves to; none for other nodes
// or a device given at run time.
std::optional<Device> transfer_target(const Node& n, const ops::OpEntry& to) {
  if (n.kind != NodeKind::Op || n.op != &to || n.args.size() < 2 || n.args[1].is_value() ||
      !n.args[1].constant.isDevice())
    return std::nullopt;
  return n.args[1].constant.toDevice();
}

bool is_tensor_value(const Arg& a) { return a.is_value() && a.value->type == ValueType::Tensor; }

}  // namespace

bool falls_back_to_cpu(const Node& n, Device device) {
  if (n.kind != NodeKind::Op || !n.op->cpu) return false;
  return device == Device::Vulkan && !n.op->vulkan;
}

PartitionReport partition_for_cpu_fallback(Graph& g, Device device) {
  PartitionReport report;
  const ops::OpEntry& to = ops::require_op("aten::to.prim_Device");
  const std::vector<Node*> nodes = g.all_nodes();

  // Vertices: 0 the CPU, 1 the device, then one per placed op.
  constexpr size_t kCpu = 0, kDevice = 1;
  std::map<const Node*, size_t> vertex;
  for (const Node* n : nodes)
    if (n->kind == NodeKind::Op && (transfer_target(*n, to) || returns_tensors(*n) || falls_back_to_cpu(*n, device)))
      vertex.emplace(n, vertex.size() + 2);
  // A list of tensors that only ops read (cat's, stack's) lies where they run: its elements are
  // moved into it, and it is tied to its readers.
  std::vector<const Node*> lists;
  for (const Node* n : nodes) {
    if (n->kind != NodeKind::ListConstruct || std::none_of(n->args.begin(), n->args.end(), is_tensor_value)) continue;
    const std::vector<Node*> readers = g.uses(n->outputs[0]);
    if (!readers.empty() && std::all_of(readers.begin(), readers.end(), [&](Node* r) { return vertex.count(r) > 0; })) {
      vertex.emplace(n, vertex.size() + 2);
      lists.push_back(n);
    }
  }
  std::map<const Value*, size_t> producer;  // tensors made by a placed op
  for (const auto& [n, v] : vertex)
    if (n->kind == NodeKind::Op)
      for (const Value* out : n->outputs)
      if (out->type == ValueType::Tensor) producer[out] = v;
  MinCut cut(vertex.size() + 2 + 2 * producer.size());
  size_t next_helper = vertex.size() + 2;
  for (const Node* list : lists)
    for (const Node* reader : g.uses(list->outputs[0])) {
      cut.add_edge(vertex[list], vertex[reader], kInfinite);
      cut.add_edge(vertex[reader], vertex[list], kInfinite);
    }
  for (const auto& [n, v] : vertex) {
    if (n->kind == NodeKind::ListConstruct) continue;
    if (const std::optional<Device> target = transfer_target(*n, to)) {
      if (*target == Device::CPU) cut.add_edge(kCpu, v, kInfinite);
      else cut.add_edge(v, kDevice, kInfinite);
    } else if (falls_back_to_cpu(*n, device)) {
      cut.add_edge(kCpu, v, kInfinite);
    } else if (n->op->cpu == nullptr) {
      cut.add_edge(v, kDevice, kInfinite);
    } else if (is_in_place(*n)) {
      // It writes its first argument where that lies: tied to its producer, whatever the cost.
      if (!n->args.empty() && is_tensor_value(n->args[0]) && producer.count(n->args[0].value)) {
        cut.add_edge(v, producer[n->args[0].value], kInfinite);
        cut.add_edge(producer[n->args[0].value], v, kInfinite);
      }
    } else if (!returns_view(*n)) {
      cut.add_edge(v, kDevice, is_heavy(n->op->schema.name) ? kHeavyOpCost : kLightOpCost);
    }
  }
  for (const auto& [value, from] : producer) {
    std::vector<size_t> consumers;
    for (const Node* user : g.uses(value)) {
      auto it = vertex.find(user);
      if (it != vertex.end() && std::find(consumers.begin(), consumers.end(), it->second) == consumers.end())
        consumers.push_back(it->second);
    }
    const size_t download = next_helper++, upload = next_helper++;
    if (consumers.empty()) continue;
    cut.add_edge(download, from, kTransferCost);
    cut.add_edge(from, upload, kTransferCost);
    for (size_t c : consumers) {
      cut.add_edge(c, download, kInfinite);
      cut.add_edge(upload, c, kInfinite);
    }
  }
  cut.solve(kCpu, kDevice);
  const std::vector<char> on_cpu_side = cut.source_side(kCpu);

  // Apply: each op gets its tensor inputs where it runs, one transfer per value, block and
  // direction. Values of unknown place (graph inputs, values out of tuples or Ifs) are left to
  // the run-time fallback, which is always correct.
  std::map<const Value*, Device> where;
  std::map<std::tuple<const Value*, const NodeBlock*, Device>, Value*> moved;
  auto move = [&](Arg& a, Node* consumer, Device target) {
    auto key = std::make_tuple(static_cast<const Value*>(a.value), static_cast<const NodeBlock*>(consumer->owner), target);
    auto it = moved.find(key);
    if (it == moved.end()) {
      std::unique_ptr<Node> node = make_transfer(g, a, target);
      node->source = consumer->source;
      Value* out = node->outputs[0];
      g.insert_before(std::move(node), consumer);
      where[out] = target;
      it = moved.emplace(key, out).first;
      ++report.transfers;
    }
    a = Arg::of(it->second);
  };
  for (Node* n : nodes) {
    auto v = vertex.find(n);
    if (v == vertex.end()) continue;  // metadata ops (size, dim) run wherever their input is
    if (const std::optional<Device> target = transfer_target(*n, to)) {
      where[n->outputs[0]] = *target;
      continue;
    }
    Device target = on_cpu_side[v->second] ? Device::CPU : device;
    if (n->kind == NodeKind::ListConstruct) {
      for (Arg& a : n->args) {
        auto w = is_tensor_value(a) ? where.find(a.value) : where.end();
        if (w != where.end() && w->second != target) move(a, n, target);
      }
      continue;
    }
    if (is_in_place(*n) || returns_view(*n)) {
      // Where its input is unknown, so is its result: the run-time fallback handles it.
      auto w = !n->args.empty() && is_tensor_value(n->args[0]) ? where.find(n->args[0].value) : where.end();
      if (w == where.end()) continue;
      if (is_in_place(*n)) target = w->second;
    }
    if (target == Device::CPU && !returns_view(*n) && !is_in_place(*n))
      report.cpu_nodes.push_back(n->describe() + (n->source.empty() ? "" : " at " + n->source));
    for (Arg& a : n->args) {
      if (!is_tensor_value(a)) continue;
      auto w = where.find(a.value);
      if (w != where.end() && w->second != target) move(a, n, target);
    }
    for (Value* out : n->outputs)
      if (out->type == ValueType::Tensor) where[out] = target;
  }
  return report;
}

}  // namespace tvk::jit
