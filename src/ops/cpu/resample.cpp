// Resampling by coordinates: bicubic resize (upsample_bicubic2d) and grid_sample
// (grid_sampler, grid_sampler_2d), as PyTorch's CPU kernels compute them in float32. The Vulkan
// kernels (upsample_bicubic2d.glsl, grid_sample.glsl) follow the same steps.
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "ops/pool_params.h"
#include "ops/registry.h"
#include "ops/shape_utils.h"

namespace tvk::ops::cpu {
namespace {

// Cubic convolution with A = -0.75 over four neighbours, t past the second.
float cubic_near(float x) { return ((-0.75f + 2.f) * x - (-0.75f + 3.f)) * x * x + 1.f; }
float cubic_far(float x) { return ((-0.75f * x - 5.f * -0.75f) * x + 8.f * -0.75f) * x - 4.f * -0.75f; }
float cubic_interp(float x0, float x1, float x2, float x3, float t) {
  return x0 * cubic_far(t + 1.f) + x1 * cubic_near(t) + x2 * cubic_near(1.f - t) + x3 * cubic_far(2.f - t);
}

Tensor bicubic(const Upsample2dParams& p, const Tensor& self) {
  check_float("aten::upsample_bicubic2d", self);
  const Tensor x = self.contiguous();
  Tensor out = empty(p.out_sizes);
  const float* in = x.data<float>();
  float* po = out.data<float>();
  auto at = [&](int64_t c, int64_t iy, int64_t ix) {
    iy = std::clamp<int64_t>(iy, 0, p.in_h - 1);
    ix = std::clamp<int64_t>(ix, 0, p.in_w - 1);
    return in[(c * p.in_h + iy) * p.in_w + ix];
  };
  for (int64_t c = 0; c < p.planes; ++c)
    for (int64_t oy = 0; oy < p.out_h; ++oy) {
      const float ry = p.align_corners ? p.ratio_h * static_cast<float>(oy) : p.ratio_h * (static_cast<float>(oy) + 0.5f) - 0.5f;
      const int64_t iy = std::min(static_cast<int64_t>(std::floor(ry)), p.in_h - 1);
      const float ty = std::clamp(ry - static_cast<float>(iy), 0.f, 1.f);
      for (int64_t ox = 0; ox < p.out_w; ++ox) {
        const float rx = p.align_corners ? p.ratio_w * static_cast<float>(ox) : p.ratio_w * (static_cast<float>(ox) + 0.5f) - 0.5f;
        const int64_t ix = std::min(static_cast<int64_t>(std::floor(rx)), p.in_w - 1);
        const float tx = std::clamp(rx - static_cast<float>(ix), 0.f, 1.f);
        float rows[4];
        for (int i = 0; i < 4; ++i) {
          const int64_t r = iy - 1 + i;
          rows[i] = cubic_interp(at(c, r, ix - 1), at(c, r, ix), at(c, r, ix + 1), at(c, r, ix + 2), tx);
        }
        po[(c * p.out_h + oy) * p.out_w + ox] = cubic_interp(rows[0], rows[1], rows[2], rows[3], ty);
      }
    }
  return out;
}
Tensor upsample_bicubic2d(const Tensor& self, IntList output_size, bool align_corners, std::optional<double> scales_h,
                          std::optional<double> scales_w) {
  check_rank("aten::upsample_bicubic2d", self, 4, 4, "(N, C, H, W)");
  return bicubic(upsample_bilinear2d_params(self, output_size, align_corners, scales_h, scales_w), self);
}
Tensor upsample_bicubic2d_vec(const Tensor& input, std::optional<IntList> output_size, bool align_corners,
                              std::optional<std::vector<double>> scale_factors) {
  check_rank("aten::upsample_bicubic2d.vec", input, 4, 4, "(N, C, H, W)");
  return bicubic(upsample_bilinear2d_vec_params(input, output_size, align_corners, scale_factors), input);
}

float unnormalize(float v, int64_t size, bool align) {
  return align ? (v + 1.f) * 0.5f * static_cast<float>(size - 1) : ((v + 1.f) * static_cast<float>(size) - 1.f) * 0.5f;
}
float reflect_coordinate(float v, float twice_low, float twice_high) {
  if (twice_low == twice_high) return 0.f;
  const float lo = twice_low * 0.5f, span = (twice_high - twice_low) * 0.5f;
  v = std::fabs(v - lo);
  const float extra = std::fmod(v, span);
  const int64_t flips = static_cast<int64_t>(std::floor(v / span));
  return flips % 2 == 0 ? extra + lo : span - extra + lo;
}
float pad_coordinate(const GridSampleParams& p, float v, int64_t size) {
  if (p.padding == 1) return std::clamp(v, 0.f, static_cast<float>(size - 1));
  if (p.padding == 2) {
    v = p.align_corners ? reflect_coordinate(v, 0.f, 2.f * static_cast<float>(size - 1))
                        : reflect_coordinate(v, -1.f, 2.f * static_cast<float>(size) - 1.f);
    return std::clamp(v, 0.f, static_cast<float>(size - 1));
  }
  return v;
}
// A coordinate as an index, or -1 when it is not a finite number inside int64's range.
int64_t index_of(float v) { return std::isfinite(v) && std::fabs(v) < 1e9f ? static_cast<int64_t>(v) : -1 << 30; }

Tensor grid_sampler(const Tensor& input, const Tensor& grid, int64_t mode, int64_t padding, bool align_corners) {
  const GridSampleParams p = grid_sample_params("aten::grid_sampler", input, grid, mode, padding, align_corners);
  const Tensor x = input.contiguous(), gr = grid.contiguous();
  Tensor out = empty({p.n, p.channels, p.out_h, p.out_w});
  const float* in = x.data<float>();
  const float* g = gr.data<float>();
  float* po = out.data<float>();
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t c = 0; c < p.channels; ++c) {
      const float* plane = in + (n * p.channels + c) * p.in_h * p.in_w;
      auto value = [&](int64_t iy, int64_t ix) {
        return iy < 0 || iy >= p.in_h || ix < 0 || ix >= p.in_w ? 0.f : plane[iy * p.in_w + ix];
      };
      auto tap = [&](int64_t iy, int64_t ix) {
        return value(index_of(pad_coordinate(p, static_cast<float>(iy), p.in_h)),
                     index_of(pad_coordinate(p, static_cast<float>(ix), p.in_w)));
      };
      for (int64_t oy = 0; oy < p.out_h; ++oy)
        for (int64_t ox = 0; ox < p.out_w; ++ox) {
          const float* xy = g + ((n * p.out_h + oy) * p.out_w + ox) * 2;
          float r;
          if (p.mode == 2) {
            const float fx = unnormalize(xy[0], p.in_w, p.align_corners), fy = unnormalize(xy[1], p.in_h, p.align_corners);
            const float x0 = std::floor(fx), y0 = std::floor(fy);
            const int64_t ix = index_of(x0), iy = index_of(y0);
            float rows[4];
            for (int i = 0; i < 4; ++i)
              rows[i] = cubic_interp(tap(iy - 1 + i, ix - 1), tap(iy - 1 + i, ix), tap(iy - 1 + i, ix + 1),
                                     tap(iy - 1 + i, ix + 2), fx - x0);
            r = cubic_interp(rows[0], rows[1], rows[2], rows[3], fy - y0);
          } else {
            const float fx = pad_coordinate(p, unnormalize(xy[0], p.in_w, p.align_corners), p.in_w);
            const float fy = pad_coordinate(p, unnormalize(xy[1], p.in_h, p.align_corners), p.in_h);
            if (p.mode == 1) {
              r = value(index_of(std::nearbyint(fy)), index_of(std::nearbyint(fx)));
            } else {
              const float x0 = std::floor(fx), y0 = std::floor(fy);
              const int64_t ix = index_of(x0), iy = index_of(y0);
              const float e = fx - x0, s = fy - y0;
              r = value(iy, ix) * (1.f - e) * (1.f - s) + value(iy, ix + 1) * e * (1.f - s) +
                  value(iy + 1, ix) * (1.f - e) * s + value(iy + 1, ix + 1) * e * s;
            }
          }
          po[((n * p.channels + c) * p.out_h + oy) * p.out_w + ox] = r;
        }
    }
  return out;
}

}  // namespace

TVK_REGISTER_OP("aten::upsample_bicubic2d(Tensor self, SymInt[2] output_size, bool align_corners, float? scales_h=None, "
                "float? scales_w=None) -> Tensor",
                upsample_bicubic2d);
TVK_REGISTER_OP("aten::upsample_bicubic2d.vec(Tensor input, SymInt[]? output_size, bool align_corners, "
                "float[]? scale_factors) -> Tensor",
                upsample_bicubic2d_vec);
TVK_REGISTER_OP("aten::grid_sampler(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, "
                "bool align_corners) -> Tensor",
                grid_sampler);
TVK_REGISTER_OP("aten::grid_sampler_2d(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, "
                "bool align_corners) -> Tensor",
                grid_sampler);

}  // namespace tvk::ops::cpu
