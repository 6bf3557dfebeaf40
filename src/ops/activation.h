// What the CPU and Vulkan activation kernels share: SELU's constants and CELU's check.
#pragma once

#include "tvk/tensor.h"

namespace tvk::ops {

constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

// celu(x, alpha) = max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) divides by alpha.
inline void check_celu_alpha(const char* op, double alpha) {
  TVK_CHECK(alpha != 0.0, op, ": ZeroDivisionError: alpha must not be 0");
}

}  // namespace tvk::ops
