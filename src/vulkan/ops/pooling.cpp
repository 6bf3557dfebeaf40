// Vulkan pooling and resizing (shaders pool2d.glsl, pool2d_tile.glsl, adaptive_{avg,max}_pool2d.glsl,
// upsample_nearest2d.glsl), sharing the checked geometry of ops/pool_params.h. max_pool2d and
// avg_pool2d and the adaptive pools run one of the named PoolMethods (kernel_options.h).
#include "ops/pool_params.h"
#include "ops/registry.h"
#include "vulkan/ops/kernel_options.h"
#include "vulkan/ops/shader_dispatch.h"

namespace tvk::vulkan {
namespace {

enum PoolMode : uint32_t { kMax = 0, kAvg = 1 };  // pool2d.glsl MODE

struct PoolParams {
  int32_t in_w, in_h, out_w, out_h;
  int32_t planes, kernel_w, kernel_h, stride_w;
  int32_t stride_h, pad_w, pad_h, dilation_w;
  int32_t dilation_h, count_include_pad, divisor_override;
};

struct PlaneParams {  // adaptive pools
  int32_t in_w, in_h, out_w, out_h, planes;
};

std::array<uint32_t, 3> plane_grid(int64_t out_w, int64_t out_h, int64_t planes) {
  return {static_cast<uint32_t>(out_w), static_cast<uint32_t>(out_h), static_cast<uint32_t>(planes)};
}

Tensor pool2d(const char* op, PoolMode mode, const Tensor& self, const ops::Pool2dParams& p, bool count_include_pad,
              int64_t divisor_override) {
  check_vulkan_float(op, self);
  Tensor out = empty_vulkan(p.out_sizes);
  auto i32 = [op](int64_t v) { return to_i32(op, v); };
  const PoolParams params{i32(p.in_w), i32(p.in_h), i32(p.out_w), i32(p.out_h),
                          i32(p.planes), i32(p.kernel[1]), i32(p.kernel[0]), i32(p.stride[1]),
                          i32(p.stride[0]), i32(p.padding[1]), i32(p.padding[0]), i32(p.dilation[1]),
                          i32(p.dilation[0]), count_include_pad ? 1 : 0, i32(divisor_override)};
  // Windows of up to 7x7 taps (every pooling of the torchvision classifiers) run the unrolled
  // tile kernels; larger ones (spatial pyramid pooling, say) the loop of pool2d.glsl.
  const int64_t span = 3 * p.stride[1] + (p.kernel[1] - 1) * p.dilation[1] + 1;  // pool2d_tile.glsl SPAN
  const bool tiles = p.kernel[0] <= 7 && p.kernel[1] <= 7 && span <= 32;
  auto can_run = [&](PoolMethod m) {
    switch (m) {
      case PoolMethod::Auto: return false;
      case PoolMethod::Window: return true;
      case PoolMethod::Tile: return tiles && texel_view_fits(self, Buffer::TexelFormat::R32);
      case PoolMethod::TileStorage: return tiles && storage_binding_fits(self);
      case PoolMethod::Group: return false;  // adaptive pooling's
    }
    return false;
  };
  const PoolMethod preferred = !tiles ? PoolMethod::Window
                               : gpu_shaped_kernels() || !texel_view_fits(self, Buffer::TexelFormat::R32)
                                   ? PoolMethod::TileStorage
                                   : PoolMethod::Tile;
  const PoolMethod method = choose_method(op, kernel_options().pool, preferred, kPoolMethods, can_run);
  const OpMethod recorded(op, to_string(method));
  if (method == PoolMethod::Window) {
    launch(grid_launch("pool2d", plane_grid(p.out_w, p.out_h, p.planes), {mode}), {out, self}, params);
    return out;
  }
  const std::vector<uint32_t> constants{mode,
                                        static_cast<uint32_t>(p.kernel[0]),
                                        static_cast<uint32_t>(p.kernel[1]),
                                        static_cast<uint32_t>(p.stride[0]),
                                        static_cast<uint32_t>(p.stride[1]),
                                        static_cast<uint32_t>(p.dilation[0]),
                                        static_cast<uint32_t>(p.dilation[1])};
  const std::array<uint32_t, 3> global{static_cast<uint32_t>((p.out_w + 3) / 4), static_cast<uint32_t>(p.out_h),
                                       static_cast<uint32_t>(p.planes)};
  if (method == PoolMethod::TileStorage)
    launch(grid_launch("pool2d_tile_storage", global, constants), {out, self}, params);
  else
    launch(grid_launch("pool2d_tile", global, constants), {out, texels1(self)}, params);
  return out;
}

Tensor max_pool2d(const Tensor& self, IntList kernel, IntList stride, IntList padding, IntList dilation,
                  bool ceil_mode) {
  const char* op = "aten::max_pool2d";
  return pool2d(op, kMax, self, ops::pool2d_params(op, self, kernel, stride, padding, dilation, ceil_mode), false, 0);
}

Tensor avg_pool2d(const Tensor& self, IntList kernel, IntList stride, IntList padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  const char* op = "aten::avg_pool2d";
  const ops::Pool2dParams p = ops::pool2d_params(op, self, kernel, stride, padding, {1}, ceil_mode);
  TVK_CHECK(!divisor_override || *divisor_override != 0, op, ": divisor_override must be non-zero");
  return pool2d(op, kAvg, self, p, count_include_pad, divisor_override.value_or(0));
}

PlaneParams plane_params(const char* op, const ops::AdaptivePool2dParams& p) {
  return {to_i32(op, p.in_w), to_i32(op, p.in_h), to_i32(op, p.out_w), to_i32(op, p.out_h), to_i32(op, p.planes)};
}

// Adaptive pooling's method: Window (an invocation per output cell) or Group (a work group per
// cell), from the largest window, which a cell spans at most ceil(in / out) + 1 values of in
// each dim.
PoolMethod adaptive_pool_method(const char* op, const ops::AdaptivePool2dParams& p) {
  const int64_t window = (p.out_h == 0 || p.out_w == 0)
                             ? 0
                             : ((p.in_h + p.out_h - 1) / p.out_h + 1) * ((p.in_w + p.out_w - 1) / p.out_w + 1);
  auto can_run = [&](PoolMethod m) {
    // One invocation's loop: lavapipe stops a shader's loops after 65535 iterations.
    if (m == PoolMethod::Window) return window <= 65535;
    return m == PoolMethod::Group;
  };
  // GPUs: a group per cell once a window fills one (global pooling: the window in one loop took
  // 1.4 of efficientnet_b0's 2.5 ms on an H100, docs/benchmarks.md). CPU devices: the loop, their
  // few cores being filled by the planes already.
  const PoolMethod preferred = gpu_shaped_kernels() && window >= 64 ? PoolMethod::Group : PoolMethod::Window;
  return choose_method(op, kernel_options().pool, preferred, kPoolMethods, can_run);
}

// The launch of adaptive_{avg,max}_pool2d.glsl by `method`.
ShaderLaunch adaptive_pool_launch(const char* shader, PoolMethod method, const ops::AdaptivePool2dParams& p) {
  if (method == PoolMethod::Group) {
    constexpr uint32_t kGroup = 64;  // the shaders' kGroup
    ShaderLaunch l = row_groups_launch(shader, p.out_w * p.out_h * p.planes, kGroup);
    l.constants = {1};
    return l;
  }
  return grid_launch(shader, plane_grid(p.out_w, p.out_h, p.planes), {0});
}

Tensor adaptive_avg_pool2d_impl(const char* op, const Tensor& self, const IntList& output_size, bool composite) {
  const ops::AdaptivePool2dParams p = ops::adaptive_pool2d_params(op, self, output_size, composite);
  check_vulkan_float(op, self);
  Tensor out = empty_vulkan(p.out_sizes);
  const PoolMethod method = adaptive_pool_method(op, p);
  const OpMethod recorded(op, to_string(method));
  launch(adaptive_pool_launch("adaptive_avg_pool2d", method, p), {out, self}, plane_params(op, p));
  return out;
}
Tensor adaptive_avg_pool2d(const Tensor& self, IntList output_size) {
  return adaptive_avg_pool2d_impl("aten::adaptive_avg_pool2d", self, output_size, true);
}
Tensor adaptive_avg_pool2d_kernel(const Tensor& self, IntList output_size) {
  return adaptive_avg_pool2d_impl("aten::_adaptive_avg_pool2d", self, output_size, false);
}

// Indices are an int64 Vulkan tensor, like PyTorch's; the shader writes them as 32-bit pairs.
std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& self, IntList output_size) {
  const char* op = "aten::adaptive_max_pool2d";
  const ops::AdaptivePool2dParams p = ops::adaptive_pool2d_params(op, self, output_size);
  check_vulkan_float(op, self);
  Tensor values = empty_vulkan(p.out_sizes);
  Tensor indices = empty(p.out_sizes, DType::Int64, tvk::Device::Vulkan);
  const PoolMethod method = adaptive_pool_method(op, p);
  const OpMethod recorded(op, to_string(method));
  launch(adaptive_pool_launch("adaptive_max_pool2d", method, p), {values, indices, self}, plane_params(op, p));
  return {values, indices};
}

struct UpsampleParams {
  int32_t in_w, in_h, out_w, out_h, planes;
  float ratio_w, ratio_h, offset;
};

Tensor upsample(const char* op, const ops::Upsample2dParams& p, const Tensor& self) {
  check_vulkan_float(op, self);
  Tensor out = empty_vulkan(p.out_sizes);
  const UpsampleParams params{to_i32(op, p.in_w), to_i32(op, p.in_h), to_i32(op, p.out_w), to_i32(op, p.out_h),
                              to_i32(op, p.planes), p.ratio_w, p.ratio_h, p.offset};
  launch(grid_launch("upsample_nearest2d", plane_grid(p.out_w, p.out_h, p.planes)), {out, self}, params);
  return out;
}
Tensor upsample_nearest2d(const Tensor& self, IntList output_size, std::optional<double> scales_h,
                          std::optional<double> scales_w) {
  return upsample("aten::upsample_nearest2d", ops::upsample_nearest2d_params(self, output_size, scales_h, scales_w),
                  self);
}
Tensor upsample_nearest2d_vec(const Tensor& input, std::optional<IntList> output_size,
                              std::optional<std::vector<double>> scale_factors) {
  return upsample("aten::upsample_nearest2d.vec", ops::upsample_nearest2d_vec_params(input, output_size, scale_factors),
                  input);
}

Tensor upsample_nearest_exact2d(const Tensor& self, IntList output_size, std::optional<double> scales_h,
                                std::optional<double> scales_w) {
  return upsample("aten::_upsample_nearest_exact2d",
                  ops::exact(ops::upsample_nearest2d_params(self, output_size, scales_h, scales_w)), self);
}
Tensor upsample_nearest_exact2d_vec(const Tensor& input, std::optional<IntList> output_size,
                                    std::optional<std::vector<double>> scale_factors) {
  return upsample("aten::_upsample_nearest_exact2d.vec",
                  ops::exact(ops::upsample_nearest2d_vec_params(input, output_size, scale_factors)), input);
}

// Must match upsample_bilinear2d.glsl.
struct BilinearParams {
  int32_t in_w, in_h, out_w, out_h, planes, align_corners;
  float ratio_w, ratio_h;
};

Tensor bilinear(const char* op, const ops::Upsample2dParams& p, const Tensor& self) {
  check_vulkan_float(op, self);
  Tensor out = empty_vulkan(p.out_sizes);
  const BilinearParams params{to_i32(op, p.in_w), to_i32(op, p.in_h),   to_i32(op, p.out_w),  to_i32(op, p.out_h),
                              to_i32(op, p.planes), p.align_corners ? 1 : 0, p.ratio_w, p.ratio_h};
  launch(grid_launch("upsample_bilinear2d", plane_grid(p.out_w, p.out_h, p.planes)), {out, texels1(self)}, params);
  return out;
}
Tensor upsample_bilinear2d(const Tensor& self, IntList output_size, bool align_corners, std::optional<double> scales_h,
                           std::optional<double> scales_w) {
  return bilinear("aten::upsample_bilinear2d",
                  ops::upsample_bilinear2d_params(self, output_size, align_corners, scales_h, scales_w), self);
}
Tensor upsample_bilinear2d_vec(const Tensor& input, std::optional<IntList> output_size, bool align_corners,
                               std::optional<std::vector<double>> scale_factors) {
  return bilinear("aten::upsample_bilinear2d.vec",
                  ops::upsample_bilinear2d_vec_params(input, output_size, align_corners, scale_factors), input);
}

}  // namespace

TVK_REGISTER_VULKAN_KERNEL("aten::upsample_bilinear2d", upsample_bilinear2d);
TVK_REGISTER_VULKAN_KERNEL("aten::_upsample_nearest_exact2d", upsample_nearest_exact2d);
TVK_REGISTER_VULKAN_KERNEL("aten::_upsample_nearest_exact2d.vec", upsample_nearest_exact2d_vec);
TVK_REGISTER_VULKAN_KERNEL("aten::upsample_bilinear2d.vec", upsample_bilinear2d_vec);
TVK_REGISTER_VULKAN_KERNEL("aten::max_pool2d", max_pool2d);
TVK_REGISTER_VULKAN_KERNEL("aten::avg_pool2d", avg_pool2d);
TVK_REGISTER_VULKAN_KERNEL("aten::adaptive_avg_pool2d", adaptive_avg_pool2d);
TVK_REGISTER_VULKAN_KERNEL("aten::_adaptive_avg_pool2d", adaptive_avg_pool2d_kernel);
TVK_REGISTER_VULKAN_KERNEL("aten::adaptive_max_pool2d", adaptive_max_pool2d);
TVK_REGISTER_VULKAN_KERNEL("aten::upsample_nearest2d", upsample_nearest2d);
TVK_REGISTER_VULKAN_KERNEL("aten::upsample_nearest2d.vec", upsample_nearest2d_vec);

}  // namespace tvk::vulkan
