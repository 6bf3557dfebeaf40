// Vulkan normalization (shaders batch_norm.glsl, layer_norm.glsl): inference batch_norm with
// running statistics, and layer_norm over the trailing dims.
#include "ops/norm_params.h"
#include "ops/registry.h"
#include "tvk/ops.h"
#include "vulkan/ops/shader_dispatch.h"

namespace tvk::vulkan {
namespace {

Tensor batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                  const Tensor& running_var, bool training, double, double eps, bool) {
  const char* op = "aten::batch_norm";
  const int64_t channels = ops::check_batch_norm(input, weight, bias, running_mean, running_var);
  TVK_CHECK(!training, op, ": training mode is not supported on Vulkan (tvk runs inference; call eval())");
  TVK_CHECK(running_mean.defined() && running_var.defined(), op,
            ": running_mean and running_var must be defined when training is false");
  check_vulkan_float(op, input, "input");
  for (const Tensor* t : {&weight, &bias, &running_mean, &running_var})
    if (t->defined()) check_vulkan_float(op, *t, "per-channel tensor");
  Tensor out = empty_vulkan(input.sizes());
  const int64_t inner = channels * input.sizes()[0] == 0 ? 1 : input.numel() / (channels * input.sizes()[0]);
  // Planes of a multiple of 4 values go 4 at a time (batch_norm.glsl QUADS).
  const int64_t per = inner % 4 == 0 ? 4 : 1;
  struct {
    uint32_t numel, channels, inner, has_weight, has_bias;
    float eps;
  } params{static_cast<uint32_t>(input.numel() / per), static_cast<uint32_t>(channels),
           static_cast<uint32_t>(inner / per), weight.defined() ? 1u : 0u, bias.defined() ? 1u : 0u,
           static_cast<float>(eps)};
  launch(ShaderLaunch{"batch_norm", elementwise_global(input.numel() / per), {64, 1, 1}, {per == 4 ? 1u : 0u}},
         {out, input, weight.defined() ? weight : running_mean, bias.defined() ? bias : running_mean, running_mean,
          running_var},
         params);
  return out;
}

Tensor layer_norm(const Tensor& input, IntList normalized_shape, const Tensor& weight, const Tensor& bias,
                  double eps, bool) {
  const char* op = "aten::layer_norm";
  const int64_t cols = ops::check_layer_norm(input, normalized_shape, weight, bias);
  check_vulkan_float(op, input, "input");
  for (const Tensor* t : {&weight, &bias})
    if (t->defined()) check_vulkan_float(op, *t, "weight/bias");
  const int64_t rows = cols == 0 ? 0 : input.numel() / cols;
  Tensor out = empty_vulkan(input.sizes());
  struct {
    uint32_t rows, cols, has_weight, has_bias;
    float eps;
  } params{static_cast<uint32_t>(rows), static_cast<uint32_t>(cols), weight.defined() ? 1u : 0u,
           bias.defined() ? 1u : 0u, static_cast<float>(eps)};
  launch(row_groups_launch("layer_norm", rows, 64),  // 64: layer_norm.glsl's kGroup
         {out, input, weight.defined() ? weight : input, bias.defined() ? bias : input}, params);
  return out;
}

// Layer norm over dim 1 (layer_norm_channels.glsl): an invocation per position walks its
// channels, up to 65535 of them (lavapipe's loop cap); more go channels-last through
// aten::layer_norm's row kernel.
Tensor layer_norm_channels(const Tensor& input, IntList normalized_shape, const Tensor& weight, const Tensor& bias,
                           double eps) {
  const char* op = "tvk::layer_norm_channels";
  const int64_t channels = ops::check_layer_norm_channels(input, normalized_shape, weight, bias);
  check_vulkan_float(op, input, "input");
  for (const Tensor* t : {&weight, &bias})
    if (t->defined()) check_vulkan_float(op, *t, "weight/bias");
  if (channels > 65535) {
    IntList last(static_cast<size_t>(input.dim())), back(static_cast<size_t>(input.dim()));
    for (int64_t d = 0; d < input.dim(); ++d) last[d] = d == 0 ? 0 : d == input.dim() - 1 ? 1 : d + 1;
    for (int64_t d = 0; d < input.dim(); ++d) back[last[d]] = d;
    return tvk::permute(layer_norm(tvk::permute(input, last).contiguous(), {channels}, weight, bias, eps, false), back)
        .contiguous();
  }
  const int64_t batch = input.size(0), plane = channels == 0 || batch == 0 ? 0 : input.numel() / (batch * channels);
  Tensor out = empty_vulkan(input.sizes());
  struct {
    uint32_t positions, channels, plane, has_weight, has_bias;
    float eps;
  } params{static_cast<uint32_t>(to_i32(op, batch * plane)), static_cast<uint32_t>(channels),
           static_cast<uint32_t>(to_i32(op, plane)), weight.defined() ? 1u : 0u, bias.defined() ? 1u : 0u,
           static_cast<float>(eps)};
  (void)to_i32(op, input.numel());
  launch(ShaderLaunch{"layer_norm_channels", elementwise_global(batch * plane), {64, 1, 1}, {}},
         {out, input, weight.defined() ? weight : input, bias.defined() ? bias : input}, params);
  return out;
}

}  // namespace

TVK_REGISTER_VULKAN_KERNEL("tvk::layer_norm_channels", layer_norm_channels);
TVK_REGISTER_VULKAN_KERNEL("aten::batch_norm", batch_norm);
TVK_REGISTER_VULKAN_KERNEL("aten::layer_norm", layer_norm);

}  // namespace tvk::vulkan
