// The optimize_for_mobile passes over the frozen Graph.
#include "jit/passes/passes.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "ops/activation.h"
#include "ops/registry.h"
#include "ops/quantized.h"
#include "ops/xnnpack_contexts.h"
#include "tvk/ops.h"

namespace tvk::jit {

namespace {

const ops::OpEntry& op(const char* name) { return ops::require_op(name); }

bool is_const_tensor(const Arg& a) { return !a.is_value() && a.constant.isTensor() && a.constant.toTensor().defined(); }
bool is_const_none(const Arg& a) { return !a.is_value() && a.constant.isNone(); }
bool is_const_bool(const Arg& a, bool value) {
  return !a.is_value() && a.constant.isBool() && a.constant.toBool() == value;
}
bool all_constant(const Node& n, size_t from = 0) {
  for (size_t i = from; i < n.args.size(); ++i)
    if (n.args[i].is_value()) return false;
  return true;
}

// Ops that read only a tensor's shape: a rewrite that changes values but not shapes may ignore
// them (BatchNorm's input-rank check reads the convolution output it folds into).
bool reads_shape_only(const Node& n) {
  if (n.kind != NodeKind::Op) return false;
  const std::string& name = n.op->schema.name;
  return name == "aten::dim" || name == "aten::size" || name == "aten::numel" || name == "aten::len";
}

// The single node that uses `v`'s values (shape-only readers aside), when `v` is not a graph output.
Node* sole_user(const Graph& g, const Value* v) {
  if (g.is_graph_output(v)) return nullptr;
  Node* user = nullptr;
  for (Node* n : g.uses(v)) {
    if (reads_shape_only(*n)) continue;
    if (user) return nullptr;
    user = n;
  }
  return user;
}

std::unique_ptr<Node> make_op_node(Graph& g, const char* name, std::vector<Arg> args, ValueType out_type) {
  auto node = std::make_unique<Node>();
  node->kind = NodeKind::Op;
  node->op = &op(name);
  node->args = std::move(args);
  node->outputs.push_back(g.new_value(out_type));
  return node;
}

// A constant tensor argument, None where the tensor is undefined (a layer without bias).
Arg optional_tensor_arg(const Tensor& t) { return Arg::of(t.defined() ? IValue(t) : IValue()); }

// aten::conv2d and aten::linear of `input` with the float weights of an unpacked layer
// (XNNPACK contexts, quantized packed parameters).
std::unique_ptr<Node> plain_conv2d(Graph& g, const Arg& input, const Tensor& weight, const Tensor& bias,
                                   const IntList& stride, const IntList& padding, const IntList& dilation, int64_t groups) {
  return make_op_node(g, "aten::conv2d",
                      {input, Arg::of(IValue(weight)), optional_tensor_arg(bias), Arg::of(IValue(stride)),
                       Arg::of(IValue(padding)), Arg::of(IValue(dilation)), Arg::of(IValue(groups))},
                      ValueType::Tensor);
}
std::unique_ptr<Node> plain_linear(Graph& g, const Arg& input, const Tensor& weight, const Tensor& bias) {
  return make_op_node(g, "aten::linear", {input, Arg::of(IValue(weight)), optional_tensor_arg(bias)}, ValueType::Tensor);
}

// A plain convolution node (not transposed) in conv2d argument order: x, W, B, stride, padding,
// dilation, groups; nullptr for anything else.
struct ConvView {
  Arg input, weight, bias, stride, padding, dilation, groups, output_padding;
  bool transposed = false;
};
bool view_conv(const Node& n, ConvView* c) {
  if (n.kind != NodeKind::Op) return false;
  const std::string name = n.op->schema.full_name();
  const auto& a = n.args;
  if (name == "aten::conv2d" || name == "aten::conv1d" || name == "aten::conv3d") {
    *c = ConvView{a[0], a[1], a[2], a[3], a[4], a[5], a[6], Arg::of(IValue(IntList{0, 0})), false};
    return true;
  }
  if (name == "aten::convolution" || name.rfind("aten::_convolution", 0) == 0) {
    // (input, weight, bias, stride, padding, dilation, transposed, output_padding, groups, ...)
    if (a[6].is_value() || !a[6].constant.isBool()) return false;
    *c = ConvView{a[0], a[1], a[2], a[3], a[4], a[5], a[8], a[7], a[6].constant.toBool()};
    return true;
  }
  if (name == "aten::conv_transpose2d.input") {
    // (input, weight, bias, stride, padding, output_padding, groups, dilation)
    *c = ConvView{a[0], a[1], a[2], a[3], a[4], a[7], a[6], a[5], true};
    return true;
  }
  return false;
}

}  // namespace

int fold_conv_batch_norm(Graph& g) {
  int folded = 0;
  for (Node* bn : g.all_nodes()) {
    if (!bn->is_op("aten::batch_norm")) continue;
    // (input, weight?, bias?, running_mean?, running_var?, training, momentum, eps, cudnn_enabled)
    const auto& b = bn->args;
    if (!b[0].is_value() || !b[0].value->producer || !is_const_bool(b[5], false)) continue;
    if (!is_const_tensor(b[3]) || !is_const_tensor(b[4]) || b[7].is_value()) continue;
    if (!(is_const_tensor(b[1]) || is_const_none(b[1])) || !(is_const_tensor(b[2]) || is_const_none(b[2]))) continue;
    Node* conv = b[0].value->producer;
    ConvView c;
    if (conv->kind != NodeKind::Op || !view_conv(*conv, &c) || c.transposed) continue;
    if (!is_const_tensor(c.weight) || !(is_const_tensor(c.bias) || is_const_none(c.bias))) continue;
    if (sole_user(g, conv->outputs[0]) != bn) continue;

    Tensor w = c.weight.constant.toTensor().cpu().contiguous();
    const int64_t out_channels = w.size(0);
    Tensor mean = b[3].constant.toTensor().cpu().contiguous(), var = b[4].constant.toTensor().cpu().contiguous();
    if (mean.numel() != out_channels || var.numel() != out_channels) continue;
    const double eps = b[7].constant.toDouble();
    Tensor gamma = is_const_tensor(b[1]) ? b[1].constant.toTensor().cpu().contiguous() : Tensor();
    Tensor beta = is_const_tensor(b[2]) ? b[2].constant.toTensor().cpu().contiguous() : Tensor();
    Tensor bias = is_const_tensor(c.bias) ? c.bias.constant.toTensor().cpu().contiguous() : Tensor();

    // s = gamma / sqrt(var + eps);  W' = W * s (per output channel);  b' = (b - mean) * s + beta
    Tensor new_w = empty(w.sizes()), new_b = empty({out_channels});
    const int64_t per_channel = w.numel() / std::max<int64_t>(out_channels, 1);
    for (int64_t oc = 0; oc < out_channels; ++oc) {
      const double s = (gamma.defined() ? gamma.data<float>()[oc] : 1.0) / std::sqrt(var.data<float>()[oc] + eps);
      for (int64_t i = 0; i < per_channel; ++i)
        new_w.data<float>()[oc * per_channel + i] = static_cast<float>(w.data<float>()[oc * per_channel + i] * s);
      const double b0 = bias.defined() ? bias.data<float>()[oc] : 0.0;
      new_b.data<float>()[oc] =
          static_cast<float>((b0 - mean.data<float>()[oc]) * s + (beta.defined() ? beta.data<float>()[oc] : 0.0));
    }
    // Positions of weight (1) and bias (2) are the same in every convolution schema handled. The
    // folded weights go where the originals were (a model loaded for Vulkan, planned: a layer
    // that is not packed next, such as a 3-D convolution, reads them there).
    const Device where = c.weight.constant.toTensor().device();
    conv->args[1] = Arg::of(IValue(where == Device::CPU ? new_w : new_w.to(where)));
    conv->args[2] = Arg::of(IValue(where == Device::CPU ? new_b : new_b.to(where)));
    g.replace_all_uses(bn->outputs[0], Arg::of(conv->outputs[0]));
    g.erase(bn);
    ++folded;
  }
  return folded;
}

int remove_dropout(Graph& g) {
  int removed = 0;
  for (Node* n : g.all_nodes()) {
    if (n->kind != NodeKind::Op) continue;
    const std::string& name = n->op->schema.name;
    if (name != "aten::dropout" && name != "aten::feature_dropout" && name != "aten::dropout_" &&
        name != "aten::feature_dropout_" && name != "aten::alpha_dropout")
      continue;
    if (n->args.size() < 3) continue;
    // train=False, or a probability of 0 (torchvision's swin_t passes training=True with p = 0).
    const Arg& p = n->args[1];
    const bool zero_p = !p.is_value() && p.constant.isNumber() && p.constant.toDouble() == 0.0;
    if (!is_const_bool(n->args[2], false) && !zero_p) continue;
    g.replace_all_uses(n->outputs[0], n->args[0]);
    g.erase(n);
    ++removed;
  }
  return removed;
}

int remove_mutation(Graph& g) {
  int rewritten = 0;
  for (Node* n : g.all_nodes()) {
    if (n->kind != NodeKind::Op) continue;
    const ops::Schema& schema = n->op->schema;
    if (schema.name.size() < 2 || schema.name.back() != '_' || schema.name.compare(schema.name.size() - 2, 2, "__") == 0)
      continue;
    const std::string functional =
        schema.name.substr(0, schema.name.size() - 1) + (schema.overload.empty() ? "" : "." + schema.overload);
    const ops::OpEntry* f = ops::Registry::global().find(functional);
    if (!f || f->schema.arguments.size() != schema.arguments.size()) continue;
    // Safe when nothing else sees the mutated value: it is a node's result used only here, and
    // not a view of another value (a slice written in place writes into what it was sliced from).
    const Arg& self = n->args[0];
    if (!self.is_value() || !self.value->producer || sole_user(g, self.value) != n) continue;
    const Node* producer = self.value->producer;
    if (producer->kind == NodeKind::Op && !producer->op->schema.returns.empty() &&
        producer->op->schema.returns[0].rfind("Tensor(", 0) == 0)
      continue;
    n->op = f;
    ++rewritten;
  }
  return rewritten;
}

int unpack_xnnpack_contexts(Graph& g) {
  int unpacked = 0;
  for (Node* n : g.all_nodes()) {
    if (n->kind != NodeKind::Op || n->args.size() < 2 || n->args[1].is_value()) continue;
    // A dynamic-quantized linear on constant (dequantized) weights: a plain linear.
    if (n->is_op("quantized::linear_dynamic") || n->is_op("quantized::linear_dynamic_fp16")) {
      const ops::QuantizedLinearParams* c = ops::quantized_linear_params(n->args[1].constant);
      if (!c) continue;
      std::unique_ptr<Node> plain = plain_linear(g, n->args[0], c->weight, c->bias);
      n->op = plain->op;
      n->args = std::move(plain->args);
      ++unpacked;
      continue;
    }
    // A statically quantized conv or linear on constant (dequantized) weights: the float op
    // (which the Vulkan passes pack, relu fused), then rounding onto its output's grid.
    const bool qconv = n->is_op("quantized::conv2d.new") || n->is_op("quantized::conv2d_relu.new");
    const bool qlinear = n->is_op("quantized::linear") || n->is_op("quantized::linear_relu");
    if ((qconv || qlinear) && n->args.size() == 4) {
      std::unique_ptr<Node> plain;
      if (qconv) {
        const ops::QuantizedConvParams* c = ops::quantized_conv_params(n->args[1].constant);
        if (!c) continue;
        plain = plain_conv2d(g, n->args[0], c->weight, c->bias, c->stride, c->padding, c->dilation, c->groups);
      } else {
        const ops::QuantizedLinearParams* c = ops::quantized_linear_params(n->args[1].constant);
        if (!c) continue;
        plain = plain_linear(g, n->args[0], c->weight, c->bias);
      }
      Node* made = g.insert_before(std::move(plain), n);
      if (n->is_op("quantized::conv2d_relu.new") || n->is_op("quantized::linear_relu"))
        made = g.insert_before(make_op_node(g, "aten::relu", {Arg::of(made->outputs[0])}, ValueType::Tensor), n);
      n->op = &op("aten::fake_quantize_per_tensor_affine");
      n->args = {Arg::of(made->outputs[0]), n->args[2], n->args[3], Arg::of(IValue(int64_t{0})), Arg::of(IValue(int64_t{255}))};
      ++unpacked;
      continue;
    }
    if (n->args.size() != 2) continue;
    std::unique_ptr<Node> plain;
    std::optional<double> lo, hi;
    if (n->is_op("prepacked::conv2d_clamp_run")) {
      const ops::XnnpackConv2dContext* c = ops::xnnpack_conv_context(n->args[1].constant);
      if (!c) continue;
      plain = plain_conv2d(g, n->args[0], c->weight, c->bias, c->stride, c->padding, c->dilation, c->groups);
      lo = c->output_min;
      hi = c->output_max;
    } else if (n->is_op("prepacked::linear_clamp_run")) {
      const ops::XnnpackLinearContext* c = ops::xnnpack_linear_context(n->args[1].constant);
      if (!c) continue;
      plain = plain_linear(g, n->args[0], c->weight, c->bias);
      lo = c->output_min;
      hi = c->output_max;
    } else {
      continue;
    }
    if (!lo && !hi) {
      // The plain op takes the run node's place (and keeps its output value).
      n->op = plain->op;
      n->args = std::move(plain->args);
    } else {
      // The plain op goes before; the run node becomes the clamp (which the Vulkan passes fuse).
      Node* made = g.insert_before(std::move(plain), n);
      n->op = &op("aten::clamp");
      n->args = {Arg::of(made->outputs[0]), Arg::of(lo ? IValue(*lo) : IValue()), Arg::of(hi ? IValue(*hi) : IValue())};
    }
    ++unpacked;
  }
  return unpacked;
}

int insert_prepacked_ops(Graph& g) {
  int inserted = 0;
  for (Node* n : g.all_nodes()) {
    if (n->kind != NodeKind::Op) continue;
    ConvView c;
    const std::string name = n->op->schema.full_name();
    std::unique_ptr<Node> create;
    const char* run_name = nullptr;
    Arg input;
    if (view_conv(*n, &c)) {
      if (!is_const_tensor(c.weight) || !all_constant(*n, 1)) continue;
      const int64_t rank = c.weight.constant.toTensor().dim();
      input = c.input;
      if (rank == 3 && !c.transposed) {
        // A 1-D convolution (scripted conv1d, traced _convolution): PyTorch's Conv1dPackedContext.
        create = make_op_node(g, "vulkan_prepack::create_conv1d_context",
                              {c.weight, c.bias, c.stride, c.padding, c.dilation, c.groups}, ValueType::Object);
        run_name = "vulkan_prepack::run_conv1d_context";
      } else if (rank != 4) {
        continue;
      } else if (c.transposed) {
        create = make_op_node(g, "vulkan_prepack::create_tconv2d_context",
                              {c.weight, c.bias, c.stride, c.padding, c.output_padding, c.dilation, c.groups,
                               Arg::of(IValue()), Arg::of(IValue())},
                              ValueType::Object);
        run_name = "vulkan_prepack::run_tconv2d_context";
      } else {
        create = make_op_node(g, "vulkan_prepack::create_conv2d_context",
                              {c.weight, c.bias, c.stride, c.padding, c.dilation, c.groups, Arg::of(IValue()),
                               Arg::of(IValue())},
                              ValueType::Object);
        run_name = "vulkan_prepack::run_conv2d_context";
      }
    } else if (name == "aten::linear" || name == "aten::addmm") {
      Arg weight_t, bias;
      if (name == "aten::linear") {
        // (input, weight, bias?): the context takes t(weight), as PyTorch's rewrite does.
        if (!is_const_tensor(n->args[1]) || n->args[1].constant.toTensor().dim() != 2 || !all_constant(*n, 1)) continue;
        const Tensor w = n->args[1].constant.toTensor();
        // A Vulkan weight (a model loaded for Vulkan, planned) is transposed by a copy: Vulkan
        // tensors are contiguous.
        weight_t = Arg::of(w.device() == Device::CPU
                               ? IValue(w.as_strided({w.size(1), w.size(0)}, {w.stride(1), w.stride(0)}, w.storage_offset()))
                               : ops::call("aten::t", {IValue(w)}));
        bias = n->args[2];
        input = n->args[0];
      } else {
        // addmm(bias, x, weight_t, beta=1, alpha=1) is linear with a pre-transposed weight.
        const auto& a = n->args;
        if (!is_const_tensor(a[2]) || a[2].constant.toTensor().dim() != 2 || a[0].is_value() || a[3].is_value() ||
            a[4].is_value() || a[3].constant.toDouble() != 1.0 || a[4].constant.toDouble() != 1.0)
          continue;
        if (!(is_const_tensor(a[0]) && a[0].constant.toTensor().dim() == 1)) continue;
        weight_t = a[2];
        bias = a[0];
        input = a[1];
      }
      create = make_op_node(g, "vulkan_prepack::create_linear_context", {weight_t, bias}, ValueType::Object);
      run_name = "vulkan_prepack::run_linear_context";
    } else if (name == "aten::lstm.input" || name == "aten::gru.input") {
      // (input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first)
      // with constant weights and flags: a context made once, as PyTorch's Vulkan rewrite does.
      const bool lstm = name == "aten::lstm.input";
      const Arg& params = n->args[2];
      if (params.is_value() || !params.constant.isList() || !all_constant(*n, 3)) continue;
      std::vector<Arg> states;  // lstm: h0 and c0 apart, from the list hx
      if (lstm) {
        const Arg& hx = n->args[1];
        if (!hx.is_value() && hx.constant.isList() && hx.constant.toList().size() == 2) {
          for (const IValue& t : hx.constant.toList()) states.push_back(Arg::of(t));
        } else if (hx.is_value() && hx.value->producer && hx.value->producer->kind == NodeKind::ListConstruct &&
                   hx.value->producer->args.size() == 2) {
          states = hx.value->producer->args;
        } else {
          continue;
        }
      } else {
        states.push_back(n->args[1]);
      }
      std::vector<Arg> create_args(n->args.begin() + 2, n->args.end());
      create = make_op_node(g, lstm ? "vulkan_prepack::create_lstm_context" : "vulkan_prepack::create_gru_context",
                            std::move(create_args), ValueType::Object);
      Node* made = g.insert_before(std::move(create), n);
      n->op = &op(lstm ? "vulkan_prepack::run_lstm_context" : "vulkan_prepack::run_gru_context");
      std::vector<Arg> run_args{n->args[0]};
      run_args.insert(run_args.end(), states.begin(), states.end());
      run_args.push_back(Arg::of(made->outputs[0]));
      n->args = std::move(run_args);
      ++inserted;
      continue;
    } else {
      continue;
    }
    Node* made = g.insert_before(std::move(create), n);
    // The run node takes the original node's place (and its output value).
    n->op = &op(run_name);
    n->args = {input, Arg::of(made->outputs[0])};
    ++inserted;
  }
  return inserted;
}

int fuse_clamp_into_packed_conv(Graph& g) {
  int fused = 0;
  // The loop walks a snapshot; nodes it erases further on must not be visited (found by
  // AddressSanitizer: a use after free when the fused clamp came later in the snapshot).
  std::set<const Node*> erased;
  for (Node* run : g.all_nodes()) {
    if (erased.count(run) || !run->is_op("vulkan_prepack::run_conv2d_context")) continue;
    const Arg& ctx = run->args[1];
    if (!ctx.is_value() || !ctx.value->producer || !ctx.value->producer->is_op("vulkan_prepack::create_conv2d_context"))
      continue;
    Node* create = ctx.value->producer;
    if (!is_const_none(create->args[6]) || !is_const_none(create->args[7])) continue;
    Node* act = sole_user(g, run->outputs[0]);
    if (!act || act->kind != NodeKind::Op) continue;
    const std::string& name = act->op->schema.name;
    IValue lo, hi;
    if (name == "aten::relu" || name == "aten::relu_") {
      lo = IValue(0.0);
    } else if (name == "aten::hardtanh" || name == "aten::hardtanh_" || name == "aten::clamp" ||
               name == "aten::relu6" || name == "aten::relu6_") {
      if (name.rfind("aten::relu6", 0) == 0) {
        lo = IValue(0.0);
        hi = IValue(6.0);
      } else {
        if (act->args[1].is_value() || act->args[2].is_value()) continue;  // bounds must be constants
        lo = act->args[1].constant;
        hi = act->args[2].constant;
      }
    } else {
      continue;
    }
    create->args[6] = Arg::of(lo);
    create->args[7] = Arg::of(hi);
    g.replace_all_uses(act->outputs[0], Arg::of(run->outputs[0]));
    erased.insert(act);
    g.erase(act);
    ++fused;
  }
  return fused;
}

namespace {
// The scale per output feature that multiplying the linear layer's output `y` (permuted by
// `perm`, or as it is where perm is empty) by `c` applies, as a 1-D tensor of `out` values; none
// where c also scales along other dims or would broadcast the product to a larger shape.
std::optional<Tensor> per_feature_scale(const Tensor& c, const IntList& perm, int64_t out) {
  if (c.dtype() != DType::Float32) return std::nullopt;
  const int64_t rank = perm.empty() ? 1 : static_cast<int64_t>(perm.size());
  if (c.dim() > rank) return std::nullopt;
  for (int64_t i = 0; i < c.dim(); ++i) {
    if (c.size(i) == 1) continue;
    const int64_t j = rank - c.dim() + i;  // the product's dim this one broadcasts against
    const int64_t from = perm.empty() ? rank - 1 : (perm[j] < 0 ? perm[j] + rank : perm[j]);
    if (from != rank - 1 || c.size(i) != out) return std::nullopt;
  }
  const Tensor flat = c.cpu().contiguous().reshape({c.numel()});
  return c.numel() == out ? flat : tvk::mul(tvk::ones({out}), flat);
}
}  // namespace

int fold_scale_into_packed_linear(Graph& g) {
  int folded = 0;
  std::set<const Node*> erased;  // as in fuse_clamp_into_packed_conv
  for (Node* run : g.all_nodes()) {
    if (erased.count(run) || !run->is_op("vulkan_prepack::run_linear_context")) continue;
    const Arg& ctx = run->args[1];
    Node* create = ctx.is_value() ? ctx.value->producer : nullptr;
    if (!create || !create->is_op("vulkan_prepack::create_linear_context") || g.uses(ctx.value).size() != 1 ||
        g.is_graph_output(ctx.value) || !is_const_tensor(create->args[0]) ||
        !(is_const_tensor(create->args[1]) || is_const_none(create->args[1])))
      continue;
    Node* next = sole_user(g, run->outputs[0]);
    Node* permute = nullptr;
    IntList perm;
    if (next && next->is_op("aten::permute") && next->owner == run->owner && !next->args[1].is_value() &&
        next->args[1].constant.isList()) {
      permute = next;
      perm = next->args[1].constant.toIntList();
      if (perm.empty()) continue;
      next = sole_user(g, permute->outputs[0]);
    }
    if (!next || !next->is_op("aten::mul.Tensor") || next->owner != run->owner) continue;
    Value* scaled = (permute ? permute : run)->outputs[0];
    auto is_scaled = [&](const Arg& a) { return a.is_value() && a.value == scaled; };
    const int c_index = is_scaled(next->args[0]) ? 1 : is_scaled(next->args[1]) ? 0 : -1;
    if (c_index < 0 || !is_const_tensor(next->args[c_index])) continue;
    const Tensor wt = create->args[0].constant.toTensor();
    if (wt.dim() != 2 || wt.dtype() != DType::Float32) continue;
    const auto scale = per_feature_scale(next->args[c_index].constant.toTensor(), perm, wt.size(1));
    if (!scale) continue;
    const Device device = wt.device();
    create->args[0] = Arg::of(IValue(tvk::mul(wt.cpu(), *scale).to(device)));
    if (is_const_tensor(create->args[1])) {
      const Tensor b = create->args[1].constant.toTensor();
      create->args[1] = Arg::of(IValue(tvk::mul(b.cpu(), *scale).to(b.device())));
    }
    g.replace_all_uses(next->outputs[0], Arg::of(scaled));
    erased.insert(next);
    g.erase(next);
    ++folded;
  }
  return folded;
}

int fuse_add_into_packed_conv(Graph& g) {
  int fused = 0;
  std::set<const Node*> erased;  // as in fuse_clamp_into_packed_conv
  for (Node* run : g.all_nodes()) {
    if (erased.count(run) || !run->is_op("vulkan_prepack::run_conv2d_context")) continue;
    Node* add = sole_user(g, run->outputs[0]);
    if (!add || !add->is_op("aten::add.Tensor") || add->owner != run->owner) continue;
    if (add->args[2].is_value() || !add->args[2].constant.isNumber() || add->args[2].constant.toDouble() != 1.0)
      continue;
    const bool conv_first = add->args[0].is_value() && add->args[0].value == run->outputs[0];
    const Arg residual = conv_first ? add->args[1] : add->args[0];
    if (!residual.is_value() || residual.value == run->outputs[0]) continue;
    // The fused node takes the conv's place, so the residual must exist by then: a graph input
    // or a value made earlier in the same block.
    if (Node* producer = residual.value->producer) {
      bool before = false;
      for (const auto& n : run->owner->nodes) {
        if (n.get() == producer) before = true;
        if (n.get() == run) break;
      }
      if (!before) continue;
    }
    IValue lo;  // the relu's bound, when one is fused; no upper bound
    Node* last = add;
    if (Node* act = sole_user(g, add->outputs[0]);
        act && act->owner == add->owner && (act->is_op("aten::relu") || act->is_op("aten::relu_"))) {
      lo = IValue(0.0);
      last = act;
    }
    auto fusedop = make_op_node(g, "tvk::run_conv2d_context_add",
                                {run->args[0], run->args[1], residual, Arg::of(lo), Arg::of(IValue())}, ValueType::Tensor);
    fusedop->source = run->source;
    Node* made = g.insert_before(std::move(fusedop), run);
    // Shape readers (a model's dim() checks) of the conv, the add or the relu now read the
    // fused output. Its shape is the conv's whenever the residual has the conv's shape, the
    // case residual blocks have; an add that broadcasts to a larger shape would differ.
    g.replace_all_uses(last->outputs[0], Arg::of(made->outputs[0]));
    if (last != add) {
      g.replace_all_uses(add->outputs[0], Arg::of(made->outputs[0]));
      erased.insert(last);
      g.erase(last);
    }
    g.replace_all_uses(run->outputs[0], Arg::of(made->outputs[0]));
    erased.insert(add);
    g.erase(add);
    g.erase(run);
    ++fused;
  }
  return fused;
}

namespace {
// The activation `n` computes from its first argument alone (ops::FusedActivation), its other
// arguments constants (gelu's approximate); none for any other node.
std::optional<ops::FusedActivation> elementwise_activation(const Node& n) {
  if (n.kind != NodeKind::Op) return std::nullopt;
  const std::string& name = n.op->schema.name;
  std::string approximate = "none";
  if (name == "aten::gelu" || name == "aten::gelu_") {
    if (n.args.size() > 1) {
      if (n.args[1].is_value() || !n.args[1].constant.isString()) return std::nullopt;
      approximate = n.args[1].constant.toStringRef();
    }
  } else if (n.args.size() != 1) {
    return std::nullopt;
  }
  return ops::fused_activation_of(name, approximate);
}
}  // namespace

int fuse_activation_into_packed_ops(Graph& g) {
  int fused = 0;
  std::set<const Node*> erased;  // as in fuse_clamp_into_packed_conv
  for (Node* run : g.all_nodes()) {
    if (erased.count(run)) continue;
    const bool conv = run->is_op("vulkan_prepack::run_conv2d_context");
    if (!conv && !run->is_op("vulkan_prepack::run_linear_context")) continue;
    Node* act = sole_user(g, run->outputs[0]);
    if (!act || act->owner != run->owner || act->args.empty() || !act->args[0].is_value() ||
        act->args[0].value != run->outputs[0])
      continue;
    const auto kind = elementwise_activation(*act);
    if (!kind) continue;
    auto fusedop = make_op_node(g, conv ? "tvk::run_conv2d_context_act" : "tvk::run_linear_context_act",
                                {run->args[0], run->args[1], Arg::of(IValue(std::string(ops::to_string(*kind))))},
                                ValueType::Tensor);
    fusedop->source = run->source;
    Node* made = g.insert_before(std::move(fusedop), run);
    // Shape readers of the product's output read the fused one, of the same shape.
    g.replace_all_uses(act->outputs[0], Arg::of(made->outputs[0]));
    g.replace_all_uses(run->outputs[0], Arg::of(made->outputs[0]));
    erased.insert(act);
    g.erase(act);
    g.erase(run);
    ++fused;
  }
  return fused;
}

namespace {
bool is_permute_of(const Node* n, const IntList& dims) {
  return n->is_op("aten::permute") && n->args.size() == 2 && !n->args[1].is_value() && n->args[1].constant.isList() &&
         n->args[1].constant.toIntList() == dims;
}
// The node reading `v` where that is v's only use (a graph output is a use too), else null.
Node* only_use(const Graph& g, const Value* v) {
  if (g.is_graph_output(v)) return nullptr;
  const std::vector<Node*> uses = g.uses(v);
  return uses.size() == 1 ? uses[0] : nullptr;
}
}  // namespace

int rewrite_channel_layer_norms(Graph& g) {
  int rewritten = 0;
  std::set<const Node*> erased;  // as in fuse_clamp_into_packed_conv
  for (Node* first : g.all_nodes()) {
    if (erased.count(first) || !is_permute_of(first, {0, 2, 3, 1})) continue;
    Node* norm = only_use(g, first->outputs[0]);
    if (!norm || !norm->is_op("aten::layer_norm") || norm->owner != first->owner || norm->args[1].is_value() ||
        !norm->args[1].constant.isList() || norm->args[1].constant.toList().size() != 1 ||
        !(is_const_tensor(norm->args[2]) || is_const_none(norm->args[2])) ||
        !(is_const_tensor(norm->args[3]) || is_const_none(norm->args[3])) || norm->args[4].is_value())
      continue;
    // The chain from the norm to the permute back: elementwise activations only. (Packed
    // linear layers between, as in ConvNeXt's blocks, stay channels-last: run as 1x1
    // convolutions they doubled the weights on the device and lost to the linear's tensor-core
    // GEMM at batch 1 on an H200, docs/benchmarks.md.)
    std::vector<Node*> chain;
    Node* last = nullptr;
    for (Node* cur = norm;;) {
      Node* next = only_use(g, cur->outputs[0]);
      if (!next || next->owner != first->owner || next->args.empty() || !next->args[0].is_value() ||
          next->args[0].value != cur->outputs[0])
        break;
      if (is_permute_of(next, {0, 3, 1, 2})) {
        last = next;
        break;
      }
      const bool relu = (next->is_op("aten::relu") || next->is_op("aten::relu_")) && next->args.size() == 1;
      if (!relu && !elementwise_activation(*next)) break;
      chain.push_back(next);
      cur = next;
    }
    if (!last) continue;
    auto norm_node = make_op_node(g, "tvk::layer_norm_channels",
                                  {first->args[0], norm->args[1], norm->args[2], norm->args[3], norm->args[4]},
                                  ValueType::Tensor);
    norm_node->source = norm->source;
    Value* value = g.insert_before(std::move(norm_node), first)->outputs[0];
    for (Node* n : chain) {  // elementwise: the same on NCHW
      n->args[0] = Arg::of(value);
      value = n->outputs[0];
    }
    g.replace_all_uses(last->outputs[0], Arg::of(value));
    for (Node* n : {last, norm, first}) {
      erased.insert(n);
      g.erase(n);
    }
    ++rewritten;
  }
  return rewritten;
}

int fuse_cat_of_packed_convs(Graph& g) {
  int fused = 0;
  for (Node* cat : g.all_nodes()) {
    if (!cat->is_op("aten::cat") || cat->args.size() != 2 || cat->args[1].is_value() ||
        !cat->args[1].constant.isInt() || !cat->args[0].is_value())
      continue;
    Node* list = cat->args[0].value->producer;
    if (!list || list->kind != NodeKind::ListConstruct || list->owner != cat->owner || list->args.size() < 2) continue;
    const std::vector<Node*> list_uses = g.uses(list->outputs[0]);
    if (list_uses.size() != 1 || g.is_graph_output(list->outputs[0])) continue;
    // Every item a packed convolution's output that nothing else reads (not even its shape),
    // with a constant context, in the cat's block, and each a different one (cat([y, y])
    // stays: its one convolution cannot fill two slices).
    std::vector<Node*> convs;
    for (const Arg& item : list->args) {
      Node* run = item.is_value() ? item.value->producer : nullptr;
      if (!run || !run->is_op("vulkan_prepack::run_conv2d_context") || run->owner != cat->owner ||
          run->args[1].is_value() || g.uses(item.value).size() != 1 || g.is_graph_output(item.value) ||
          std::find(convs.begin(), convs.end(), run) != convs.end())
        break;
      convs.push_back(run);
    }
    if (convs.size() != list->args.size()) continue;
    auto inputs = std::make_unique<Node>();
    inputs->kind = NodeKind::ListConstruct;
    List contexts;
    for (Node* run : convs) {
      inputs->args.push_back(run->args[0]);
      contexts.push_back(run->args[1].constant);
    }
    inputs->outputs.push_back(g.new_value(ValueType::List));
    inputs->source = list->source;
    Node* made_inputs = g.insert_before(std::move(inputs), cat);
    auto fusedop = make_op_node(g, "tvk::run_conv2d_contexts_cat",
                                {Arg::of(made_inputs->outputs[0]), Arg::of(IValue::list(std::move(contexts))), cat->args[1]},
                                ValueType::Tensor);
    fusedop->source = cat->source;
    Node* made = g.insert_before(std::move(fusedop), cat);
    g.replace_all_uses(cat->outputs[0], Arg::of(made->outputs[0]));
    g.erase(cat);
    g.erase(list);
    for (Node* run : convs) g.erase(run);
    ++fused;
  }
  return fused;
}

int fold_prepacking(Graph& g) {
  int folded = 0;
  for (Node* n : g.all_nodes()) {
    if (n->kind != NodeKind::Op || n->op->schema.name.rfind("vulkan_prepack::create_", 0) != 0) continue;
    if (!all_constant(*n)) continue;
    Stack args;
    for (const Arg& a : n->args) args.push_back(a.constant);
    IValue packed = ops::call(*n->op, std::move(args));
    g.replace_all_uses(n->outputs[0], Arg::of(packed));
    g.erase(n);
    ++folded;
  }
  return folded;
}

std::unique_ptr<Node> make_transfer(Graph& g, const Arg& x, Device device) {
  auto node = std::make_unique<Node>();
  node->kind = NodeKind::Op;
  node->op = &op("aten::to.prim_Device");
  node->args = {x, Arg::of(IValue(device)), Arg::of(IValue()), Arg::of(IValue(false)), Arg::of(IValue(false))};
  node->outputs.push_back(g.new_value(ValueType::Tensor));
  return node;
}

int insert_backend_transfers(Graph& g, Device device) {
  int inserted = 0;
  // Inputs: moved where they enter, before the first node.
  for (Value* in : g.inputs()) {
    if (in->type != ValueType::Tensor || g.uses(in).empty()) continue;
    auto node = make_transfer(g, Arg::of(in), device);
    Value* moved = node->outputs[0];
    g.replace_all_uses(in, Arg::of(moved));
    node->args[0] = Arg::of(in);
    NodeBlock& top = g.top();
    if (top.nodes.empty()) g.append(std::move(node));
    else g.insert_before(std::move(node), top.nodes.front().get());
    ++inserted;
  }
  // Outputs: tensors, also inside the tuple, list or NamedTuple the method returns, go back to
  // the CPU.
  auto to_cpu = [&](Arg& a) {
    if (!a.is_value() || a.value->type != ValueType::Tensor) return;
    Node* node = g.append(make_transfer(g, a, Device::CPU));
    a = Arg::of(node->outputs[0]);
    ++inserted;
  };
  for (Arg& out : g.outputs()) {
    if (out.is_value() && out.value->producer &&
        (out.value->producer->kind == NodeKind::TupleConstruct || out.value->producer->kind == NodeKind::ListConstruct ||
         out.value->producer->kind == NodeKind::NamedTupleConstruct ||
         out.value->producer->kind == NodeKind::DictConstruct)) {
      Node* construct = out.value->producer;
      for (Arg& element : construct->args) {
        if (!element.is_value() || element.value->type != ValueType::Tensor) continue;
        auto node = make_transfer(g, element, Device::CPU);
        element = Arg::of(node->outputs[0]);
        g.insert_before(std::move(node), construct);
        ++inserted;
      }
      continue;
    }
    to_cpu(out);
  }
  return inserted;
}

int move_constants(Graph& g, Device device) {
  int moved = 0;
  std::map<const Storage*, Tensor> done;
  // One constant tensor on `device` (each storage moved once).
  auto move = [&](const Tensor& t) -> Tensor {
    if (t.device() == device || ops::scalar_stays_on_cpu(t)) return t;
    auto it = done.find(t.storage().get());
    if (it != done.end() && it->second.sizes() == t.sizes()) return it->second;
    Tensor on_device = t.to(device);
    done[t.storage().get()] = on_device;
    ++moved;
    return on_device;
  };
  for (Node* n : g.all_nodes()) {
    if (n->kind != NodeKind::Op) continue;
    if (falls_back_to_cpu(*n, device)) continue;  // its constants stay where its kernel runs
    // A factory that a traced model told to make a float32 tensor on the CPU (swin_t's attention
    // mask: new_zeros(..., dtype=6, device=cpu)) makes it on `device`, with the ops it feeds.
    const int factory_device = ops::cpu_float_factory_device_arg(*n->op, [&](size_t i) {
      return i < n->args.size() && !n->args[i].is_value() ? &n->args[i].constant : nullptr;
    });
    if (factory_device >= 0) {
      n->args[static_cast<size_t>(factory_device)] = Arg::of(IValue(device));
      ++moved;
    }
    for (Arg& a : n->args) {
      if (a.is_value()) continue;
      if (is_const_tensor(a)) {
        a = Arg::of(IValue(move(a.constant.toTensor())));
      } else if (a.constant.isList() && !a.constant.toList().empty() && a.constant.toList().front().isTensor()) {
        // A Tensor[] constant (a recurrent layer's weights).
        List items;
        for (const IValue& e : a.constant.toList()) items.push_back(e.isTensor() && e.toTensor().defined() ? IValue(move(e.toTensor())) : e);
        a = Arg::of(IValue::list(std::move(items)));
      }
    }
  }
  return moved;
}

namespace {
bool has_effects(const Node& n) {
  switch (n.kind) {
    case NodeKind::Raise: return true;
    case NodeKind::Op: {
      const std::string& name = n.op->schema.name;
      return name.size() > 1 && name.back() == '_' && name.compare(name.size() - 2, 2, "__") != 0;
    }
    case NodeKind::Builtin:
      return n.name == "append" || n.name == "extend" || n.name == "insert" || n.name == "pop" ||
             n.name == "_set_item" || n.name == "warn" || n.name == "print";
    case NodeKind::If:
    case NodeKind::Loop:
      for (const auto& b : n.blocks)
        for (const auto& inner : b->nodes)
          if (has_effects(*inner)) return true;
      return false;
    default: return false;
  }
}
}  // namespace

namespace {
bool same_arg(const Arg& a, const Arg& b) {
  if (a.is_value() || b.is_value()) return a.value == b.value;
  if (a.constant.isTensor() || b.constant.isTensor())
    return a.constant.isTensor() && b.constant.isTensor() && a.constant.toTensor().is_same(b.constant.toTensor());
  if (a.constant.isObject() || b.constant.isObject()) return a.constant.is(b.constant);
  return a.constant.tag() == b.constant.tag() && ivalue_equal(a.constant, b.constant);
}

bool same_computation(const Node& a, const Node& b) {
  if (a.kind != b.kind || a.op != b.op || a.name != b.name || a.index != b.index || a.args.size() != b.args.size() ||
      a.outputs.size() != b.outputs.size())
    return false;
  for (size_t i = 0; i < a.args.size(); ++i)
    if (!same_arg(a.args[i], b.args[i])) return false;
  return true;
}

bool any_effects_but_raise(const NodeBlock& block) {
  for (const auto& n : block.nodes) {
    if (n->kind != NodeKind::Raise && n->kind != NodeKind::If && n->kind != NodeKind::Loop && has_effects(*n))
      return true;
    for (const auto& b : n->blocks)
      if (any_effects_but_raise(*b)) return true;
  }
  return false;
}
}  // namespace

int eliminate_common_subexpressions(Graph& g) {
  const bool mutates = any_effects_but_raise(g.top());
  auto candidate = [&](const Node& n) {
    if (n.kind == NodeKind::If || n.kind == NodeKind::Loop || n.kind == NodeKind::Raise || has_effects(n) ||
        n.outputs.empty())
      return false;
    bool makes_mutable = false;
    for (const Value* out : n.outputs)
      makes_mutable = makes_mutable || !(out->type == ValueType::Int || out->type == ValueType::Float ||
                                         out->type == ValueType::Bool || out->type == ValueType::Str);
    // Two equal tensors or lists may still be two objects that someone writes into; ints cannot.
    return !makes_mutable || !mutates;
  };
  int removed = 0;
  std::function<void(NodeBlock&, std::vector<Node*>)> visit = [&](NodeBlock& block, std::vector<Node*> available) {
    for (auto it = block.nodes.begin(); it != block.nodes.end();) {
      Node* n = it->get();
      ++it;  // `n` may be erased below
      if (candidate(*n)) {
        Node* earlier = nullptr;
        for (Node* a : available)
          if (same_computation(*a, *n)) {
            earlier = a;
            break;
          }
        if (earlier) {
          for (size_t i = 0; i < n->outputs.size(); ++i) g.replace_all_uses(n->outputs[i], Arg::of(earlier->outputs[i]));
          g.erase(n);
          ++removed;
          continue;
        }
        available.push_back(n);
      }
      for (auto& b : n->blocks) visit(*b, available);
    }
  };
  visit(g.top(), {});
  return removed;
}

int eliminate_dead_code(Graph& g) {
  int removed = 0;
  bool changed = true;
  while (changed) {
    changed = false;
    auto nodes = g.all_nodes();
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
      Node* n = *it;
      if (has_effects(*n)) continue;
      bool used = false;
      for (Value* out : n->outputs) used = used || g.is_graph_output(out) || !g.uses(out).empty();
      if (used) continue;
      g.erase(n);
      ++removed;
      changed = true;
      break;  // the snapshot is stale once a node is gone
    }
  }
  return removed;
}

}  // namespace tvk::jit
