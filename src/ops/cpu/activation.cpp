// Activations and clamps: relu, clamp, hardtanh (and in-place forms).
#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/cpu/cpu_loops.h"
#include "ops/registry.h"
#include "ops/shape_utils.h"

namespace tvk::ops::cpu {
namespace {

float clampf(float v, float lo, float hi) { return std::min(std::max(v, lo), hi); }

Tensor relu(const Tensor& self) {
  check_float("aten::relu", self);
  return map_float(self, [](float x) { return x > 0.f ? x : 0.f; });
}
Tensor relu_(const Tensor& self) {
  check_float("aten::relu_", self);
  apply_float(self, [](float x) { return x > 0.f ? x : 0.f; });
  return self;
}
Tensor clamp(const Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max) {
  check_float("aten::clamp", self);
  TVK_CHECK(min || max, "aten::clamp: at least one of 'min' or 'max' must not be None");
  const float lo = min ? static_cast<float>(*min) : -std::numeric_limits<float>::infinity();
  const float hi = max ? static_cast<float>(*max) : std::numeric_limits<float>::infinity();
  return map_float(self, [lo, hi](float x) { return clampf(x, lo, hi); });
}
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

}  // namespace

TVK_REGISTER_OP("aten::relu(Tensor self) -> Tensor", relu);
TVK_REGISTER_OP("aten::relu_(Tensor(a!) self) -> Tensor(a!)", relu_);
TVK_REGISTER_OP("aten::clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor", clamp);
TVK_REGISTER_OP("aten::hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor", hardtanh);
TVK_REGISTER_OP("aten::hardtanh_(Tensor(a!) self, Scalar min_val=-1, Scalar max_val=1) -> Tensor(a!)", hardtanh_);

}  // namespace tvk::ops::cpu
