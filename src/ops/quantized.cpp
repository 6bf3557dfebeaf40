// Quantized models. tvk dequantizes int8 weights when it loads them
// (jit/serialization/unpickler.cpp, _rebuild_qtensor).
// - Dynamic quantization (torch.quantization.quantize_dynamic): the custom class
//   __torch__.torch.classes.quantized.LinearPackedParamsBase and quantized::linear_dynamic, run
//   as a float32 linear on the CPU or on Vulkan, where PyTorch also quantizes the input per
//   call: outputs differ from PyTorch's by that rounding (under 1e-2 of the largest output on
//   the test models). optimize_for_mobile turns the call into aten::linear (jit/passes,
//   unpack_xnnpack_contexts), which the Vulkan passes then pack.
// - Static quantization (prepare, calibrate, convert): quantized activations are float32
//   tensors holding values of their quantized grid. quantize_per_tensor rounds onto the grid,
//   dequantize is the identity, and each quantized op (conv2d, conv2d_relu, linear, add,
//   add_relu...) is its float op followed by fake_quantize_per_tensor_affine to its output
//   scale and zero point, on whichever device its input is. PyTorch sums int8 products in int32
//   and requantizes once; tvk sums the same products in float32, so an output near a rounding
//   boundary may land one step of the grid away.
#include "ops/quantized.h"

#include <climits>
#include <cmath>
#include <string>
#include <utility>

#include "ops/custom_class.h"
#include "ops/registry.h"
#include "ops/shape_utils.h"
#include "tvk/ops.h"

namespace tvk::ops {
namespace {

// PyTorch's LinearPackedParamsBase state: (weight, bias?), the weight a quantized tensor that
// the unpickler has already dequantized (or, in files tvk wrote, float32 weights).
void set_state(Object& self, const IValue& state) {
  TVK_CHECK((state.isTuple() || state.isList()) && state.toList().size() >= 2, kQuantizedLinearClass,
            " state must be a tuple (weight, bias)");
  const List& s = state.toList();
  TVK_CHECK(s[0].isTensor() && s[0].toTensor().dim() == 2 && s[0].toTensor().dtype() == DType::Float32,
            kQuantizedLinearClass, ": the weight must be a 2-D tensor");
  TVK_CHECK(s[1].isNone() || (s[1].isTensor() && s[1].toTensor().dim() == 1 &&
                              s[1].toTensor().size(0) == s[0].toTensor().size(0)),
            kQuantizedLinearClass, ": the bias must be None or a 1-D tensor of the weight's rows");
  auto ctx = std::make_shared<QuantizedLinearParams>();
  ctx->weight = s[0].toTensor().cpu();
  if (s[1].isTensor()) ctx->bias = s[1].toTensor().cpu();
  self.payload = std::move(ctx);
}

IValue get_state(const Object& self) {
  const auto* c = dynamic_cast<const QuantizedLinearParams*>(self.payload.get());
  TVK_CHECK(c, kQuantizedLinearClass, " has no state");
  return IValue::tuple({IValue(c->weight), c->bias.defined() ? IValue(c->bias) : IValue()});
}

Tensor linear_dynamic(const Tensor& x, IValue params, bool /*reduce_range*/) {
  const QuantizedLinearParams* c = quantized_linear_params(params);
  TVK_CHECK(c, "quantized::linear_dynamic: expected a ", kQuantizedLinearClass);
  const Device d = x.device();
  return tvk::linear(x, c->weight.to(d), c->bias.defined() ? c->bias.to(d) : Tensor());
}
Tensor linear_dynamic_fp16(const Tensor& x, IValue params) { return linear_dynamic(x, std::move(params), false); }

std::tuple<Tensor, IValue> linear_unpack(IValue params) {
  const QuantizedLinearParams* c = quantized_linear_params(params);
  TVK_CHECK(c, "quantized::linear_unpack: expected a ", kQuantizedLinearClass);
  return {c->weight, c->bias.defined() ? IValue(c->bias) : IValue()};
}

// Static quantization.

// The quantized range of a PyTorch quantized dtype (ScalarType codes: QInt8 12, QUInt8 13,
// QInt32 14).
std::pair<int64_t, int64_t> quantized_range(const char* op, int64_t dtype) {
  switch (dtype) {
    case 12: return {-128, 127};
    case 13: return {0, 255};
    case 14: return {INT32_MIN, INT32_MAX};
    default: throw Error(detail::concat(op, ": dtype ", dtype, " is not a quantized dtype (qint8, quint8, qint32)"));
  }
}

// Activations of statically quantized models are quint8 (PyTorch's default observers).
Tensor requantize(const char* op, const Tensor& y, double scale, int64_t zero_point) {
  check_quantizer(op, scale, zero_point, 0, 255);
  return tvk::fake_quantize_per_tensor_affine(y, scale, zero_point, 0, 255);
}

Tensor quantize_per_tensor(const Tensor& self, double scale, int64_t zero_point, int64_t dtype) {
  const char* op = "aten::quantize_per_tensor";
  const auto [lo, hi] = quantized_range(op, dtype);
  check_quantizer(op, scale, zero_point, lo, hi);
  return tvk::fake_quantize_per_tensor_affine(self, scale, zero_point, lo, hi);
}
Tensor dequantize(const Tensor& self) {
  check_defined("aten::dequantize", self);
  return self;  // already float32, on the grid
}

// Conv2dPackedParamsBase state, in any of the forms PyTorch has written
// (aten/src/ATen/native/quantized/cpu/conv_serialization.h):
//   version 1 (the oldest): (weight, bias?, [stride tensors], [padding tensors],
//             [dilation tensors], groups tensor), one-element tensors;
//   version 2 (what torch 1.13 writes when it freezes or optimizes a quantized model):
//             ("2", [config as an int16 tensor, weight], [bias?]);
//   version 3: (3, config, [None, weight, bias?]); tvk before 2026-12-02 wrote [weight, bias?].
// config: [spatial dims = 2, stride x2, padding x2, dilation x2, output padding x2, groups,
// flags (bit 0: transposed)].
namespace {
int64_t one_int(const char* cls, const IValue& v, const char* what) {
  TVK_CHECK(v.isTensor() && v.toTensor().defined() && v.toTensor().numel() >= 1 &&
                v.toTensor().dtype() == DType::Int64,
            cls, ": version 1 state: ", what, " must be an integer tensor");
  return v.toTensor().cpu().contiguous().data<int64_t>()[0];
}
IntList ints_of_tensors(const char* cls, const IValue& v, const char* what) {
  TVK_CHECK(v.isList() || v.isTuple(), cls, ": version 1 state: ", what, " must be a list of tensors");
  IntList out;
  for (const IValue& e : v.toList()) out.push_back(one_int(cls, e, what));
  TVK_CHECK(out.size() == 2, cls, ": version 1 state: ", what, " must hold 2 values, got ", out.size());
  return out;
}
const IValue& tensor_or_none(const char* cls, const IValue& v, const char* what) {
  TVK_CHECK(v.isNone() || (v.isTensor() && v.toTensor().defined()), cls, ": ", what, " must be a tensor or None");
  return v;
}
}  // namespace

void conv_set_state(Object& self, const IValue& state) {
  const char* cls = kQuantizedConvClass;
  TVK_CHECK((state.isTuple() || state.isList()) && !state.toList().empty(), cls,
            " state must be a tuple (version 2 and 3: (version, config, tensors); version 1: (weight, bias, ...))");
  const List& s = state.toList();
  IntList config;
  IValue weight, bias;
  if (s[0].isTensor()) {
    TVK_CHECK(s.size() == 6, cls, ": a version 1 state holds 6 fields, got ", s.size());
    weight = s[0];
    bias = tensor_or_none(cls, s[1], "the bias");
    const IntList stride = ints_of_tensors(cls, s[2], "stride"), padding = ints_of_tensors(cls, s[3], "padding"),
                  dilation = ints_of_tensors(cls, s[4], "dilation");
    config = {2, stride[0], stride[1], padding[0], padding[1], dilation[0], dilation[1], 0, 0, one_int(cls, s[5], "groups"), 0};
  } else if (s[0].isString() && s[0].toStringRef() == "2") {
    TVK_CHECK(s.size() == 3 && (s[1].isList() || s[1].isTuple()) && (s[2].isList() || s[2].isTuple()) &&
                  s[1].toList().size() == 2 && s[2].toList().size() == 1,
              cls, ": a version 2 state must be (\"2\", [config, weight], [bias])");
    const IValue& packed = s[1].toList()[0];
    TVK_CHECK(packed.isTensor() && packed.toTensor().defined() && packed.toTensor().dtype() == DType::Int64 &&
                  packed.toTensor().dim() == 1,
              cls, ": a version 2 state's config must be a 1-D int16 tensor");
    const Tensor c = packed.toTensor().cpu().contiguous();
    config.assign(c.data<int64_t>(), c.data<int64_t>() + c.numel());
    weight = s[1].toList()[1];
    bias = tensor_or_none(cls, s[2].toList()[0], "the bias");
  } else if (s[0].isInt() && s[0].toInt() == 3) {
    TVK_CHECK(s.size() == 3 && s[1].isList() && s[2].isList(), cls, ": a version 3 state must be (3, config, tensors)");
    bool ints = true;
    for (const IValue& v : s[1].toList()) ints = ints && v.isInt();
    TVK_CHECK(ints, cls, ": config must be a list of ints");
    config = s[1].toIntList();
    const List& tensors = s[2].toList();
    TVK_CHECK(tensors.size() == 2 || (tensors.size() == 3 && tensors[0].isNone()), cls,
              ": a version 3 state's tensors must be [None, weight, bias]");
    weight = tensors[tensors.size() - 2];
    bias = tensor_or_none(cls, tensors.back(), "the bias");
  } else {
    throw Error(detail::concat(cls, ": state version ",
                               s[0].isInt() ? std::to_string(s[0].toInt()) : s[0].isString() ? s[0].toStringRef() : s[0].tag_name(),
                               " is not supported (tvk reads versions 1, 2 and 3)"));
  }
  TVK_CHECK(config.size() == 11 && config[0] == 2, cls, ": config must hold 11 values for 2 spatial dims, got ",
            shape_string(config));
  TVK_CHECK((config[10] & 1) == 0, cls, ": transposed quantized convolutions are not supported");
  TVK_CHECK(weight.isTensor() && weight.toTensor().defined(), cls, ": the weight must be a tensor");
  auto ctx = std::make_shared<QuantizedConvParams>();
  ctx->weight = weight.toTensor().cpu();
  if (bias.isTensor()) ctx->bias = bias.toTensor().cpu();
  ctx->stride = {config[1], config[2]};
  ctx->padding = {config[3], config[4]};
  ctx->dilation = {config[5], config[6]};
  ctx->groups = config[9];
  TVK_CHECK(ctx->weight.dim() == 4 && ctx->weight.dtype() == DType::Float32, cls, ": the weight must be 4-D, got ",
            ctx->weight.shape_string());
  TVK_CHECK(!ctx->bias.defined() || (ctx->bias.dim() == 1 && ctx->bias.size(0) == ctx->weight.size(0)), cls,
            ": the bias must be None or 1-D over the weight's output channels");
  self.payload = std::move(ctx);
}
IValue conv_get_state(const Object& self) {
  const auto* c = dynamic_cast<const QuantizedConvParams*>(self.payload.get());
  TVK_CHECK(c, kQuantizedConvClass, " has no state");
  const IntList config{2, c->stride[0], c->stride[1], c->padding[0], c->padding[1], c->dilation[0], c->dilation[1],
                       0, 0, c->groups, 0};
  return IValue::tuple({IValue(int64_t{3}), IValue(config),
                        IValue::list(List{IValue(), IValue(c->weight), c->bias.defined() ? IValue(c->bias) : IValue()})});
}

IValue conv2d_prepack(const Tensor& weight, const Tensor& bias, IntList stride, IntList padding, IntList dilation,
                      int64_t groups) {
  const char* op = "quantized::conv2d_prepack";
  check_defined(op, weight);
  const auto st = expand_pair(op, "stride", stride), pad = expand_pair(op, "padding", padding),
             dil = expand_pair(op, "dilation", dilation);
  auto obj = std::make_shared<Object>();
  obj->type_name = kQuantizedConvClass;
  conv_set_state(*obj, IValue::tuple({IValue(int64_t{3}),
                                      IValue(IntList{2, st[0], st[1], pad[0], pad[1], dil[0], dil[1], 0, 0, groups, 0}),
                                      IValue::list(List{IValue(), IValue(weight), bias.defined() ? IValue(bias) : IValue()})}));
  return IValue(obj);
}
std::tuple<Tensor, IValue> conv2d_unpack(IValue params) {
  const QuantizedConvParams* c = quantized_conv_params(params);
  TVK_CHECK(c, "quantized::conv2d_unpack: expected a ", kQuantizedConvClass);
  return {c->weight, c->bias.defined() ? IValue(c->bias) : IValue()};
}

Tensor quantized_conv(const char* op, const Tensor& x, const IValue& params, double scale, int64_t zero_point, bool relu) {
  const QuantizedConvParams* c = quantized_conv_params(params);
  TVK_CHECK(c, op, ": expected a ", kQuantizedConvClass);
  const Device d = x.device();
  Tensor y = tvk::conv2d(x, c->weight.to(d), c->bias.defined() ? c->bias.to(d) : Tensor(), c->stride, c->padding,
                         c->dilation, c->groups);
  return requantize(op, relu ? tvk::relu(y) : y, scale, zero_point);
}
Tensor conv2d_q(const Tensor& x, IValue params, double scale, int64_t zero_point) {
  return quantized_conv("quantized::conv2d", x, params, scale, zero_point, false);
}
Tensor conv2d_relu_q(const Tensor& x, IValue params, double scale, int64_t zero_point) {
  return quantized_conv("quantized::conv2d_relu", x, params, scale, zero_point, true);
}

Tensor quantized_linear(const char* op, const Tensor& x, const IValue& params, double scale, int64_t zero_point,
                        bool relu) {
  const QuantizedLinearParams* c = quantized_linear_params(params);
  TVK_CHECK(c, op, ": expected a ", kQuantizedLinearClass);
  const Device d = x.device();
  Tensor y = tvk::linear(x, c->weight.to(d), c->bias.defined() ? c->bias.to(d) : Tensor());
  return requantize(op, relu ? tvk::relu(y) : y, scale, zero_point);
}
Tensor linear_q(const Tensor& x, IValue params, double scale, int64_t zero_point) {
  return quantized_linear("quantized::linear", x, params, scale, zero_point, false);
}
Tensor linear_relu_q(const Tensor& x, IValue params, double scale, int64_t zero_point) {
  return quantized_linear("quantized::linear_relu", x, params, scale, zero_point, true);
}
IValue linear_prepack(const Tensor& weight, const Tensor& bias) {
  auto obj = std::make_shared<Object>();
  obj->type_name = kQuantizedLinearClass;
  set_state(*obj, IValue::tuple({IValue(weight), bias.defined() ? IValue(bias) : IValue()}));
  return IValue(obj);
}

Tensor add_q(const Tensor& a, const Tensor& b, double scale, int64_t zero_point) {
  return requantize("quantized::add", tvk::add(a, b), scale, zero_point);
}
Tensor add_relu_q(const Tensor& a, const Tensor& b, double scale, int64_t zero_point) {
  return requantize("quantized::add_relu", tvk::relu(tvk::add(a, b)), scale, zero_point);
}

}  // namespace

void check_quantizer(const char* op, double scale, int64_t zero_point, int64_t quant_min, int64_t quant_max) {
  TVK_CHECK(std::isfinite(scale) && scale > 0 && static_cast<float>(scale) > 0, op, ": scale must be positive and finite, got ", scale);
  TVK_CHECK(quant_min <= quant_max, op, ": `quant_min` should be less than or equal to `quant_max`, got ", quant_min, " and ",
            quant_max);
  TVK_CHECK(zero_point >= quant_min && zero_point <= quant_max, op, ": `zero_point` must be between `quant_min` and `quant_max`, got ",
            zero_point, " outside [", quant_min, ", ", quant_max, "]");
}

const QuantizedConvParams* quantized_conv_params(const IValue& v) {
  if (!v.isObject() || v.toObject()->type_name != kQuantizedConvClass) return nullptr;
  return dynamic_cast<const QuantizedConvParams*>(v.toObject()->payload.get());
}

const QuantizedLinearParams* quantized_linear_params(const IValue& v) {
  if (!v.isObject() || v.toObject()->type_name != kQuantizedLinearClass) return nullptr;
  return dynamic_cast<const QuantizedLinearParams*>(v.toObject()->payload.get());
}

TVK_REGISTER_CUSTOM_CLASS(CustomClass{kQuantizedLinearClass, get_state, set_state});
TVK_REGISTER_CUSTOM_CLASS(CustomClass{kQuantizedConvClass, conv_get_state, conv_set_state});

// Static quantization: one kernel for both devices each, calling registered ops that dispatch
// on the input.
TVK_REGISTER_OP_ANY_DEVICE("aten::quantize_per_tensor(Tensor self, float scale, int zero_point, ScalarType dtype) -> Tensor",
                           quantize_per_tensor);
TVK_REGISTER_OP_ANY_DEVICE("aten::dequantize.self(Tensor self) -> Tensor", dequantize);
TVK_REGISTER_OP_ANY_DEVICE("quantized::conv2d_prepack(Tensor weight, Tensor? bias, int[] stride, int[] padding, "
                           "int[] dilation, int groups) -> __torch__.torch.classes.quantized.Conv2dPackedParamsBase",
                           conv2d_prepack);
TVK_REGISTER_OP_ANY_DEVICE("quantized::conv2d_unpack(__torch__.torch.classes.quantized.Conv2dPackedParamsBase "
                           "packed_weights) -> (Tensor unpacked_weights, Tensor? B_origin)",
                           conv2d_unpack);
TVK_REGISTER_OP_ANY_DEVICE("quantized::conv2d.new(Tensor qx, __torch__.torch.classes.quantized.Conv2dPackedParamsBase "
                           "packed_weight, float output_scale, int output_zero_point) -> Tensor",
                           conv2d_q);
TVK_REGISTER_OP_ANY_DEVICE("quantized::conv2d_relu.new(Tensor qx, __torch__.torch.classes.quantized.Conv2dPackedParamsBase "
                           "packed_weight, float output_scale, int output_zero_point) -> Tensor",
                           conv2d_relu_q);
TVK_REGISTER_OP_ANY_DEVICE("quantized::linear(Tensor X, __torch__.torch.classes.quantized.LinearPackedParamsBase "
                           "W_prepack, float Y_scale_i, int Y_zero_point_i) -> Tensor Y",
                           linear_q);
TVK_REGISTER_OP_ANY_DEVICE("quantized::linear_relu(Tensor X, __torch__.torch.classes.quantized.LinearPackedParamsBase "
                           "W_prepack, float Y_scale_i, int Y_zero_point_i) -> Tensor Y",
                           linear_relu_q);
TVK_REGISTER_OP_ANY_DEVICE("quantized::linear_prepack(Tensor W, Tensor? B=None) -> "
                           "__torch__.torch.classes.quantized.LinearPackedParamsBase W_prepack",
                           linear_prepack);
TVK_REGISTER_OP_ANY_DEVICE("quantized::linear_prepack_fp16(Tensor W, Tensor? B=None) -> "
                           "__torch__.torch.classes.quantized.LinearPackedParamsBase W_prepack",
                           linear_prepack);
TVK_REGISTER_OP_ANY_DEVICE("quantized::add(Tensor qa, Tensor qb, float scale, int zero_point) -> Tensor qc", add_q);
TVK_REGISTER_OP_ANY_DEVICE("quantized::add_relu(Tensor qa, Tensor qb, float scale, int zero_point) -> Tensor qc",
                           add_relu_q);

// One kernel for both devices: it calls aten::linear, which dispatches on the input.
TVK_REGISTER_OP_ANY_DEVICE("quantized::linear_dynamic(Tensor X, __torch__.torch.classes.quantized.LinearPackedParamsBase "
                           "W_prepack, bool reduce_range=False) -> Tensor Y",
                           linear_dynamic);
TVK_REGISTER_OP_ANY_DEVICE("quantized::linear_dynamic_fp16(Tensor X, "
                           "__torch__.torch.classes.quantized.LinearPackedParamsBase W_prepack) -> Tensor Y",
                           linear_dynamic_fp16);
TVK_REGISTER_OP_ANY_DEVICE("quantized::linear_unpack(__torch__.torch.classes.quantized.LinearPackedParamsBase "
                           "W_prepack) -> (Tensor W_origin, Tensor? B_origin)",
                           linear_unpack);

}  // namespace tvk::ops
