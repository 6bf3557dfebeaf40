// The checked geometry of 2-D pooling and nearest upsampling, shared by the CPU and Vulkan
// kernels. Inputs are (N, C, H, W) or (C, H, W); kernels see them as N*C planes of H x W.
#pragma once

#include <array>
#include <optional>
#include <vector>

#include "tvk/tensor.h"

namespace tvk::ops {

struct Pool2dParams {
  std::array<int64_t, 2> kernel{}, stride{}, padding{}, dilation{1, 1};  // (h, w)
  int64_t planes = 0, in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  IntList out_sizes;
};

// max_pool2d (with dilation) and avg_pool2d (dilation must be 1): output size with PyTorch's
// ceil_mode rule, padding at most half the (dilated) kernel.
Pool2dParams pool2d_params(const char* op, const Tensor& input, const IntList& kernel, const IntList& stride,
                           const IntList& padding, const IntList& dilation, bool ceil_mode);

struct AdaptivePool2dParams {
  int64_t planes = 0, in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  IntList out_sizes;
};
// `global_mean_any_rank`: adaptive_avg_pool2d's composite form, which for output (1, 1) is a mean
// over the last two dims of any input of rank >= 2.
AdaptivePool2dParams adaptive_pool2d_params(const char* op, const Tensor& input, const IntList& output_size,
                                            bool global_mean_any_rank = false);
// Output cell i of `out` cells over `in` covers [floor(i*in/out), ceil((i+1)*in/out)).
inline int64_t adaptive_start(int64_t i, int64_t in, int64_t out) { return (i * in) / out; }
inline int64_t adaptive_end(int64_t i, int64_t in, int64_t out) { return ((i + 1) * in + out - 1) / out; }

struct Upsample2dParams {
  int64_t planes = 0, in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  // nearest: source index = min(floor(dst * ratio), in - 1), in float32. bilinear: source
  // coordinate = dst * ratio (align_corners) or max(ratio * (dst + 0.5) - 0.5, 0), in float32.
  float ratio_h = 1.f, ratio_w = 1.f;
  // nearest-exact: source index = min(floor((dst + 0.5) * ratio), in - 1) (offset 0.5).
  float offset = 0.f;
  bool align_corners = false;  // bilinear and bicubic only
  IntList out_sizes;
};
// The same resize with nearest-exact's half-pixel offset.
inline Upsample2dParams exact(Upsample2dParams p) {
  p.offset = 0.5f;
  return p;
}
// upsample_nearest2d: output_size with optional scales (used for the source index when > 0).
Upsample2dParams upsample_nearest2d_params(const Tensor& input, const IntList& output_size,
                                           std::optional<double> scale_h, std::optional<double> scale_w);
// upsample_nearest2d.vec: exactly one of output_size / scale_factors.
Upsample2dParams upsample_nearest2d_vec_params(const Tensor& input, const std::optional<IntList>& output_size,
                                               const std::optional<std::vector<double>>& scale_factors);

// upsample_bilinear2d (and .vec): as the nearest forms, with PyTorch's linear source coordinates.
Upsample2dParams upsample_bilinear2d_params(const Tensor& input, const IntList& output_size, bool align_corners,
                                            std::optional<double> scale_h, std::optional<double> scale_w);
Upsample2dParams upsample_bilinear2d_vec_params(const Tensor& input, const std::optional<IntList>& output_size,
                                                bool align_corners,
                                                const std::optional<std::vector<double>>& scale_factors);

// grid_sampler / grid_sampler_2d over a 4-D input: (N, C, H, W) sampled at grid (N, Ho, Wo, 2).
struct GridSampleParams {
  int64_t n = 0, channels = 0, in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  int64_t mode = 0;     // 0 bilinear, 1 nearest, 2 bicubic
  int64_t padding = 0;  // 0 zeros, 1 border, 2 reflection
  bool align_corners = false;
};
GridSampleParams grid_sample_params(const char* op, const Tensor& input, const Tensor& grid, int64_t mode,
                                    int64_t padding, bool align_corners);

}  // namespace tvk::ops
