// What the CPU and Vulkan activation kernels share: SELU's constants, CELU's check, and the
// activations a packed convolution or linear layer applies in its epilogue.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "tvk/tensor.h"

namespace tvk::ops {

constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

// celu(x, alpha) = max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) divides by alpha.
inline void check_celu_alpha(const char* op, double alpha) {
  TVK_CHECK(alpha != 0.0, op, ": ZeroDivisionError: alpha must not be 0");
}

// An activation fused into the epilogue of a packed convolution or linear layer, after its clamp
// (tvk::run_conv2d_context_act, tvk::run_linear_context_act; the optimizer's
// fuse_activation_into_packed_ops). The numbers are the shaders' ACT_* (activations.glslh).
enum class FusedActivation : uint32_t {
  None = 0,
  Sigmoid = 1,
  Tanh = 2,
  Hardswish = 3,
  Hardsigmoid = 4,
  Silu = 5,
  Gelu = 6,      // gelu(approximate='none')
  GeluTanh = 7,  // gelu(approximate='tanh')
};
// "none", "sigmoid", "tanh", "hardswish", "hardsigmoid", "silu", "gelu", "gelu_tanh": the
// fused ops' argument.
const char* to_string(FusedActivation a);
std::optional<FusedActivation> fused_activation_named(std::string_view name);
// The activation a graph node computes from its input alone (aten::silu, aten::silu_,
// aten::gelu with a constant `approximate`, ...): its op name and, for gelu, `approximate`.
std::optional<FusedActivation> fused_activation_of(std::string_view op, std::string_view approximate = "none");
// `t` through the activation's own op, on t's device: the unfused path.
Tensor apply_activation(FusedActivation a, const Tensor& t);

}  // namespace tvk::ops
