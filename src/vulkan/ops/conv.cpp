// Vulkan convolutions (shaders conv2d.glsl, conv_transpose2d.glsl): conv2d, convolution,
// _convolution and conv_transpose2d share the checked geometry of ops/conv_params.h.
#include <limits>

#include "ops/conv_params.h"
#include "ops/registry.h"
#include "vulkan/ops/conv.h"
#include "vulkan/ops/shader_dispatch.h"

namespace tvk::vulkan {
namespace {

// Must match the push constants of conv2d.glsl and conv_transpose2d.glsl.
struct ConvParams {
  int32_t in_w, in_h, in_c, batch;
  int32_t out_w, out_h, out_c, has_bias;
  int32_t kernel_w, kernel_h, stride_w, stride_h;
  int32_t pad_w, pad_h, dilation_w, dilation_h;
  int32_t in_c_per_group, out_c_per_group;
  float out_min, out_max;
};

ConvParams push_constants(const char* op, const ops::Conv2dParams& p, bool has_bias) {
  auto i32 = [op](int64_t v) { return to_i32(op, v); };
  return ConvParams{i32(p.in_w), i32(p.in_h), i32(p.in_channels), i32(p.batch),
                    i32(p.out_w), i32(p.out_h), i32(p.out_channels), has_bias ? 1 : 0,
                    i32(p.kernel_w), i32(p.kernel_h), i32(p.stride[1]), i32(p.stride[0]),
                    i32(p.padding[1]), i32(p.padding[0]), i32(p.dilation[1]), i32(p.dilation[0]),
                    i32(p.in_channels_per_group()), i32(p.out_channels_per_group()),
                    -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::infinity()};
}

Tensor run_conv(const char* op, const ops::Conv2dParams& p, const Tensor& input, const Tensor& weight,
                const Tensor& bias, float out_min = -std::numeric_limits<float>::infinity(),
                float out_max = std::numeric_limits<float>::infinity()) {
  check_vulkan_float(op, input, "input");
  check_vulkan_float(op, weight, "weight");
  if (bias.defined()) check_vulkan_float(op, bias, "bias");
  Tensor out = empty_vulkan(p.output_sizes());
  ConvParams params = push_constants(op, p, bias.defined());
  params.out_min = out_min;
  params.out_max = out_max;
  const Tensor& bias_or_weight = bias.defined() ? bias : weight;
  const auto n = static_cast<uint32_t>(p.batch), oh = static_cast<uint32_t>(p.out_h),
             ow = static_cast<uint32_t>(p.out_w), oc = static_cast<uint32_t>(p.out_channels);
  if (p.transposed) {
    launch(grid_launch("conv_transpose2d", {ow, oh, n * oc}), {out, input, weight, bias_or_weight}, params);
  } else {
    // 4 output channels per invocation; they share input reads when they share a group.
    const uint32_t shared_group = p.out_channels_per_group() % 4 == 0 ? 1 : 0;
    launch(grid_launch("conv2d", {ow, oh, n * ((oc + 3) / 4)}, {shared_group}), {out, input, weight, bias_or_weight},
           params);
  }
  return out;
}

Tensor convolution_impl(const char* op, const Tensor& input, const Tensor& weight, const Tensor& bias,
                        const IntList& stride, const IntList& padding, const IntList& dilation, bool transposed,
                        const IntList& output_padding, int64_t groups, bool allow_unbatched) {
  const ops::Conv2dParams p = ops::conv2d_params(op, input, weight, bias, stride, padding, dilation, transposed,
                                                 output_padding, groups, allow_unbatched);
  return run_conv(op, p, input, weight, bias);
}

using Schemas = ops::ConvolutionSchemas<convolution_impl>;

}  // namespace

Tensor convolution_clamped(const char* op, const Tensor& input, const Tensor& weight, const Tensor& bias,
                           const IntList& stride, const IntList& padding, const IntList& dilation, bool transposed,
                           const IntList& output_padding, int64_t groups, std::optional<double> output_min,
                           std::optional<double> output_max) {
  const ops::Conv2dParams p =
      ops::conv2d_params(op, input, weight, bias, stride, padding, dilation, transposed, output_padding, groups, true);
  constexpr float kInf = std::numeric_limits<float>::infinity();
  return run_conv(op, p, input, weight, bias, output_min ? static_cast<float>(*output_min) : -kInf,
                  output_max ? static_cast<float>(*output_max) : kInf);
}

TVK_REGISTER_VULKAN_KERNEL("aten::conv2d", Schemas::conv2d);
TVK_REGISTER_VULKAN_KERNEL("aten::conv_transpose2d.input", Schemas::conv_transpose2d);
TVK_REGISTER_VULKAN_KERNEL("aten::convolution", Schemas::convolution);
TVK_REGISTER_VULKAN_KERNEL("aten::_convolution", Schemas::convolution_underscore);
TVK_REGISTER_VULKAN_KERNEL("aten::_convolution.deprecated", Schemas::convolution_deprecated);

}  // namespace tvk::vulkan
