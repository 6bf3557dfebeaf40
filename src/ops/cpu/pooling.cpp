// Pooling and resizing: max_pool2d, avg_pool2d, adaptive avg/max pooling, nearest upsampling.
// Inputs are treated as N*C planes of H x W (a (C, H, W) input is one batch).
#include <cmath>
#include <tuple>
#include <limits>

#include "ops/pool_params.h"
#include "ops/registry.h"
#include "ops/shape_utils.h"

namespace tvk::ops::cpu {
namespace {

// Calls fn(plane_in, plane_out) for every plane of a contiguous copy of `input`.
template <typename F>
Tensor per_plane(const Tensor& input, const IntList& out_sizes, int64_t planes, int64_t in_plane, int64_t out_plane,
                 F&& fn) {
  const Tensor x = input.contiguous();
  Tensor out = empty(out_sizes);
  for (int64_t c = 0; c < planes; ++c) fn(x.data<float>() + c * in_plane, out.data<float>() + c * out_plane);
  return out;
}

// One plane's max pooling: each window's maximum (NaN wins, as in PyTorch) and, where `idx` is
// given, its index in the plane (iy * W + ix) for max_unpool2d: the first window position that
// holds the maximum, the last NaN when there is one, as PyTorch's kernel.
void max_pool_plane(const Pool2dParams& p, const float* in, float* out, int64_t* idx) {
  for (int64_t oy = 0; oy < p.out_h; ++oy)
    for (int64_t ox = 0; ox < p.out_w; ++ox) {
      float best = -std::numeric_limits<float>::infinity();
      int64_t at = -1;
      for (int64_t ky = 0; ky < p.kernel[0]; ++ky) {
        const int64_t iy = oy * p.stride[0] - p.padding[0] + ky * p.dilation[0];
        if (iy < 0 || iy >= p.in_h) continue;
        for (int64_t kx = 0; kx < p.kernel[1]; ++kx) {
          const int64_t ix = ox * p.stride[1] - p.padding[1] + kx * p.dilation[1];
          if (ix < 0 || ix >= p.in_w) continue;
          if (at < 0) at = iy * p.in_w + ix;  // the window's first position, where PyTorch starts
          const float v = in[iy * p.in_w + ix];
          if (v > best || std::isnan(v)) {
            best = v;
            at = iy * p.in_w + ix;
          }
        }
      }
      out[oy * p.out_w + ox] = best;
      if (idx) idx[oy * p.out_w + ox] = at;
    }
}

Tensor max_pool2d(const Tensor& self, IntList kernel, IntList stride, IntList padding, IntList dilation,
                  bool ceil_mode) {
  const Pool2dParams p = pool2d_params("aten::max_pool2d", self, kernel, stride, padding, dilation, ceil_mode);
  return per_plane(self, p.out_sizes, p.planes, p.in_h * p.in_w, p.out_h * p.out_w,
                   [&](const float* in, float* out) { max_pool_plane(p, in, out, nullptr); });
}

// max_pool2d with each maximum's index in its plane, for max_unpool2d (max_pool_plane).
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& self, IntList kernel, IntList stride, IntList padding,
                                                   IntList dilation, bool ceil_mode) {
  const Pool2dParams p =
      pool2d_params("aten::max_pool2d_with_indices", self, kernel, stride, padding, dilation, ceil_mode);
  const Tensor x = self.contiguous();
  Tensor values = empty(p.out_sizes), indices = empty(p.out_sizes, DType::Int64);
  for (int64_t c = 0; c < p.planes; ++c)
    max_pool_plane(p, x.data<float>() + c * p.in_h * p.in_w, values.data<float>() + c * p.out_h * p.out_w,
                   indices.data<int64_t>() + c * p.out_h * p.out_w);
  return {values, indices};
}

Tensor avg_pool2d(const Tensor& self, IntList kernel, IntList stride, IntList padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  const char* op = "aten::avg_pool2d";
  const Pool2dParams p = pool2d_params(op, self, kernel, stride, padding, {1}, ceil_mode);
  TVK_CHECK(!divisor_override || *divisor_override != 0, op, ": divisor_override must be non-zero");
  return per_plane(self, p.out_sizes, p.planes, p.in_h * p.in_w, p.out_h * p.out_w, [&](const float* in, float* out) {
    for (int64_t oy = 0; oy < p.out_h; ++oy)
      for (int64_t ox = 0; ox < p.out_w; ++ox) {
        int64_t y0 = oy * p.stride[0] - p.padding[0], x0 = ox * p.stride[1] - p.padding[1];
        int64_t y1 = std::min(y0 + p.kernel[0], p.in_h + p.padding[0]);
        int64_t x1 = std::min(x0 + p.kernel[1], p.in_w + p.padding[1]);
        const int64_t pool_size = (y1 - y0) * (x1 - x0);  // padding counts, the ceil overhang does not
        y0 = std::max<int64_t>(y0, 0), x0 = std::max<int64_t>(x0, 0);
        y1 = std::min(y1, p.in_h), x1 = std::min(x1, p.in_w);
        double sum = 0;
        for (int64_t iy = y0; iy < y1; ++iy)
          for (int64_t ix = x0; ix < x1; ++ix) sum += in[iy * p.in_w + ix];
        const int64_t divisor = divisor_override ? *divisor_override
                                : count_include_pad ? pool_size
                                                    : (y1 - y0) * (x1 - x0);
        out[oy * p.out_w + ox] = static_cast<float>(sum / static_cast<double>(divisor));
      }
  });
}

Tensor adaptive_avg_pool2d_impl(const char* op, const Tensor& self, const IntList& output_size, bool composite) {
  const AdaptivePool2dParams p = adaptive_pool2d_params(op, self, output_size, composite);
  return per_plane(self, p.out_sizes, p.planes, p.in_h * p.in_w, p.out_h * p.out_w, [&](const float* in, float* out) {
    for (int64_t oy = 0; oy < p.out_h; ++oy)
      for (int64_t ox = 0; ox < p.out_w; ++ox) {
        const int64_t y0 = adaptive_start(oy, p.in_h, p.out_h), y1 = adaptive_end(oy, p.in_h, p.out_h);
        const int64_t x0 = adaptive_start(ox, p.in_w, p.out_w), x1 = adaptive_end(ox, p.in_w, p.out_w);
        double sum = 0;
        for (int64_t iy = y0; iy < y1; ++iy)
          for (int64_t ix = x0; ix < x1; ++ix) sum += in[iy * p.in_w + ix];
        out[oy * p.out_w + ox] = static_cast<float>(sum / static_cast<double>((y1 - y0) * (x1 - x0)));
      }
  });
}
Tensor adaptive_avg_pool2d(const Tensor& self, IntList output_size) {
  return adaptive_avg_pool2d_impl("aten::adaptive_avg_pool2d", self, output_size, true);
}
Tensor adaptive_avg_pool2d_kernel(const Tensor& self, IntList output_size) {
  return adaptive_avg_pool2d_impl("aten::_adaptive_avg_pool2d", self, output_size, false);
}

// Values and int64 indices (flat positions within each H x W plane), as PyTorch returns them.
std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& self, IntList output_size) {
  const AdaptivePool2dParams p = adaptive_pool2d_params("aten::adaptive_max_pool2d", self, output_size);
  const Tensor x = self.contiguous();
  Tensor values = empty(p.out_sizes), indices = empty(p.out_sizes, DType::Int64);
  for (int64_t c = 0; c < p.planes; ++c) {
    const float* in = x.data<float>() + c * p.in_h * p.in_w;
    for (int64_t oy = 0; oy < p.out_h; ++oy)
      for (int64_t ox = 0; ox < p.out_w; ++ox) {
        const int64_t y0 = adaptive_start(oy, p.in_h, p.out_h), y1 = adaptive_end(oy, p.in_h, p.out_h);
        const int64_t x0 = adaptive_start(ox, p.in_w, p.out_w), x1 = adaptive_end(ox, p.in_w, p.out_w);
        float best = -std::numeric_limits<float>::infinity();
        int64_t best_index = y0 * p.in_w + x0;
        for (int64_t iy = y0; iy < y1; ++iy)
          for (int64_t ix = x0; ix < x1; ++ix) {
            const float v = in[iy * p.in_w + ix];
            if (v > best || std::isnan(v)) {
              best = v;
              best_index = iy * p.in_w + ix;
            }
          }
        const int64_t o = (c * p.out_h + oy) * p.out_w + ox;
        values.data<float>()[o] = best;
        indices.data<int64_t>()[o] = best_index;
      }
  }
  return {values, indices};
}

Tensor upsample_nearest(const Upsample2dParams& p, const Tensor& self) {
  return per_plane(self, p.out_sizes, p.planes, p.in_h * p.in_w, p.out_h * p.out_w, [&](const float* in, float* out) {
    for (int64_t oy = 0; oy < p.out_h; ++oy) {
      const int64_t iy = std::min<int64_t>(
          static_cast<int64_t>(std::floor((static_cast<float>(oy) + p.offset) * p.ratio_h)), p.in_h - 1);
      for (int64_t ox = 0; ox < p.out_w; ++ox) {
        const int64_t ix = std::min<int64_t>(
            static_cast<int64_t>(std::floor((static_cast<float>(ox) + p.offset) * p.ratio_w)), p.in_w - 1);
        out[oy * p.out_w + ox] = in[iy * p.in_w + ix];
      }
    }
  });
}
Tensor upsample_nearest2d(const Tensor& self, IntList output_size, std::optional<double> scales_h,
                          std::optional<double> scales_w) {
  return upsample_nearest(upsample_nearest2d_params(self, output_size, scales_h, scales_w), self);
}
Tensor upsample_nearest2d_vec(const Tensor& input, std::optional<IntList> output_size,
                              std::optional<std::vector<double>> scale_factors) {
  return upsample_nearest(upsample_nearest2d_vec_params(input, output_size, scale_factors), input);
}
Tensor upsample_nearest_exact2d(const Tensor& self, IntList output_size, std::optional<double> scales_h,
                                std::optional<double> scales_w) {
  return upsample_nearest(exact(upsample_nearest2d_params(self, output_size, scales_h, scales_w)), self);
}
Tensor upsample_nearest_exact2d_vec(const Tensor& input, std::optional<IntList> output_size,
                                    std::optional<std::vector<double>> scale_factors) {
  return upsample_nearest(exact(upsample_nearest2d_vec_params(input, output_size, scale_factors)), input);
}

// One axis of bilinear sampling: the two source indices and the second one's weight.
struct LinearTap {
  int64_t i0, i1;
  float w1;
};
std::vector<LinearTap> linear_taps(int64_t in, int64_t out, float ratio, bool align_corners) {
  std::vector<LinearTap> taps(static_cast<size_t>(out));
  for (int64_t d = 0; d < out; ++d) {
    float src = align_corners ? ratio * static_cast<float>(d) : ratio * (static_cast<float>(d) + 0.5f) - 0.5f;
    if (src < 0.f) src = 0.f;
    const auto i0 = std::min<int64_t>(static_cast<int64_t>(src), in - 1);
    taps[static_cast<size_t>(d)] = {i0, i0 < in - 1 ? i0 + 1 : i0, src - static_cast<float>(i0)};
  }
  return taps;
}

Tensor upsample_bilinear(const Upsample2dParams& p, const Tensor& self) {
  const auto ys = linear_taps(p.in_h, p.out_h, p.ratio_h, p.align_corners);
  const auto xs = linear_taps(p.in_w, p.out_w, p.ratio_w, p.align_corners);
  return per_plane(self, p.out_sizes, p.planes, p.in_h * p.in_w, p.out_h * p.out_w, [&](const float* in, float* out) {
    for (int64_t oy = 0; oy < p.out_h; ++oy) {
      const LinearTap& y = ys[static_cast<size_t>(oy)];
      for (int64_t ox = 0; ox < p.out_w; ++ox) {
        const LinearTap& x = xs[static_cast<size_t>(ox)];
        const float top = (1.f - x.w1) * in[y.i0 * p.in_w + x.i0] + x.w1 * in[y.i0 * p.in_w + x.i1];
        const float bottom = (1.f - x.w1) * in[y.i1 * p.in_w + x.i0] + x.w1 * in[y.i1 * p.in_w + x.i1];
        out[oy * p.out_w + ox] = (1.f - y.w1) * top + y.w1 * bottom;
      }
    }
  });
}
Tensor upsample_bilinear2d(const Tensor& self, IntList output_size, bool align_corners, std::optional<double> scales_h,
                           std::optional<double> scales_w) {
  return upsample_bilinear(upsample_bilinear2d_params(self, output_size, align_corners, scales_h, scales_w), self);
}
Tensor upsample_bilinear2d_vec(const Tensor& input, std::optional<IntList> output_size, bool align_corners,
                               std::optional<std::vector<double>> scale_factors) {
  return upsample_bilinear(upsample_bilinear2d_vec_params(input, output_size, align_corners, scale_factors), input);
}

}  // namespace

TVK_REGISTER_OP("aten::upsample_bilinear2d(Tensor self, SymInt[2] output_size, bool align_corners, "
                "float? scales_h=None, float? scales_w=None) -> Tensor",
                upsample_bilinear2d);
TVK_REGISTER_OP("aten::upsample_bilinear2d.vec(Tensor input, SymInt[]? output_size, bool align_corners, "
                "float[]? scale_factors) -> Tensor",
                upsample_bilinear2d_vec);
TVK_REGISTER_OP("aten::max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
                "int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)",
                max_pool2d_with_indices);
TVK_REGISTER_OP("aten::max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
                "int[2] dilation=1, bool ceil_mode=False) -> Tensor",
                max_pool2d);
TVK_REGISTER_OP("aten::avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
                "bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor",
                avg_pool2d);
TVK_REGISTER_OP("aten::adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor", adaptive_avg_pool2d);
TVK_REGISTER_OP("aten::_adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor",
                adaptive_avg_pool2d_kernel);
TVK_REGISTER_OP("aten::adaptive_max_pool2d(Tensor self, int[2] output_size) -> (Tensor, Tensor)",
                adaptive_max_pool2d);
TVK_REGISTER_OP("aten::upsample_nearest2d(Tensor self, SymInt[2] output_size, float? scales_h=None, "
                "float? scales_w=None) -> Tensor",
                upsample_nearest2d);
TVK_REGISTER_OP("aten::upsample_nearest2d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors) -> Tensor",
                upsample_nearest2d_vec);
TVK_REGISTER_OP("aten::_upsample_nearest_exact2d(Tensor self, SymInt[2] output_size, float? scales_h=None, "
                "float? scales_w=None) -> Tensor",
                upsample_nearest_exact2d);
TVK_REGISTER_OP("aten::_upsample_nearest_exact2d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors) -> Tensor",
                upsample_nearest_exact2d_vec);

}  // namespace tvk::ops::cpu
