// Vulkan resampling by coordinates: bicubic resize (upsample_bicubic2d.glsl), grid_sample
// (grid_sample.glsl) and torchvision's roi_align (roi_align.glsl), one invocation per output
// element, as the CPU kernels (ops/cpu/resample.cpp, ops/cpu/roi_align.cpp).
#include <array>
#include <optional>
#include <vector>

#include "ops/pool_params.h"
#include "ops/roi_align_params.h"
#include "ops/registry.h"
#include "ops/shape_utils.h"
#include "vulkan/ops/shader_dispatch.h"

namespace tvk::vulkan {
namespace {

std::array<uint32_t, 3> plane_grid(int64_t out_w, int64_t out_h, int64_t planes) {
  return {static_cast<uint32_t>(out_w), static_cast<uint32_t>(out_h), static_cast<uint32_t>(planes)};
}

struct BicubicParams {
  int32_t in_w, in_h, out_w, out_h, planes, align_corners;
  float ratio_w, ratio_h;
};
Tensor bicubic(const char* op, const ops::Upsample2dParams& p, const Tensor& self) {
  check_vulkan_float(op, self);
  const Tensor x = self.contiguous();
  Tensor out = empty_vulkan(p.out_sizes);
  const BicubicParams params{to_i32(op, p.in_w), to_i32(op, p.in_h),   to_i32(op, p.out_w),  to_i32(op, p.out_h),
                             to_i32(op, p.planes), p.align_corners ? 1 : 0, p.ratio_w, p.ratio_h};
  launch(grid_launch("upsample_bicubic2d", plane_grid(p.out_w, p.out_h, p.planes)), {out, x}, params);
  return out;
}
Tensor upsample_bicubic2d(const Tensor& self, IntList output_size, bool align_corners, std::optional<double> scales_h,
                          std::optional<double> scales_w) {
  ops::check_rank("aten::upsample_bicubic2d", self, 4, 4, "(N, C, H, W)");
  return bicubic("aten::upsample_bicubic2d",
                 ops::upsample_bilinear2d_params(self, output_size, align_corners, scales_h, scales_w), self);
}
Tensor upsample_bicubic2d_vec(const Tensor& input, std::optional<IntList> output_size, bool align_corners,
                              std::optional<std::vector<double>> scale_factors) {
  ops::check_rank("aten::upsample_bicubic2d.vec", input, 4, 4, "(N, C, H, W)");
  return bicubic("aten::upsample_bicubic2d.vec",
                 ops::upsample_bilinear2d_vec_params(input, output_size, align_corners, scale_factors), input);
}

struct GridSampleParams {
  int32_t in_w, in_h, out_w, out_h, channels, planes, align_corners;
};
Tensor grid_sampler(const Tensor& input, const Tensor& grid, int64_t mode, int64_t padding, bool align_corners) {
  const char* op = "aten::grid_sampler";
  const ops::GridSampleParams p = ops::grid_sample_params(op, input, grid, mode, padding, align_corners);
  check_vulkan_float(op, input, "input");
  check_vulkan_float(op, grid, "grid");
  Tensor out = empty_vulkan({p.n, p.channels, p.out_h, p.out_w});
  if (out.numel() == 0) return out;
  const int64_t planes = p.n * p.channels;
  const GridSampleParams params{to_i32(op, p.in_w),     to_i32(op, p.in_h),  to_i32(op, p.out_w), to_i32(op, p.out_h),
                                to_i32(op, p.channels), to_i32(op, planes), align_corners ? 1 : 0};
  ShaderLaunch l = grid_launch("grid_sample", plane_grid(p.out_w, p.out_h, planes));
  l.constants = {static_cast<uint32_t>(mode), static_cast<uint32_t>(padding)};
  launch(l, {out, input.contiguous(), grid.contiguous()}, params);
  return out;
}

struct RoiAlignParams {
  int32_t channels, height, width, pooled_h, pooled_w, boxes, batch, sampling_ratio, aligned;
  float spatial_scale;
};
Tensor roi_align(const Tensor& input, const Tensor& rois, double spatial_scale, int64_t pooled_h, int64_t pooled_w,
                 int64_t sampling_ratio, bool aligned) {
  const char* op = "torchvision::roi_align";
  const ops::RoiAlignParams p =
      ops::roi_align_params(input, rois, spatial_scale, pooled_h, pooled_w, sampling_ratio, aligned);
  check_vulkan_float(op, input, "input");
  check_vulkan_float(op, rois, "rois");
  Tensor out = empty_vulkan({p.boxes, p.channels, p.pooled_h, p.pooled_w});
  if (out.numel() == 0) return out;
  const RoiAlignParams params{to_i32(op, p.channels),  to_i32(op, p.height), to_i32(op, p.width),
                              to_i32(op, p.pooled_h),  to_i32(op, p.pooled_w), to_i32(op, p.boxes),
                              to_i32(op, p.batch),     to_i32(op, p.sampling_ratio), aligned ? 1 : 0,
                              p.spatial_scale};
  to_i32(op, out.numel());
  launch(ShaderLaunch{"roi_align", elementwise_global(out.numel()), {64, 1, 1}, {}},
         {out, input.contiguous(), rois.contiguous()}, params);
  return out;
}

}  // namespace

TVK_REGISTER_VULKAN_KERNEL("torchvision::roi_align", roi_align);
TVK_REGISTER_VULKAN_KERNEL("aten::upsample_bicubic2d", upsample_bicubic2d);
TVK_REGISTER_VULKAN_KERNEL("aten::upsample_bicubic2d.vec", upsample_bicubic2d_vec);
TVK_REGISTER_VULKAN_KERNEL("aten::grid_sampler", grid_sampler);
TVK_REGISTER_VULKAN_KERNEL("aten::grid_sampler_2d", grid_sampler);

}  // namespace tvk::vulkan
