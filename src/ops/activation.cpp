#include "ops/activation.h"

#include <array>
#include <utility>

#include "tvk/ops.h"

namespace tvk::ops {
namespace {

constexpr std::array<std::pair<FusedActivation, const char*>, 8> kNames{{
    {FusedActivation::None, "none"},
    {FusedActivation::Sigmoid, "sigmoid"},
    {FusedActivation::Tanh, "tanh"},
    {FusedActivation::Hardswish, "hardswish"},
    {FusedActivation::Hardsigmoid, "hardsigmoid"},
    {FusedActivation::Silu, "silu"},
    {FusedActivation::Gelu, "gelu"},
    {FusedActivation::GeluTanh, "gelu_tanh"},
}};

}  // namespace

const char* to_string(FusedActivation a) {
  for (const auto& [value, name] : kNames)
    if (value == a) return name;
  return "?";
}

std::optional<FusedActivation> fused_activation_named(std::string_view name) {
  for (const auto& [value, n] : kNames)
    if (name == n) return value;
  return std::nullopt;
}

std::optional<FusedActivation> fused_activation_of(std::string_view op, std::string_view approximate) {
  if (op.size() > 1 && op.back() == '_') op.remove_suffix(1);  // in-place forms, made functional first
  if (op == "aten::sigmoid") return FusedActivation::Sigmoid;
  if (op == "aten::tanh") return FusedActivation::Tanh;
  if (op == "aten::hardswish") return FusedActivation::Hardswish;
  if (op == "aten::hardsigmoid") return FusedActivation::Hardsigmoid;
  if (op == "aten::silu") return FusedActivation::Silu;
  if (op == "aten::gelu") {
    if (approximate == "none") return FusedActivation::Gelu;
    if (approximate == "tanh") return FusedActivation::GeluTanh;
  }
  return std::nullopt;
}

Tensor apply_activation(FusedActivation a, const Tensor& t) {
  switch (a) {
    case FusedActivation::None: return t;
    case FusedActivation::Sigmoid: return tvk::sigmoid(t);
    case FusedActivation::Tanh: return tvk::tanh(t);
    case FusedActivation::Hardswish: return tvk::hardswish(t);
    case FusedActivation::Hardsigmoid: return tvk::hardsigmoid(t);
    case FusedActivation::Silu: return tvk::silu(t);
    case FusedActivation::Gelu: return tvk::gelu(t, "none");
    case FusedActivation::GeluTanh: return tvk::gelu(t, "tanh");
  }
  return t;
}

}  // namespace tvk::ops
