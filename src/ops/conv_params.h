// The checked geometry of a 2-D (transposed) convolution, shared by the CPU and Vulkan kernels
// so both reject the same inputs with the same messages.
#pragma once

#include <array>
#include <string>

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

// A 1-D (transposed) convolution as the 2-D one over a height of 1: input (N, C, L) or (C, L)
// -> (N, C, 1, L), weight (O, I, k) -> (O, I, 1, k), each list [v] -> [first, v]; the result's
// height is dropped again by `output`. 2-D arguments pass through unchanged.
struct ConvAs2d {
  Tensor input, weight;
  IntList stride, padding, dilation, output_padding;
  bool one_d = false;
  Tensor output(const Tensor& out) const;
};
ConvAs2d conv_as_2d(const char* op, const Tensor& input, const Tensor& weight, const IntList& stride,
                    const IntList& padding, const IntList& dilation, const IntList& output_padding);
// A 3-D convolution (weight (O, I / groups, kD, kH, kW); input (N, C, D, H, W) or (C, D, H, W)),
// on any device, as kD 2-D convolutions summed: for each depth tap kd, the input's depth slices
// that tap reads, batched as (N * D_out, C, H, W), convolved with weight[:, :, kd]. Transposed
// (weight (I, O / groups, kD, kH, kW)): each depth tap's transposed 2-D convolution of every
// input plane, spread by the stride (zero planes between) and shifted to the tap's place in the
// output depth, summed; the padding then cut from both ends.
Tensor conv3d_by_planes(const char* op, const Tensor& input, const Tensor& weight, const Tensor& bias,
                        const IntList& stride, const IntList& padding, const IntList& dilation, bool transposed,
                        const IntList& output_padding, int64_t groups);
// The string padding of conv1d.padding / conv2d.padding: "valid" (none) or "same" (stride 1
// only; where the total d * (k - 1) of a dim is odd, the extra element goes after, as in PyTorch,
// by padding `input` with zeros first). Returns the symmetric padding; may replace `input`.
IntList same_or_valid_padding(const char* op, Tensor& input, const Tensor& weight, const std::string& padding,
                              const IntList& stride, const IntList& dilation);

// The convolution schemas (conv1d, conv2d and their string-padding overloads, conv_transpose1d,
// conv_transpose2d.input, convolution, _convolution and its deprecated overload) adapted to one
// backend's 2-D implementation, so the CPU and Vulkan files register the same entry points.
// benchmark, deterministic, cudnn_enabled and allow_tf32 choose backends in PyTorch, not results.
template <ConvolutionImpl Impl>
struct ConvolutionSchemas {
  static Tensor run(const char* op, const Tensor& input, const Tensor& weight, const Tensor& bias,
                    const IntList& stride, const IntList& padding, const IntList& dilation, bool transposed,
                    const IntList& output_padding, int64_t groups, bool allow_unbatched) {
    if (weight.defined() && weight.dim() == 5)
      return conv3d_by_planes(op, input, weight, bias, stride, padding, dilation, transposed, output_padding, groups);
    const ConvAs2d c = conv_as_2d(op, input, weight, stride, padding, dilation, output_padding);
    return c.output(Impl(op, c.input, c.weight, bias, c.stride, c.padding, c.dilation, transposed, c.output_padding,
                         groups, allow_unbatched));
  }
  static Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride, IntList padding,
                       IntList dilation, int64_t groups) {
    return run("aten::conv1d", input, weight, bias, stride, padding, dilation, false, {0}, groups, true);
  }
  static Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride, IntList padding,
                       IntList dilation, int64_t groups) {
    return run("aten::conv2d", input, weight, bias, stride, padding, dilation, false, {0}, groups, true);
  }
  static Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride, IntList padding,
                       IntList dilation, int64_t groups) {
    return run("aten::conv3d", input, weight, bias, stride, padding, dilation, false, {0}, groups, true);
  }
  static Tensor conv3d_padding(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride,
                               std::string padding, IntList dilation, int64_t groups) {
    return run_padded("aten::conv3d", input, weight, bias, stride, padding, dilation, groups);
  }
  // A convolution with string padding ("same" / "valid"), of any rank.
  static Tensor run_padded(const char* op, const Tensor& input, const Tensor& weight, const Tensor& bias,
                           const IntList& stride, const std::string& padding, const IntList& dilation, int64_t groups) {
    Tensor x = input;
    const IntList pad = same_or_valid_padding(op, x, weight, padding, stride, dilation);
    return run(op, x, weight, bias, stride, pad, dilation, false, {0}, groups, true);
  }
  static Tensor conv1d_padding(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride,
                               std::string padding, IntList dilation, int64_t groups) {
    return run_padded("aten::conv1d", input, weight, bias, stride, padding, dilation, groups);
  }
  static Tensor conv2d_padding(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride,
                               std::string padding, IntList dilation, int64_t groups) {
    return run_padded("aten::conv2d", input, weight, bias, stride, padding, dilation, groups);
  }
  // A traced convolution with string padding, of any rank.
  static Tensor convolution_mode(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride,
                                 std::string padding, IntList dilation, int64_t groups) {
    return run_padded("aten::_convolution_mode", input, weight, bias, stride, padding, dilation, groups);
  }
  static Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride,
                                 IntList padding, IntList output_padding, int64_t groups, IntList dilation) {
    return run("aten::conv_transpose1d", input, weight, bias, stride, padding, dilation, true, output_padding, groups,
               true);
  }
  static Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride,
                                 IntList padding, IntList output_padding, int64_t groups, IntList dilation) {
    return run("aten::conv_transpose3d", input, weight, bias, stride, padding, dilation, true, output_padding, groups,
               true);
  }
  static Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride,
                                 IntList padding, IntList output_padding, int64_t groups, IntList dilation) {
    return run("aten::conv_transpose2d", input, weight, bias, stride, padding, dilation, true, output_padding, groups,
               true);
  }
  static Tensor convolution(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride,
                            IntList padding, IntList dilation, bool transposed, IntList output_padding,
                            int64_t groups) {
    return run("aten::convolution", input, weight, bias, stride, padding, dilation, transposed, output_padding, groups,
               false);
  }
  static Tensor convolution_underscore(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride,
                                       IntList padding, IntList dilation, bool transposed, IntList output_padding,
                                       int64_t groups, bool, bool, bool, bool) {
    return run("aten::_convolution", input, weight, bias, stride, padding, dilation, transposed, output_padding, groups,
               false);
  }
  static Tensor convolution_deprecated(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride,
                                       IntList padding, IntList dilation, bool transposed, IntList output_padding,
                                       int64_t groups, bool, bool, bool) {
    return run("aten::_convolution", input, weight, bias, stride, padding, dilation, transposed, output_padding, groups,
               false);
  }
};

}  // namespace tvk::ops
