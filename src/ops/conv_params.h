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

// One backend's convolution implementation, called with the checked geometry's inputs.
using ConvolutionImpl = Tensor (*)(const char* op, const Tensor& input, const Tensor& weight, const Tensor& bias,
                                   const IntList& stride, const IntList& padding, const IntList& dilation,
                                   bool transposed, const IntList& output_padding, int64_t groups,
                                   bool allow_unbatched);

// The convolution schemas (conv2d, conv_transpose2d.input, convolution, _convolution and its
// deprecated overload) adapted to one backend's implementation, so the CPU and Vulkan files
// register the same entry points. benchmark, deterministic, cudnn_enabled and allow_tf32 choose
// backends in PyTorch, not results.
template <ConvolutionImpl Impl>
struct ConvolutionSchemas {
  static Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride, IntList padding,
                       IntList dilation, int64_t groups) {
    return Impl("aten::conv2d", input, weight, bias, stride, padding, dilation, false, {0}, groups, true);
  }
  static Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride,
                                 IntList padding, IntList output_padding, int64_t groups, IntList dilation) {
    return Impl("aten::conv_transpose2d", input, weight, bias, stride, padding, dilation, true, output_padding, groups,
                true);
  }
  static Tensor convolution(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride,
                            IntList padding, IntList dilation, bool transposed, IntList output_padding,
                            int64_t groups) {
    return Impl("aten::convolution", input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups, false);
  }
  static Tensor convolution_underscore(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride,
                                       IntList padding, IntList dilation, bool transposed, IntList output_padding,
                                       int64_t groups, bool, bool, bool, bool) {
    return Impl("aten::_convolution", input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups, false);
  }
  static Tensor convolution_deprecated(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride,
                                       IntList padding, IntList dilation, bool transposed, IntList output_padding,
                                       int64_t groups, bool, bool, bool) {
    return Impl("aten::_convolution", input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups, false);
  }
};

}  // namespace tvk::ops
