// The checked geometry of a 2-D (transposed) convolution, shared by the CPU and Vulkan kernels
// so both reject the same inputs with the same messages.
#pragma once

#include <array>

#include "tvk/tensor.h"

namespace tvk::ops {

struct Conv2dParams {
  std::array<int64_t, 2> stride{}, padding{}, dilation{}, output_padding{};  // (h, w)
  int64_t groups = 1;
  bool transposed = false;
  bool unbatched = false;  // 3-D (C, H, W) input: the output drops N too
  int64_t batch = 0, in_channels = 0, in_h = 0, in_w = 0;
  int64_t out_channels = 0, out_h = 0, out_w = 0, kernel_h = 0, kernel_w = 0;

  int64_t in_channels_per_group() const { return in_channels / groups; }
  int64_t out_channels_per_group() const { return out_channels / groups; }
  IntList output_sizes() const;
};

// Checks input (N, C, H, W) (or (C, H, W) when `allow_unbatched`), weight OIHW (transposed: IOHW
// with O per group), bias [Cout] or undefined, and the list arguments; computes the output size.
Conv2dParams conv2d_params(const char* op, const Tensor& input, const Tensor& weight, const Tensor& bias,
                           const IntList& stride, const IntList& padding, const IntList& dilation, bool transposed,
                           const IntList& output_padding, int64_t groups, bool allow_unbatched);

}  // namespace tvk::ops
