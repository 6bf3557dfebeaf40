#include "ops/pool_params.h"

#include <cstdint>

#include "ops/shape_utils.h"

namespace tvk::ops {
namespace {

// Fills planes/in_h/in_w from a (N, C, H, W) or (C, H, W) input and returns its leading sizes.
IntList plane_geometry(const char* op, const Tensor& input, int64_t& planes, int64_t& in_h, int64_t& in_w,
                       bool any_rank = false) {
  check_float(op, input, "input");
  if (any_rank) check_rank(op, input, 2, INT32_MAX, "(..., H, W)");
  else check_rank(op, input, 3, 4, "(N, C, H, W) or (C, H, W)");
  in_h = input.sizes()[input.dim() - 2];
  in_w = input.sizes()[input.dim() - 1];
  IntList lead(input.sizes().begin(), input.sizes().end() - 2);
  planes = numel_of(lead);
  return lead;
}

int64_t pooled_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dilation, bool ceil_mode) {
  const int64_t span = in + 2 * pad - dilation * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  int64_t out = span / stride + 1;
  // The last window must start inside the input or its left padding.
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

}  // namespace

Pool2dParams pool2d_params(const char* op, const Tensor& input, const IntList& kernel, const IntList& stride,
                           const IntList& padding, const IntList& dilation, bool ceil_mode) {
  Pool2dParams p;
  IntList lead = plane_geometry(op, input, p.planes, p.in_h, p.in_w);
  p.kernel = expand_pair(op, "kernel_size", kernel);
  p.stride = stride.empty() ? p.kernel : expand_pair(op, "stride", stride);
  p.padding = expand_pair(op, "padding", padding);
  p.dilation = expand_pair(op, "dilation", dilation);
  for (int i = 0; i < 2; ++i) {
    TVK_CHECK(p.kernel[i] > 0, op, ": kernel_size must be positive, got ", shape_string(kernel));
    TVK_CHECK(p.stride[i] > 0, op, ": stride must be positive, got ", shape_string(stride));
    TVK_CHECK(p.dilation[i] > 0, op, ": dilation must be positive, got ", shape_string(dilation));
    const int64_t eff_kernel = (p.kernel[i] - 1) * p.dilation[i] + 1;
    TVK_CHECK(p.padding[i] >= 0 && p.padding[i] <= eff_kernel / 2, op, ": padding ", shape_string(padding),
              " must be non-negative and at most half of the kernel ", shape_string(kernel));
  }
  p.out_h = pooled_size(p.in_h, p.kernel[0], p.padding[0], p.stride[0], p.dilation[0], ceil_mode);
  p.out_w = pooled_size(p.in_w, p.kernel[1], p.padding[1], p.stride[1], p.dilation[1], ceil_mode);
  TVK_CHECK(p.out_h > 0 && p.out_w > 0, op, ": the output size (", p.out_h, ", ", p.out_w, ") for input ",
            input.shape_string(), " is too small");
  lead.push_back(p.out_h);
  lead.push_back(p.out_w);
  p.out_sizes = lead;
  return p;
}

AdaptivePool2dParams adaptive_pool2d_params(const char* op, const Tensor& input, const IntList& output_size,
                                            bool global_mean_any_rank) {
  AdaptivePool2dParams p;
  TVK_CHECK(output_size.size() == 2, op, ": output_size must have 2 values, got ", shape_string(output_size));
  const bool any_rank = global_mean_any_rank && output_size[0] == 1 && output_size[1] == 1;
  IntList lead = plane_geometry(op, input, p.planes, p.in_h, p.in_w, any_rank);
  for (int64_t d = 1; d < input.dim(); ++d)
    TVK_CHECK(input.sizes()[d] > 0, op, ": input ", input.shape_string(), " has an empty non-batch dimension");
  p.out_h = output_size[0];
  p.out_w = output_size[1];
  TVK_CHECK(p.out_h >= 0 && p.out_w >= 0, op, ": output_size must be non-negative, got ", shape_string(output_size));
  lead.push_back(p.out_h);
  lead.push_back(p.out_w);
  p.out_sizes = lead;
  return p;
}

namespace {

// PyTorch's nearest_idx: identity and 2x are exact; otherwise 1/scale when a scale was given,
// else in/out, both in float32.
float nearest_ratio(int64_t in, int64_t out, std::optional<double> scale) {
  if (out == in) return 1.f;
  if (out == 2 * in) return 0.5f;
  if (scale && *scale > 0) return static_cast<float>(1.0 / *scale);
  return static_cast<float>(in) / static_cast<float>(out);
}

}  // namespace

Upsample2dParams upsample_nearest2d_params(const Tensor& input, const IntList& output_size,
                                           std::optional<double> scale_h, std::optional<double> scale_w) {
  const char* op = "aten::upsample_nearest2d";
  Upsample2dParams p;
  IntList lead = plane_geometry(op, input, p.planes, p.in_h, p.in_w);
  TVK_CHECK(input.dim() == 4, op, ": expected a 4-D input (N, C, H, W), got ", input.shape_string());
  TVK_CHECK(output_size.size() == 2, op, ": output_size must have 2 values, got ", shape_string(output_size));
  p.out_h = output_size[0];
  p.out_w = output_size[1];
  TVK_CHECK(p.in_h > 0 && p.in_w > 0 && p.out_h > 0 && p.out_w > 0, op, ": input ", input.shape_string(),
            " and output size ", shape_string(output_size), " must be non-empty");
  p.ratio_h = nearest_ratio(p.in_h, p.out_h, scale_h);
  p.ratio_w = nearest_ratio(p.in_w, p.out_w, scale_w);
  lead.push_back(p.out_h);
  lead.push_back(p.out_w);
  p.out_sizes = lead;
  return p;
}

Upsample2dParams upsample_nearest2d_vec_params(const Tensor& input, const std::optional<IntList>& output_size,
                                               const std::optional<std::vector<double>>& scale_factors) {
  const char* op = "aten::upsample_nearest2d.vec";
  check_rank(op, input, 4, 4, "(N, C, H, W)");
  TVK_CHECK(output_size.has_value() != scale_factors.has_value(), op,
            ": exactly one of output_size and scale_factors must be given");
  if (output_size) return upsample_nearest2d_params(input, *output_size, std::nullopt, std::nullopt);
  TVK_CHECK(scale_factors->size() == 2, op, ": scale_factors must have 2 values, got ", scale_factors->size());
  const IntList size{static_cast<int64_t>(static_cast<double>(input.sizes()[2]) * (*scale_factors)[0]),
                     static_cast<int64_t>(static_cast<double>(input.sizes()[3]) * (*scale_factors)[1])};
  return upsample_nearest2d_params(input, size, (*scale_factors)[0], (*scale_factors)[1]);
}

namespace {
// PyTorch's area_pixel_compute_scale for linear modes.
float linear_ratio(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  if (align_corners) return out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1) : 0.f;
  if (scale && *scale > 0) return static_cast<float>(1.0 / *scale);
  return static_cast<float>(in) / static_cast<float>(out);
}
}  // namespace

Upsample2dParams upsample_bilinear2d_params(const Tensor& input, const IntList& output_size, bool align_corners,
                                            std::optional<double> scale_h, std::optional<double> scale_w) {
  const char* op = "aten::upsample_bilinear2d";
  check_rank(op, input, 4, 4, "(N, C, H, W)");
  Upsample2dParams p = upsample_nearest2d_params(input, output_size, std::nullopt, std::nullopt);
  p.align_corners = align_corners;
  p.ratio_h = linear_ratio(p.in_h, p.out_h, align_corners, scale_h);
  p.ratio_w = linear_ratio(p.in_w, p.out_w, align_corners, scale_w);
  return p;
}

Upsample2dParams upsample_bilinear2d_vec_params(const Tensor& input, const std::optional<IntList>& output_size,
                                                bool align_corners,
                                                const std::optional<std::vector<double>>& scale_factors) {
  const char* op = "aten::upsample_bilinear2d.vec";
  check_rank(op, input, 4, 4, "(N, C, H, W)");
  TVK_CHECK(output_size.has_value() != scale_factors.has_value(), op,
            ": exactly one of output_size and scale_factors must be given");
  if (output_size) return upsample_bilinear2d_params(input, *output_size, align_corners, std::nullopt, std::nullopt);
  TVK_CHECK(scale_factors->size() == 2, op, ": scale_factors must have 2 values, got ", scale_factors->size());
  const IntList size{static_cast<int64_t>(static_cast<double>(input.sizes()[2]) * (*scale_factors)[0]),
                     static_cast<int64_t>(static_cast<double>(input.sizes()[3]) * (*scale_factors)[1])};
  return upsample_bilinear2d_params(input, size, align_corners, (*scale_factors)[0], (*scale_factors)[1]);
}

GridSampleParams grid_sample_params(const char* op, const Tensor& input, const Tensor& grid, int64_t mode,
                                    int64_t padding, bool align_corners) {
  check_defined(op, input, "input");
  check_defined(op, grid, "grid");
  TVK_CHECK(input.dtype() == DType::Float32 && grid.dtype() == DType::Float32, op,
            ": expected float32 input and grid, got ", to_string(input.dtype()), " and ", to_string(grid.dtype()));
  TVK_CHECK(input.dim() == 4, op, ": tvk samples 4-D input (N, C, H, W) only, got ", input.shape_string());
  TVK_CHECK(grid.dim() == 4 && grid.sizes()[3] == 2, op, ": expected grid of shape (N, H_out, W_out, 2), got ",
            grid.shape_string());
  TVK_CHECK(grid.sizes()[0] == input.sizes()[0], op, ": expected grid and input to have same batch size, but got input with sizes ",
            input.shape_string(), " and grid with sizes ", grid.shape_string());
  TVK_CHECK(mode >= 0 && mode <= 2, op, ": interpolation mode ", mode, " is not bilinear (0), nearest (1) or bicubic (2)");
  TVK_CHECK(padding >= 0 && padding <= 2, op, ": padding mode ", padding, " is not zeros (0), border (1) or reflection (2)");
  TVK_CHECK(input.sizes()[2] > 0 && input.sizes()[3] > 0, op, ": expected input to have non-empty spatial dimensions, ",
            "but input has sizes ", input.shape_string());
  GridSampleParams p;
  p.n = input.sizes()[0];
  p.channels = input.sizes()[1];
  p.in_h = input.sizes()[2];
  p.in_w = input.sizes()[3];
  p.out_h = grid.sizes()[1];
  p.out_w = grid.sizes()[2];
  p.mode = mode;
  p.padding = padding;
  p.align_corners = align_corners;
  return p;
}

}  // namespace tvk::ops
