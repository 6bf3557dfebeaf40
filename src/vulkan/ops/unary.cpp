// Vulkan kernels for elementwise ops of one input (shader unary.glsl): activations (relu, relu6,
// leaky_relu, elu, selu, celu, softplus, mish, log_sigmoid, sigmoid, tanh, hardswish, hardsigmoid,
// silu, gelu, softshrink), math functions (neg, abs, sign, exp, exp2, expm1, log, log2, log10,
// log1p, the trigonometric and hyperbolic functions and their inverses, erf, erfc, sqrt, rsqrt,
// reciprocal, floor, ceil, round, trunc, frac), pow with a scalar exponent, clamps and scalar
// arithmetic (fmod, division with a rounding mode). In-place forms bind the same buffer as input and output.
#include <limits>
#include <optional>
#include <string>

#include "ops/activation.h"
#include "ops/quantized.h"
#include "ops/registry.h"
#include "vulkan/ops/shader_dispatch.h"

namespace tvk::vulkan {
namespace {

// Must match the constants in unary.glsl.
enum UnaryOp : uint32_t {
  kRelu = 0, kClamp = 1, kAddScalar = 2, kMulScalar = 3, kSigmoid = 4, kTanh = 5, kHardswish = 6,
  kHardsigmoid = 7, kSilu = 8, kGelu = 9, kRelu6 = 10, kNeg = 11, kExp = 12, kSqrt = 13, kRsqrt = 14,
  kGeluTanh = 15, kPow = 16, kFakeQuant = 17, kReciprocal = 18, kAbs = 19, kLog = 20, kLog2 = 21, kLog10 = 22,
  kLog1p = 23, kExpm1 = 24, kSin = 25, kCos = 26, kFloor = 27, kCeil = 28, kRound = 29, kTrunc = 30, kSign = 31,
  kErf = 32, kLeakyRelu = 33, kElu = 34, kSoftplus = 35, kMish = 36, kLogSigmoid = 37, kHardshrink = 38,
  kThreshold = 39, kScalarPow = 40, kFloorDivScalar = 41, kRemainderScalar = 42, kFmodScalar = 43, kTruncDivScalar = 44,
  kTan = 45, kAsin = 46, kAcos = 47, kAtan = 48, kSinh = 49, kCosh = 50, kAsinh = 51, kAcosh = 52, kAtanh = 53,
  kErfc = 54, kExp2 = 55, kFrac = 56, kSoftshrink = 57,
};

struct UnaryParams {
  uint32_t numel;
  float p0;
  float p1;
  float p2, p3, p4;
};

Tensor unary(const char* op, UnaryOp code, const Tensor& self, bool in_place, float p0 = 0, float p1 = 0,
             float p2 = 0, float p3 = 0, float p4 = 0) {
  check_vulkan_float(op, self);
  Tensor out = in_place ? self : empty_vulkan(self.sizes());
  launch(ShaderLaunch{"unary", elementwise_global(self.numel()), {64, 1, 1}, {code}}, {out, self},
         UnaryParams{static_cast<uint32_t>(self.numel()), p0, p1, p2, p3, p4});
  return out;
}

constexpr float kInf = std::numeric_limits<float>::infinity();

Tensor relu(const Tensor& self) { return unary("aten::relu", kRelu, self, false); }
Tensor fake_quantize_per_tensor_affine(const Tensor& self, double scale, int64_t zero_point, int64_t quant_min,
                                       int64_t quant_max) {
  const char* op = "aten::fake_quantize_per_tensor_affine";
  ops::check_quantizer(op, scale, zero_point, quant_min, quant_max);
  const float s = static_cast<float>(scale);
  return unary(op, kFakeQuant, self, false, 1.0f / s, s, static_cast<float>(zero_point),
               static_cast<float>(quant_min), static_cast<float>(quant_max));
}
Tensor relu_(const Tensor& self) { return unary("aten::relu_", kRelu, self, true); }
Tensor clamp(const Tensor& self, std::optional<ops::Scalar> min, std::optional<ops::Scalar> max) {
  TVK_CHECK(min || max, "aten::clamp: at least one of 'min' or 'max' must not be None");
  return unary("aten::clamp", kClamp, self, false, min ? static_cast<float>(*min) : -kInf,
               max ? static_cast<float>(*max) : kInf);
}
Tensor hardtanh(const Tensor& self, ops::Scalar lo, ops::Scalar hi) {
  return unary("aten::hardtanh", kClamp, self, false, static_cast<float>(lo), static_cast<float>(hi));
}
Tensor hardtanh_(const Tensor& self, ops::Scalar lo, ops::Scalar hi) {
  return unary("aten::hardtanh_", kClamp, self, true, static_cast<float>(lo), static_cast<float>(hi));
}
Tensor add_scalar(const Tensor& self, ops::Scalar other, ops::Scalar alpha) {
  return unary("aten::add", kAddScalar, self, false, static_cast<float>(other), static_cast<float>(alpha));
}
Tensor sub_scalar(const Tensor& self, ops::Scalar other, ops::Scalar alpha) {
  return unary("aten::sub", kAddScalar, self, false, static_cast<float>(other), static_cast<float>(-alpha));
}
Tensor mul_scalar(const Tensor& self, ops::Scalar other) {
  return unary("aten::mul", kMulScalar, self, false, static_cast<float>(other));
}
Tensor div_scalar(const Tensor& self, ops::Scalar other) {
  return unary("aten::div", kMulScalar, self, false, static_cast<float>(1.0 / other));
}
Tensor add_scalar_(const Tensor& self, ops::Scalar other, ops::Scalar alpha) {
  return unary("aten::add_", kAddScalar, self, true, static_cast<float>(other), static_cast<float>(alpha));
}
Tensor sub_scalar_(const Tensor& self, ops::Scalar other, ops::Scalar alpha) {
  return unary("aten::sub_", kAddScalar, self, true, static_cast<float>(other), static_cast<float>(-alpha));
}
Tensor mul_scalar_(const Tensor& self, ops::Scalar other) {
  return unary("aten::mul_", kMulScalar, self, true, static_cast<float>(other));
}
Tensor div_scalar_(const Tensor& self, ops::Scalar other) {
  return unary("aten::div_", kMulScalar, self, true, static_cast<float>(1.0 / other));
}
Tensor clamp_min(const Tensor& self, ops::Scalar min) {
  return unary("aten::clamp_min", kClamp, self, false, static_cast<float>(min), kInf);
}
Tensor clamp_min_(const Tensor& self, ops::Scalar min) {
  return unary("aten::clamp_min_", kClamp, self, true, static_cast<float>(min), kInf);
}
Tensor pow_scalar(const Tensor& self, ops::Scalar exponent) {
  return unary("aten::pow", kPow, self, false, static_cast<float>(exponent));
}
Tensor clamp_(const Tensor& self, std::optional<ops::Scalar> min, std::optional<ops::Scalar> max) {
  TVK_CHECK(min || max, "aten::clamp_: at least one of 'min' or 'max' must not be None");
  return unary("aten::clamp_", kClamp, self, true, min ? static_cast<float>(*min) : -kInf,
               max ? static_cast<float>(*max) : kInf);
}

// One pointwise function, as an op and its in-place form.
#define TVK_VULKAN_POINTWISE(name, code)                                                  \
  Tensor name(const Tensor& self) { return unary("aten::" #name, code, self, false); }     \
  Tensor name##_(const Tensor& self) { return unary("aten::" #name "_", code, self, true); }
TVK_VULKAN_POINTWISE(relu6, kRelu6)
TVK_VULKAN_POINTWISE(sigmoid, kSigmoid)
TVK_VULKAN_POINTWISE(tanh, kTanh)
TVK_VULKAN_POINTWISE(hardswish, kHardswish)
TVK_VULKAN_POINTWISE(hardsigmoid, kHardsigmoid)
TVK_VULKAN_POINTWISE(silu, kSilu)
TVK_VULKAN_POINTWISE(neg, kNeg)
TVK_VULKAN_POINTWISE(exp, kExp)
TVK_VULKAN_POINTWISE(sqrt, kSqrt)
TVK_VULKAN_POINTWISE(rsqrt, kRsqrt)
TVK_VULKAN_POINTWISE(reciprocal, kReciprocal)
TVK_VULKAN_POINTWISE(abs, kAbs)
TVK_VULKAN_POINTWISE(log, kLog)
TVK_VULKAN_POINTWISE(log2, kLog2)
TVK_VULKAN_POINTWISE(log10, kLog10)
TVK_VULKAN_POINTWISE(log1p, kLog1p)
TVK_VULKAN_POINTWISE(expm1, kExpm1)
TVK_VULKAN_POINTWISE(sin, kSin)
TVK_VULKAN_POINTWISE(cos, kCos)
TVK_VULKAN_POINTWISE(floor, kFloor)
TVK_VULKAN_POINTWISE(ceil, kCeil)
TVK_VULKAN_POINTWISE(round, kRound)
TVK_VULKAN_POINTWISE(trunc, kTrunc)
TVK_VULKAN_POINTWISE(sign, kSign)
TVK_VULKAN_POINTWISE(erf, kErf)
TVK_VULKAN_POINTWISE(mish, kMish)
TVK_VULKAN_POINTWISE(tan, kTan)
TVK_VULKAN_POINTWISE(asin, kAsin)
TVK_VULKAN_POINTWISE(acos, kAcos)
TVK_VULKAN_POINTWISE(atan, kAtan)
TVK_VULKAN_POINTWISE(sinh, kSinh)
TVK_VULKAN_POINTWISE(cosh, kCosh)
TVK_VULKAN_POINTWISE(asinh, kAsinh)
TVK_VULKAN_POINTWISE(acosh, kAcosh)
TVK_VULKAN_POINTWISE(atanh, kAtanh)
TVK_VULKAN_POINTWISE(erfc, kErfc)
TVK_VULKAN_POINTWISE(exp2, kExp2)
TVK_VULKAN_POINTWISE(frac, kFrac)
#undef TVK_VULKAN_POINTWISE

Tensor log_sigmoid(const Tensor& self) { return unary("aten::log_sigmoid", kLogSigmoid, self, false); }
Tensor leaky_relu(const Tensor& self, ops::Scalar slope) {
  return unary("aten::leaky_relu", kLeakyRelu, self, false, static_cast<float>(slope));
}
Tensor leaky_relu_(const Tensor& self, ops::Scalar slope) {
  return unary("aten::leaky_relu_", kLeakyRelu, self, true, static_cast<float>(slope));
}
Tensor elu(const Tensor& self, ops::Scalar alpha, ops::Scalar scale, ops::Scalar input_scale) {
  return unary("aten::elu", kElu, self, false, static_cast<float>(alpha), static_cast<float>(scale),
               static_cast<float>(input_scale));
}
Tensor elu_(const Tensor& self, ops::Scalar alpha, ops::Scalar scale, ops::Scalar input_scale) {
  return unary("aten::elu_", kElu, self, true, static_cast<float>(alpha), static_cast<float>(scale),
               static_cast<float>(input_scale));
}
Tensor celu(const Tensor& self, ops::Scalar alpha) {
  ops::check_celu_alpha("aten::celu", alpha);
  return unary("aten::celu", kElu, self, false, static_cast<float>(alpha), 1.0f, static_cast<float>(1.0 / alpha));
}
Tensor selu(const Tensor& self) {
  return unary("aten::selu", kElu, self, false, static_cast<float>(ops::kSeluAlpha), static_cast<float>(ops::kSeluScale), 1.0f);
}
Tensor hardshrink(const Tensor& self, ops::Scalar lambd) {
  return unary("aten::hardshrink", kHardshrink, self, false, static_cast<float>(lambd));
}
Tensor hardshrink_(const Tensor& self, ops::Scalar lambd) {
  return unary("aten::hardshrink_", kHardshrink, self, true, static_cast<float>(lambd));
}
Tensor threshold(const Tensor& self, ops::Scalar threshold, ops::Scalar value) {
  return unary("aten::threshold", kThreshold, self, false, static_cast<float>(threshold), static_cast<float>(value));
}
Tensor threshold_(const Tensor& self, ops::Scalar threshold, ops::Scalar value) {
  return unary("aten::threshold_", kThreshold, self, true, static_cast<float>(threshold), static_cast<float>(value));
}
Tensor pow_scalar_base(ops::Scalar self, const Tensor& exponent) {
  return unary("aten::pow", kScalarPow, exponent, false, static_cast<float>(self));
}
Tensor pow_scalar_(const Tensor& self, ops::Scalar exponent) {
  return unary("aten::pow_", kPow, self, true, static_cast<float>(exponent));
}
Tensor floor_divide_scalar(const Tensor& self, ops::Scalar other) {
  return unary("aten::floor_divide", kFloorDivScalar, self, false, static_cast<float>(other));
}
Tensor floor_divide_scalar_(const Tensor& self, ops::Scalar other) {
  return unary("aten::floor_divide_", kFloorDivScalar, self, true, static_cast<float>(other));
}
Tensor remainder_scalar(const Tensor& self, ops::Scalar other) {
  return unary("aten::remainder", kRemainderScalar, self, false, static_cast<float>(other));
}
Tensor fmod_scalar(const Tensor& self, ops::Scalar other) {
  return unary("aten::fmod", kFmodScalar, self, false, static_cast<float>(other));
}
Tensor div_scalar_mode(const Tensor& self, ops::Scalar other, std::optional<std::string> mode) {
  const float v = static_cast<float>(other);
  if (!mode) return unary("aten::div", kMulScalar, self, false, 1.0f / v);
  TVK_CHECK(*mode == "trunc" || *mode == "floor", "aten::div: rounding_mode must be 'trunc', 'floor' or None, got '",
            *mode, "'");
  return unary("aten::div", *mode == "trunc" ? kTruncDivScalar : kFloorDivScalar, self, false, v);
}
Tensor softshrink(const Tensor& self, ops::Scalar lambd) {
  return unary("aten::softshrink", kSoftshrink, self, false, static_cast<float>(lambd));
}
Tensor softplus(const Tensor& self, ops::Scalar beta, ops::Scalar threshold) {
  return unary("aten::softplus", kSoftplus, self, false, static_cast<float>(beta), static_cast<float>(threshold));
}

Tensor gelu(const Tensor& self, std::string approximate) {
  TVK_CHECK(approximate == "none" || approximate == "tanh", "aten::gelu: approximate must be 'none' or 'tanh', got '",
            approximate, "'");
  return unary("aten::gelu", approximate == "tanh" ? kGeluTanh : kGelu, self, false);
}

}  // namespace

TVK_REGISTER_VULKAN_KERNEL("aten::relu", relu);
TVK_REGISTER_VULKAN_KERNEL("aten::fake_quantize_per_tensor_affine", fake_quantize_per_tensor_affine);
TVK_REGISTER_VULKAN_KERNEL("aten::relu_", relu_);
TVK_REGISTER_VULKAN_KERNEL("aten::clamp", clamp);
TVK_REGISTER_VULKAN_KERNEL("aten::hardtanh", hardtanh);
TVK_REGISTER_VULKAN_KERNEL("aten::hardtanh_", hardtanh_);
TVK_REGISTER_VULKAN_KERNEL("aten::add.Scalar", add_scalar);
TVK_REGISTER_VULKAN_KERNEL("aten::sub.Scalar", sub_scalar);
TVK_REGISTER_VULKAN_KERNEL("aten::mul.Scalar", mul_scalar);
TVK_REGISTER_VULKAN_KERNEL("aten::div.Scalar", div_scalar);
TVK_REGISTER_VULKAN_KERNEL("aten::add_.Scalar", add_scalar_);
TVK_REGISTER_VULKAN_KERNEL("aten::sub_.Scalar", sub_scalar_);
TVK_REGISTER_VULKAN_KERNEL("aten::mul_.Scalar", mul_scalar_);
TVK_REGISTER_VULKAN_KERNEL("aten::div_.Scalar", div_scalar_);
TVK_REGISTER_VULKAN_KERNEL("aten::clamp_", clamp_);

TVK_REGISTER_VULKAN_KERNEL("aten::relu6", relu6);
TVK_REGISTER_VULKAN_KERNEL("aten::relu6_", relu6_);
TVK_REGISTER_VULKAN_KERNEL("aten::sigmoid", sigmoid);
TVK_REGISTER_VULKAN_KERNEL("aten::sigmoid_", sigmoid_);
TVK_REGISTER_VULKAN_KERNEL("aten::tanh", tanh);
TVK_REGISTER_VULKAN_KERNEL("aten::tanh_", tanh_);
TVK_REGISTER_VULKAN_KERNEL("aten::hardswish", hardswish);
TVK_REGISTER_VULKAN_KERNEL("aten::hardswish_", hardswish_);
TVK_REGISTER_VULKAN_KERNEL("aten::hardsigmoid", hardsigmoid);
TVK_REGISTER_VULKAN_KERNEL("aten::hardsigmoid_", hardsigmoid_);
TVK_REGISTER_VULKAN_KERNEL("aten::silu", silu);
TVK_REGISTER_VULKAN_KERNEL("aten::silu_", silu_);
TVK_REGISTER_VULKAN_KERNEL("aten::clamp_min", clamp_min);
TVK_REGISTER_VULKAN_KERNEL("aten::clamp_min_", clamp_min_);
TVK_REGISTER_VULKAN_KERNEL("aten::pow.Tensor_Scalar", pow_scalar);
TVK_REGISTER_VULKAN_KERNEL("aten::neg", neg);
TVK_REGISTER_VULKAN_KERNEL("aten::neg_", neg_);
TVK_REGISTER_VULKAN_KERNEL("aten::exp", exp);
TVK_REGISTER_VULKAN_KERNEL("aten::exp_", exp_);
TVK_REGISTER_VULKAN_KERNEL("aten::sqrt", sqrt);
TVK_REGISTER_VULKAN_KERNEL("aten::sqrt_", sqrt_);
TVK_REGISTER_VULKAN_KERNEL("aten::rsqrt", rsqrt);
TVK_REGISTER_VULKAN_KERNEL("aten::rsqrt_", rsqrt_);
TVK_REGISTER_VULKAN_KERNEL("aten::reciprocal", reciprocal);
TVK_REGISTER_VULKAN_KERNEL("aten::reciprocal_", reciprocal_);
TVK_REGISTER_VULKAN_KERNEL("aten::gelu", gelu);
#define TVK_REGISTER_POINTWISE(name)                          \
  TVK_REGISTER_VULKAN_KERNEL("aten::" #name, name);           \
  TVK_REGISTER_VULKAN_KERNEL("aten::" #name "_", name##_)
TVK_REGISTER_POINTWISE(abs);
TVK_REGISTER_POINTWISE(log);
TVK_REGISTER_POINTWISE(log2);
TVK_REGISTER_POINTWISE(log10);
TVK_REGISTER_POINTWISE(log1p);
TVK_REGISTER_POINTWISE(expm1);
TVK_REGISTER_POINTWISE(sin);
TVK_REGISTER_POINTWISE(cos);
TVK_REGISTER_POINTWISE(floor);
TVK_REGISTER_POINTWISE(ceil);
TVK_REGISTER_POINTWISE(round);
TVK_REGISTER_POINTWISE(trunc);
TVK_REGISTER_POINTWISE(sign);
TVK_REGISTER_POINTWISE(erf);
TVK_REGISTER_POINTWISE(mish);
TVK_REGISTER_POINTWISE(leaky_relu);
TVK_REGISTER_POINTWISE(elu);
TVK_REGISTER_POINTWISE(hardshrink);
TVK_REGISTER_POINTWISE(threshold);
TVK_REGISTER_POINTWISE(tan);
TVK_REGISTER_POINTWISE(asin);
TVK_REGISTER_POINTWISE(acos);
TVK_REGISTER_POINTWISE(atan);
TVK_REGISTER_POINTWISE(sinh);
TVK_REGISTER_POINTWISE(cosh);
TVK_REGISTER_POINTWISE(asinh);
TVK_REGISTER_POINTWISE(acosh);
TVK_REGISTER_POINTWISE(atanh);
TVK_REGISTER_POINTWISE(erfc);
TVK_REGISTER_POINTWISE(exp2);
TVK_REGISTER_POINTWISE(frac);
#undef TVK_REGISTER_POINTWISE
TVK_REGISTER_VULKAN_KERNEL("aten::log_sigmoid", log_sigmoid);
TVK_REGISTER_VULKAN_KERNEL("aten::celu", celu);
TVK_REGISTER_VULKAN_KERNEL("aten::selu", selu);
TVK_REGISTER_VULKAN_KERNEL("aten::softplus", softplus);
TVK_REGISTER_VULKAN_KERNEL("aten::pow.Scalar", pow_scalar_base);
TVK_REGISTER_VULKAN_KERNEL("aten::pow_.Scalar", pow_scalar_);
TVK_REGISTER_VULKAN_KERNEL("aten::floor_divide.Scalar", floor_divide_scalar);
TVK_REGISTER_VULKAN_KERNEL("aten::floor_divide_.Scalar", floor_divide_scalar_);
TVK_REGISTER_VULKAN_KERNEL("aten::remainder.Scalar", remainder_scalar);
TVK_REGISTER_VULKAN_KERNEL("aten::fmod.Scalar", fmod_scalar);
TVK_REGISTER_VULKAN_KERNEL("aten::div.Scalar_mode", div_scalar_mode);
TVK_REGISTER_VULKAN_KERNEL("aten::softshrink", softshrink);

}  // namespace tvk::vulkan
