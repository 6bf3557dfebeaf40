// PyTorch's Vulkan prepacked ops (namespace vulkan_prepack) and their custom classes: weights
// are packed for the GPU once, when the context is made (at optimize or load time), and each
// run only dispatches. The pickled state is PyTorch's, so files move between tvk and a
// Vulkan-enabled PyTorch.
#include <algorithm>
#include <limits>

#include "ops/custom_class.h"
#include "ops/registry.h"
#include "tvk/ops.h"
#include "vulkan/ops/conv.h"
#include "vulkan/ops/gemm.h"
#include "vulkan/ops/shader_dispatch.h"

namespace tvk::vulkan {
namespace {

constexpr const char* kConvClass = "__torch__.torch.classes.vulkan.Conv2dPackedContext";
constexpr const char* kLinearClass = "__torch__.torch.classes.vulkan.LinearPackedContext";

struct Conv2dPackedContext final : CustomClassPayload {
  // As given (CPU), for __getstate__ and for the weights batch 2+ reads on GPUs, made at its
  // first call (prepare_conv_weights).
  Tensor weight, bias;
  IntList stride, padding, dilation, output_padding;
  bool transposed = false;
  int64_t groups = 1;
  std::optional<double> output_min, output_max;
  // On the device, laid out for the kernel chosen from the weight's shape.
  ConvWeights packed;
};

struct LinearPackedContext final : CustomClassPayload {
  Tensor weight_t, bias;  // [in, out] as PyTorch stores it, and the bias
  // On the device for linear_t4.glsl: [in][out rounded up to 4], then the bias (zeros without
  // one), read as RGBA32 texels.
  Tensor packed;
  Buffer::TexelFormat packed_format = Buffer::TexelFormat::RGBA32;  // RGBA16F in fp16 precision
  int64_t in = 0, out = 0;
};

// Must match linear_t4.glsl.
struct LinearParams {
  int32_t rows, inner, cols, cols4;
  float out_min, out_max;
};

IValue optional_scalar(const std::optional<double>& v) { return v ? IValue(*v) : IValue(); }

using ops::context_payload;
using ops::payload_of;

// One dispatch: the convolution with the fused activation's bounds applied in the shader.
// Unbatched (C, H, W) inputs are accepted as aten::conv2d accepts them, so a model's own rank
// check further on still gets to raise its message.
// The geometry is checked against the CPU copy of the weight, which has the original shape.
Tensor conv2d_clamped(const Conv2dPackedContext& ctx, const Tensor& input, const Tensor& residual = Tensor(),
                      ops::FusedActivation act = ops::FusedActivation::None) {
  const char* op = ctx.transposed ? "vulkan_prepack::run_tconv2d_context" : "vulkan_prepack::run_conv2d_context";
  const ops::Conv2dParams p = ops::conv2d_params(op, input, ctx.weight, ctx.bias, ctx.stride, ctx.padding,
                                                 ctx.dilation, ctx.transposed, ctx.output_padding, ctx.groups, true);
  return run_convolution(op, p, input, ctx.packed, ctx.output_min, ctx.output_max, residual, Tensor(), act);
}

// The activation named by a fused op's argument.
ops::FusedActivation activation_named(const char* op, const std::string& name) {
  const auto act = ops::fused_activation_named(name);
  TVK_CHECK(act.has_value(), op, ": unknown activation '", name, "'");
  return *act;
}

std::shared_ptr<Object> make_conv_context(const Tensor& weight, const Tensor& bias, IntList stride, IntList padding,
                                          IntList output_padding, IntList dilation, int64_t groups, bool transposed,
                                          std::optional<double> output_min, std::optional<double> output_max) {
  const char* op = transposed ? "vulkan_prepack::create_tconv2d_context" : "vulkan_prepack::create_conv2d_context";
  ops::check_float(op, weight, "W");
  TVK_CHECK(weight.dim() == 4, op, ": expected a 4-D weight, got ", weight.shape_string());
  TVK_CHECK(groups > 0, op, ": groups must be positive, got ", groups);
  TVK_CHECK(!bias.defined() || (bias.dim() == 1 && bias.dtype() == DType::Float32), op,
            ": expected a 1-D float bias, got ", bias.shape_string());
  auto ctx = std::make_shared<Conv2dPackedContext>();
  ctx->weight = weight.cpu();
  ctx->bias = bias.defined() ? bias.cpu() : Tensor();
  ctx->stride = std::move(stride);
  ctx->padding = std::move(padding);
  ctx->dilation = std::move(dilation);
  ctx->output_padding = std::move(output_padding);
  ctx->transposed = transposed;
  ctx->groups = groups;
  ctx->output_min = output_min;
  ctx->output_max = output_max;
  ctx->packed = prepare_conv_weights(weight.contiguous().vulkan(), bias.defined() ? bias.contiguous().vulkan() : Tensor(),
                                     groups, transposed, ctx->stride, ctx->dilation, ctx->weight, ctx->bias);
  auto obj = std::make_shared<Object>();
  obj->type_name = kConvClass;
  obj->payload = std::move(ctx);
  return obj;
}

const Conv2dPackedContext& conv_context(const IValue& v, const char* op) {
  return context_payload<Conv2dPackedContext>(v, kConvClass, op);
}

IValue create_conv2d_context(const Tensor& weight, const Tensor& bias, IntList stride, IntList padding,
                             IntList dilation, int64_t groups, std::optional<ops::Scalar> output_min,
                             std::optional<ops::Scalar> output_max) {
  return IValue(make_conv_context(weight, bias, std::move(stride), std::move(padding), {0}, std::move(dilation),
                                  groups, false, output_min, output_max));
}

IValue create_tconv2d_context(const Tensor& weight, const Tensor& bias, IntList stride, IntList padding,
                              IntList output_padding, IntList dilation, int64_t groups,
                              std::optional<ops::Scalar> output_min, std::optional<ops::Scalar> output_max) {
  return IValue(make_conv_context(weight, bias, std::move(stride), std::move(padding), std::move(output_padding),
                                  std::move(dilation), groups, true, output_min, output_max));
}

Tensor run_conv_context(const char* op, const Tensor& input, const IValue& context) {
  const Conv2dPackedContext& ctx = conv_context(context, op);
  check_vulkan_float(op, input, "X");
  return conv2d_clamped(ctx, input);
}

// run_conv2d_context, then an activation (its name, ops/activation.h), in one dispatch: the
// activation is applied after the context's clamp by the convolution's last kernel.
Tensor run_conv2d_context_act(const Tensor& input, IValue context, std::string activation) {
  const char* op = "tvk::run_conv2d_context_act";
  const ops::FusedActivation act = activation_named(op, activation);
  const Conv2dPackedContext& ctx = conv_context(context, op);
  check_vulkan_float(op, input, "X");
  return conv2d_clamped(ctx, input, Tensor(), act);
}

// run_conv2d_context, + residual, clamped to [output_min, output_max]: one dispatch when the
// context has no clamp of its own (which would come before the add) and its kernel takes a
// residual; otherwise the same result in separate steps.
Tensor run_conv2d_context_add(const Tensor& input, IValue context, const Tensor& residual,
                              std::optional<ops::Scalar> output_min, std::optional<ops::Scalar> output_max) {
  const char* op = "tvk::run_conv2d_context_add";
  const Conv2dPackedContext& ctx = conv_context(context, op);
  check_vulkan_float(op, input, "X");
  check_vulkan_float(op, residual, "residual");
  const ops::Conv2dParams p = ops::conv2d_params(op, input, ctx.weight, ctx.bias, ctx.stride, ctx.padding,
                                                 ctx.dilation, ctx.transposed, ctx.output_padding, ctx.groups, true);
  if (!ctx.output_min && !ctx.output_max && (ctx.packed.kernel == ConvKernel::Oc8 || ctx.packed.kernel == ConvKernel::Winograd) &&
      residual.sizes() == p.output_sizes())
    return run_convolution(op, p, input, ctx.packed, output_min, output_max, residual);
  Tensor sum = tvk::add(conv2d_clamped(ctx, input), residual);
  if (output_min || output_max) sum = tvk::clamp(sum, output_min, output_max);
  return sum;
}

// Convolutions whose outputs are concatenated (squeezenet's fire modules: cat([conv(x),
// conv(x)], 1)). At batch 1 a channel slice of an NCHW tensor is one contiguous range, so each
// convolution writes its channels of the result in place, where separate outputs cost a copy
// apiece (16 of squeezenet1_1's 80 dispatches). Anything else (other dims, batches, a slice
// the device cannot bind at its offset) runs the convolutions, then cat.
Tensor run_conv2d_contexts_cat(const std::vector<Tensor>& inputs, const IValue& contexts, int64_t dim) {
  const char* op = "tvk::run_conv2d_contexts_cat";
  TVK_CHECK(contexts.isList() && contexts.toList().size() == inputs.size() && !inputs.empty(), op,
            ": expected one packed context per input, got ", inputs.size(), " inputs");
  std::vector<const Conv2dPackedContext*> ctxs;
  std::vector<ops::Conv2dParams> params;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Conv2dPackedContext& ctx = conv_context(contexts.toList()[i], op);
    check_vulkan_float(op, inputs[i], "X");
    ctxs.push_back(&ctx);
    params.push_back(ops::conv2d_params(op, inputs[i], ctx.weight, ctx.bias, ctx.stride, ctx.padding, ctx.dilation,
                                        ctx.transposed, ctx.output_padding, ctx.groups, true));
  }
  const IntList first = params[0].output_sizes();
  bool in_place = first.size() == 4 && first[0] == 1 && (dim == 1 || dim == -3);
  int64_t channels = 0;
  for (const ops::Conv2dParams& p : params) {
    const IntList s = p.output_sizes();
    in_place = in_place && s.size() == 4 && s[0] == 1 && s[2] == first[2] && s[3] == first[3];
    channels += s.size() == 4 ? s[1] : 0;
  }
  if (in_place) {
    const auto plane_bytes = static_cast<VkDeviceSize>(first[2] * first[3]) * sizeof(float);
    const VkDeviceSize alignment = Context::get()->device().physical().limits.minStorageBufferOffsetAlignment;
    Tensor out = empty_vulkan({1, channels, first[2], first[3]});
    const VkDeviceSize base = storage_of(out).buffer().offset();
    // Where each convolution's channels start in out; every start bindable at its offset.
    std::vector<VkDeviceSize> offsets;
    VkDeviceSize offset = 0;
    for (const ops::Conv2dParams& p : params) {
      offsets.push_back(offset);
      in_place = in_place && (base + offset) % alignment == 0;
      offset += static_cast<VkDeviceSize>(p.output_sizes()[1]) * plane_bytes;
    }
    if (in_place) {
      for (size_t i = 0; i < inputs.size(); ++i)
        run_convolution(op, params[i], inputs[i], ctxs[i]->packed, ctxs[i]->output_min, ctxs[i]->output_max,
                        Tensor(), slice_for_writing(out, offsets[i], params[i].output_sizes()));
      return out;
    }
  }
  std::vector<Tensor> parts;
  for (size_t i = 0; i < inputs.size(); ++i)
    parts.push_back(run_convolution(op, params[i], inputs[i], ctxs[i]->packed, ctxs[i]->output_min,
                                    ctxs[i]->output_max));
  return tvk::cat(parts, dim);
}

Tensor run_conv2d_context(const Tensor& input, IValue context) {
  return run_conv_context("vulkan_prepack::run_conv2d_context", input, context);
}
Tensor run_tconv2d_context(const Tensor& input, IValue context) {
  return run_conv_context("vulkan_prepack::run_tconv2d_context", input, context);
}

// PyTorch's state: [weight, bias?, stride, padding, dilation, transposed, quantized,
// output_padding, groups, output_min?, output_max?].
IValue conv_get_state(const Object& self) {
  const auto& ctx = payload_of<Conv2dPackedContext>(self);
  List state;
  state.emplace_back(ctx.weight);
  state.push_back(ctx.bias.defined() ? IValue(ctx.bias) : IValue());
  state.emplace_back(ctx.stride);
  state.emplace_back(ctx.padding);
  state.emplace_back(ctx.dilation);
  state.emplace_back(ctx.transposed);
  state.emplace_back(false);
  state.emplace_back(ctx.output_padding);
  state.emplace_back(ctx.groups);
  state.push_back(optional_scalar(ctx.output_min));
  state.push_back(optional_scalar(ctx.output_max));
  return IValue::list(std::move(state));
}

std::optional<double> optional_number(const IValue& v, const char* what) {
  if (v.isNone()) return std::nullopt;
  TVK_CHECK(v.isNumber(), kConvClass, " state: ", what, " must be a number or None, got ", v.tag_name());
  return v.toDouble();
}

void conv_set_state(Object& self, const IValue& state) {
  TVK_CHECK((state.isList() || state.isTuple()) && state.toList().size() == 11, kConvClass,
            " state must be a list of 11 items, got ", state.isList() || state.isTuple() ? state.toList().size() : 0);
  const List& s = state.toList();
  TVK_CHECK(s[0].isTensor(), kConvClass, " state: item 0 (weight) must be a tensor");
  TVK_CHECK(s[1].isNone() || s[1].isTensor(), kConvClass, " state: item 1 (bias) must be a tensor or None");
  TVK_CHECK(s[6].isBool() && !s[6].toBool(), kConvClass, " state: quantized convolutions are not supported");
  for (int i : {2, 3, 4, 7})
    TVK_CHECK(s[i].isList(), kConvClass, " state: item ", i, " must be an int list, got ", s[i].tag_name());
  TVK_CHECK(s[5].isBool() && s[8].isInt(), kConvClass, " state: items 5 (transposed) and 8 (groups) are malformed");
  auto made = make_conv_context(s[0].toTensor(), s[1].isNone() ? Tensor() : s[1].toTensor(), s[2].toIntList(),
                                s[3].toIntList(), s[7].toIntList(), s[4].toIntList(), s[8].toInt(), s[5].toBool(),
                                optional_number(s[9], "output_min"), optional_number(s[10], "output_max"));
  self.payload = made->payload;
}

// ---- conv1d: PyTorch's Conv1dPackedContext, a Conv2dPackedContext over a height of 1 ------------

constexpr const char* kConv1dClass = "__torch__.torch.classes.vulkan.Conv1dPackedContext";

struct Conv1dPackedContext final : CustomClassPayload {
  Tensor weight, bias;  // as given: weight (O, I / groups, k)
  IntList stride, padding, dilation;
  int64_t groups = 1;
  std::shared_ptr<Object> conv2d;  // weight (O, I / groups, 1, k)
};

// stride, padding and dilation: PyTorch's schema says int[2] but a 1-D convolution reads the
// first value; [v] and [v, ...] are both taken.
std::shared_ptr<Object> make_conv1d_context(const Tensor& weight, const Tensor& bias, IntList stride, IntList padding,
                                            IntList dilation, int64_t groups) {
  const char* op = "vulkan_prepack::create_conv1d_context";
  ops::check_float(op, weight, "W");
  TVK_CHECK(weight.dim() == 3, op, ": expected a 3-D weight, got ", weight.shape_string());
  for (const IntList* l : {&stride, &padding, &dilation})
    TVK_CHECK(!l->empty(), op, ": stride, padding and dilation need a value each");
  auto ctx = std::make_shared<Conv1dPackedContext>();
  ctx->weight = weight.cpu();
  ctx->bias = bias.defined() ? bias.cpu() : Tensor();
  ctx->stride = {stride[0]};
  ctx->padding = {padding[0]};
  ctx->dilation = {dilation[0]};
  ctx->groups = groups;
  const Tensor w2 = ctx->weight.contiguous().view({weight.size(0), weight.size(1), 1, weight.size(2)});
  ctx->conv2d = make_conv_context(w2, ctx->bias, {1, stride[0]}, {0, padding[0]}, {0}, {1, dilation[0]}, groups, false,
                                  std::nullopt, std::nullopt);
  auto obj = std::make_shared<Object>();
  obj->type_name = kConv1dClass;
  obj->payload = std::move(ctx);
  return obj;
}

IValue create_conv1d_context(const Tensor& weight, const Tensor& bias, IntList stride, IntList padding,
                             IntList dilation, int64_t groups) {
  return IValue(make_conv1d_context(weight, bias, std::move(stride), std::move(padding), std::move(dilation), groups));
}

// input (N, C, L) or (C, L) as (N, C, 1, L) through the 2-D context, and back.
Tensor run_conv1d_context(const Tensor& input, IValue context) {
  const char* op = "vulkan_prepack::run_conv1d_context";
  const auto& ctx = context_payload<Conv1dPackedContext>(context, kConv1dClass, op);
  ops::check_defined(op, input, "X");
  TVK_CHECK(input.dim() == 2 || input.dim() == 3, op, ": expected a 2-D or 3-D input, got ", input.shape_string());
  IntList sizes = input.sizes();
  sizes.insert(sizes.end() - 1, 1);
  const Tensor out = run_conv_context(op, input.view(sizes), IValue(ctx.conv2d));
  IntList out_sizes = out.sizes();
  out_sizes.erase(out_sizes.end() - 2);
  return out.view(out_sizes);
}

// [weight, bias, stride, padding, dilation, groups], as PyTorch's Conv1dPackedContext::unpack.
IValue conv1d_get_state(const Object& self) {
  const auto& ctx = payload_of<Conv1dPackedContext>(self);
  return IValue::list({IValue(ctx.weight), ctx.bias.defined() ? IValue(ctx.bias) : IValue(), IValue(ctx.stride),
                       IValue(ctx.padding), IValue(ctx.dilation), IValue(ctx.groups)});
}

void conv1d_set_state(Object& self, const IValue& state) {
  TVK_CHECK((state.isList() || state.isTuple()) && state.toList().size() == 6, kConv1dClass,
            " state must be a list of 6 items");
  const List& s = state.toList();
  TVK_CHECK(s[0].isTensor() && (s[1].isNone() || s[1].isTensor()) && s[2].isList() && s[3].isList() && s[4].isList() &&
                s[5].isInt(),
            kConv1dClass, " state must be [weight, bias or None, stride, padding, dilation, groups]");
  self.payload = make_conv1d_context(s[0].toTensor(), s[1].isNone() ? Tensor() : s[1].toTensor(), s[2].toIntList(),
                                     s[3].toIntList(), s[4].toIntList(), s[5].toInt())
                     ->payload;
}

// ---- linear ----------------------------------------------------------------------------------

const LinearPackedContext& linear_context(const IValue& v, const char* op) {
  return context_payload<LinearPackedContext>(v, kLinearClass, op);
}

std::shared_ptr<Object> make_linear_context(const Tensor& weight_t, const Tensor& bias) {
  const char* op = "vulkan_prepack::create_linear_context";
  ops::check_float(op, weight_t, "W");
  TVK_CHECK(weight_t.dim() == 2, op, ": expected a 2-D weight, got ", weight_t.shape_string());
  TVK_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == weight_t.size(1)), op, ": bias ",
            bias.shape_string(), " does not match the weight ", weight_t.shape_string());
  auto ctx = std::make_shared<LinearPackedContext>();
  ctx->weight_t = weight_t.cpu();
  ctx->bias = bias.defined() ? bias.cpu() : Tensor();
  ctx->in = weight_t.size(0);
  ctx->out = weight_t.size(1);
  // The weight arrives transposed ([in, out]), which is the layout the kernel reads: pad the
  // columns to a multiple of 4 and append the bias.
  const int64_t cols4 = (ctx->out + 3) / 4;
  Tensor packed = zeros({(ctx->in + 1) * cols4 * 4});
  const Tensor wt = ctx->weight_t.contiguous();
  const float* src = wt.data<float>();
  float* dst = packed.data<float>();
  for (int64_t k = 0; k < ctx->in; ++k)
    std::copy(src + k * ctx->out, src + (k + 1) * ctx->out, dst + k * cols4 * 4);
  if (bias.defined()) {
    const Tensor b = ctx->bias.contiguous();
    std::copy(b.data<float>(), b.data<float>() + ctx->out, dst + ctx->in * cols4 * 4);
  }
  const StoredWeights stored = store_weights(packed.vulkan(), Buffer::TexelFormat::RGBA32, Buffer::TexelFormat::RGBA16F);
  ctx->packed = stored.storage;
  ctx->packed_format = stored.format;
  auto obj = std::make_shared<Object>();
  obj->type_name = kLinearClass;
  obj->payload = std::move(ctx);
  return obj;
}

IValue create_linear_context(const Tensor& weight_t, const Tensor& bias) {
  return IValue(make_linear_context(weight_t, bias));
}

// The packed linear's row kernel (GemmMethod::Rows): linear_t4.glsl, one quad of outputs per
// invocation (or per split of its sum), over the weight packed [in][out rounded up to 4], then
// the bias.
void linear_t4_rows(const GemmProblem& g) {
  const char* op = g.op;
  const int64_t rows = g.rows, in = g.inner, cols4 = (g.cols + 3) / 4;
  LinearParams params{to_i32(op, rows),  to_i32(op, in),       to_i32(op, g.cols),
                      to_i32(op, cols4), g.epilogue.min, g.epilogue.max};
  ShaderLaunch l;
  l.shader = "linear_t4";
  l.activation = g.epilogue.activation();
  constexpr uint32_t kMaxInvocations = 256;  // linear_t4.glsl's shared partial sums
  constexpr uint32_t kMinLocal = 4;
  // A GPU splits K until it has enough invocations (a 1280 -> 1000 layer at batch 1 has 250
  // column quads: 4 work groups without a split, latency-bound on an H200); the columns a work
  // group covers shrink to make room for the slices.
  uint32_t split = reduction_split(cols4 * rows, in, kMaxInvocations / kMinLocal, 32);
  // No invocation walks more than 32768 terms: lavapipe stops a shader's loops after 65535
  // iterations (docs/architecture.md), so long rows are split on every device.
  constexpr int64_t kMaxTermsPerInvocation = 32768;
  while (split < kMaxInvocations / kMinLocal && in > kMaxTermsPerInvocation * split) split *= 2;
  uint32_t local = std::min<uint32_t>(8, kMaxInvocations / split);
  while (local < 64 && local < cols4 && local * 2 * split <= kMaxInvocations) local *= 2;
  TVK_CHECK(in <= kMaxTermsPerInvocation * split, op, ": ", in, " input features exceed what one output's ", split,
            " invocations can sum (", kMaxTermsPerInvocation * split, ")");
  l.local = {local, split, 1};
  l.global = {static_cast<uint32_t>(cols4), split, static_cast<uint32_t>(to_i32(op, rows))};
  l.constants = {split};
  launch(l, {g.out, texels1(g.a.tensor), Binding(g.b.tensor, g.b.half ? Buffer::TexelFormat::RGBA16F
                                                                        : Buffer::TexelFormat::RGBA32)},
         params);
}

Tensor linear_context_impl(const char* op, const Tensor& input, const IValue& context, ops::FusedActivation act) {
  const LinearPackedContext& ctx = linear_context(context, op);
  check_vulkan_float(op, input, "X");
  TVK_CHECK(input.dim() >= 1 && input.size(-1) == ctx.in, op, ": input ", input.shape_string(),
            " does not match the weight [", ctx.in, ", ", ctx.out, "]");
  IntList out_sizes = input.sizes();
  out_sizes.back() = ctx.out;
  Tensor out = empty_vulkan(out_sizes);
  const int64_t rows = ctx.in ? input.numel() / ctx.in : 0;
  const int64_t cols4 = (ctx.out + 3) / 4;
  TVK_CHECK(texel_view_fits(input, Buffer::TexelFormat::R32), op, ": the input ", input.shape_string(),
            " exceeds this device's texel buffer limit");
  if (rows == 0) return out;
  if (ctx.in == 0) {  // an empty sum: every row is the bias
    Tensor rows_of_bias = zeros(out_sizes);
    if (ctx.bias.defined())
      for (int64_t r = 0; r < rows; ++r)
        std::copy(ctx.bias.contiguous().data<float>(), ctx.bias.contiguous().data<float>() + ctx.out,
                  rows_of_bias.data<float>() + r * ctx.out);
    return ops::apply_activation(act, rows_of_bias.vulkan());
  }
  const bool half = ctx.packed_format != Buffer::TexelFormat::RGBA32;
  // The packed weight is [in][cols4 * 4], then the bias.
  const GemmBias bias{ctx.packed, ctx.in * cols4 * 4, 0, 1, half};
  run_gemm(GemmProblem{.op = op, .batch = 1, .rows = rows, .inner = ctx.in, .cols = ctx.out, .a = {input, 0, ctx.in, 1},
                       .b = {ctx.packed, 0, cols4 * 4, 1, half}, .bias = &bias, .out = out,
                       .epilogue = {.act = act}, .row_kernel = linear_t4_rows});
  return out;
}

Tensor run_linear_context(const Tensor& input, IValue context) {
  return linear_context_impl("vulkan_prepack::run_linear_context", input, context, ops::FusedActivation::None);
}

// run_linear_context, then an activation (its name, ops/activation.h), in the product's epilogue.
Tensor run_linear_context_act(const Tensor& input, IValue context, std::string activation) {
  const char* op = "tvk::run_linear_context_act";
  return linear_context_impl(op, input, context, activation_named(op, activation));
}

IValue linear_get_state(const Object& self) {
  const auto& ctx = payload_of<LinearPackedContext>(self);
  List state;
  state.emplace_back(ctx.weight_t);
  state.push_back(ctx.bias.defined() ? IValue(ctx.bias) : IValue());
  return IValue::list(std::move(state));
}

void linear_set_state(Object& self, const IValue& state) {
  TVK_CHECK((state.isList() || state.isTuple()) && state.toList().size() == 2, kLinearClass,
            " state must be a list of 2 items");
  const List& s = state.toList();
  TVK_CHECK(s[0].isTensor() && (s[1].isNone() || s[1].isTensor()), kLinearClass,
            " state must hold a weight tensor and a bias tensor or None");
  self.payload = make_linear_context(s[0].toTensor(), s[1].isNone() ? Tensor() : s[1].toTensor())->payload;
}

}  // namespace

// create_* run where their arguments are (CPU tensors at optimize time, Vulkan ones when a model
// loaded for Vulkan is planned: module.cpp's graph_of) and pack onto the GPU.
TVK_REGISTER_OP("vulkan_prepack::create_conv2d_context(Tensor W, Tensor? B, int[2] stride, int[2] padding, "
                "int[2] dilation, int groups, Scalar? output_min=None, Scalar? output_max=None) -> "
                "__torch__.torch.classes.vulkan.Conv2dPackedContext",
                create_conv2d_context);
TVK_REGISTER_VULKAN_KERNEL("vulkan_prepack::create_conv2d_context", create_conv2d_context);
TVK_REGISTER_OP("vulkan_prepack::run_conv2d_context(Tensor X, __torch__.torch.classes.vulkan.Conv2dPackedContext "
                "W_prepack) -> Tensor Y",
                nullptr);
TVK_REGISTER_VULKAN_KERNEL("vulkan_prepack::run_conv2d_context", run_conv2d_context);
TVK_REGISTER_OP("tvk::run_conv2d_context_add(Tensor X, __torch__.torch.classes.vulkan.Conv2dPackedContext W_prepack, "
                "Tensor residual, Scalar? output_min=None, Scalar? output_max=None) -> Tensor Y",
                nullptr);
TVK_REGISTER_VULKAN_KERNEL("tvk::run_conv2d_context_add", run_conv2d_context_add);
TVK_REGISTER_OP("tvk::run_conv2d_context_act(Tensor X, __torch__.torch.classes.vulkan.Conv2dPackedContext W_prepack, "
                "str activation) -> Tensor Y",
                nullptr);
TVK_REGISTER_VULKAN_KERNEL("tvk::run_conv2d_context_act", run_conv2d_context_act);
TVK_REGISTER_OP("tvk::run_conv2d_contexts_cat(Tensor[] X, __torch__.torch.classes.vulkan.Conv2dPackedContext[] "
                "W_prepack, int dim) -> Tensor Y",
                nullptr);
TVK_REGISTER_VULKAN_KERNEL("tvk::run_conv2d_contexts_cat", run_conv2d_contexts_cat);
TVK_REGISTER_OP("vulkan_prepack::create_tconv2d_context(Tensor W, Tensor? B, int[2] stride, int[2] padding, "
                "int[2] output_padding, int[2] dilation, int groups, Scalar? output_min=None, "
                "Scalar? output_max=None) -> __torch__.torch.classes.vulkan.Conv2dPackedContext",
                create_tconv2d_context);
TVK_REGISTER_VULKAN_KERNEL("vulkan_prepack::create_tconv2d_context", create_tconv2d_context);
TVK_REGISTER_OP("vulkan_prepack::run_tconv2d_context(Tensor X, __torch__.torch.classes.vulkan.Conv2dPackedContext "
                "W_prepack) -> Tensor Y",
                nullptr);
TVK_REGISTER_VULKAN_KERNEL("vulkan_prepack::run_tconv2d_context", run_tconv2d_context);
TVK_REGISTER_OP("vulkan_prepack::create_linear_context(Tensor W, Tensor? B) -> "
                "__torch__.torch.classes.vulkan.LinearPackedContext",
                create_linear_context);
TVK_REGISTER_VULKAN_KERNEL("vulkan_prepack::create_linear_context", create_linear_context);
TVK_REGISTER_OP("vulkan_prepack::run_linear_context(Tensor X, __torch__.torch.classes.vulkan.LinearPackedContext "
                "BW_prepack) -> Tensor Y",
                nullptr);
TVK_REGISTER_VULKAN_KERNEL("vulkan_prepack::run_linear_context", run_linear_context);
TVK_REGISTER_OP("tvk::run_linear_context_act(Tensor X, __torch__.torch.classes.vulkan.LinearPackedContext "
                "BW_prepack, str activation) -> Tensor Y",
                nullptr);
TVK_REGISTER_VULKAN_KERNEL("tvk::run_linear_context_act", run_linear_context_act);

TVK_REGISTER_OP("vulkan_prepack::create_conv1d_context(Tensor W, Tensor? B, int[2] stride, int[2] padding, "
                "int[2] dilation, int groups) -> __torch__.torch.classes.vulkan.Conv1dPackedContext",
                create_conv1d_context);
TVK_REGISTER_VULKAN_KERNEL("vulkan_prepack::create_conv1d_context", create_conv1d_context);
TVK_REGISTER_OP("vulkan_prepack::run_conv1d_context(Tensor X, __torch__.torch.classes.vulkan.Conv1dPackedContext "
                "W_prepack) -> Tensor Y",
                nullptr);
TVK_REGISTER_VULKAN_KERNEL("vulkan_prepack::run_conv1d_context", run_conv1d_context);
TVK_REGISTER_CUSTOM_CLASS(ops::CustomClass{kConvClass, conv_get_state, conv_set_state});
TVK_REGISTER_CUSTOM_CLASS(ops::CustomClass{kConv1dClass, conv1d_get_state, conv1d_set_state});
TVK_REGISTER_CUSTOM_CLASS(ops::CustomClass{kLinearClass, linear_get_state, linear_set_state});

}  // namespace tvk::vulkan
