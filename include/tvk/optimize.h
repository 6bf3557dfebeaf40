// tvk::optimize_for_mobile: PyTorch's torch.utils.mobile_optimizer.optimize_for_mobile, with the
// Vulkan backend that stock PyTorch can no longer run.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tvk/module.h"

namespace tvk {

// torch._C.MobileOptimizerType, same members and values.
enum class MobileOptimizerType {
  CONV_BN_FUSION = 0,
  INSERT_FOLD_PREPACK_OPS = 1,
  REMOVE_DROPOUT = 2,
  FUSE_ADD_RELU = 3,
  HOIST_CONV_PACKED_PARAMS = 4,
  CONV_1D_TO_2D = 5,
  VULKAN_AUTOMATIC_GPU_TRANSFER = 6,
};
// "VULKAN_AUTOMATIC_GPU_TRANSFER" (case-insensitive) -> the member; throws tvk::Error otherwise.
MobileOptimizerType parse_mobile_optimizer_type(const std::string& name);
const char* to_string(MobileOptimizerType type);

enum class MobileBackend { CPU, Vulkan };

struct MobileOptimizerOptions {
  MobileBackend backend = MobileBackend::CPU;  // PyTorch's default
  std::set<MobileOptimizerType> optimization_blocklist;
  std::vector<std::string> preserved_methods;  // frozen too, besides forward
  // Vulkan backend: ops without a Vulkan kernel are partitioned onto the CPU (with transfers at
  // the partition's borders) instead of failing at run time. See set_cpu_fallback.
  bool cpu_fallback = false;
  // Called with each step's name as it starts ("freezing forward", "packing weights", ...), for
  // progress displays; large models take seconds in freezing and packing.
  std::function<void(const std::string& step)> progress;
  // The dtypes of forward's tensor arguments, where known (a bool padding mask, int64 token
  // ids): code that asks an input's dtype is frozen for them. Unset ones are taken as float32.
  std::vector<std::optional<DType>> input_dtypes;
};

// What the optimizer did, for `tvk optimize` and tests.
struct OptimizationReport {
  std::map<std::string, int> ops_before, ops_after;  // graph node kinds and counts, forward
  // CPU-prepacked (XNNPACK) and quantized layers turned into plain ops (Vulkan backend).
  int xnnpack_contexts_unpacked = 0;
  int batch_norms_folded = 0;
  int convolutions_packed = 0;  // conv1d / conv2d / conv_transpose2d contexts
  int linears_packed = 0;
  int recurrent_layers_packed = 0;  // aten::lstm / aten::gru as LstmPackedContext / GruPackedContext
  int activations_fused = 0;
  int scales_folded = 0;  // constant per-feature scales after linear layers (layer scale)
  int dropouts_removed = 0;
  int mutations_removed = 0;
  int transfers_inserted = 0;
  int common_subexpressions_removed = 0;
  int dead_nodes_removed = 0;
  // cpu_fallback: the nodes put on the CPU (op and source) and the transfers at the borders.
  std::vector<std::string> cpu_nodes;
  int cpu_fallback_transfers = 0;
  std::string summary() const;
};

// Freezes `forward` (and the preserved methods) of a copy of `module` and optimizes it. The
// result runs the optimized graphs; save() writes it as a TorchScript archive. The Vulkan
// backend needs a Vulkan device (weights are packed onto it here).
jit::Module optimize_for_mobile(const jit::Module& module, const MobileOptimizerOptions& options = {},
                                OptimizationReport* report = nullptr);

}  // namespace tvk
