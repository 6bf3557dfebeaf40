// Ops made of other registered ops, one kernel for both devices: each dispatches on its inputs
// through the ops it calls, so on Vulkan every step is a Vulkan kernel. The 1-D pools as the 2-D
// ones over a height of 1; group and instance norm as layer_norm over each group's values and a
// per-channel affine; pixel (un)shuffle as a reshape, a permute and a reshape; flip and the
// reflection and replication pads as gathers of rows (ops/index_plan.h); glu, prelu, split,
// split_with_sizes and narrow from slices and activations; lerp, baddbmm, var and std (and
// var_mean, std_mean), tile and
// the in-place gelu_, lerp_ and zero_ from arithmetic, repeat and copy_; max.dim and min.dim as
// amax (amin) and argmax (argmin).
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <tuple>

#include "ops/index_plan.h"
#include "ops/registry.h"
#include "ops/shape_utils.h"
#include "tvk/ops.h"

namespace tvk::ops {
namespace {

// ---- 1-D pools --------------------------------------------------------------------------------

// (N, C, L) or (C, L) as (N, C, 1, L) or (C, 1, L); the single value of a 1-D list argument.
Tensor with_unit_height(const char* op, const Tensor& self) {
  check_defined(op, self);
  TVK_CHECK(self.dim() == 2 || self.dim() == 3, op, ": expected 2-D or 3-D (batched) input, but got input of size ",
            self.shape_string());
  return unsqueeze(self, -2);
}
Tensor without_unit_height(const Tensor& out) {
  IntList sizes = out.sizes();
  sizes.erase(sizes.end() - 2);
  return reshape(out, sizes);
}
// f(), its errors prefixed with `op` where the op that threw is another (the 2-D pool a 1-D one
// runs), so the message names the op the model called.
template <typename F>
auto in_op(const char* op, F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    if (std::string(e.what()).rfind(op, 0) == 0) throw;
    rethrow_with_context(e, op);
  }
}
int64_t one_value(const char* op, const char* arg, const IntList& v) {
  TVK_CHECK(v.size() == 1, op, ": '", arg, "' must be a single int, got ", shape_string(v));
  return v[0];
}

Tensor max_pool1d(const Tensor& self, IntList kernel_size, IntList stride, IntList padding, IntList dilation,
                  bool ceil_mode) {
  const char* op = "aten::max_pool1d";
  const int64_t k = one_value(op, "kernel_size", kernel_size);
  const IntList s = stride.empty() ? IntList{} : IntList{1, one_value(op, "stride", stride)};
  const IntList p{0, one_value(op, "padding", padding)}, d{1, one_value(op, "dilation", dilation)};
  const Tensor x = with_unit_height(op, self);
  return without_unit_height(in_op(op, [&] { return max_pool2d(x, {1, k}, s.empty() ? IntList{1, k} : s, p, d, ceil_mode); }));
}
Tensor avg_pool1d(const Tensor& self, IntList kernel_size, IntList stride, IntList padding, bool ceil_mode,
                  bool count_include_pad) {
  const char* op = "aten::avg_pool1d";
  const int64_t k = one_value(op, "kernel_size", kernel_size);
  const IntList s = stride.empty() ? IntList{1, k} : IntList{1, one_value(op, "stride", stride)};
  const IntList p{0, one_value(op, "padding", padding)};
  const Tensor x = with_unit_height(op, self);
  return without_unit_height(in_op(op, [&] { return avg_pool2d(x, {1, k}, s, p, ceil_mode, count_include_pad); }));
}
Tensor adaptive_avg_pool1d(const Tensor& self, IntList output_size) {
  const char* op = "aten::adaptive_avg_pool1d";
  const Tensor x = with_unit_height(op, self);
  const int64_t o = one_value(op, "output_size", output_size);
  return without_unit_height(in_op(op, [&] { return adaptive_avg_pool2d(x, {1, o}); }));
}
std::tuple<Tensor, Tensor> adaptive_max_pool1d(const Tensor& self, IntList output_size) {
  const char* op = "aten::adaptive_max_pool1d";
  const Tensor x = with_unit_height(op, self);
  const int64_t o = one_value(op, "output_size", output_size);
  auto [values, indices] = in_op(op, [&] { return adaptive_max_pool2d(x, {1, o}); });
  return {without_unit_height(values), without_unit_height(indices)};
}

// ---- 3-D pools: separable, a 2-D pool over (H, W), then one over D --------------------------------
// A max or average over a box is the max or average over its depth of the (H, W) window's; each
// dimension's padding, stride, dilation and ceil mode act on that dimension alone, and so does
// the count an average divides by (its window's size, with or without padding).

struct Pool3dShape {
  bool unbatched = false;
  int64_t n = 1, c = 0, d = 0, h = 0, w = 0;
};
Pool3dShape pool3d_shape(const char* op, const Tensor& self) {
  check_defined(op, self);
  TVK_CHECK(self.dim() == 4 || self.dim() == 5, op, ": expected 4D or 5D (batch mode) tensor for input, got ",
            self.shape_string());
  Pool3dShape s;
  s.unbatched = self.dim() == 4;
  const IntList& z = self.sizes();
  const size_t o = s.unbatched ? 0 : 1;
  s.n = s.unbatched ? 1 : z[0];
  s.c = z[o];
  s.d = z[o + 1];
  s.h = z[o + 2];
  s.w = z[o + 3];
  return s;
}
IntList three_values(const char* op, const char* arg, const IntList& v, int64_t fallback) {
  return v.empty() ? IntList{fallback, fallback, fallback} : expand_triple(op, arg, v);
}
// pool_hw on (N, C * D, H, W), then pool_d on (N, C, D, H_out * W_out); back to self's rank.
template <typename PoolHW, typename PoolD>
Tensor separable_pool3d(const char* op, const Tensor& self, PoolHW&& pool_hw, PoolD&& pool_d) {
  const Pool3dShape s = pool3d_shape(op, self);
  const Tensor planes = in_op(op, [&] { return pool_hw(reshape(self, {s.n, s.c * s.d, s.h, s.w})); });
  const int64_t oh = planes.sizes()[2], ow = planes.sizes()[3];
  const Tensor depth = in_op(op, [&] { return pool_d(reshape(planes, {s.n, s.c, s.d, oh * ow})); });
  const int64_t od = depth.sizes()[2];
  return s.unbatched ? reshape(depth, {s.c, od, oh, ow}) : reshape(depth, {s.n, s.c, od, oh, ow});
}

Tensor max_pool3d(const Tensor& self, IntList kernel_size, IntList stride, IntList padding, IntList dilation,
                  bool ceil_mode) {
  const char* op = "aten::max_pool3d";
  const IntList k = three_values(op, "kernel_size", kernel_size, 1);
  const IntList st = stride.empty() ? k : three_values(op, "stride", stride, 1);
  const IntList p = three_values(op, "padding", padding, 0), d = three_values(op, "dilation", dilation, 1);
  return separable_pool3d(
      op, self, [&](const Tensor& x) { return max_pool2d(x, {k[1], k[2]}, {st[1], st[2]}, {p[1], p[2]}, {d[1], d[2]}, ceil_mode); },
      [&](const Tensor& x) { return max_pool2d(x, {k[0], 1}, {st[0], 1}, {p[0], 0}, {d[0], 1}, ceil_mode); });
}

Tensor avg_pool3d(const Tensor& self, IntList kernel_size, IntList stride, IntList padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  const char* op = "aten::avg_pool3d";
  const IntList k = three_values(op, "kernel_size", kernel_size, 1);
  const IntList st = stride.empty() ? k : three_values(op, "stride", stride, 1);
  const IntList p = three_values(op, "padding", padding, 0);
  if (divisor_override) TVK_CHECK(*divisor_override != 0, op, ": divisor must be not zero");
  // With a divisor override: the box's sum (the first pool divides by 1) over the override.
  const std::optional<int64_t> first = divisor_override ? std::optional<int64_t>(1) : std::nullopt;
  return separable_pool3d(
      op, self,
      [&](const Tensor& x) {
        return avg_pool2d(x, {k[1], k[2]}, {st[1], st[2]}, {p[1], p[2]}, ceil_mode, count_include_pad, first);
      },
      [&](const Tensor& x) {
        return avg_pool2d(x, {k[0], 1}, {st[0], 1}, {p[0], 0}, ceil_mode, count_include_pad, divisor_override);
      });
}

Tensor adaptive_avg_pool3d(const Tensor& self, IntList output_size) {
  const char* op = "aten::adaptive_avg_pool3d";
  TVK_CHECK(output_size.size() == 3, op, ": output_size must be 3, got ", shape_string(output_size));
  return separable_pool3d(
      op, self, [&](const Tensor& x) { return adaptive_avg_pool2d(x, {output_size[1], output_size[2]}); },
      [&](const Tensor& x) { return adaptive_avg_pool2d(x, {output_size[0], x.sizes()[3]}); });
}

// ---- 1-D and 3-D resizing through the 2-D kernels -----------------------------------------------
// Nearest and linear resizing act on each dimension alone, so a 1-D resize is the 2-D one over a
// height of 1 (kept at 1, scale 1), and a 3-D one a 2-D resize over (H, W) and then one over
// (D, H_out * W_out) with the second dimension kept (scale 1: each output reads its own input).

IValue opt_scale(std::optional<double> s) { return s ? IValue(*s) : IValue(); }

// mode: "nearest", "nearest-exact" or "linear"; sizes and scales of the 1 or 3 resized dims (scales may be unset).
Tensor resize_by_2d(const char* op, const Tensor& self, const std::string& mode, bool align_corners,
                    const IntList& sizes, const std::vector<std::optional<double>>& scales) {
  check_defined(op, self);
  auto two_d = [&](const Tensor& x, IntList size, std::optional<double> sh, std::optional<double> sw) {
    if (mode == "nearest" || mode == "nearest-exact")
      return call(mode == "nearest" ? "aten::upsample_nearest2d" : "aten::_upsample_nearest_exact2d",
                  {IValue(x), IValue(size), opt_scale(sh), opt_scale(sw)})
          .toTensor();
    return call("aten::upsample_bilinear2d", {IValue(x), IValue(size), IValue(align_corners), opt_scale(sh), opt_scale(sw)})
        .toTensor();
  };
  const int64_t spatial = static_cast<int64_t>(sizes.size());
  TVK_CHECK(self.dim() == spatial + 2, op, ": expected a ", spatial + 2, "-D input (N, C, ",
            spatial == 1 ? "L" : "D, H, W", "), got ", self.shape_string());
  for (int64_t s : sizes) TVK_CHECK(s > 0, op, ": output sizes must be positive, got ", shape_string(sizes));
  const IntList& in = self.sizes();
  return in_op(op, [&] {
    if (spatial == 1) {
      const Tensor y = two_d(unsqueeze(self, 2), {1, sizes[0]}, 1.0, scales[0]);
      return reshape(y, {in[0], in[1], sizes[0]});
    }
    const Tensor planes = two_d(reshape(self, {in[0], in[1] * in[2], in[3], in[4]}), {sizes[1], sizes[2]}, scales[1], scales[2]);
    const int64_t hw = sizes[1] * sizes[2];
    const Tensor depth = two_d(reshape(planes, {in[0], in[1], in[2], hw}), {sizes[0], hw}, scales[0], 1.0);
    return reshape(depth, {in[0], in[1], sizes[0], sizes[1], sizes[2]});
  });
}

// The .vec overloads: exactly one of output_size and scale_factors; sizes from scales floor(in * s),
// and the scales passed on as PyTorch passes them.
Tensor resize_vec(const char* op, const Tensor& input, const std::optional<IntList>& output_size,
                  const std::optional<std::vector<double>>& scale_factors, const std::string& mode, bool align_corners,
                  size_t spatial) {
  check_defined(op, input, "input");
  TVK_CHECK(output_size.has_value() != scale_factors.has_value(), op,
            ": must specify exactly one of output_size and scale_factors");
  TVK_CHECK(input.dim() == static_cast<int64_t>(spatial) + 2, op, ": expected a ", spatial + 2, "-D input, got ",
            input.shape_string());
  IntList sizes;
  std::vector<std::optional<double>> scales(spatial);
  if (output_size) {
    TVK_CHECK(output_size->size() == spatial, op, ": output_size must have ", spatial, " values");
    sizes = *output_size;
  } else {
    TVK_CHECK(scale_factors->size() == spatial, op, ": scale_factors must have ", spatial, " values");
    for (size_t i = 0; i < spatial; ++i) {
      sizes.push_back(static_cast<int64_t>(std::floor(static_cast<double>(input.sizes()[i + 2]) * (*scale_factors)[i])));
      scales[i] = (*scale_factors)[i];
    }
  }
  return resize_by_2d(op, input, mode, align_corners, sizes, scales);
}

Tensor upsample_nearest1d(const Tensor& self, IntList output_size, std::optional<double> scales) {
  return resize_by_2d("aten::upsample_nearest1d", self, "nearest", false, output_size, {scales});
}
Tensor upsample_nearest1d_vec(const Tensor& input, std::optional<IntList> size, std::optional<std::vector<double>> scales) {
  return resize_vec("aten::upsample_nearest1d", input, size, scales, "nearest", false, 1);
}
Tensor upsample_nearest_exact1d(const Tensor& self, IntList output_size, std::optional<double> scales) {
  return resize_by_2d("aten::_upsample_nearest_exact1d", self, "nearest-exact", false, output_size, {scales});
}
Tensor upsample_nearest_exact1d_vec(const Tensor& input, std::optional<IntList> size,
                                    std::optional<std::vector<double>> scales) {
  return resize_vec("aten::_upsample_nearest_exact1d", input, size, scales, "nearest-exact", false, 1);
}
Tensor upsample_nearest_exact3d(const Tensor& self, IntList output_size, std::optional<double> sd,
                                std::optional<double> sh, std::optional<double> sw) {
  return resize_by_2d("aten::_upsample_nearest_exact3d", self, "nearest-exact", false, output_size, {sd, sh, sw});
}
Tensor upsample_nearest_exact3d_vec(const Tensor& input, std::optional<IntList> size,
                                    std::optional<std::vector<double>> scales) {
  return resize_vec("aten::_upsample_nearest_exact3d", input, size, scales, "nearest-exact", false, 3);
}
Tensor upsample_linear1d(const Tensor& self, IntList output_size, bool align_corners, std::optional<double> scales) {
  return resize_by_2d("aten::upsample_linear1d", self, "linear", align_corners, output_size, {scales});
}
Tensor upsample_linear1d_vec(const Tensor& input, std::optional<IntList> size, bool align_corners,
                             std::optional<std::vector<double>> scales) {
  return resize_vec("aten::upsample_linear1d", input, size, scales, "linear", align_corners, 1);
}
Tensor upsample_nearest3d(const Tensor& self, IntList output_size, std::optional<double> sd, std::optional<double> sh,
                          std::optional<double> sw) {
  return resize_by_2d("aten::upsample_nearest3d", self, "nearest", false, output_size, {sd, sh, sw});
}
Tensor upsample_nearest3d_vec(const Tensor& input, std::optional<IntList> size, std::optional<std::vector<double>> scales) {
  return resize_vec("aten::upsample_nearest3d", input, size, scales, "nearest", false, 3);
}
Tensor upsample_trilinear3d(const Tensor& self, IntList output_size, bool align_corners, std::optional<double> sd,
                            std::optional<double> sh, std::optional<double> sw) {
  return resize_by_2d("aten::upsample_trilinear3d", self, "linear", align_corners, output_size, {sd, sh, sw});
}
Tensor upsample_trilinear3d_vec(const Tensor& input, std::optional<IntList> size, bool align_corners,
                                std::optional<std::vector<double>> scales) {
  return resize_vec("aten::upsample_trilinear3d", input, size, scales, "linear", align_corners, 3);
}

// ---- im2col (F.unfold): each kernel tap's strided view of the padded input, stacked ------------

Tensor im2col(const Tensor& self, IntList kernel_size, IntList dilation, IntList padding, IntList stride) {
  const char* op = "aten::im2col";
  check_defined(op, self);
  TVK_CHECK(self.dim() == 3 || self.dim() == 4, op, ": expected 3D or 4D (batch mode) tensor for input, got ",
            self.shape_string());
  const auto k = expand_pair(op, "kernel_size", kernel_size), d = expand_pair(op, "dilation", dilation);
  const auto p = expand_pair(op, "padding", padding), s = expand_pair(op, "stride", stride);
  TVK_CHECK(k[0] > 0 && k[1] > 0 && d[0] > 0 && d[1] > 0 && s[0] > 0 && s[1] > 0 && p[0] >= 0 && p[1] >= 0, op,
            ": kernel size, dilation and stride must be positive and padding non-negative");
  const Tensor x = self.dim() == 3 ? unsqueeze(self, 0) : self;
  const int64_t n = x.sizes()[0], c = x.sizes()[1];
  const int64_t out_h = (x.sizes()[2] + 2 * p[0] - d[0] * (k[0] - 1) - 1) / s[0] + 1;
  const int64_t out_w = (x.sizes()[3] + 2 * p[1] - d[1] * (k[1] - 1) - 1) / s[1] + 1;
  TVK_CHECK(out_h > 0 && out_w > 0, op, ": given input with spatial size ", shape_string({x.sizes()[2], x.sizes()[3]}),
            ", kernel_size ", shape_string({k[0], k[1]}), ", dilation, padding and stride, the calculated shape of the "
            "array of sliding blocks is ", out_h, " x ", out_w, ", but its components must be at least one");
  const Tensor padded = p[0] || p[1] ? call("aten::constant_pad_nd", {IValue(x), IValue(IntList{p[1], p[1], p[0], p[0]}),
                                                                      IValue(0.0)}).toTensor()
                                     : x;
  std::vector<IValue> taps;
  for (int64_t i = 0; i < k[0]; ++i)
    for (int64_t j = 0; j < k[1]; ++j) {
      const Tensor rows = slice(padded, 2, i * d[0], i * d[0] + s[0] * (out_h - 1) + 1, s[0]);
      taps.emplace_back(slice(rows, 3, j * d[1], j * d[1] + s[1] * (out_w - 1) + 1, s[1]));
    }
  // (N, C, kh * kw, H_out, W_out): channel-major, then the kernel tap, as PyTorch orders them.
  const Tensor stacked = call("aten::stack", {IValue::list(std::move(taps)), IValue(int64_t{2})}).toTensor();
  const Tensor cols = reshape(stacked, {n, c * k[0] * k[1], out_h * out_w});
  return self.dim() == 3 ? reshape(cols, {c * k[0] * k[1], out_h * out_w}) : cols;
}

// ---- group and instance norm ------------------------------------------------------------------

// weight and bias of [C] applied to x (N, C, *) channel by channel.
Tensor channel_affine(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  IntList shape(static_cast<size_t>(x.dim() - 1), 1);
  shape[0] = x.sizes()[1];
  Tensor y = x;
  if (weight.defined()) y = mul(y, reshape(weight, shape));
  if (bias.defined()) y = add(y, reshape(bias, shape));
  return y;
}

void check_channel_param(const char* op, const Tensor& t, const char* arg, int64_t channels) {
  if (!t.defined()) return;
  TVK_CHECK(t.dim() == 1 && t.numel() == channels, op, ": expected ", arg, " to be a vector of size ", channels,
            ", got ", t.shape_string());
}

Tensor group_norm_impl(const char* op, const Tensor& input, int64_t groups, const Tensor& weight, const Tensor& bias,
                       double eps) {
  check_defined(op, input, "input");
  TVK_CHECK(input.dim() >= 2, op, ": expected at least 2 dimensions for input tensor but received ", input.dim());
  const int64_t n = input.sizes()[0], c = input.sizes()[1];
  TVK_CHECK(groups > 0 && c % groups == 0, op,
            ": expected number of channels in input to be divisible by num_groups, but got input of shape ",
            input.shape_string(), " and num_groups=", groups);
  check_channel_param(op, weight, "weight", c);
  check_channel_param(op, bias, "bias", c);
  const int64_t per_group = input.numel() / std::max<int64_t>(n * groups, 1);
  const Tensor normed = layer_norm(reshape(input, {n, groups, per_group}), {per_group}, {}, {}, eps);
  return channel_affine(reshape(normed, input.sizes()), weight, bias);
}

Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight, const Tensor& bias, double eps, bool) {
  return group_norm_impl("aten::group_norm", input, num_groups, weight, bias, eps);
}

// Statistics of each (sample, channel) plane, or the running ones when use_input_stats is false
// (a model whose InstanceNorm tracks them, in eval()).
Tensor instance_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                     const Tensor& running_var, bool use_input_stats, double momentum, double eps, bool) {
  const char* op = "aten::instance_norm";
  check_defined(op, input, "input");
  TVK_CHECK(input.dim() >= 3, op, ": expected an input of at least 3 dimensions (N, C, *), got ", input.shape_string());
  if (!use_input_stats) {
    TVK_CHECK(running_mean.defined() && running_var.defined(), op,
              ": expected running_mean and running_var to be defined when use_input_stats is false");
    return batch_norm(input, weight, bias, running_mean, running_var, false, momentum, eps);
  }
  return group_norm_impl(op, input, input.sizes()[1], weight, bias, eps);
}

// ---- pixel shuffle ----------------------------------------------------------------------------

// (*, C r^2, H, W) -> (*, C, H r, W r): viewed as (B, C, r, r, H, W), permuted to (B, C, H, r, W, r).
Tensor pixel_shuffle(const Tensor& self, int64_t r) {
  const char* op = "aten::pixel_shuffle";
  check_defined(op, self);
  TVK_CHECK(self.dim() >= 3, op, ": pixel_shuffle expects input to have at least 3 dimensions, but got input with ",
            self.dim(), " dimension(s)");
  TVK_CHECK(r > 0, op, ": pixel_shuffle expects a positive upscale_factor, but got ", r);
  const IntList& s = self.sizes();
  const int64_t rank = self.dim(), c = s[rank - 3], h = s[rank - 2], w = s[rank - 1];
  TVK_CHECK(c % (r * r) == 0, op, ": pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, but input.size(-3)=",
            c, " is not divisible by ", r * r);
  const int64_t b = self.numel() / std::max<int64_t>(c * h * w, 1), oc = c / (r * r);
  const Tensor x = permute(reshape(self, {b, oc, r, r, h, w}), {0, 1, 4, 2, 5, 3});
  IntList out(s.begin(), s.end() - 3);
  out.insert(out.end(), {oc, h * r, w * r});
  return reshape(x, out);
}

// (*, C, H r, W r) -> (*, C r^2, H, W): viewed as (B, C, H, r, W, r), permuted to (B, C, r, r, H, W).
Tensor pixel_unshuffle(const Tensor& self, int64_t r) {
  const char* op = "aten::pixel_unshuffle";
  check_defined(op, self);
  TVK_CHECK(self.dim() >= 3, op, ": pixel_unshuffle expects input to have at least 3 dimensions, but got input with ",
            self.dim(), " dimension(s)");
  TVK_CHECK(r > 0, op, ": pixel_unshuffle expects a positive downscale_factor, but got ", r);
  const IntList& s = self.sizes();
  const int64_t rank = self.dim(), c = s[rank - 3], h = s[rank - 2], w = s[rank - 1];
  TVK_CHECK(h % r == 0 && w % r == 0, op, ": pixel_unshuffle expects height and width to be divisible by downscale_factor, but got ",
            h, " x ", w, " and ", r);
  const int64_t b = self.numel() / std::max<int64_t>(c * h * w, 1);
  const Tensor x = permute(reshape(self, {b, c, h / r, r, w / r, r}), {0, 1, 3, 5, 2, 4});
  IntList out(s.begin(), s.end() - 3);
  out.insert(out.end(), {c * r * r, h / r, w / r});
  return reshape(x, out);
}

// ---- rows moved by a map: flip and the non-constant pads --------------------------------------

Tensor flip(const Tensor& self, IntList dims) { return run_gathers(self, flip_plan("aten::flip", self, dims)); }

// reflection_padNd / replication_padNd: `n` padded dims, input of rank n + 1 (unbatched) or n + 2.
template <int N>
Tensor mode_pad(const char* op, const Tensor& self, const IntList& padding, const char* mode) {
  check_defined(op, self);
  TVK_CHECK(static_cast<int>(padding.size()) == 2 * N, op, ": padding size is expected to be ", 2 * N, ", but got: ",
            padding.size());
  TVK_CHECK(self.dim() == N + 1 || self.dim() == N + 2, op, ": expected ", N + 1, "D or ", N + 2,
            "D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but got: ",
            self.shape_string());
  return run_gathers(self, pad_plan_by_rows(op, self, padding, mode));
}
Tensor reflection_pad1d(const Tensor& self, IntList p) { return mode_pad<1>("aten::reflection_pad1d", self, p, "reflect"); }
Tensor reflection_pad2d(const Tensor& self, IntList p) { return mode_pad<2>("aten::reflection_pad2d", self, p, "reflect"); }
Tensor reflection_pad3d(const Tensor& self, IntList p) { return mode_pad<3>("aten::reflection_pad3d", self, p, "reflect"); }
Tensor replication_pad1d(const Tensor& self, IntList p) { return mode_pad<1>("aten::replication_pad1d", self, p, "replicate"); }
Tensor replication_pad2d(const Tensor& self, IntList p) { return mode_pad<2>("aten::replication_pad2d", self, p, "replicate"); }
Tensor replication_pad3d(const Tensor& self, IntList p) { return mode_pad<3>("aten::replication_pad3d", self, p, "replicate"); }

// ---- slices and gates -------------------------------------------------------------------------

// a * sigmoid(b) for the two halves a, b of `dim`.
Tensor glu(const Tensor& self, int64_t dim) {
  const char* op = "aten::glu";
  check_defined(op, self);
  TVK_CHECK(self.dim() > 0, op, ": glu does not support scalars because halving size must be even");
  const int64_t d = wrap_dim(op, dim, self.dim()), n = self.sizes()[static_cast<size_t>(d)];
  TVK_CHECK(n % 2 == 0, op, ": Halving dimension must be even, but dimension ", d, " is size ", n);
  return mul(slice(self, d, 0, n / 2), sigmoid(slice(self, d, n / 2, n)));
}

// max(x, 0) + weight * min(x, 0), weight one value or one per channel (dim 1).
Tensor prelu(const Tensor& self, const Tensor& weight) {
  const char* op = "aten::prelu";
  check_defined(op, self);
  check_defined(op, weight, "weight");
  const int64_t channels = self.dim() >= 2 ? self.sizes()[1] : 1;
  TVK_CHECK(weight.numel() == 1 || (weight.dim() == 1 && weight.numel() == channels), op,
            ": mismatch of parameter numbers and input channel size. Found parameter numbers = ", weight.numel(),
            " and channel size = ", channels, ".");
  IntList shape(static_cast<size_t>(std::max<int64_t>(self.dim() - 1, 0)), 1);
  if (!shape.empty()) shape[0] = weight.numel();
  const Tensor w = self.dim() == 0 ? reshape(weight, {}) : reshape(weight, shape);
  return add(relu(self), mul(clamp(self, std::nullopt, 0.0), w));
}

std::vector<Tensor> split_with_sizes(const Tensor& self, IntList sizes, int64_t dim) {
  const char* op = "aten::split_with_sizes";
  check_defined(op, self);
  TVK_CHECK(self.dim() > 0, op, ": split expects at least a 1-dimensional tensor");
  const int64_t d = wrap_dim(op, dim, self.dim()), n = self.sizes()[static_cast<size_t>(d)];
  int64_t total = 0;
  for (int64_t s : sizes) {
    TVK_CHECK(s >= 0, op, ": split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=",
              shape_string(sizes));
    total += s;
  }
  TVK_CHECK(total == n, op, ": split_with_sizes expects split_sizes to sum exactly to ", n,
            " (input tensor's size at dimension ", d, "), but got split_sizes=", shape_string(sizes));
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t s : sizes) {
    out.push_back(slice(self, d, start, start + s));
    start += s;
  }
  return out;
}

// Pieces of split_size along dim, the last one smaller.
std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim) {
  const char* op = "aten::split";
  check_defined(op, self);
  TVK_CHECK(self.dim() > 0, op, ": split expects at least a 1-dimensional tensor");
  TVK_CHECK(split_size >= 0, op, ": split expects split_size be non-negative, but got split_size=", split_size);
  const int64_t d = wrap_dim(op, dim, self.dim()), n = self.sizes()[static_cast<size_t>(d)];
  TVK_CHECK(split_size > 0 || n == 0, op, ": split_size can only be 0 if dimension size is 0, but got dimension size of ", n);
  IntList sizes;
  if (n == 0) sizes.push_back(0);
  for (int64_t start = 0; start < n; start += split_size) sizes.push_back(std::min(split_size, n - start));
  return split_with_sizes(self, sizes, d);
}

// ---- squeeze and broadcast_tensors ------------------------------------------------------------

// self without the size-1 dims in `dims` (all of them when none are given): a view on the CPU,
// the same buffer reshaped on Vulkan.
Tensor squeeze_dims(const char* op, const Tensor& self, const std::optional<IntList>& dims) {
  check_defined(op, self);
  std::vector<bool> drop(static_cast<size_t>(self.dim()), !dims);
  if (dims)
    for (int64_t d : *dims) {
      const int64_t w = wrap_dim(op, d, std::max<int64_t>(self.dim(), 1));
      if (self.dim() > 0) drop[static_cast<size_t>(w)] = true;
    }
  IntList sizes, strides;
  for (int64_t i = 0; i < self.dim(); ++i) {
    if (drop[static_cast<size_t>(i)] && self.sizes()[static_cast<size_t>(i)] == 1) continue;
    sizes.push_back(self.sizes()[static_cast<size_t>(i)]);
    strides.push_back(self.strides()[static_cast<size_t>(i)]);
  }
  if (self.device() != Device::CPU) return reshape(self, sizes);
  return as_strided(self, sizes, strides, self.storage_offset());
}
Tensor squeeze(const Tensor& self) { return squeeze_dims("aten::squeeze", self, std::nullopt); }
Tensor squeeze_dim(const Tensor& self, int64_t dim) { return squeeze_dims("aten::squeeze", self, IntList{dim}); }
Tensor squeeze_list(const Tensor& self, IntList dims) { return squeeze_dims("aten::squeeze", self, dims); }

std::vector<Tensor> broadcast_tensors(std::vector<Tensor> tensors) {
  const char* op = "aten::broadcast_tensors";
  IntList shape;
  for (const Tensor& t : tensors) {
    check_defined(op, t, "tensors");
    shape = broadcast_shapes(op, shape, t.sizes());
  }
  std::vector<Tensor> out;
  for (const Tensor& t : tensors) out.push_back(expand(t, shape));
  return out;
}

// ---- PyTorch's Vulkan op set: aliases and compositions ----------------------------------------

Tensor expand_as(const Tensor& self, const Tensor& other) {
  check_defined("aten::expand_as", other, "other");
  return expand(self, other.sizes());
}

// self + weight * (end - self).
Tensor lerp_tensor(const Tensor& self, const Tensor& end, const Tensor& weight) {
  check_defined("aten::lerp", weight, "weight");
  return add(self, mul(weight, sub(end, self)));
}
Tensor lerp_scalar(const Tensor& self, const Tensor& end, double weight) { return add(self, mul(sub(end, self), weight)); }
// In-place forms through copy_, which reaches what self views.
Tensor assign(const Tensor& self, const Tensor& value) {
  return call("aten::copy_", {IValue(self), IValue(value), IValue(false)}).toTensor();
}
Tensor lerp_tensor_(const Tensor& self, const Tensor& end, const Tensor& weight) {
  return assign(self, lerp_tensor(self, end, weight));
}
Tensor lerp_scalar_(const Tensor& self, const Tensor& end, double weight) {
  return assign(self, lerp_scalar(self, end, weight));
}
Tensor gelu_(const Tensor& self, std::string approximate) { return assign(self, gelu(self, approximate)); }
Tensor zero_(const Tensor& self) {
  return call("aten::fill_.Scalar", {IValue(self), IValue(0.0)}).toTensor();
}

// value: a 0-D tensor (read on the host).
Tensor masked_fill_tensor(const Tensor& self, const Tensor& mask, const Tensor& value) {
  const char* op = "aten::masked_fill";
  check_defined(op, value, "value");
  TVK_CHECK(value.dim() == 0, op, ": only supports a 0-dimensional value tensor, but got tensor with ", value.dim(),
            " dimension(s).");
  return call("aten::masked_fill.Scalar", {IValue(self), IValue(mask), IValue(value.item())}).toTensor();
}

// In place: the mask must broadcast to self's shape (self keeps its shape, as in PyTorch).
Tensor masked_fill_scalar_(const Tensor& self, const Tensor& mask, double value) {
  const Tensor filled = call("aten::masked_fill.Scalar", {IValue(self), IValue(mask), IValue(value)}).toTensor();
  TVK_CHECK(filled.sizes() == self.sizes(), "aten::masked_fill_: the mask ", mask.shape_string(),
            " does not broadcast to self ", self.shape_string());
  return assign(self, filled);
}
Tensor masked_fill_tensor_(const Tensor& self, const Tensor& mask, const Tensor& value) {
  return assign(self, masked_fill_tensor(self, mask, value));
}

// beta * self + alpha * (batch1 @ batch2); with beta 0, self is not read (its NaNs do not reach
// the result), as PyTorch.
Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, double beta, double alpha) {
  check_defined("aten::baddbmm", self);
  Tensor product = bmm(batch1, batch2);
  TVK_CHECK(broadcast_shapes("aten::baddbmm", self.sizes(), product.sizes()) == product.sizes(),
            "aten::baddbmm: self of shape ", self.shape_string(), " does not broadcast to the product's ",
            product.shape_string());
  if (alpha != 1.0) product = mul(product, alpha);
  if (beta == 0.0) {
    broadcast_shapes("aten::baddbmm", self.sizes(), product.sizes());
    return product;
  }
  return add(product, beta == 1.0 ? self : mul(self, beta));
}

Tensor softmax_internal(const Tensor& self, int64_t dim, bool half_to_float) {
  TVK_CHECK(!half_to_float, "aten::_softmax: half_to_float is not supported (tvk computes in float32)");
  return softmax(self, dim);
}
Tensor log_softmax_internal(const Tensor& self, int64_t dim, bool half_to_float) {
  TVK_CHECK(!half_to_float, "aten::_log_softmax: half_to_float is not supported (tvk computes in float32)");
  return log_softmax(self, dim);
}

// tile: repeat with the repeats left-padded with ones to self's rank.
Tensor tile(const Tensor& self, IntList dims) {
  check_defined("aten::tile", self);
  while (static_cast<int64_t>(dims.size()) < self.dim()) dims.insert(dims.begin(), 1);
  return call("aten::repeat", {IValue(self), IValue(dims)}).toTensor();
}

// A tracer's alias of reshape (the strides it records are those of a contiguous result).
Tensor reshape_alias(const Tensor& self, IntList size, IntList) { return reshape(self, size); }

// The variance over `dims` (all when None) with `correction` subtracted from the count:
// mean((x - mean(x))^2) * n / (n - correction).
// `mean_out`, when given, receives the mean over `dims` with those dims kept.
Tensor variance(const char* op, const Tensor& self, const std::optional<IntList>& dims, double correction, bool keepdim,
                Tensor* mean_out = nullptr) {
  check_defined(op, self);
  check_float(op, self);
  IntList d = dims.value_or(IntList{});
  if (d.empty())
    for (int64_t i = 0; i < self.dim(); ++i) d.push_back(i);
  int64_t n = 1;
  for (int64_t i : d) n *= self.sizes()[static_cast<size_t>(wrap_dim(op, i, std::max<int64_t>(self.dim(), 1)))];
  const Tensor centre = mean(self, d, true);
  if (mean_out) *mean_out = centre;
  const Tensor centred = sub(self, centre);
  const Tensor m = mean(mul(centred, centred), d, keepdim);
  const double scale = static_cast<double>(n) / std::max(static_cast<double>(n) - correction, 0.0);
  return mul(m, scale);
}
Tensor var_dim(const Tensor& self, std::optional<IntList> dim, bool unbiased, bool keepdim) {
  return variance("aten::var", self, dim, unbiased ? 1.0 : 0.0, keepdim);
}
Tensor var_correction(const Tensor& self, std::optional<IntList> dim, std::optional<double> correction, bool keepdim) {
  return variance("aten::var", self, dim, correction.value_or(1.0), keepdim);
}
Tensor std_dim(const Tensor& self, std::optional<IntList> dim, bool unbiased, bool keepdim) {
  return call("aten::sqrt", {IValue(variance("aten::std", self, dim, unbiased ? 1.0 : 0.0, keepdim))}).toTensor();
}
Tensor std_correction(const Tensor& self, std::optional<IntList> dim, std::optional<double> correction, bool keepdim) {
  return call("aten::sqrt", {IValue(variance("aten::std", self, dim, correction.value_or(1.0), keepdim))}).toTensor();
}
// (variance or standard deviation, mean): the mean variance() computed, shaped as the result.
std::tuple<Tensor, Tensor> var_mean_of(const char* op, const Tensor& self, const std::optional<IntList>& dim,
                                       double correction, bool keepdim, bool take_root) {
  Tensor mean_kept;
  Tensor v = variance(op, self, dim, correction, keepdim, &mean_kept);
  if (take_root) v = call("aten::sqrt", {IValue(v)}).toTensor();
  return {v, reshape(mean_kept, v.sizes())};
}
Tensor var_all(const Tensor& self, bool unbiased) { return var_dim(self, std::nullopt, unbiased, false); }
Tensor std_all(const Tensor& self, bool unbiased) { return std_dim(self, std::nullopt, unbiased, false); }
std::tuple<Tensor, Tensor> var_mean_all(const Tensor& self, bool unbiased) {
  return var_mean_of("aten::var_mean", self, std::nullopt, unbiased ? 1.0 : 0.0, false, false);
}
std::tuple<Tensor, Tensor> std_mean_all(const Tensor& self, bool unbiased) {
  return var_mean_of("aten::std_mean", self, std::nullopt, unbiased ? 1.0 : 0.0, false, true);
}
std::tuple<Tensor, Tensor> var_mean_dim(const Tensor& self, std::optional<IntList> dim, bool unbiased, bool keepdim) {
  return var_mean_of("aten::var_mean", self, dim, unbiased ? 1.0 : 0.0, keepdim, false);
}
std::tuple<Tensor, Tensor> var_mean_correction(const Tensor& self, std::optional<IntList> dim,
                                               std::optional<double> correction, bool keepdim) {
  return var_mean_of("aten::var_mean", self, dim, correction.value_or(1.0), keepdim, false);
}
std::tuple<Tensor, Tensor> std_mean_dim(const Tensor& self, std::optional<IntList> dim, bool unbiased, bool keepdim) {
  return var_mean_of("aten::std_mean", self, dim, unbiased ? 1.0 : 0.0, keepdim, true);
}
std::tuple<Tensor, Tensor> std_mean_correction(const Tensor& self, std::optional<IntList> dim,
                                               std::optional<double> correction, bool keepdim) {
  return var_mean_of("aten::std_mean", self, dim, correction.value_or(1.0), keepdim, true);
}

// (layer_norm, mean, 1 / sqrt(biased variance + eps)), the statistics over the normalized dims
// with those dims kept as size 1.
std::tuple<Tensor, Tensor, Tensor> native_layer_norm(const Tensor& input, IntList normalized_shape, const Tensor& weight,
                                                     const Tensor& bias, double eps) {
  const char* op = "aten::native_layer_norm";
  check_defined(op, input, "input");
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  TVK_CHECK(k >= 1 && k <= input.dim(), op, ": normalized_shape ", shape_string(normalized_shape),
            " does not fit an input of shape ", input.shape_string());
  IntList dims;
  for (int64_t i = input.dim() - k; i < input.dim(); ++i) dims.push_back(i);
  const Tensor out = layer_norm(input, normalized_shape, weight, bias, eps);
  Tensor m;
  const Tensor var = variance(op, input, dims, 0.0, true, &m);
  return {out, m, call("aten::rsqrt", {IValue(add(var, eps))}).toTensor()};
}

Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  const char* op = "aten::narrow";
  check_defined(op, self);
  TVK_CHECK(self.dim() > 0, op, ": narrow() cannot be applied to a 0-dim tensor.");
  const int64_t d = wrap_dim(op, dim, self.dim()), n = self.sizes()[static_cast<size_t>(d)];
  TVK_CHECK(length >= 0, op, ": narrow(): length must be non-negative.");
  TVK_CHECK(start >= -n && start <= n, op, ": start out of range (expected to be in range of [", -n, ", ", n,
            "], but got ", start, ")");
  if (start < 0) start += n;
  TVK_CHECK(start <= n - length, op, ": start (", start, ") + length (", length, ") exceeds dimension size (", n, ").");
  return slice(self, d, start, start + length);
}

}  // namespace

TVK_REGISTER_OP_ANY_DEVICE("aten::max_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=0, "
                           "int[1] dilation=1, bool ceil_mode=False) -> Tensor",
                           max_pool1d);
TVK_REGISTER_OP_ANY_DEVICE("aten::avg_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=0, "
                           "bool ceil_mode=False, bool count_include_pad=True) -> Tensor",
                           avg_pool1d);
TVK_REGISTER_OP_ANY_DEVICE("aten::adaptive_avg_pool1d(Tensor self, int[1] output_size) -> Tensor", adaptive_avg_pool1d);
TVK_REGISTER_OP_ANY_DEVICE("aten::adaptive_max_pool1d(Tensor self, int[1] output_size) -> (Tensor, Tensor)",
                           adaptive_max_pool1d);
TVK_REGISTER_OP_ANY_DEVICE("aten::max_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0, "
                           "int[3] dilation=1, bool ceil_mode=False) -> Tensor",
                           max_pool3d);
TVK_REGISTER_OP_ANY_DEVICE("aten::avg_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0, "
                           "bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor",
                           avg_pool3d);
TVK_REGISTER_OP_ANY_DEVICE("aten::adaptive_avg_pool3d(Tensor self, int[3] output_size) -> Tensor", adaptive_avg_pool3d);
TVK_REGISTER_OP_ANY_DEVICE("aten::upsample_nearest1d(Tensor self, SymInt[1] output_size, float? scales=None) -> Tensor",
                           upsample_nearest1d);
TVK_REGISTER_OP_ANY_DEVICE("aten::upsample_nearest1d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors) -> Tensor",
                           upsample_nearest1d_vec);
TVK_REGISTER_OP_ANY_DEVICE("aten::_upsample_nearest_exact1d(Tensor self, SymInt[1] output_size, float? scales=None) "
                           "-> Tensor",
                           upsample_nearest_exact1d);
TVK_REGISTER_OP_ANY_DEVICE("aten::_upsample_nearest_exact1d.vec(Tensor input, SymInt[]? output_size, "
                           "float[]? scale_factors) -> Tensor",
                           upsample_nearest_exact1d_vec);
TVK_REGISTER_OP_ANY_DEVICE("aten::_upsample_nearest_exact3d(Tensor self, SymInt[3] output_size, float? scales_d=None, "
                           "float? scales_h=None, float? scales_w=None) -> Tensor",
                           upsample_nearest_exact3d);
TVK_REGISTER_OP_ANY_DEVICE("aten::_upsample_nearest_exact3d.vec(Tensor input, SymInt[]? output_size, "
                           "float[]? scale_factors) -> Tensor",
                           upsample_nearest_exact3d_vec);
TVK_REGISTER_OP_ANY_DEVICE("aten::upsample_linear1d(Tensor self, SymInt[1] output_size, bool align_corners, "
                           "float? scales=None) -> Tensor",
                           upsample_linear1d);
TVK_REGISTER_OP_ANY_DEVICE("aten::upsample_linear1d.vec(Tensor input, SymInt[]? output_size, bool align_corners, "
                           "float[]? scale_factors) -> Tensor",
                           upsample_linear1d_vec);
TVK_REGISTER_OP_ANY_DEVICE("aten::upsample_nearest3d(Tensor self, SymInt[3] output_size, float? scales_d=None, "
                           "float? scales_h=None, float? scales_w=None) -> Tensor",
                           upsample_nearest3d);
TVK_REGISTER_OP_ANY_DEVICE("aten::upsample_nearest3d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors) -> Tensor",
                           upsample_nearest3d_vec);
TVK_REGISTER_OP_ANY_DEVICE("aten::upsample_trilinear3d(Tensor self, SymInt[3] output_size, bool align_corners, "
                           "float? scales_d=None, float? scales_h=None, float? scales_w=None) -> Tensor",
                           upsample_trilinear3d);
TVK_REGISTER_OP_ANY_DEVICE("aten::upsample_trilinear3d.vec(Tensor input, SymInt[]? output_size, bool align_corners, "
                           "float[]? scale_factors) -> Tensor",
                           upsample_trilinear3d_vec);
TVK_REGISTER_OP_ANY_DEVICE("aten::im2col(Tensor self, int[2] kernel_size, int[2] dilation, int[2] padding, "
                           "int[2] stride) -> Tensor",
                           im2col);
TVK_REGISTER_OP_ANY_DEVICE("aten::group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, "
                           "float eps=1e-05, bool cudnn_enabled=True) -> Tensor",
                           group_norm);
TVK_REGISTER_OP_ANY_DEVICE("aten::instance_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
                           "Tensor? running_var, bool use_input_stats, float momentum, float eps, bool cudnn_enabled) -> Tensor",
                           instance_norm);
TVK_REGISTER_OP_ANY_DEVICE("aten::pixel_shuffle(Tensor self, int upscale_factor) -> Tensor", pixel_shuffle);
TVK_REGISTER_OP_ANY_DEVICE("aten::pixel_unshuffle(Tensor self, int downscale_factor) -> Tensor", pixel_unshuffle);
TVK_REGISTER_OP_ANY_DEVICE("aten::flip(Tensor self, int[] dims) -> Tensor", flip);
TVK_REGISTER_OP_ANY_DEVICE("aten::reflection_pad1d(Tensor self, SymInt[2] padding) -> Tensor", reflection_pad1d);
TVK_REGISTER_OP_ANY_DEVICE("aten::reflection_pad2d(Tensor self, SymInt[4] padding) -> Tensor", reflection_pad2d);
TVK_REGISTER_OP_ANY_DEVICE("aten::reflection_pad3d(Tensor self, SymInt[6] padding) -> Tensor", reflection_pad3d);
TVK_REGISTER_OP_ANY_DEVICE("aten::replication_pad1d(Tensor self, SymInt[2] padding) -> Tensor", replication_pad1d);
TVK_REGISTER_OP_ANY_DEVICE("aten::replication_pad2d(Tensor self, SymInt[4] padding) -> Tensor", replication_pad2d);
TVK_REGISTER_OP_ANY_DEVICE("aten::replication_pad3d(Tensor self, SymInt[6] padding) -> Tensor", replication_pad3d);
TVK_REGISTER_OP_ANY_DEVICE("aten::glu(Tensor self, int dim=-1) -> Tensor", glu);
TVK_REGISTER_OP_ANY_DEVICE("aten::prelu(Tensor self, Tensor weight) -> Tensor", prelu);
TVK_REGISTER_OP_ANY_DEVICE("aten::split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]", split);
TVK_REGISTER_OP_ANY_DEVICE("aten::split_with_sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim=0) -> Tensor(a)[]",
                           split_with_sizes);
// TorchScript's split with a list of sizes (torch 1.x); torch 2 names it split.sizes.
TVK_REGISTER_OP_ANY_DEVICE("aten::split(Tensor(a -> *) self, int[] split_sizes, int dim=0) -> Tensor(a)[]",
                           split_with_sizes);
TVK_REGISTER_OP_ANY_DEVICE("aten::split.sizes(Tensor(a -> *) self, SymInt[] split_size, int dim=0) -> Tensor(a)[]",
                           split_with_sizes);
TVK_REGISTER_OP_ANY_DEVICE("aten::squeeze(Tensor(a) self) -> Tensor(a)", squeeze);
TVK_REGISTER_OP_ANY_DEVICE("aten::squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)", squeeze_dim);
TVK_REGISTER_OP_ANY_DEVICE("aten::squeeze.dims(Tensor(a) self, int[] dim) -> Tensor(a)", squeeze_list);
TVK_REGISTER_OP_ANY_DEVICE("aten::broadcast_tensors(Tensor[] tensors) -> Tensor[]", broadcast_tensors);
TVK_REGISTER_OP_ANY_DEVICE("aten::expand_as(Tensor(a) self, Tensor other) -> Tensor(a)", expand_as);
TVK_REGISTER_OP_ANY_DEVICE("aten::lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor", lerp_scalar);
TVK_REGISTER_OP_ANY_DEVICE("aten::lerp.Tensor(Tensor self, Tensor end, Tensor weight) -> Tensor", lerp_tensor);
TVK_REGISTER_OP_ANY_DEVICE("aten::lerp_.Scalar(Tensor(a!) self, Tensor end, Scalar weight) -> Tensor(a!)", lerp_scalar_);
TVK_REGISTER_OP_ANY_DEVICE("aten::lerp_.Tensor(Tensor(a!) self, Tensor end, Tensor weight) -> Tensor(a!)", lerp_tensor_);
TVK_REGISTER_OP_ANY_DEVICE("aten::gelu_(Tensor(a!) self, *, str approximate='none') -> Tensor(a!)", gelu_);
TVK_REGISTER_OP_ANY_DEVICE("aten::zero_(Tensor(a!) self) -> Tensor(a!)", zero_);
TVK_REGISTER_OP_ANY_DEVICE("aten::masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor", masked_fill_tensor);
TVK_REGISTER_OP_ANY_DEVICE("aten::masked_fill_.Scalar(Tensor(a!) self, Tensor mask, Scalar value) -> Tensor(a!)",
                           masked_fill_scalar_);
TVK_REGISTER_OP_ANY_DEVICE("aten::masked_fill_.Tensor(Tensor(a!) self, Tensor mask, Tensor value) -> Tensor(a!)",
                           masked_fill_tensor_);
TVK_REGISTER_OP_ANY_DEVICE("aten::baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
                           baddbmm);
TVK_REGISTER_OP_ANY_DEVICE("aten::_softmax(Tensor self, int dim, bool half_to_float) -> Tensor", softmax_internal);
TVK_REGISTER_OP_ANY_DEVICE("aten::_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor", log_softmax_internal);
TVK_REGISTER_OP_ANY_DEVICE("aten::tile(Tensor self, SymInt[] dims) -> Tensor", tile);
TVK_REGISTER_OP_ANY_DEVICE("aten::_reshape_alias(Tensor(a) self, SymInt[] size, SymInt[] stride) -> Tensor(a)", reshape_alias);
TVK_REGISTER_OP_ANY_DEVICE("aten::var.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor", var_dim);
TVK_REGISTER_OP_ANY_DEVICE("aten::var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
                           "bool keepdim=False) -> Tensor",
                           var_correction);
TVK_REGISTER_OP_ANY_DEVICE("aten::std.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor", std_dim);
TVK_REGISTER_OP_ANY_DEVICE("aten::std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
                           "bool keepdim=False) -> Tensor",
                           std_correction);
TVK_REGISTER_OP_ANY_DEVICE("aten::var(Tensor self, bool unbiased=True) -> Tensor", var_all);
TVK_REGISTER_OP_ANY_DEVICE("aten::std(Tensor self, bool unbiased=True) -> Tensor", std_all);
TVK_REGISTER_OP_ANY_DEVICE("aten::var_mean(Tensor self, bool unbiased=True) -> (Tensor, Tensor)", var_mean_all);
TVK_REGISTER_OP_ANY_DEVICE("aten::std_mean(Tensor self, bool unbiased=True) -> (Tensor, Tensor)", std_mean_all);
TVK_REGISTER_OP_ANY_DEVICE("aten::var_mean.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> "
                           "(Tensor, Tensor)",
                           var_mean_dim);
TVK_REGISTER_OP_ANY_DEVICE("aten::var_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
                           "bool keepdim=False) -> (Tensor, Tensor)",
                           var_mean_correction);
TVK_REGISTER_OP_ANY_DEVICE("aten::std_mean.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> "
                           "(Tensor, Tensor)",
                           std_mean_dim);
TVK_REGISTER_OP_ANY_DEVICE("aten::std_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
                           "bool keepdim=False) -> (Tensor, Tensor)",
                           std_mean_correction);
TVK_REGISTER_OP_ANY_DEVICE("aten::native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, "
                           "Tensor? bias, float eps) -> (Tensor, Tensor, Tensor)",
                           native_layer_norm);
TVK_REGISTER_OP_ANY_DEVICE("aten::narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a)", narrow);

namespace {
// torch.max(x, dim) / torch.min(x, dim): the values and their first index (NaN wins in both).
template <bool kMax>
std::tuple<Tensor, Tensor> extreme_dim(const Tensor& self, int64_t dim, bool keepdim) {
  Tensor values = call(kMax ? "aten::amax" : "aten::amin", {self, IValue(IntList{dim}), IValue(keepdim)}).toTensor();
  Tensor indices = call(kMax ? "aten::argmax" : "aten::argmin", {self, IValue(dim), IValue(keepdim)}).toTensor();
  return {std::move(values), std::move(indices)};
}
}  // namespace

TVK_REGISTER_OP_ANY_DEVICE("aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
                           extreme_dim<true>);
TVK_REGISTER_OP_ANY_DEVICE("aten::min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
                           extreme_dim<false>);

}  // namespace tvk::ops
