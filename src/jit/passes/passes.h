// Graph passes of optimize_for_mobile, one function each, testable one by one. Each returns how
// many rewrites it made.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "jit/ir/graph.h"

namespace tvk::jit {

// conv2d / _convolution / convolution followed by an inference batch_norm with constant
// statistics: the batch norm is folded into the convolution's weight and bias.
int fold_conv_batch_norm(Graph& graph);
// dropout / feature_dropout (and in-place forms) with train=False or p = 0 become their input.
int remove_dropout(Graph& graph);
// In-place ops (relu_, hardtanh_, add_...) whose input has no other use become functional.
int remove_mutation(Graph& graph);
// prepacked::conv2d_clamp_run / linear_clamp_run with a constant XNNPACK context (files made by
// PyTorch's optimize_for_mobile for the CPU) become conv2d / linear on the context's weights,
// followed by a clamp where the context has bounds: plain ops the Vulkan passes then pack.
// quantized::linear_dynamic on constant (dequantized) weights becomes linear likewise.
int unpack_xnnpack_contexts(Graph& graph);
// conv2d / conv_transpose2d / linear / addmm with constant weights become
// vulkan_prepack::create_*_context + run_*_context pairs.
int insert_prepacked_ops(Graph& graph);
// relu / hardtanh / clamp with constant bounds after run_conv2d_context move into the context's
// output_min / output_max.
int fuse_clamp_into_packed_conv(Graph& graph);
// A packed linear layer whose output (or its permute) is multiplied by a constant that scales
// only the layer's output features (ConvNeXt's and CaiT's layer scale: a [C, 1, 1] tensor after
// the permute back to NCHW; a scalar) takes the scale into its weight and bias:
// (x W^T + b) * c = x (W^T * c) + b * c, one dispatch fewer.
int fold_scale_into_packed_linear(Graph& graph);
// Execution-time fusion (applied to graphs as they are loaded to run, never to what is saved,
// since PyTorch has no such op): run_conv2d_context followed by an add of a tensor of its
// shape (alpha 1), and optionally a relu, becomes tvk::run_conv2d_context_add, one dispatch
// where the context's kernel allows it.
int fuse_add_into_packed_conv(Graph& graph);
// Execution-time fusion, as above: run_conv2d_context or run_linear_context followed by an
// activation its epilogue can apply (sigmoid, tanh, hardswish, hardsigmoid, silu, gelu; see
// ops::FusedActivation) becomes tvk::run_conv2d_context_act / tvk::run_linear_context_act.
int fuse_activation_into_packed_ops(Graph& graph);
// Execution-time rewrite, as above: permute(x, [0, 2, 3, 1]), layer_norm over the last dim, any
// elementwise activations, then permute(..., [0, 3, 1, 2]) (LayerNorm2d, as ConvNeXt writes it)
// becomes tvk::layer_norm_channels(x) on NCHW: no permutes. Every value between must have the
// chain's next node as its only use.
int rewrite_channel_layer_norms(Graph& graph);
// Execution-time fusion, as above: cat of run_conv2d_context outputs (squeezenet's fire
// modules) becomes tvk::run_conv2d_contexts_cat, whose convolutions write their channels of the
// result in place at batch 1 instead of each output being copied.
int fuse_cat_of_packed_convs(Graph& graph);
// create_*_context nodes with constant arguments run now; their results become constants.
int fold_prepacking(Graph& graph);
// Tensor inputs are moved to `device` where they enter, tensor outputs back to the CPU.
int insert_backend_transfers(Graph& graph, Device device);
// Constant tensors used by ops move to `device` once (0-D integers stay on the CPU), and
// factories given device=cpu and dtype=float32 make their tensors on `device`.
int move_constants(Graph& graph, Device device);
// The CPU fallback's partition (after insert_backend_transfers): nodes whose op has a CPU kernel
// and none for `device` get CPU inputs, and the ops after them get their inputs back on
// `device`, with one transfer per value and block at each border; CPU values flow between
// consecutive CPU nodes untouched. Values whose place is unknown (out of tuples or Ifs) are
// left to the run-time fallback, which is always correct.
struct PartitionReport {
  std::vector<std::string> cpu_nodes;  // "aten::topk(...) at file:line"
  int transfers = 0;
};
PartitionReport partition_for_cpu_fallback(Graph& graph, Device device);
// A new aten::to.prim_Device node moving `x` to `device` (not yet in the graph).
std::unique_ptr<Node> make_transfer(Graph& graph, const Arg& x, Device device);
// An op that runs on the CPU under the fallback: a CPU kernel and no kernel for `device`.
bool falls_back_to_cpu(const Node& n, Device device);
// A pure node that repeats an earlier one (same op, same arguments) in its block or an
// enclosing block is replaced by it: tensor-producing ops only when the graph mutates nothing.
int eliminate_common_subexpressions(Graph& graph);
// Nodes without effects whose outputs are unused are removed.
int eliminate_dead_code(Graph& graph);

}  // namespace tvk::jit
