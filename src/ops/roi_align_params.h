// torchvision::roi_align's arguments, checked once for the CPU and Vulkan kernels.
#pragma once

#include <cstdint>

#include "tvk/tensor.h"

namespace tvk::ops {

struct RoiAlignParams {
  int64_t batch = 0, channels = 0, height = 0, width = 0, boxes = 0, pooled_h = 0, pooled_w = 0, sampling_ratio = 0;
  float spatial_scale = 1.f;
  bool aligned = false;
};
// Largest sampling grid per side when sampling_ratio <= 0 (ceil(box size / pooled size)): a bound
// on the work one hostile box can ask for, far past any box inside an image.
inline constexpr int64_t kRoiAlignMaxGrid = 512;

RoiAlignParams roi_align_params(const Tensor& input, const Tensor& rois, double spatial_scale, int64_t pooled_h,
                                int64_t pooled_w, int64_t sampling_ratio, bool aligned);

}  // namespace tvk::ops
