// torchvision::roi_align (Faster / Mask / Keypoint R-CNN's box features), as torchvision's CPU
// kernel computes it in float32: each output bin averages a grid of bilinear samples of its box.
// The Vulkan kernel (roi_align.glsl) follows the same steps.
#include <algorithm>
#include <cmath>

#include "ops/registry.h"
#include "ops/roi_align_params.h"
#include "ops/shape_utils.h"

namespace tvk::ops {

RoiAlignParams roi_align_params(const Tensor& input, const Tensor& rois, double spatial_scale, int64_t pooled_h,
                                int64_t pooled_w, int64_t sampling_ratio, bool aligned) {
  const char* op = "torchvision::roi_align";
  check_defined(op, input, "input");
  check_defined(op, rois, "rois");
  TVK_CHECK(input.dtype() == DType::Float32 && rois.dtype() == DType::Float32, op, ": expected float32 input and rois");
  TVK_CHECK(input.dim() == 4, op, ": expected input of shape (N, C, H, W), got ", input.shape_string());
  TVK_CHECK(rois.dim() == 2 && rois.sizes()[1] == 5, op, ": expected rois of shape (K, 5), got ", rois.shape_string());
  TVK_CHECK(pooled_h > 0 && pooled_w > 0 && pooled_h <= 4096 && pooled_w <= 4096, op, ": pooled size ", pooled_h, " x ",
            pooled_w, " must be positive and at most 4096");
  TVK_CHECK(sampling_ratio <= kRoiAlignMaxGrid, op, ": sampling_ratio ", sampling_ratio, " exceeds ", kRoiAlignMaxGrid);
  TVK_CHECK(std::isfinite(spatial_scale), op, ": spatial_scale must be finite");
  RoiAlignParams p;
  p.batch = input.sizes()[0];
  p.channels = input.sizes()[1];
  p.height = input.sizes()[2];
  p.width = input.sizes()[3];
  p.boxes = rois.sizes()[0];
  p.pooled_h = pooled_h;
  p.pooled_w = pooled_w;
  p.sampling_ratio = sampling_ratio;
  p.spatial_scale = static_cast<float>(spatial_scale);
  p.aligned = aligned;
  return p;
}

namespace cpu {
namespace {

float bilinear(const float* plane, int64_t height, int64_t width, float y, float x) {
  if (y < -1.f || y > static_cast<float>(height) || x < -1.f || x > static_cast<float>(width)) return 0.f;
  y = std::max(y, 0.f);
  x = std::max(x, 0.f);
  int64_t y_low = static_cast<int64_t>(y), x_low = static_cast<int64_t>(x), y_high, x_high;
  if (y_low >= height - 1) {
    y_high = y_low = height - 1;
    y = static_cast<float>(y_low);
  } else {
    y_high = y_low + 1;
  }
  if (x_low >= width - 1) {
    x_high = x_low = width - 1;
    x = static_cast<float>(x_low);
  } else {
    x_high = x_low + 1;
  }
  const float ly = y - static_cast<float>(y_low), lx = x - static_cast<float>(x_low), hy = 1.f - ly, hx = 1.f - lx;
  return hy * hx * plane[y_low * width + x_low] + hy * lx * plane[y_low * width + x_high] +
         ly * hx * plane[y_high * width + x_low] + ly * lx * plane[y_high * width + x_high];
}

Tensor roi_align(const Tensor& input, const Tensor& rois, double spatial_scale, int64_t pooled_h, int64_t pooled_w,
                 int64_t sampling_ratio, bool aligned) {
  const RoiAlignParams p = roi_align_params(input, rois, spatial_scale, pooled_h, pooled_w, sampling_ratio, aligned);
  const Tensor x = input.contiguous(), r = rois.contiguous();
  Tensor out = empty({p.boxes, p.channels, p.pooled_h, p.pooled_w});
  const float* px = x.data<float>();
  const float* pr = r.data<float>();
  float* po = out.data<float>();
  const float offset = aligned ? 0.5f : 0.f;
  for (int64_t k = 0; k < p.boxes; ++k) {
    const float* box = pr + k * 5;
    const int64_t n = static_cast<int64_t>(box[0]);
    const float start_w = box[1] * p.spatial_scale - offset, start_h = box[2] * p.spatial_scale - offset;
    float roi_w = box[3] * p.spatial_scale - offset - start_w, roi_h = box[4] * p.spatial_scale - offset - start_h;
    if (!aligned) {
      roi_w = std::max(roi_w, 1.f);
      roi_h = std::max(roi_h, 1.f);
    }
    const float bin_h = roi_h / static_cast<float>(p.pooled_h), bin_w = roi_w / static_cast<float>(p.pooled_w);
    auto grid = [&](float size, int64_t pooled) {
      if (p.sampling_ratio > 0) return p.sampling_ratio;
      const float g = std::ceil(size / static_cast<float>(pooled));
      return static_cast<int64_t>(std::isfinite(g) ? std::clamp(g, 0.f, static_cast<float>(kRoiAlignMaxGrid)) : 0.f);
    };
    const int64_t grid_h = grid(roi_h, p.pooled_h), grid_w = grid(roi_w, p.pooled_w);
    const float count = static_cast<float>(std::max<int64_t>(grid_h * grid_w, 1));
    for (int64_t c = 0; c < p.channels; ++c) {
      const bool valid = n >= 0 && n < p.batch;
      const float* plane = valid ? px + (n * p.channels + c) * p.height * p.width : nullptr;
      for (int64_t ph = 0; ph < p.pooled_h; ++ph)
        for (int64_t pw = 0; pw < p.pooled_w; ++pw) {
          float sum = 0.f;
          for (int64_t iy = 0; valid && iy < grid_h; ++iy) {
            const float yy = start_h + static_cast<float>(ph) * bin_h +
                             (static_cast<float>(iy) + 0.5f) * bin_h / static_cast<float>(grid_h);
            for (int64_t ix = 0; ix < grid_w; ++ix) {
              const float xx = start_w + static_cast<float>(pw) * bin_w +
                               (static_cast<float>(ix) + 0.5f) * bin_w / static_cast<float>(grid_w);
              sum += bilinear(plane, p.height, p.width, yy, xx);
            }
          }
          po[((k * p.channels + c) * p.pooled_h + ph) * p.pooled_w + pw] = sum / count;
        }
    }
  }
  return out;
}

}  // namespace
}  // namespace cpu

TVK_REGISTER_OP("torchvision::roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, "
                "SymInt pooled_width, int sampling_ratio, bool aligned) -> Tensor",
                cpu::roi_align);

}  // namespace tvk::ops
