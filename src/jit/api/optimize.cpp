// optimize_for_mobile: clone, eval, freeze, then the passes of PyTorch's vulkanOptimizeForMobile
// (or optimizeForMobile for the CPU backend) on the frozen graphs.
#include "tvk/optimize.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>

#include "core/run_scope.h"
#include "core/storage.h"
#include "jit/ir/freeze.h"
#include "jit/passes/passes.h"
#include "jit/runtime/graph_executor.h"
#include "jit/serialization/import.h"

namespace tvk {

namespace {

const char* kTypeNames[] = {"CONV_BN_FUSION",           "INSERT_FOLD_PREPACK_OPS", "REMOVE_DROPOUT",
                            "FUSE_ADD_RELU",            "HOIST_CONV_PACKED_PARAMS", "CONV_1D_TO_2D",
                            "VULKAN_AUTOMATIC_GPU_TRANSFER"};

// A deep copy of the object graph (objects, lists, dicts); tensors are shared, since no pass
// writes into a tensor it did not make.
IValue clone_values(const IValue& v, std::map<const void*, IValue>& copies) {
  RunScope::visit("copying a nested value");
  if (v.isObject() && !v.toObject()->payload) {
    auto it = copies.find(v.toObject().get());
    if (it != copies.end()) return it->second;
    auto copy = std::make_shared<Object>();
    copy->type_name = v.toObject()->type_name;
    IValue result(copy);
    copies[v.toObject().get()] = result;
    for (const auto& [name, value] : v.toObject()->attributes) copy->attributes.emplace_back(name, clone_values(value, copies));
    return result;
  }
  if (v.isList() || v.isTuple()) {
    List items;
    for (const IValue& e : v.toList()) items.push_back(clone_values(e, copies));
    return v.isList() ? IValue::list(std::move(items)) : IValue::tuple(std::move(items));
  }
  if (v.isDict()) {
    auto d = std::make_shared<Dict>();
    for (const auto& [k, value] : v.toDict()->items) d->items.emplace_back(k, clone_values(value, copies));
    return IValue(d);
  }
  return v;
}

std::string histogram_string(const std::map<std::string, int>& h) {
  std::vector<std::pair<int, std::string>> sorted;
  int total = 0;
  for (const auto& [name, n] : h) {
    sorted.emplace_back(-n, name);
    total += n;
  }
  std::sort(sorted.begin(), sorted.end());
  std::ostringstream out;
  out << total << " nodes";
  for (const auto& [n, name] : sorted) out << "\n    " << -n << " x " << name;
  return out.str();
}

}  // namespace

MobileOptimizerType parse_mobile_optimizer_type(const std::string& name) {
  std::string upper = name;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (int i = 0; i < 7; ++i)
    if (upper == kTypeNames[i]) return static_cast<MobileOptimizerType>(i);
  std::string known;
  for (const char* n : kTypeNames) known += std::string(known.empty() ? "" : ", ") + n;
  throw Error("unknown MobileOptimizerType '" + name + "' (one of " + known + ")");
}

const char* to_string(MobileOptimizerType type) { return kTypeNames[static_cast<int>(type)]; }

std::string OptimizationReport::summary() const {
  std::ostringstream out;
  out << "ops before: " << histogram_string(ops_before) << "\n";
  out << "ops after:  " << histogram_string(ops_after) << "\n";
  out << "batch norms folded into convolutions: " << batch_norms_folded << "\n";
  if (xnnpack_contexts_unpacked) out << "XNNPACK contexts and quantized layers unpacked: " << xnnpack_contexts_unpacked << "\n";
  out << "convolutions packed: " << convolutions_packed << "\n";
  out << "linear layers packed: " << linears_packed << "\n";
  out << "recurrent layers packed: " << recurrent_layers_packed << "\n";
  out << "activations fused into convolutions: " << activations_fused << "\n";
  if (scales_folded) out << "constant scales folded into linear layers: " << scales_folded << "\n";
  out << "dropouts removed: " << dropouts_removed << "\n";
  out << "in-place ops made functional: " << mutations_removed << "\n";
  out << "CPU<->Vulkan transfers inserted: " << transfers_inserted << "\n";
  out << "common subexpressions removed: " << common_subexpressions_removed << "\n";
  out << "dead nodes removed: " << dead_nodes_removed;
  if (!cpu_nodes.empty()) {
    out << "\nCPU fallback partition: " << cpu_nodes.size() << " node(s) on the CPU, " << cpu_fallback_transfers
        << " transfer(s) at its borders:";
    for (const std::string& n : cpu_nodes) out << "\n    " << n;
  }
  return out.str();
}

namespace {
jit::Module optimize_in_run(const jit::Module& module, const MobileOptimizerOptions& options,
                            OptimizationReport* report);
}  // namespace

// Freezing runs the model's code: under the module's limits, on a stack of known size.
jit::Module optimize_for_mobile(const jit::Module& module, const MobileOptimizerOptions& options,
                                OptimizationReport* report) {
  return with_run_stack([&] {
    RunScope run(module.limits(), nullptr, "optimizing " + module.type_name());
    jit::Module result = optimize_in_run(module, options, report);
    result.set_limits(module.limits());
    return result;
  });
}

namespace {
jit::Module optimize_in_run(const jit::Module& module, const MobileOptimizerOptions& options,
                            OptimizationReport* report) {
  const bool vulkan = options.backend == MobileBackend::Vulkan;
  if (vulkan) require_device_backend(Device::Vulkan);
  auto blocked = [&](MobileOptimizerType t) { return options.optimization_blocklist.count(t) > 0; };

  // Work on a copy: freezing sets training = False and folds attributes.
  const jit::ModuleState& original = *module.state();
  TVK_CHECK(original.frozen_methods.empty(), "this module is already optimized");
  if (original.bytecode)
    throw UnsupportedError(detail::concat(
        original.path, " is a lite-interpreter file with bytecode only (no code/): tvk runs it as it is, op by op, "
        "but optimize_for_mobile needs the TorchScript source; optimize the model's torch.jit.save file instead"));
  jit::ModuleState work;
  work.path = original.path;
  work.unit = original.unit;
  work.interpreter = std::make_unique<jit::Interpreter>(*work.unit, Device::CPU);
  std::map<const void*, IValue> copies;
  work.root = clone_values(IValue(original.root), copies).toObject();
  jit::set_eval_mode(work);

  auto result = std::make_shared<jit::ModuleState>();
  result->path = original.path;
  result->extra_files = original.extras();
  result->unit = original.unit;
  result->interpreter = std::make_unique<jit::Interpreter>(*result->unit, Device::CPU);
  result->root = std::make_shared<Object>();
  result->root->type_name = original.root->type_name;
  result->root->set("training", IValue(false));
  // A torch.export program keeps checking its inputs against the exported shapes, and its
  // sample inputs, while it is not saved (a TorchScript file has neither).
  result->exported = original.exported;
  result->example_inputs = original.example_inputs;

  OptimizationReport stats;
  std::vector<std::string> methods{"forward"};
  for (const std::string& m : options.preserved_methods)
    if (std::find(methods.begin(), methods.end(), m) == methods.end()) methods.push_back(m);
  bool transfers = false;
  auto step = [&](const std::string& name, const std::string& method) {
    if (options.progress) options.progress(name + (method == "forward" ? "" : " (" + method + ")"));
  };
  for (const std::string& method : methods) {
    step("freezing", method);
    std::unique_ptr<jit::Graph> graph = jit::freeze_method(work, method, method == "forward" ? options.input_dtypes
                                                                                      : std::vector<std::optional<DType>>{});
    const bool is_forward = method == "forward";
    if (is_forward) stats.ops_before = graph->op_histogram();
    // CPU-prepacked (XNNPACK) layers become plain ops first, so the Vulkan passes pack them.
    if (vulkan) stats.xnnpack_contexts_unpacked += jit::unpack_xnnpack_contexts(*graph);
    step("folding batch norms", method);
    if (!blocked(MobileOptimizerType::CONV_BN_FUSION)) stats.batch_norms_folded += jit::fold_conv_batch_norm(*graph);
    if (vulkan && !blocked(MobileOptimizerType::INSERT_FOLD_PREPACK_OPS)) {
      step("packing weights for Vulkan", method);
      const int packed = jit::insert_prepacked_ops(*graph);
      const auto h = graph->op_histogram();
      const int linears = h.count("vulkan_prepack::run_linear_context") ? h.at("vulkan_prepack::run_linear_context") : 0;
      auto count = [&h](const char* name) { return h.count(name) ? h.at(name) : 0; };
      const int recurrent = count("vulkan_prepack::run_lstm_context") + count("vulkan_prepack::run_gru_context");
      stats.linears_packed += linears;
      stats.recurrent_layers_packed += recurrent;
      stats.convolutions_packed += packed - linears - recurrent;
      stats.activations_fused += jit::fuse_clamp_into_packed_conv(*graph);
      stats.scales_folded += jit::fold_scale_into_packed_linear(*graph);
      jit::fold_prepacking(*graph);
    }
    if (!blocked(MobileOptimizerType::REMOVE_DROPOUT)) stats.dropouts_removed += jit::remove_dropout(*graph);
    step("clean-up passes", method);
    stats.mutations_removed += jit::remove_mutation(*graph);
    if (vulkan && !blocked(MobileOptimizerType::VULKAN_AUTOMATIC_GPU_TRANSFER)) {
      stats.transfers_inserted += jit::insert_backend_transfers(*graph, Device::Vulkan);
      transfers = true;
    }
    if (vulkan && options.cpu_fallback) {
      step("partitioning for the CPU fallback", method);
      jit::PartitionReport partition = jit::partition_for_cpu_fallback(*graph, Device::Vulkan);
      stats.cpu_fallback_transfers += partition.transfers;
      for (std::string& n : partition.cpu_nodes) stats.cpu_nodes.push_back(std::move(n));
    }
    if (vulkan) jit::move_constants(*graph, Device::Vulkan);
    // Canonical clean-up (constants were already propagated while freezing).
    stats.common_subexpressions_removed += jit::eliminate_common_subexpressions(*graph);
    stats.dead_nodes_removed += jit::eliminate_dead_code(*graph);
    if (is_forward) stats.ops_after = graph->op_histogram();
    result->frozen_methods[method] = std::make_shared<jit::GraphExecutor>(std::shared_ptr<const jit::Graph>(std::move(graph)));
  }
  if (vulkan) {
    result->root->set("optimized_for_vulkan", IValue(true));
    // PyTorch's meaning: False = callers need not move tensors (the model does it).
    if (transfers) result->root->set("requires_backend_transfers", IValue(false));
  } else {
    result->root->set("mobile_optimized", IValue(true));
  }
  if (report) *report = stats;
  return jit::Module(result);
}
}  // namespace

}  // namespace tvk
