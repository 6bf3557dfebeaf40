// What the last kernel of a convolution or matrix product applies to each output value: the
// clamp of a fused relu, relu6 or hardtanh, then a fused activation (fused_activation.glslh).
#pragma once

#include <limits>

#include "ops/activation.h"

namespace tvk::vulkan {

struct Epilogue {
  float min = -std::numeric_limits<float>::infinity(), max = std::numeric_limits<float>::infinity();
  ops::FusedActivation act = ops::FusedActivation::None;
  // ShaderLaunch::activation's value.
  uint32_t activation() const { return static_cast<uint32_t>(act); }
};

}  // namespace tvk::vulkan
