// Activations and clamps: relu, relu6, leaky_relu, elu, selu, celu, softplus, softshrink, mish, log_sigmoid,
// clamp, hardtanh, sigmoid, tanh, hardswish, hardsigmoid, silu, gelu; math functions: neg, abs,
// sign, exp, exp2, expm1, log, log2, log10, log1p, sin, cos, tan, their inverses and hyperbolic forms,
// erf, erfc, sqrt, rsqrt, reciprocal, floor, ceil, round (half to even), trunc, frac; pow with a scalar exponent (and in-place forms).
#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/activation.h"
#include "ops/cpu/cpu_loops.h"
#include "ops/quantized.h"
#include "ops/registry.h"
#include "ops/shape_utils.h"

namespace tvk::ops::cpu {
namespace {

// NaN stays NaN, as in torch: std::max(v, lo) and std::min(v, hi) return v when it is NaN.
float clampf(float v, float lo, float hi) { return std::min(std::max(v, lo), hi); }

Tensor relu(const Tensor& self) {
  check_float("aten::relu", self);
  return map_float(self, [](float x) { return x < 0.f ? 0.f : x; });
}
Tensor relu_(const Tensor& self) {
  check_float("aten::relu_", self);
  apply_float(self, [](float x) { return x < 0.f ? 0.f : x; });
  return self;
}
Tensor clamp(const Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max) {
  check_float("aten::clamp", self);
  TVK_CHECK(min || max, "aten::clamp: at least one of 'min' or 'max' must not be None");
  const float lo = min ? static_cast<float>(*min) : -std::numeric_limits<float>::infinity();
  const float hi = max ? static_cast<float>(*max) : std::numeric_limits<float>::infinity();
  return map_float(self, [lo, hi](float x) { return clampf(x, lo, hi); });
}
Tensor clamp_min(const Tensor& self, Scalar min) { return clamp(self, min, std::nullopt); }
// x onto the grid of an affine quantizer and back, as PyTorch computes it in float:
// (clamp(nearbyint(x / scale) + zero_point, quant_min, quant_max) - zero_point) * scale.
Tensor fake_quantize_per_tensor_affine(const Tensor& self, double scale, int64_t zero_point, int64_t quant_min,
                                       int64_t quant_max) {
  const char* op = "aten::fake_quantize_per_tensor_affine";
  check_float(op, self);
  check_quantizer(op, scale, zero_point, quant_min, quant_max);
  const float s = static_cast<float>(scale), inv = 1.0f / s;
  const float zp = static_cast<float>(zero_point), lo = static_cast<float>(quant_min), hi = static_cast<float>(quant_max);
  return map_float(self, [=](float x) { return (clampf(std::nearbyint(x * inv) + zp, lo, hi) - zp) * s; });
}
Tensor clamp_min_(const Tensor& self, Scalar min);

// x ** exponent as PyTorch computes it for floats: std::pow (a negative base with a
// non-integer exponent gives NaN, 0 ** 0 is 1).
// An int64 self (a traced model's `(C // heads) ** -0.5` on 0-D size tensors) stays int64 for a
// whole, non-negative exponent and becomes float32 otherwise, as PyTorch promotes it.
Tensor pow_scalar(const Tensor& self, Scalar exponent) {
  const double e = exponent;
  check_defined("aten::pow", self);
  if (self.dtype() == DType::Int64 && self.device() == Device::CPU) {
    const Tensor in = self.contiguous();
    const bool whole = e >= 0 && e == std::floor(e);
    Tensor out = empty(self.sizes(), whole ? DType::Int64 : DType::Float32);
    for (int64_t i = 0; i < self.numel(); ++i) {
      const double r = std::pow(static_cast<double>(in.data<int64_t>()[i]), e);
      if (whole) out.data<int64_t>()[i] = static_cast<int64_t>(r);
      else out.data<float>()[i] = static_cast<float>(r);
    }
    return out;
  }
  check_float("aten::pow", self);
  if (e == 2.0) return map_float(self, [](float x) { return x * x; });
  return map_float(self, [e](float x) { return static_cast<float>(std::pow(static_cast<double>(x), e)); });
}

Tensor clamp_(const Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max) {
  check_float("aten::clamp_", self);
  TVK_CHECK(min || max, "aten::clamp_: at least one of 'min' or 'max' must not be None");
  const float lo = min ? static_cast<float>(*min) : -std::numeric_limits<float>::infinity();
  const float hi = max ? static_cast<float>(*max) : std::numeric_limits<float>::infinity();
  apply_float(self, [lo, hi](float x) { return clampf(x, lo, hi); });
  return self;
}
Tensor clamp_min_(const Tensor& self, Scalar min) { return clamp_(self, min, std::nullopt); }
Tensor hardtanh(const Tensor& self, Scalar min_val, Scalar max_val) {
  check_float("aten::hardtanh", self);
  const float lo = static_cast<float>(min_val), hi = static_cast<float>(max_val);
  return map_float(self, [lo, hi](float x) { return clampf(x, lo, hi); });
}
Tensor hardtanh_(const Tensor& self, Scalar min_val, Scalar max_val) {
  check_float("aten::hardtanh_", self);
  const float lo = static_cast<float>(min_val), hi = static_cast<float>(max_val);
  apply_float(self, [lo, hi](float x) { return clampf(x, lo, hi); });
  return self;
}

float sigmoidf(float x) { return 1.f / (1.f + std::exp(-x)); }
float hardsigmoidf(float x) { return clampf(x + 3.f, 0.f, 6.f) / 6.f; }
// log(1 + exp(beta x)) / beta, x itself past the threshold (as PyTorch).
float softplusf(float x, float beta, float threshold) {
  return x * beta > threshold ? x : std::log1p(std::exp(x * beta)) / beta;
}

// abs and neg keep int64 int64, as in torch (wrapping for the lowest value).
template <bool kAbs>
Tensor int64_sign_op(const Tensor& self) {
  const Tensor in = self.contiguous();
  Tensor out = empty(self.sizes(), DType::Int64);
  for (int64_t i = 0; i < in.numel(); ++i) {
    const int64_t v = in.data<int64_t>()[i];
    const uint64_t negated = 0 - static_cast<uint64_t>(v);
    out.data<int64_t>()[i] = (kAbs && v >= 0) ? v : static_cast<int64_t>(negated);
  }
  return out;
}

// int64 and bool tensors as float32: functions torch computes in floating point
// (torch.reciprocal(torch.tensor(8)) is 0.125; a traced model's 1 / size).
Tensor float_input(const char* op, const Tensor& self) {
  check_defined(op, self);
  return to_dtype(self, DType::Float32);
}

// One pointwise function, as an op and its in-place form (the in-place form takes float32 only,
// as torch cannot cast a float result back into an integer self).
#define TVK_POINTWISE_TO_FLOAT(name, expr)                           \
  Tensor name(const Tensor& self) {                                  \
    return map_float(float_input("aten::" #name, self), [](float x) { return expr; }); \
  }                                                                  \
  Tensor name##_(const Tensor& self) {                               \
    check_float("aten::" #name "_", self);                           \
    apply_float(self, [](float x) { return expr; });                 \
    return self;                                                     \
  }
#define TVK_POINTWISE(name, expr)                                    \
  Tensor name(const Tensor& self) {                                  \
    check_float("aten::" #name, self);                               \
    return map_float(self, [](float x) { return expr; });            \
  }                                                                  \
  Tensor name##_(const Tensor& self) {                               \
    check_float("aten::" #name "_", self);                           \
    apply_float(self, [](float x) { return expr; });                 \
    return self;                                                     \
  }
TVK_POINTWISE(relu6, clampf(x, 0.f, 6.f))
TVK_POINTWISE_TO_FLOAT(sigmoid, sigmoidf(x))
TVK_POINTWISE_TO_FLOAT(tanh, std::tanh(x))
TVK_POINTWISE(hardswish, x * hardsigmoidf(x))
TVK_POINTWISE(hardsigmoid, hardsigmoidf(x))
TVK_POINTWISE(silu, x * sigmoidf(x))
TVK_POINTWISE_TO_FLOAT(exp, std::exp(x))
TVK_POINTWISE_TO_FLOAT(sqrt, std::sqrt(x))
TVK_POINTWISE_TO_FLOAT(rsqrt, 1.f / std::sqrt(x))
TVK_POINTWISE_TO_FLOAT(reciprocal, 1.f / x)
TVK_POINTWISE_TO_FLOAT(log, std::log(x))
TVK_POINTWISE_TO_FLOAT(log2, std::log2(x))
TVK_POINTWISE_TO_FLOAT(log10, std::log10(x))
TVK_POINTWISE_TO_FLOAT(log1p, std::log1p(x))
TVK_POINTWISE_TO_FLOAT(expm1, std::expm1(x))
TVK_POINTWISE_TO_FLOAT(sin, std::sin(x))
TVK_POINTWISE_TO_FLOAT(cos, std::cos(x))
TVK_POINTWISE(floor, std::floor(x))
TVK_POINTWISE(ceil, std::ceil(x))
TVK_POINTWISE(round, std::nearbyint(x))
TVK_POINTWISE(trunc, std::trunc(x))
TVK_POINTWISE(sign, static_cast<float>((x > 0.f) - (x < 0.f)))
TVK_POINTWISE_TO_FLOAT(erf, std::erf(x))
TVK_POINTWISE(mish, x * std::tanh(softplusf(x, 1.f, 20.f)))
TVK_POINTWISE_TO_FLOAT(tan, std::tan(x))
TVK_POINTWISE_TO_FLOAT(asin, std::asin(x))
TVK_POINTWISE_TO_FLOAT(acos, std::acos(x))
TVK_POINTWISE_TO_FLOAT(atan, std::atan(x))
TVK_POINTWISE_TO_FLOAT(sinh, std::sinh(x))
TVK_POINTWISE_TO_FLOAT(cosh, std::cosh(x))
TVK_POINTWISE_TO_FLOAT(asinh, std::asinh(x))
TVK_POINTWISE_TO_FLOAT(acosh, std::acosh(x))
TVK_POINTWISE_TO_FLOAT(atanh, std::atanh(x))
TVK_POINTWISE_TO_FLOAT(erfc, std::erfc(x))
TVK_POINTWISE_TO_FLOAT(exp2, std::exp2(x))
TVK_POINTWISE(frac, x - std::trunc(x))
#undef TVK_POINTWISE
#undef TVK_POINTWISE_TO_FLOAT

Tensor abs(const Tensor& self) {
  if (self.defined() && self.dtype() == DType::Int64) return int64_sign_op<true>(self);
  check_float("aten::abs", self);
  return map_float(self, [](float x) { return std::fabs(x); });
}
Tensor abs_(const Tensor& self) {
  check_float("aten::abs_", self);
  apply_float(self, [](float x) { return std::fabs(x); });
  return self;
}
Tensor neg(const Tensor& self) {
  if (self.defined() && self.dtype() == DType::Int64) return int64_sign_op<false>(self);
  check_float("aten::neg", self);
  return map_float(self, [](float x) { return -x; });
}
Tensor neg_(const Tensor& self) {
  check_float("aten::neg_", self);
  apply_float(self, [](float x) { return -x; });
  return self;
}

Tensor softshrink(const Tensor& self, Scalar lambd) {
  check_float("aten::softshrink", self);
  const float l = static_cast<float>(lambd);
  return map_float(self, [l](float x) { return x > l ? x - l : (x < -l ? x + l : 0.f); });  // NaN gives 0, as in torch
}
Tensor log_sigmoid(const Tensor& self) {
  check_float("aten::log_sigmoid", self);
  return map_float(self, [](float x) { return std::min(x, 0.f) - std::log1p(std::exp(-std::fabs(x))); });
}
// scale * (max(0, x) + min(0, alpha * (exp(x * input_scale) - 1))): elu, and selu and celu with
// their constants.
float eluf(float x, double alpha, double scale, double input_scale) {
  return static_cast<float>(x > 0.f ? scale * x : scale * alpha * std::expm1(x * input_scale));
}
Tensor elu(const Tensor& self, Scalar alpha, Scalar scale, Scalar input_scale) {
  check_float("aten::elu", self);
  return map_float(self, [=](float x) { return eluf(x, alpha, scale, input_scale); });
}
Tensor elu_(const Tensor& self, Scalar alpha, Scalar scale, Scalar input_scale) {
  check_float("aten::elu_", self);
  apply_float(self, [=](float x) { return eluf(x, alpha, scale, input_scale); });
  return self;
}
Tensor selu(const Tensor& self) {
  check_float("aten::selu", self);
  return map_float(self, [](float x) { return eluf(x, kSeluAlpha, kSeluScale, 1.0); });
}
Tensor celu(const Tensor& self, Scalar alpha) {
  check_float("aten::celu", self);
  check_celu_alpha("aten::celu", alpha);
  return map_float(self, [=](float x) { return eluf(x, alpha, 1.0, 1.0 / alpha); });
}
Tensor leaky_relu(const Tensor& self, Scalar slope) {
  check_float("aten::leaky_relu", self);
  const float s = static_cast<float>(slope);
  return map_float(self, [s](float x) { return x > 0.f ? x : x * s; });
}
Tensor leaky_relu_(const Tensor& self, Scalar slope) {
  check_float("aten::leaky_relu_", self);
  const float s = static_cast<float>(slope);
  apply_float(self, [s](float x) { return x > 0.f ? x : x * s; });
  return self;
}
Tensor hardshrink(const Tensor& self, Scalar lambd) {
  check_float("aten::hardshrink", self);
  const float l = static_cast<float>(lambd);
  return map_float(self, [l](float x) { return x >= -l && x <= l ? 0.f : x; });
}
Tensor hardshrink_(const Tensor& self, Scalar lambd) {
  check_float("aten::hardshrink_", self);
  const float l = static_cast<float>(lambd);
  apply_float(self, [l](float x) { return x >= -l && x <= l ? 0.f : x; });
  return self;
}
// x where x > threshold, else value (NaN stays NaN, as in torch).
Tensor threshold(const Tensor& self, Scalar threshold, Scalar value) {
  check_float("aten::threshold", self);
  const float t = static_cast<float>(threshold), v = static_cast<float>(value);
  return map_float(self, [t, v](float x) { return x <= t ? v : x; });
}
Tensor threshold_(const Tensor& self, Scalar threshold, Scalar value) {
  check_float("aten::threshold_", self);
  const float t = static_cast<float>(threshold), v = static_cast<float>(value);
  apply_float(self, [t, v](float x) { return x <= t ? v : x; });
  return self;
}
Tensor softplus(const Tensor& self, Scalar beta, Scalar threshold) {
  check_float("aten::softplus", self);
  const float b = static_cast<float>(beta), t = static_cast<float>(threshold);
  return map_float(self, [b, t](float x) { return softplusf(x, b, t); });
}

Tensor gelu(const Tensor& self, std::string approximate) {
  check_float("aten::gelu", self);
  if (approximate == "tanh") {
    return map_float(self, [](float x) {
      const double v = x, inner = std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v);
      return static_cast<float>(0.5 * v * (1.0 + std::tanh(inner)));
    });
  }
  TVK_CHECK(approximate == "none", "aten::gelu: approximate must be 'none' or 'tanh', got '", approximate, "'");
  return map_float(self, [](float x) { return static_cast<float>(0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)))); });
}

}  // namespace

TVK_REGISTER_OP("aten::relu(Tensor self) -> Tensor", relu);
TVK_REGISTER_OP("aten::fake_quantize_per_tensor_affine(Tensor self, float scale, int zero_point, int quant_min, "
                "int quant_max) -> Tensor",
                fake_quantize_per_tensor_affine);
TVK_REGISTER_OP("aten::relu_(Tensor(a!) self) -> Tensor(a!)", relu_);
TVK_REGISTER_OP("aten::clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor", clamp);
TVK_REGISTER_OP("aten::clamp_(Tensor(a!) self, Scalar? min=None, Scalar? max=None) -> Tensor(a!)", clamp_);
TVK_REGISTER_OP("aten::clamp_min(Tensor self, Scalar min) -> Tensor", clamp_min);
TVK_REGISTER_OP("aten::clamp_min_(Tensor(a!) self, Scalar min) -> Tensor(a!)", clamp_min_);
TVK_REGISTER_OP("aten::pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor", pow_scalar);
TVK_REGISTER_OP("aten::hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor", hardtanh);
TVK_REGISTER_OP("aten::hardtanh_(Tensor(a!) self, Scalar min_val=-1, Scalar max_val=1) -> Tensor(a!)", hardtanh_);

TVK_REGISTER_OP("aten::relu6(Tensor self) -> Tensor", relu6);
TVK_REGISTER_OP("aten::relu6_(Tensor(a!) self) -> Tensor(a!)", relu6_);
TVK_REGISTER_OP("aten::sigmoid(Tensor self) -> Tensor", sigmoid);
TVK_REGISTER_OP("aten::sigmoid_(Tensor(a!) self) -> Tensor(a!)", sigmoid_);
TVK_REGISTER_OP("aten::tanh(Tensor self) -> Tensor", tanh);
TVK_REGISTER_OP("aten::tanh_(Tensor(a!) self) -> Tensor(a!)", tanh_);
TVK_REGISTER_OP("aten::hardswish(Tensor self) -> Tensor", hardswish);
TVK_REGISTER_OP("aten::hardswish_(Tensor(a!) self) -> Tensor(a!)", hardswish_);
TVK_REGISTER_OP("aten::hardsigmoid(Tensor self) -> Tensor", hardsigmoid);
TVK_REGISTER_OP("aten::hardsigmoid_(Tensor(a!) self) -> Tensor(a!)", hardsigmoid_);
TVK_REGISTER_OP("aten::silu(Tensor self) -> Tensor", silu);
TVK_REGISTER_OP("aten::silu_(Tensor(a!) self) -> Tensor(a!)", silu_);
TVK_REGISTER_OP("aten::neg(Tensor self) -> Tensor", neg);
TVK_REGISTER_OP("aten::neg_(Tensor(a!) self) -> Tensor(a!)", neg_);
TVK_REGISTER_OP("aten::exp(Tensor self) -> Tensor", exp);
TVK_REGISTER_OP("aten::exp_(Tensor(a!) self) -> Tensor(a!)", exp_);
TVK_REGISTER_OP("aten::sqrt(Tensor self) -> Tensor", sqrt);
TVK_REGISTER_OP("aten::sqrt_(Tensor(a!) self) -> Tensor(a!)", sqrt_);
TVK_REGISTER_OP("aten::rsqrt(Tensor self) -> Tensor", rsqrt);
TVK_REGISTER_OP("aten::rsqrt_(Tensor(a!) self) -> Tensor(a!)", rsqrt_);
TVK_REGISTER_OP("aten::reciprocal(Tensor self) -> Tensor", reciprocal);
TVK_REGISTER_OP("aten::reciprocal_(Tensor(a!) self) -> Tensor(a!)", reciprocal_);
TVK_REGISTER_OP("aten::gelu(Tensor self, *, str approximate='none') -> Tensor", gelu);
TVK_REGISTER_OP("aten::abs(Tensor self) -> Tensor", abs);
TVK_REGISTER_OP("aten::abs_(Tensor(a!) self) -> Tensor(a!)", abs_);
TVK_REGISTER_OP("aten::log(Tensor self) -> Tensor", log);
TVK_REGISTER_OP("aten::log_(Tensor(a!) self) -> Tensor(a!)", log_);
TVK_REGISTER_OP("aten::log2(Tensor self) -> Tensor", log2);
TVK_REGISTER_OP("aten::log2_(Tensor(a!) self) -> Tensor(a!)", log2_);
TVK_REGISTER_OP("aten::log10(Tensor self) -> Tensor", log10);
TVK_REGISTER_OP("aten::log10_(Tensor(a!) self) -> Tensor(a!)", log10_);
TVK_REGISTER_OP("aten::log1p(Tensor self) -> Tensor", log1p);
TVK_REGISTER_OP("aten::log1p_(Tensor(a!) self) -> Tensor(a!)", log1p_);
TVK_REGISTER_OP("aten::expm1(Tensor self) -> Tensor", expm1);
TVK_REGISTER_OP("aten::expm1_(Tensor(a!) self) -> Tensor(a!)", expm1_);
TVK_REGISTER_OP("aten::sin(Tensor self) -> Tensor", sin);
TVK_REGISTER_OP("aten::sin_(Tensor(a!) self) -> Tensor(a!)", sin_);
TVK_REGISTER_OP("aten::cos(Tensor self) -> Tensor", cos);
TVK_REGISTER_OP("aten::cos_(Tensor(a!) self) -> Tensor(a!)", cos_);
TVK_REGISTER_OP("aten::floor(Tensor self) -> Tensor", floor);
TVK_REGISTER_OP("aten::floor_(Tensor(a!) self) -> Tensor(a!)", floor_);
TVK_REGISTER_OP("aten::ceil(Tensor self) -> Tensor", ceil);
TVK_REGISTER_OP("aten::ceil_(Tensor(a!) self) -> Tensor(a!)", ceil_);
TVK_REGISTER_OP("aten::round(Tensor self) -> Tensor", round);
TVK_REGISTER_OP("aten::round_(Tensor(a!) self) -> Tensor(a!)", round_);
TVK_REGISTER_OP("aten::trunc(Tensor self) -> Tensor", trunc);
TVK_REGISTER_OP("aten::trunc_(Tensor(a!) self) -> Tensor(a!)", trunc_);
TVK_REGISTER_OP("aten::sign(Tensor self) -> Tensor", sign);
TVK_REGISTER_OP("aten::sign_(Tensor(a!) self) -> Tensor(a!)", sign_);
TVK_REGISTER_OP("aten::erf(Tensor self) -> Tensor", erf);
TVK_REGISTER_OP("aten::erf_(Tensor(a!) self) -> Tensor(a!)", erf_);
TVK_REGISTER_OP("aten::mish(Tensor self) -> Tensor", mish);
TVK_REGISTER_OP("aten::mish_(Tensor(a!) self) -> Tensor(a!)", mish_);
TVK_REGISTER_OP("aten::tan(Tensor self) -> Tensor", tan);
TVK_REGISTER_OP("aten::tan_(Tensor(a!) self) -> Tensor(a!)", tan_);
TVK_REGISTER_OP("aten::asin(Tensor self) -> Tensor", asin);
TVK_REGISTER_OP("aten::asin_(Tensor(a!) self) -> Tensor(a!)", asin_);
TVK_REGISTER_OP("aten::acos(Tensor self) -> Tensor", acos);
TVK_REGISTER_OP("aten::acos_(Tensor(a!) self) -> Tensor(a!)", acos_);
TVK_REGISTER_OP("aten::atan(Tensor self) -> Tensor", atan);
TVK_REGISTER_OP("aten::atan_(Tensor(a!) self) -> Tensor(a!)", atan_);
TVK_REGISTER_OP("aten::sinh(Tensor self) -> Tensor", sinh);
TVK_REGISTER_OP("aten::sinh_(Tensor(a!) self) -> Tensor(a!)", sinh_);
TVK_REGISTER_OP("aten::cosh(Tensor self) -> Tensor", cosh);
TVK_REGISTER_OP("aten::cosh_(Tensor(a!) self) -> Tensor(a!)", cosh_);
TVK_REGISTER_OP("aten::asinh(Tensor self) -> Tensor", asinh);
TVK_REGISTER_OP("aten::asinh_(Tensor(a!) self) -> Tensor(a!)", asinh_);
TVK_REGISTER_OP("aten::acosh(Tensor self) -> Tensor", acosh);
TVK_REGISTER_OP("aten::acosh_(Tensor(a!) self) -> Tensor(a!)", acosh_);
TVK_REGISTER_OP("aten::atanh(Tensor self) -> Tensor", atanh);
TVK_REGISTER_OP("aten::atanh_(Tensor(a!) self) -> Tensor(a!)", atanh_);
TVK_REGISTER_OP("aten::erfc(Tensor self) -> Tensor", erfc);
TVK_REGISTER_OP("aten::erfc_(Tensor(a!) self) -> Tensor(a!)", erfc_);
TVK_REGISTER_OP("aten::exp2(Tensor self) -> Tensor", exp2);
TVK_REGISTER_OP("aten::exp2_(Tensor(a!) self) -> Tensor(a!)", exp2_);
TVK_REGISTER_OP("aten::frac(Tensor self) -> Tensor", frac);
TVK_REGISTER_OP("aten::frac_(Tensor(a!) self) -> Tensor(a!)", frac_);
TVK_REGISTER_OP("aten::softshrink(Tensor self, Scalar lambd=0.5) -> Tensor", softshrink);
TVK_REGISTER_OP("aten::log_sigmoid(Tensor self) -> Tensor", log_sigmoid);
TVK_REGISTER_OP("aten::leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor", leaky_relu);
TVK_REGISTER_OP("aten::leaky_relu_(Tensor(a!) self, Scalar negative_slope=0.01) -> Tensor(a!)", leaky_relu_);
TVK_REGISTER_OP("aten::elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor", elu);
TVK_REGISTER_OP("aten::elu_(Tensor(a!) self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor(a!)", elu_);
TVK_REGISTER_OP("aten::selu(Tensor self) -> Tensor", selu);
TVK_REGISTER_OP("aten::celu(Tensor self, Scalar alpha=1.0) -> Tensor", celu);
TVK_REGISTER_OP("aten::softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor", softplus);
TVK_REGISTER_OP("aten::hardshrink(Tensor self, Scalar lambd=0.5) -> Tensor", hardshrink);
TVK_REGISTER_OP("aten::hardshrink_(Tensor(a!) self, Scalar lambd=0.5) -> Tensor(a!)", hardshrink_);
TVK_REGISTER_OP("aten::threshold(Tensor self, Scalar threshold, Scalar value) -> Tensor", threshold);
TVK_REGISTER_OP("aten::threshold_(Tensor(a!) self, Scalar threshold, Scalar value) -> Tensor(a!)", threshold_);

}  // namespace tvk::ops::cpu
