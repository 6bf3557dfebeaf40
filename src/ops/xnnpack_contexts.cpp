#include "ops/xnnpack_contexts.h"

#include "ops/custom_class.h"
#include "ops/registry.h"
#include "tvk/ops.h"

namespace tvk::ops {
namespace {

std::optional<double> optional_scalar(const IValue& v, const char* what) {
  if (v.isNone()) return std::nullopt;
  TVK_CHECK(v.isNumber(), what, " must be a number or None, got a ", v.tag_name());
  return v.toDouble();
}

IValue optional_value(const std::optional<double>& v) { return v ? IValue(*v) : IValue(); }

IntList int_pair(const IValue& v, const char* what) {
  TVK_CHECK(v.isList() || v.isTuple(), what, " must be a list of ints, got a ", v.tag_name());
  IntList out = v.toIntList();
  TVK_CHECK(out.size() == 1 || out.size() == 2, what, " must hold 1 or 2 ints, got ", out.size());
  return out;
}

Tensor clamped(Tensor y, const std::optional<double>& lo, const std::optional<double>& hi) {
  return lo || hi ? tvk::clamp(y, lo, hi) : y;
}

// PyTorch's SerializationTypeConv2dPrePack: (weight, bias?, stride, padding, dilation, groups,
// output_min?, output_max?).
void conv_set_state(Object& self, const IValue& state) {
  TVK_CHECK((state.isTuple() || state.isList()) && state.toList().size() == 8, kXnnpackConvClass,
            " state must be a tuple of 8 items (weight, bias, stride, padding, dilation, groups, output_min, "
            "output_max)");
  const List& s = state.toList();
  TVK_CHECK(s[0].isTensor() && s[0].toTensor().dim() == 4 && s[0].toTensor().dtype() == DType::Float32,
            kXnnpackConvClass, ": the weight must be a 4-D float tensor");
  TVK_CHECK(s[1].isNone() || (s[1].isTensor() && s[1].toTensor().dim() == 1), kXnnpackConvClass,
            ": the bias must be a 1-D tensor or None");
  TVK_CHECK(s[5].isInt() && s[5].toInt() > 0, kXnnpackConvClass, ": groups must be a positive int");
  auto ctx = std::make_shared<XnnpackConv2dContext>();
  ctx->weight = s[0].toTensor().cpu();
  if (s[1].isTensor()) ctx->bias = s[1].toTensor().cpu();
  ctx->stride = int_pair(s[2], "stride");
  ctx->padding = int_pair(s[3], "padding");
  ctx->dilation = int_pair(s[4], "dilation");
  ctx->groups = s[5].toInt();
  ctx->output_min = optional_scalar(s[6], "output_min");
  ctx->output_max = optional_scalar(s[7], "output_max");
  self.payload = std::move(ctx);
}

IValue conv_get_state(const Object& self) {
  const auto* c = dynamic_cast<const XnnpackConv2dContext*>(self.payload.get());
  TVK_CHECK(c, kXnnpackConvClass, " has no state");
  return IValue::tuple({IValue(c->weight), c->bias.defined() ? IValue(c->bias) : IValue(), IValue(c->stride),
                        IValue(c->padding), IValue(c->dilation), IValue(c->groups), optional_value(c->output_min),
                        optional_value(c->output_max)});
}

// PyTorch's SerializationTypeLinearPrePack: (weight, bias?, output_min?, output_max?).
void linear_set_state(Object& self, const IValue& state) {
  TVK_CHECK((state.isTuple() || state.isList()) && state.toList().size() == 4, kXnnpackLinearClass,
            " state must be a tuple of 4 items (weight, bias, output_min, output_max)");
  const List& s = state.toList();
  TVK_CHECK(s[0].isTensor() && s[0].toTensor().dim() == 2 && s[0].toTensor().dtype() == DType::Float32,
            kXnnpackLinearClass, ": the weight must be a 2-D float tensor");
  TVK_CHECK(s[1].isNone() || (s[1].isTensor() && s[1].toTensor().dim() == 1), kXnnpackLinearClass,
            ": the bias must be a 1-D tensor or None");
  auto ctx = std::make_shared<XnnpackLinearContext>();
  ctx->weight = s[0].toTensor().cpu();
  if (s[1].isTensor()) ctx->bias = s[1].toTensor().cpu();
  ctx->output_min = optional_scalar(s[2], "output_min");
  ctx->output_max = optional_scalar(s[3], "output_max");
  self.payload = std::move(ctx);
}

IValue linear_get_state(const Object& self) {
  const auto* c = dynamic_cast<const XnnpackLinearContext*>(self.payload.get());
  TVK_CHECK(c, kXnnpackLinearClass, " has no state");
  return IValue::tuple({IValue(c->weight), c->bias.defined() ? IValue(c->bias) : IValue(),
                        optional_value(c->output_min), optional_value(c->output_max)});
}

// The run ops compute where the input is: weights that live in the context on the CPU go to
// the input's device per call (tvk optimize --backend vulkan packs them once instead).
Tensor conv2d_clamp_run(const Tensor& x, IValue context) {
  const XnnpackConv2dContext* c = xnnpack_conv_context(context);
  TVK_CHECK(c, "prepacked::conv2d_clamp_run: expected a ", kXnnpackConvClass);
  const Device d = x.device();
  const Tensor bias = c->bias.defined() ? c->bias.to(d) : Tensor();
  return clamped(tvk::conv2d(x, c->weight.to(d), bias, c->stride, c->padding, c->dilation, c->groups), c->output_min,
                 c->output_max);
}

Tensor linear_clamp_run(const Tensor& x, IValue context) {
  const XnnpackLinearContext* c = xnnpack_linear_context(context);
  TVK_CHECK(c, "prepacked::linear_clamp_run: expected a ", kXnnpackLinearClass);
  const Device d = x.device();
  const Tensor bias = c->bias.defined() ? c->bias.to(d) : Tensor();
  return clamped(tvk::linear(x, c->weight.to(d), bias), c->output_min, c->output_max);
}

IValue conv2d_clamp_prepack(const Tensor& w, const Tensor& b, IntList stride, IntList padding, IntList dilation,
                            int64_t groups, std::optional<Scalar> output_min, std::optional<Scalar> output_max) {
  auto obj = std::make_shared<Object>();
  obj->type_name = kXnnpackConvClass;
  conv_set_state(*obj, IValue::tuple({IValue(w), b.defined() ? IValue(b) : IValue(), IValue(stride), IValue(padding),
                                      IValue(dilation), IValue(groups), optional_value(output_min),
                                      optional_value(output_max)}));
  return IValue(obj);
}

IValue linear_clamp_prepack(const Tensor& w, const Tensor& b, std::optional<Scalar> output_min,
                            std::optional<Scalar> output_max) {
  auto obj = std::make_shared<Object>();
  obj->type_name = kXnnpackLinearClass;
  linear_set_state(*obj, IValue::tuple({IValue(w), b.defined() ? IValue(b) : IValue(), optional_value(output_min),
                                        optional_value(output_max)}));
  return IValue(obj);
}

}  // namespace

const XnnpackConv2dContext* xnnpack_conv_context(const IValue& v) {
  if (!v.isObject() || v.toObject()->type_name != kXnnpackConvClass) return nullptr;
  return dynamic_cast<const XnnpackConv2dContext*>(v.toObject()->payload.get());
}

const XnnpackLinearContext* xnnpack_linear_context(const IValue& v) {
  if (!v.isObject() || v.toObject()->type_name != kXnnpackLinearClass) return nullptr;
  return dynamic_cast<const XnnpackLinearContext*>(v.toObject()->payload.get());
}

TVK_REGISTER_CUSTOM_CLASS(CustomClass{kXnnpackConvClass, conv_get_state, conv_set_state});
TVK_REGISTER_CUSTOM_CLASS(CustomClass{kXnnpackLinearClass, linear_get_state, linear_set_state});

TVK_REGISTER_OP("prepacked::conv2d_clamp_prepack(Tensor W, Tensor? B, int[2] stride, int[2] padding, "
                "int[2] dilation, int groups, Scalar? output_min=None, Scalar? output_max=None) -> "
                "__torch__.torch.classes.xnnpack.Conv2dOpContext",
                conv2d_clamp_prepack);
TVK_REGISTER_OP("prepacked::conv2d_clamp_run(Tensor X, __torch__.torch.classes.xnnpack.Conv2dOpContext W_prepack) "
                "-> Tensor Y",
                conv2d_clamp_run);
TVK_REGISTER_VULKAN_KERNEL("prepacked::conv2d_clamp_run", conv2d_clamp_run);
TVK_REGISTER_OP("prepacked::linear_clamp_prepack(Tensor W, Tensor? B=None, Scalar? output_min=None, "
                "Scalar? output_max=None) -> __torch__.torch.classes.xnnpack.LinearOpContext",
                linear_clamp_prepack);
TVK_REGISTER_OP("prepacked::linear_clamp_run(Tensor X, __torch__.torch.classes.xnnpack.LinearOpContext W_prepack) "
                "-> Tensor Y",
                linear_clamp_run);
TVK_REGISTER_VULKAN_KERNEL("prepacked::linear_clamp_run", linear_clamp_run);

}  // namespace tvk::ops
