// The Vulkan convolution with its output clamped in the shader, for the packed conv contexts
// whose relu/hardtanh was fused by optimize_for_mobile.
#pragma once

#include <optional>

#include "tvk/tensor.h"

namespace tvk::vulkan {

// Checks the geometry like aten::conv2d / conv_transpose2d (unbatched 3-D inputs included) and
// runs one dispatch; unset bounds are -inf / +inf.
Tensor convolution_clamped(const char* op, const Tensor& input, const Tensor& weight, const Tensor& bias,
                           const IntList& stride, const IntList& padding, const IntList& dilation, bool transposed,
                           const IntList& output_padding, int64_t groups, std::optional<double> output_min,
                           std::optional<double> output_max);

}  // namespace tvk::vulkan
