// Vulkan convolutions (shaders conv2d_oc8, conv2d_dw, conv2d, conv_transpose2d, conv2d_pack, and
// conv2d_wino_pack / _in / _out for Winograd):
// conv2d, convolution, _convolution and conv_transpose2d share the checked geometry of
// ops/conv_params.h. Unpacked calls (models run as loaded) pack their weights per call, which
// costs one pass over the weights; vulkan_prepack contexts pack them once.
#include "vulkan/ops/conv.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <string>

#include "ops/registry.h"
#include "tvk/vulkan_info.h"
#include "vulkan/ops/gemm.h"
#include "vulkan/ops/kernel_options.h"
#include "vulkan/ops/shader_dispatch.h"
#include "vulkan/ops/tuning.h"

namespace tvk::vulkan {
namespace {
// The work-group shape of the Winograd transforms and im2col on GPUs: up to 128 invocations
// along x (tiles or pixel quads), so that a subgroup's stores to each of the 36 sets (or rows)
// are one contiguous run. Measured on an H200 (resnet18, batch 32, fp16): the 56x56 input
// transform took 0.137 -> 0.068 ms, im2col of the 7x7 stem 0.153 -> 0.128 ms, GPU time 2.39 ->
// 2.14 ms, against local_size_for's 8 x 8. lavapipe keeps local_size_for's shape.
std::array<uint32_t, 3> transform_local(const std::array<uint32_t, 3>& global) {
  if (!gpu_shaped_kernels()) return local_size_for(global);
  uint32_t x = 1, y = 1;
  while (x < 128 && x < global[0]) x *= 2;
  while (x * y < 64 && y < global[1]) y *= 2;
  return {x, y, 1};
}

constexpr int64_t kBlock = 8;  // output channels per conv2d_oc8 invocation
// Sums of fewer terms (mobilenet_v2's and squeezenet1_1's 27-term stems) stay off the GEMM: 0.06
// ms slower as one on an H200 (run_im2col_gemm).
constexpr int64_t kMinGemmTerms = 32;
// Input channels up to which an ungrouped convolution is a stem (prepare_conv_weights).
constexpr int64_t kStemChannels = 4;

// Must match the push constants of conv2d.glsl and conv_transpose2d.glsl.
struct DirectParams {
  int32_t in_w, in_h, in_c, batch;
  int32_t out_w, out_h, out_c, has_bias;
  int32_t kernel_w, kernel_h, stride_w, stride_h;
  int32_t pad_w, pad_h, dilation_w, dilation_h;
  int32_t in_c_per_group, out_c_per_group;
  float out_min, out_max;
};

// Must match conv2d_oc8.glsl.
struct Oc8Params {
  int32_t in_w, in_h, in_c, batch;
  int32_t out_w, out_h, out_c, blocks;
  int32_t pad_w, pad_h, in_c_per_group, out_c_per_group;
  float out_min, out_max;
  int32_t batch_base;
  int32_t wset_images, wset_count;
};

// Must match conv2d_split.glsl.
struct SplitParams {
  int32_t in_w, in_h, in_c, batch;
  int32_t out_w, out_h, out_c, blocks;
  int32_t quads;
  float out_min, out_max;
  int32_t pad_w, pad_h;
};

// Must match conv2d_im2col.glsl.
struct Im2colParams {
  int32_t in_w, in_h, in_c, batch;
  int32_t out_w, out_h, pad_w, pad_h;
  int32_t batch_base;
};

// Must match conv2d_wino_pack.glsl.
struct WinogradPackParams {
  int32_t out_c, in_c, blocks;
};

// Must match conv2d_wino_in.glsl.
struct WinogradInParams {
  int32_t in_w, in_h, channels, batch;
  int32_t pad_w, pad_h, tiles_w, tiles;
  int32_t tiles4, batch_base, tile_base, tile_count;
};

// Must match conv2d_wino_out.glsl.
struct WinogradOutParams {
  int32_t out_w, out_h, out_c, batch;
  int32_t tiles_w, tiles, tiles4, has_bias;
  float out_min, out_max;
  int32_t batch_base, y_batch_base, tile_base, tile_count;
};

constexpr int64_t kWinogradSets = 36;  // F(4,3): 6 x 6 transformed values per tile

// Must match conv2d_dw.glsl.
struct DepthwiseParams {
  int32_t in_w, in_h, channels, batch;
  int32_t out_w, out_h, pad_w, pad_h;
  int32_t has_bias;
  float out_min, out_max;
};

// Must match conv2d_dw_pixel.glsl.
struct DepthwisePixelParams {
  DepthwiseParams common;
  int32_t plane_base;
};

// Must match conv2d_pack.glsl.
struct PackParams {
  int32_t out_c, k, blocks, has_bias;
};

// Invocations along x of a 1-D launch over `lanes`, in work groups of 8 to 64 (one SIMD
// width on lavapipe at least, so small planes do not idle most of a group).
std::array<uint32_t, 3> lane_group(uint32_t lanes) {
  uint32_t x = 8;
  while (x < 64 && x < lanes) x *= 2;
  return {x, 1, 1};
}

uint32_t u32(const char* op, int64_t v) { return static_cast<uint32_t>(to_i32(op, v)); }


Tensor run_direct(const char* op, const ops::Conv2dParams& p, const Tensor& input, const ConvWeights& w,
                  const Epilogue& epi, Tensor out) {
  auto i32 = [op](int64_t v) { return to_i32(op, v); };
  DirectParams params{i32(p.in_w), i32(p.in_h), i32(p.in_channels), i32(p.batch),
                      i32(p.out_w), i32(p.out_h), i32(p.out_channels), w.bias.defined() ? 1 : 0,
                      i32(p.kernel_w), i32(p.kernel_h), i32(p.stride[1]), i32(p.stride[0]),
                      i32(p.padding[1]), i32(p.padding[0]), i32(p.dilation[1]), i32(p.dilation[0]),
                      i32(p.in_channels_per_group()), i32(p.out_channels_per_group()), epi.min, epi.max};
  const Tensor& bias_or_weight = w.bias.defined() ? w.bias : w.weight;
  const uint32_t n = u32(op, p.batch), oh = u32(op, p.out_h), ow = u32(op, p.out_w), oc = u32(op, p.out_channels);
  ShaderLaunch l = p.transposed ? grid_launch("conv_transpose2d", {ow, oh, n * oc})
                                 : grid_launch("conv2d", {ow, oh, n * ((oc + 3) / 4)},
                                               {p.out_channels_per_group() % 4 == 0 ? 1u : 0u});  // shared group
  l.activation = epi.activation();
  launch(l, {out, input, w.weight, bias_or_weight}, params);
  return out;
}

// The geometry of a pointwise GEMM for run_oc8: `batch` images of `in_c` channels over a plane
// of `in_plane` pixels (a multiple of 4) into `out_c` channels over `out_plane` pixels (the
// same, or fewer when the input plane was padded to whole texels).
ops::Conv2dParams pointwise_gemm(int64_t batch, int64_t in_c, int64_t out_c, int64_t in_plane, int64_t out_plane) {
  ops::Conv2dParams g;
  g.stride = {1, 1};
  g.dilation = {1, 1};
  g.batch = batch;
  g.in_channels = in_c;
  g.out_channels = out_c;
  g.in_h = g.out_h = 1;
  g.in_w = in_plane;
  g.out_w = out_plane;
  g.kernel_h = g.kernel_w = 1;
  return g;
}

// conv2d_oc8 over checked geometry `p`: `weight` packed by conv2d_pack (or, for Winograd, 36
// sets of it, image n using set n / wset_images), read as `weight_format` texels.
void run_oc8(const char* op, const ops::Conv2dParams& p, const Tensor& input, const Tensor& weight,
             Buffer::TexelFormat weight_format, const Tensor& out, const Epilogue& epi,
             const Tensor& residual, int32_t wset_images, int32_t wset_count) {
  auto i32 = [op](int64_t v) { return to_i32(op, v); };
  const uint32_t spec_kh = u32(op, p.kernel_h), spec_kw = u32(op, p.kernel_w), sh = u32(op, p.stride[0]),
                 sw = u32(op, p.stride[1]), dh = u32(op, p.dilation[0]), dw = u32(op, p.dilation[1]);
  const int64_t plane = p.out_h * p.out_w, in_plane = p.in_h * p.in_w;
  // A pointwise GEMM over whole texels; PADDED when the input's plane (an im2col matrix's) is
  // the output's rounded up to whole texels.
  const bool pointwise = p.kernel_h == 1 && p.kernel_w == 1 && p.stride[0] == 1 && p.stride[1] == 1 &&
                         p.padding[0] == 0 && p.padding[1] == 0;
  const bool padded = pointwise && in_plane != plane && in_plane == (plane + 3) / 4 * 4;
  const bool flat = pointwise && in_plane % 4 == 0 && (in_plane == plane || padded);
  const int64_t blocks = (p.out_channels + kBlock - 1) / kBlock;
  // Planes of fewer quads than a work group's lanes share work groups across images.
  constexpr int64_t kFoldBelow = 64;
  const bool fold = flat && in_plane / 4 < kFoldBelow && p.batch > 1;
  const int64_t lanes = flat ? in_plane / 4 : p.out_h * ((p.out_w + 3) / 4);
  Oc8Params params{i32(p.in_w), i32(p.in_h), i32(p.in_channels), i32(p.batch),
                   i32(p.out_w), i32(p.out_h), i32(p.out_channels), i32(blocks),
                   i32(p.padding[1]), i32(p.padding[0]), i32(p.in_channels_per_group()),
                   i32(p.out_channels_per_group()), epi.min, epi.max, 0, wset_images, wset_count};
  constexpr uint32_t kMaxInvocations = 128;  // conv2d_oc8.glsl's shared partial sums
  const uint32_t split = reduction_split(lanes * blocks * p.batch, p.in_channels_per_group(), 32, 8);
  ShaderLaunch l;
  l.shader = "conv2d_oc8";
  l.activation = epi.activation();
  const int64_t x_lanes = fold ? lanes * p.batch : lanes;
  l.local = lane_group(u32(op, x_lanes));
  if (split > 1) {
    l.local[0] = std::min<uint32_t>(64, kMaxInvocations / split);
    while (l.local[0] > 1 && l.local[0] / 2 >= x_lanes) l.local[0] /= 2;
  }
  l.local[1] = split;
  l.global = {u32(op, lanes), split, u32(op, p.batch * blocks)};
  l.constants = {spec_kh, spec_kw, sh, sw, dh, dw, flat ? 1u : 0u, residual.defined() ? 1u : 0u,
                 p.out_w % 4 == 0 ? 1u : 0u, split, gpu_shaped_kernels() || flat ? 4u : 1u, fold ? 1u : 0u,
                 padded ? 1u : 0u};
  const auto format = flat ? Buffer::TexelFormat::RGBA32 : Buffer::TexelFormat::R32;
  const auto residual_format = flat && !padded ? Buffer::TexelFormat::RGBA32 : Buffer::TexelFormat::R32;
  TVK_CHECK(texel_view_fits(input, format) && (!residual.defined() || texel_view_fits(residual, residual_format)), op,
            ": the input ", input.shape_string(), " exceeds this device's texel buffer limit");
  // An output larger than one storage binding is written in chunks of whole images, each
  // dispatch binding its own part (the inputs are read whole, through texel views).
  const VkDeviceSize image_bytes = static_cast<VkDeviceSize>(p.out_channels * plane) * sizeof(float);
  const VkDeviceSize alignment = Context::get()->device().physical().limits.minStorageBufferOffsetAlignment;
  int64_t chunk = p.batch;
  if (image_bytes * static_cast<VkDeviceSize>(p.batch) > max_storage_binding()) {
    chunk = std::max<int64_t>(1, static_cast<int64_t>(max_storage_binding() / std::max<VkDeviceSize>(image_bytes, 1)));
    TVK_CHECK(image_bytes <= max_storage_binding() && (chunk == p.batch || image_bytes % alignment == 0), op,
              ": one output image of ", image_bytes, " bytes exceeds this device's largest storage buffer (",
              max_storage_binding(), " bytes)");
  }
  // GPUs read through storage buffers (conv2d_oc8_storage; the shader says why) where every
  // operand fits one binding (so the output is one chunk); lavapipe, and tensors past a binding,
  // through texel views.
  const bool storage = gpu_shaped_kernels() && chunk == p.batch && storage_binding_fits(input) &&
                       storage_binding_fits(weight) && (!residual.defined() || storage_binding_fits(residual)) &&
                       (weight_format == Buffer::TexelFormat::RGBA32 || weight_format == Buffer::TexelFormat::RGBA16F);
  if (storage) {
    const bool half = weight_format == Buffer::TexelFormat::RGBA16F;
    l.shader = half && reads_f16_storage() ? "conv2d_oc8_storage16" : "conv2d_oc8_storage";
    l.constants.push_back(half ? 1u : 0u);
  }
  for (int64_t n0 = 0; n0 < p.batch; n0 += chunk) {
    const int64_t count = std::min(chunk, p.batch - n0);
    params.batch_base = i32(n0);
    params.batch = i32(count);
    l.global[0] = u32(op, fold ? lanes * count : lanes);
    l.global[2] = u32(op, fold ? blocks : count * blocks);
    Binding part(out);
    if (chunk != p.batch) {
      part.byte_offset = static_cast<VkDeviceSize>(n0) * image_bytes;
      part.byte_size = static_cast<VkDeviceSize>(count) * image_bytes;
    }
    if (storage)
      launch(l, {part, input, weight, residual.defined() ? residual : input}, params);
    else
      launch(l, {part, Binding(input, format), Binding(weight, weight_format),
                 residual.defined() ? Binding(residual, residual_format) : Binding(input, residual_format)},
             params);
  }
}

// An ungrouped convolution on a GPU at batch 1: conv2d_split, one work group row per 4 pixels x
// 8 output channels with the sum's terms split over the row's lanes. Pointwise layers take it
// from 64 input channels: measured on an H200 (mobilenet_v2, batch 1, GPU time), 0.56 -> 0.50 ms
// against the subgroup-only split it replaced, whose lanes walked up to 30 input channels each,
// one dependent fetch after another; under 64, conv2d_oc8 stays faster (a work group of 32
// lanes would mostly idle: 16 -> 96 channels at 112x112 took 48 us this way, 14 us in
// conv2d_oc8). Larger kernels (up to 32 taps: the shader keeps a bit per tap) take it from 32
// input channels: squeezenet1_1's GPU time 0.358 -> 0.333 ms, resnet18's 0.62 -> 0.58-0.62 ms,
// against conv2d_oc8's split-K tile. At batch 2+ conv2d_oc8's tiles win. The row's partial sums
// meet by a reduce-scatter of shuffles, where 8 subgroupAdds of vec4s had cost each lane 5 times
// as many (H200, batch 1, GPU time, three rounds: mobilenet_v2 0.491 -> 0.431 ms, resnet18 0.575
// -> 0.530, squeezenet1_1 0.318 -> 0.282). Returns false where it does not apply.
bool split_can_run(const ops::Conv2dParams& p, const ConvWeights& w, const Tensor& input, const Tensor& out) {
  const bool point = p.kernel_h == 1 && p.kernel_w == 1;
  const PhysicalDeviceInfo& dev = Context::get()->device().physical();
  return w.weight.defined() && dev.subgroup_shuffle && dev.subgroup_size >= kBlock && dev.subgroup_size <= 256 &&
         p.groups == 1 && !p.transposed && !(point && (p.padding[0] != 0 || p.padding[1] != 0)) &&
         p.kernel_h * p.kernel_w <= 32 &&
         (w.weight_format == Buffer::TexelFormat::RGBA32 || w.weight_format == Buffer::TexelFormat::RGBA16F) &&
         storage_binding_fits(out) && storage_binding_fits(input) && storage_binding_fits(w.weight);
}

// Whether Split pays (with KernelOptions::conv_split on): batch 1 on GPUs, from 64 input
// channels for pointwise layers and 32 for larger kernels (see above).
bool split_pays(const ops::Conv2dParams& p) {
  const bool point = p.kernel_h == 1 && p.kernel_w == 1;
  return kernel_options().conv_split && gpu_shaped_kernels() && p.batch == 1 && p.in_channels >= (point ? 64 : 32);
}

void run_split(const char* op, const ops::Conv2dParams& p, const ConvWeights& w, const Tensor& input,
               const Tensor& out, const Epilogue& epi, const Tensor& residual) {
  const bool point = p.kernel_h == 1 && p.kernel_w == 1;
  const PhysicalDeviceInfo& dev = Context::get()->device().physical();
  const int64_t plane = p.out_h * p.out_w, quads = (plane + 3) / 4, blocks = (p.out_channels + kBlock - 1) / kBlock;
  auto i32 = [op](int64_t v) { return to_i32(op, v); };
  const SplitParams params{i32(p.in_w),         i32(p.in_h),  i32(p.in_channels), i32(p.batch),
                           i32(p.out_w),        i32(p.out_h), i32(p.out_channels), i32(blocks),
                           i32(quads),          epi.min,      epi.max,             i32(p.padding[1]),
                           i32(p.padding[0])};
  // Terms per lane: up to 8 input channels of a 1x1 kernel, 64 terms of a larger one. Measured
  // on an H200 (batch 1, GPU time) with the reduce-scatter: resnet18 with 16 terms 0.651 ms, 32
  // 0.566, 64 0.531, 128 0.549; mobilenet_v2 with 1 channel 0.504 ms, 2 0.467, 4 0.429, 8 0.416,
  // 16 0.418 (squeezenet1_1 0.282 with 4, 0.276 with 8): fewer lanes pay less for the partial
  // sums' reduction, until too few lanes share the work.
  const int64_t terms = p.in_channels * p.kernel_h * p.kernel_w, per_lane = point ? 8 : 64;
  // Lanes enough that each takes at most per_lane terms, 32 to 256; at least 32, as 32 lanes
  // store the tile.
  uint32_t group = 32;
  while (group < 256 && group * per_lane < terms) group *= 2;
  group = std::max(group, dev.subgroup_size);
  // Up to 4 channel blocks of the same pixels per work group, one per row (y), while the group
  // stays within 256 lanes: mobilenet_v2's GPU time 0.499 -> 0.493 ms, squeezenet1_1's 0.447 ->
  // 0.440 (8 rows: 0.51 and 0.44).
  constexpr int64_t kMaxRows = 4;
  int64_t rows = 1;
  while (rows * 2 <= kMaxRows && rows * 2 * group <= 256 && rows < blocks) rows *= 2;
  const int64_t tiles = p.batch * ((blocks + rows - 1) / rows) * quads;
  const bool half = w.weight_format == Buffer::TexelFormat::RGBA16F;
  ShaderLaunch l = row_groups_launch(half && reads_f16_storage() ? "conv2d_split16" : "conv2d_split", tiles, group);
  l.activation = epi.activation();
  l.local[1] = static_cast<uint32_t>(rows);
  l.global[1] *= static_cast<uint32_t>(rows);
  TVK_CHECK(l.global[1] / rows <= 65535, op, ": ", tiles, " output tiles are too many for one dispatch");
  // Pointwise layers over planes of whole quads read 4 pixels per load. TVK_SPLIT_VEC_IN=0 reads
  // them one by one, to measure what vector loads of activations are worth (H200, mobilenet_v2
  // at batch 1: GPU 0.425 -> 0.453 ms without them; docs/architecture.md, "Tensors").
  const bool vec_in = kernel_options().split_vec_in && point && p.stride[0] == 1 && p.stride[1] == 1 && plane % 4 == 0;
  // Filter rows 3 wide at horizontal stride 1 and padding 1 (so out_w = in_w) over rows of whole
  // vec4s read 3 aligned vec4s per filter row, where tap by tap they took 12 loads of one value
  // (resnet's 3x3 layers at 56x56 and 28x28). H200, resnet18 at batch 1, GPU time, three rounds: fp32 0.529 /
  // 0.531 / 0.529 -> 0.505 / 0.504 / 0.505 ms, fp16 0.501 / 0.501 / 0.500 -> 0.449 / 0.449 /
  // 0.448. TVK_SPLIT_ROW3=0 reads them tap by tap, to compare.
  const bool row3 = kernel_options().split_row3 && !point && p.kernel_w == 3 && p.stride[1] == 1 && p.dilation[1] == 1 &&
                    p.padding[1] == 1 && p.in_w % 4 == 0;
  l.constants = {u32(op, p.stride[0]), u32(op, p.stride[1]), residual.defined() ? 1u : 0u, vec_in ? 1u : 0u,
                 half ? 1u : 0u,          u32(op, p.kernel_h),  u32(op, p.kernel_w),          u32(op, p.dilation[0]),
                 u32(op, p.dilation[1]),  dev.subgroup_size,    row3 ? 1u : 0u};
  launch(l, {out, input, w.weight, residual.defined() ? residual : input}, params);
}

// On CPU devices (lavapipe), a convolution that is not pointwise over whole texels runs as
// im2col + conv2d_oc8's pointwise GEMM: there the GEMM reads 4 pixels per fetch where the direct
// tile reads one, and lavapipe's fetches cost more than its multiply-adds (measured on
// resnet18's stride-2 layers). GPUs keep the direct tile, which needs no K x plane matrix in
// memory, except for pointwise layers over planes that are not whole quads (7x7) at batch 2 or
// more: there the padding copy is as large as the input, and the GEMM after it reads vec4s and
// shares work groups across images (H200, batch 32, GPU time: mobilenet_v2 2.37 -> 2.25 ms,
// squeezenet1_1 2.74 -> 2.67; peak memory unchanged). A pointwise convolution over a plane of
// whole texels is the GEMM already; over other planes, im2col is the copy that pads the plane
// to whole texels. Returns false where it does not apply (grouped, a patch matrix of the whole
// batch larger than one binding).
bool is_pointwise(const ops::Conv2dParams& p) {
  return p.kernel_h == 1 && p.kernel_w == 1 && p.stride[0] == 1 && p.stride[1] == 1 && p.padding[0] == 0 &&
         p.padding[1] == 0;
}

// Im2colOc8 runs ungrouped convolutions that are not pointwise over whole texels already (those
// are conv2d_oc8's GEMM as they are), whose patch matrix fits one binding.
bool im2col_oc8_can_run(const ops::Conv2dParams& p, const ConvWeights& w, const Tensor& input) {
  const int64_t plane = p.out_h * p.out_w, rows = p.in_channels * p.kernel_h * p.kernel_w;
  const int64_t plane_padded = (plane + 3) / 4 * 4;
  if (!w.weight.defined() || p.groups != 1 || p.transposed || (is_pointwise(p) && plane == plane_padded)) return false;
  const VkDeviceSize bytes = static_cast<VkDeviceSize>(p.batch * rows * plane_padded) * sizeof(float);
  const auto& limits = Context::get()->device().physical().limits;
  const VkDeviceSize limit = std::min<VkDeviceSize>(max_storage_binding(),
                                                    VkDeviceSize{limits.maxTexelBufferElements} * 4 * sizeof(float));
  return bytes <= limit && texel_view_fits(input, Buffer::TexelFormat::R32);
}

void run_im2col_oc8(const char* op, const ops::Conv2dParams& p, const Tensor& input, const ConvWeights& w,
                    const Tensor& out, const Epilogue& epi, const Tensor& residual) {
  const int64_t plane = p.out_h * p.out_w, rows = p.in_channels * p.kernel_h * p.kernel_w;
  const int64_t plane_padded = (plane + 3) / 4 * 4;
  auto i32 = [op](int64_t v) { return to_i32(op, v); };
  Tensor col = empty_vulkan({p.batch, rows, 1, plane_padded});
  Im2colParams params{i32(p.in_w), i32(p.in_h), i32(p.in_channels), i32(p.batch), i32(p.out_w), i32(p.out_h),
                      i32(p.padding[1]), i32(p.padding[0]), 0};
  launch(grid_launch("conv2d_im2col", {u32(op, plane_padded / 4), u32(op, rows), u32(op, p.batch)},
                     {u32(op, p.kernel_h), u32(op, p.kernel_w), u32(op, p.stride[0]), u32(op, p.stride[1]),
                      u32(op, p.dilation[0]), u32(op, p.dilation[1]), 0u}),
         {col, texels1(input)}, params);
  const ops::Conv2dParams g = pointwise_gemm(p.batch, rows, p.out_channels, plane_padded, plane);
  const IntList gemm_sizes{p.batch, p.out_channels, 1, plane};
  run_oc8(op, g, col, w.weight, w.weight_format, out.view(gemm_sizes), epi,
          residual.defined() ? residual.view(gemm_sizes) : Tensor(), std::numeric_limits<int32_t>::max(), 1);
}

// Winograd F(4,3) for 3x3, stride 1, dilation 1, ungrouped convolutions: the input
// transform (conv2d_wino_in), 36 GEMMs in one dispatch (the 36 weight sets times the
// transformed tiles of every image: a batched GEMM, or conv2d_oc8 with the tiles as its
// "pixels" and the sets as its images), and the output transform with bias, residual and clamp
// (conv2d_wino_out): 4 times fewer multiply-adds than the direct kernel. The transformed values
// are parted by images and then by tiles so each fits one binding.
void run_winograd(const char* op, const ops::Conv2dParams& p, const Tensor& input, const ConvWeights& w,
                  const Tensor& out, const Epilogue& epi, const Tensor& residual) {
  auto i32 = [op](int64_t v) { return to_i32(op, v); };
  const int64_t tiles_w = (p.out_w + 3) / 4, tiles = tiles_w * ((p.out_h + 3) / 4);
  const int64_t channels = std::max(p.in_channels, p.out_channels);
  const auto& limits = Context::get()->device().physical().limits;
  // V and the GEMM's output are storage bindings, read back as texels (R32: one per float).
  const VkDeviceSize limit = std::min<VkDeviceSize>(max_storage_binding(),
                                                    VkDeviceSize{limits.maxTexelBufferElements} * sizeof(float));
  auto part_bytes = [&](int64_t images, int64_t tiles4) {
    return static_cast<VkDeviceSize>(kWinogradSets * images * channels * tiles4) * sizeof(float);
  };
  int64_t tile_chunk = (tiles + 3) / 4 * 4;
  while (tile_chunk > 4 && part_bytes(1, tile_chunk) > limit) tile_chunk = (tile_chunk / 2 + 3) / 4 * 4;
  TVK_CHECK(part_bytes(1, tile_chunk) <= limit, op, ": ", channels,
            " channels are too many for a Winograd tile on this device");
  int64_t image_chunk = 1;
  if (tile_chunk >= tiles) image_chunk = std::clamp<int64_t>(static_cast<int64_t>(limit / part_bytes(1, tile_chunk)), 1, p.batch);
  // The output: bound whole when it fits, else in parts of whole images.
  const VkDeviceSize image_bytes = static_cast<VkDeviceSize>(p.out_channels * p.out_h * p.out_w) * sizeof(float);
  const bool out_whole = image_bytes * static_cast<VkDeviceSize>(p.batch) <= max_storage_binding();
  if (!out_whole) {
    image_chunk = std::min<int64_t>(image_chunk, std::max<VkDeviceSize>(1, max_storage_binding() / image_bytes));
    TVK_CHECK(image_bytes <= max_storage_binding() && image_bytes % limits.minStorageBufferOffsetAlignment == 0, op,
              ": one output image of ", image_bytes, " bytes exceeds this device's largest storage buffer (",
              max_storage_binding(), " bytes)");
  }
  TVK_CHECK(texel_view_fits(input, Buffer::TexelFormat::R32) &&
                (!residual.defined() || texel_view_fits(residual, Buffer::TexelFormat::R32)),
            op, ": the input ", input.shape_string(), " exceeds this device's texel buffer limit");
  // The GEMM kernels read the transformed weights, and V, as 16-bit floats in fp16 precision
  // (V's pairs are packed across lanes by a subgroup shuffle; without one, V stays fp32).
  const bool half_weights = w.winograd_gemm && w.winograd_format == Buffer::TexelFormat::R16F;
  const bool half = half_weights && Context::get()->device().physical().subgroup_shuffle;
  for (int64_t n0 = 0; n0 < p.batch; n0 += image_chunk) {
    const int64_t images = std::min(image_chunk, p.batch - n0);
    Binding y(out);
    if (!out_whole) {
      y.byte_offset = static_cast<VkDeviceSize>(n0) * image_bytes;
      y.byte_size = static_cast<VkDeviceSize>(images) * image_bytes;
    }
    for (int64_t t0 = 0; t0 < tiles; t0 += tile_chunk) {
      const int64_t count = std::min(tile_chunk, tiles - t0), tiles4 = (count + 3) / 4 * 4;
      const int64_t v_values = kWinogradSets * images * p.in_channels * tiles4;  // tiles4 is even
      Tensor v = empty_vulkan({half ? v_values / 2 : v_values});
      WinogradInParams in{i32(p.in_w), i32(p.in_h), i32(p.in_channels), i32(images), i32(p.padding[1]),
                          i32(p.padding[0]), i32(tiles_w), i32(tiles), i32(tiles4), i32(n0), i32(t0), i32(count)};
      ShaderLaunch in_launch = grid_launch("conv2d_wino_in", {u32(op, tiles4), u32(op, p.in_channels), u32(op, images)},
                                           {half ? 1u : 0u});
      in_launch.local = transform_local(in_launch.global);
      // In halves, pairs of tiles are pairs of lanes: the work group's width must be even (it is
      // a power of two, and tiles4 is at least 4).
      TVK_CHECK(in_launch.local[0] % 2 == 0, op, ": odd Winograd work-group width ", in_launch.local[0]);
      launch(in_launch, {v, texels1(input)}, in);
      // The GEMMs, one per weight set: [out_c x in_c] @ [in_c x images * tiles4].
      const int64_t cols = images * tiles4;
      Tensor m = empty_vulkan({kWinogradSets, p.out_channels, 1, cols});
      if (w.winograd_gemm) {
        const GemmOperand a{w.winograd, p.out_channels * p.in_channels, p.in_channels, 1, half_weights};
        const GemmOperand b{v, p.in_channels * cols, cols, 1, half};
        launch_tiled_gemm(op, m, kWinogradSets, p.out_channels, p.in_channels, cols, a, b, nullptr, 1.0, 1.0);
      } else {
        // As a 1x1 convolution over 36 images of in_channels x cols pixels, image k using set k.
        const ops::Conv2dParams g = pointwise_gemm(kWinogradSets, p.in_channels, p.out_channels, cols, cols);
        run_oc8(op, g, v.view({g.batch, p.in_channels, 1, cols}), w.winograd, w.winograd_format, m, Epilogue{},
                Tensor(), 1, i32(kWinogradSets));
      }
      WinogradOutParams o{i32(p.out_w), i32(p.out_h), i32(p.out_channels), i32(images), i32(tiles_w), i32(tiles),
                          i32(tiles4), w.bias.defined() ? 1 : 0, epi.min, epi.max, i32(n0),
                          out_whole ? i32(n0) : 0, i32(t0), i32(count)};
      // Rows of whole vec4s where the output's width is a multiple of 4.
      const bool aligned = p.out_w % 4 == 0;
      ShaderLaunch l = grid_launch("conv2d_wino_out", {u32(op, count), u32(op, p.out_channels), u32(op, images)},
                                   {residual.defined() ? 1u : 0u, aligned ? 1u : 0u});
      l.activation = epi.activation();
      l.local = transform_local(l.global);
      launch(l, {y, texels1(m), texels1(w.bias.defined() ? w.bias : m),
                 residual.defined() ? (aligned ? texels4(residual) : texels1(residual)) : texels1(m)}, o);
    }
  }
}
}  // namespace

namespace {
bool all_ones(const IntList& v) {
  return !v.empty() && std::all_of(v.begin(), v.end(), [](int64_t x) { return x == 1; });
}
}  // namespace

ConvKernel choose_conv_kernel(const IntList& weight_sizes, int64_t groups, bool transposed, const IntList& stride,
                              const IntList& dilation) {
  if (transposed) return ConvKernel::Transposed;
  const ConvMethod forced = kernel_options().conv;
  if (forced == ConvMethod::Direct) return ConvKernel::Direct;
  // The tiled kernels read through texel views; a device that allows only small ones (the
  // Vulkan minimum is 65536 texels) keeps the storage-buffer kernel.
  constexpr uint32_t kMinTexels = 1u << 24;
  if (Context::get()->device().physical().limits.maxTexelBufferElements < kMinTexels) return ConvKernel::Direct;
  const int64_t out_c = weight_sizes.at(0), in_per_group = weight_sizes.at(1);
  if (groups > 1 && in_per_group == 1 && out_c == groups) return ConvKernel::Depthwise;
  const bool oc8_fits = groups == 1 || (out_c / groups) % kBlock == 0;
  // A forced method keeps the weight form it reads, where the layer allows it.
  const bool oc8_forced = forced == ConvMethod::Oc8 || forced == ConvMethod::Split || forced == ConvMethod::Im2colOc8 ||
                          forced == ConvMethod::PointwiseGemm || forced == ConvMethod::Im2colGemm ||
                          forced == ConvMethod::ImplicitGemm;
  if (oc8_forced && oc8_fits) return ConvKernel::Oc8;
  const bool winograd_shape = groups == 1 && weight_sizes.at(2) == 3 && weight_sizes.at(3) == 3 && all_ones(stride) &&
                              all_ones(dilation);
  // Winograd's transforms cost a pass over the input and the output each, which the GEMM's
  // savings repay only with enough channels on both sides.
  // The transformed weights (36 per filter tap pair) are packed through one storage binding.
  constexpr int64_t kWinogradMinChannels = 16;
  const auto winograd_bytes = static_cast<VkDeviceSize>((kWinogradSets * in_per_group + 1) *
                                                        ((out_c + kBlock - 1) / kBlock) * kBlock) * sizeof(float);
  if (winograd_shape && winograd_bytes <= max_storage_binding() &&
      (forced == ConvMethod::Winograd || (out_c >= kWinogradMinChannels && in_per_group >= kWinogradMinChannels &&
                                          kernel_options().winograd)))
    return ConvKernel::Winograd;
  if (oc8_fits) return ConvKernel::Oc8;
  return ConvKernel::Direct;
}

namespace {
// A stem (an ungrouped convolution of at most 4 input channels: the image's) keeps fp32 weights
// in fp16 precision. Its few weights weigh on everything after it: with its weights alone
// rounded to fp16, torch's mobilenet_v2 fixture is 0.95% off fp32, with every other layer's
// 0.74%, with all 1.19%. Its packed weights are at most a few kilobytes.
bool is_stem(const Tensor& weight, int64_t groups, bool transposed) {
  return groups == 1 && !transposed && weight.dim() == 4 && weight.size(1) <= kStemChannels;
}

// Whether an Oc8 convolution keeps the plain matrix the GEMM kernels read. In fp32 only what
// the GEMM takes there keeps it (pointwise layers do not, so mobilenet_v2's memory stays as it
// was).
bool keeps_gemm_matrix(const Tensor& weight, int64_t groups, const IntList& stride) {
  const int64_t k = weight.size(1) * weight.size(2) * weight.size(3);
  const bool pointwise = weight.size(2) == 1 && weight.size(3) == 1 && stride.size() >= 1 && stride[0] == 1 &&
                         stride.back() == 1;
  const ConvMethod forced = kernel_options().conv;
  if (forced == ConvMethod::PointwiseGemm || forced == ConvMethod::Im2colGemm || forced == ConvMethod::ImplicitGemm)
    return groups == 1;
  return groups == 1 && conv_gemm_wanted() && (!conv_gemm_fp32() || (!pointwise && k >= kMinGemmTerms));
}

// The weights the batched kernels read: Winograd's 36 sets (w.kernel Winograd) or the GEMM's
// plain matrix (Oc8, where kept), stored in `precision` (a stem's in fp32). Neither kernel is
// chosen for transposed convolutions.
void add_batch_weights(ConvWeights& w, const Tensor& weight, const Tensor& bias, int64_t groups, const IntList& stride,
                       Precision precision) {
  const char* op = "conv2d (packing weights)";
  const Precision stored_precision = is_stem(weight, groups, false) ? Precision::FP32 : precision;
  if (w.kernel == ConvKernel::Winograd) {
    const int64_t out_c = weight.size(0), in_c = weight.size(1), blocks = (out_c + kBlock - 1) / kBlock;
    // Where the GEMM kernels take convolutions (tensor cores in fp16), they take the 36 products
    // too: plain matrices. Otherwise conv2d_oc8's packed sets.
    w.winograd_gemm = conv_gemm_wanted() && use_tiled_gemm(out_c, in_c);
    const int64_t packed_size =
        w.winograd_gemm ? kWinogradSets * out_c * in_c : (kWinogradSets * in_c + 1) * blocks * kBlock;
    Tensor packed = empty_vulkan({packed_size});
    const WinogradPackParams params{to_i32(op, out_c), to_i32(op, in_c), to_i32(op, blocks)};
    launch(grid_launch("conv2d_wino_pack", {u32(op, in_c), u32(op, blocks * kBlock), 1}, {w.winograd_gemm ? 1u : 0u}),
           {packed, weight.contiguous()}, params);
    const StoredWeights stored =
        w.winograd_gemm
            ? store_weights(packed, Buffer::TexelFormat::R32, Buffer::TexelFormat::R16F, stored_precision)
            : store_weights(packed, Buffer::TexelFormat::RGBA32, Buffer::TexelFormat::RGBA16F, stored_precision);
    w.winograd = stored.storage;
    w.winograd_format = stored.format;
  } else if (w.kernel == ConvKernel::Oc8 && keeps_gemm_matrix(weight, groups, stride)) {
    const int64_t out_c = weight.size(0), k = weight.size(1) * weight.size(2) * weight.size(3);
    const StoredWeights plain = store_weights(weight.contiguous().view({out_c, k}), Buffer::TexelFormat::R32,
                                              Buffer::TexelFormat::R16F, stored_precision);
    w.gemm_weight = plain.storage;
    w.gemm_format = plain.format;
    if (bias.defined()) w.gemm_bias = bias.contiguous();
  }
}
}  // namespace

// What a deferred ConvWeights needs to make its batch weights: the host copies and the choices
// made at packing, and the result once made.
struct DeferredConvWeights {
  Tensor host_weight, host_bias;
  int64_t groups = 1;
  IntList stride;
  Precision precision = Precision::FP32;  // the one the weights were packed in
  std::mutex mutex;
  std::optional<ConvWeights> made;  // w with its batch weights, once made
};

ConvWeights prepare_conv_weights(const Tensor& weight, const Tensor& bias, int64_t groups, bool transposed,
                                 const IntList& stride, const IntList& dilation, const Tensor& host_weight,
                                 const Tensor& host_bias) {
  const char* op = "conv2d (packing weights)";
  const Precision precision = vulkan_precision();
  const bool stem = is_stem(weight, groups, transposed);
  ConvWeights w;
  w.kernel = choose_conv_kernel(weight.sizes(), groups, transposed, stride, dilation);
  if (w.kernel != ConvKernel::Oc8 && w.kernel != ConvKernel::Winograd) {
    w.weight = weight.contiguous();
    if (bias.defined()) w.bias = bias.contiguous();
    // Depthwise weights stay fp32 in fp16 precision too. A depthwise output sums only its own
    // channel's taps (9 for 3x3), so each weight's rounding reaches it nearly undiluted, where a
    // pointwise output averages hundreds. In torch, mobilenet_v2's fixture with every weight but
    // the stem's rounded to fp16 is 0.92% / 0.78% / 1.04% off fp32 on three inputs, with the
    // depthwise ones kept 0.68% / 0.60% / 0.87%. They are 2% of its weights (256 KB in fp32);
    // mobilenet_v2's fp16 GPU time on an H200 at batch 32 stayed level (1.926 -> 1.915 ms).
    w.weight_format = Buffer::TexelFormat::R32;
    return w;
  }
  if (w.kernel == ConvKernel::Winograd && bias.defined()) w.bias = bias.contiguous();
  // On GPUs batch 1 runs on the Oc8 packing below (conv2d_split), so Winograd's sets (4x the
  // weights) and the GEMM's matrix wait for a batch that needs them where host copies are kept:
  // resnet18 at batch 1 then holds one packing of its weights, not three. CPU devices run
  // Winograd at every batch. KernelOptions::defer_weights off makes them at packing, to compare.
  const bool deferred = kernel_options().defer_weights && host_weight.defined() && host_weight.device() == tvk::Device::CPU &&
                        gpu_shaped_kernels() &&
                        (w.kernel == ConvKernel::Winograd || keeps_gemm_matrix(weight, groups, stride));
  if (deferred) {
    w.deferred = std::make_shared<DeferredConvWeights>();
    w.deferred->host_weight = host_weight;
    w.deferred->host_bias = host_bias;
    w.deferred->groups = groups;
    w.deferred->stride = stride;
    w.deferred->precision = precision;
  } else {
    add_batch_weights(w, weight, bias, groups, stride, precision);
  }
  if (w.kernel == ConvKernel::Winograd && !gpu_shaped_kernels()) return w;
  const Tensor wc = weight.contiguous();
  const int64_t out_c = weight.size(0);
  const int64_t k = weight.size(1) * weight.size(2) * weight.size(3);
  const int64_t blocks = (out_c + kBlock - 1) / kBlock;
  const int64_t total = blocks * kBlock * (k + 1);
  w.weight = empty_vulkan({total});
  PackParams params{to_i32(op, out_c), to_i32(op, k), to_i32(op, blocks), bias.defined() ? 1 : 0};
  const Tensor b = bias.defined() ? bias.contiguous() : wc;
  const auto global = elementwise_global(total);
  launch(ShaderLaunch{"conv2d_pack", global, {64, 1, 1}, {}}, {w.weight, wc, b}, params);
  const StoredWeights stored = store_weights(w.weight, Buffer::TexelFormat::RGBA32, Buffer::TexelFormat::RGBA16F,
                                             stem ? Precision::FP32 : precision);
  w.weight = stored.storage;
  w.weight_format = stored.format;
  return w;
}

namespace {
// `w` with its batch weights: made at the first call that needs them where they were deferred
// (prepare_conv_weights), outside any capture this thread records, since they outlive it; their
// work is finished before the capture goes on.
const ConvWeights& with_batch_weights(const ConvWeights& w) {
  if (!w.deferred) return w;
  DeferredConvWeights& d = *w.deferred;
  std::lock_guard<std::mutex> lock(d.mutex);
  if (!d.made) {
    CommandStream::CaptureSuspension suspension;
    ConvWeights made = w;
    made.deferred = nullptr;
    add_batch_weights(made, d.host_weight.vulkan(), d.host_bias.defined() ? d.host_bias.vulkan() : Tensor(), d.groups,
                      d.stride, d.precision);
    Context::get()->stream().synchronize();
    d.made = std::move(made);
  }
  return *d.made;
}
}  // namespace

namespace {
// KernelOptions::conv_gemm On: the GEMM wherever it fits (batch 1 too).
bool conv_gemm_forced() { return kernel_options().conv_gemm == Toggle::On; }
}  // namespace

bool conv_gemm_fp32() {
  const KernelOptions& o = kernel_options();
  return o.conv_gemm == Toggle::Auto && gpu_shaped_kernels() && vulkan_precision() == Precision::FP32 &&
         o.gemm_tile128;
}

bool conv_gemm_wanted() {
  const Toggle t = kernel_options().conv_gemm;
  if (t != Toggle::Auto) return t == Toggle::On;
  return gemm_on_tensor_cores() || conv_gemm_fp32();
}

namespace {
// The patch matrix of Im2colGemm: the whole batch at once.
VkDeviceSize im2col_bytes(const ops::Conv2dParams& p) {
  const int64_t plane_padded = (p.out_h * p.out_w + 3) / 4 * 4;
  return static_cast<VkDeviceSize>(p.batch * p.in_channels * p.kernel_h * p.kernel_w * plane_padded) * sizeof(float);
}

// The GEMM methods read the plain weight matrix (ConvWeights::gemm_weight) through texels and
// write one storage binding.
bool gemm_bindings_fit(const Tensor& input, const Tensor& out, const Tensor& residual) {
  return storage_binding_fits(out) && texel_view_fits(input, Buffer::TexelFormat::R32) &&
         (!residual.defined() || texel_view_fits(residual, Buffer::TexelFormat::R32));
}

bool pointwise_gemm_can_run(const ops::Conv2dParams& p, const ConvWeights& w, const Tensor& input, const Tensor& out,
                            const Tensor& residual) {
  return w.gemm_weight.defined() && is_pointwise(p) && use_tiled_gemm(p.out_channels, p.in_channels) &&
         gemm_bindings_fit(input, out, residual);
}

bool im2col_gemm_can_run(const ops::Conv2dParams& p, const ConvWeights& w, const Tensor& input, const Tensor& out,
                         const Tensor& residual) {
  return w.gemm_weight.defined() && p.groups == 1 && im2col_bytes(p) <= max_storage_binding() &&
         use_tiled_gemm(p.out_channels, p.in_channels * p.kernel_h * p.kernel_w) &&
         gemm_bindings_fit(input, out, residual);
}

bool implicit_gemm_can_run(const ops::Conv2dParams& p, const ConvWeights& w, const Tensor& input, const Tensor& out,
                           const Tensor& residual) {
  return w.gemm_weight.defined() && w.gemm_format == Buffer::TexelFormat::R32 &&
         conv_gemm_implicit_can_run(p, w.gemm_weight, input, out, w.gemm_bias, residual);
}

// A pointwise convolution as a batched GEMM over NCHW: out[n] (Cout x plane) = W (Cout x Cin)
// @ x[n] (Cin x plane) + bias (+ a fused residual), clamped; tensor cores in fp16 precision
// (gemm.h). At batch 1 Split is faster (docs/benchmarks.md).
void run_pointwise_gemm(const char* op, const ops::Conv2dParams& p, const ConvWeights& w, const Tensor& input,
                        const Tensor& out, const Epilogue& epi, const Tensor& residual) {
  const int64_t plane = p.out_h * p.out_w;
  const bool half = w.gemm_format == Buffer::TexelFormat::R16F;
  const GemmOperand a{w.gemm_weight, 0, p.in_channels, 1, half};
  const GemmOperand b{input, p.in_channels * plane, plane, 1, false};
  const GemmBias bias{w.gemm_bias, 0, 1, 0, false};
  launch_tiled_gemm(op, out, p.batch, p.out_channels, p.in_channels, plane, a, b,
                    w.gemm_bias.defined() ? &bias : nullptr, 1.0, 1.0, epi, residual);
}

// Any other ungrouped convolution as im2col, then out[n] (Cout x plane) = W (Cout x Cin*KH*KW)
// @ col[n] + bias (+ a fused residual), clamped (tensor cores in fp16). The patch matrix of the
// whole batch is made at once, so where it is chosen its size is capped (kMaxPatchBytes).
void run_im2col_gemm(const char* op, const ops::Conv2dParams& p, const ConvWeights& w, const Tensor& input,
                     const Tensor& out, const Epilogue& epi, const Tensor& residual) {
  const int64_t plane = p.out_h * p.out_w, plane_padded = (plane + 3) / 4 * 4;
  const int64_t rows = p.in_channels * p.kernel_h * p.kernel_w;
  auto i32 = [op](int64_t v) { return to_i32(op, v); };
  // In fp16 precision the patch matrix holds halves (plane_padded is even), beside a stem's fp32
  // weights too: convolutions take this route in fp16 on tensor cores, which round both
  // operands to fp16 anyway.
  const bool half_weights = w.gemm_format == Buffer::TexelFormat::R16F;
  const bool half = half_weights || vulkan_precision() == Precision::FP16;
  Tensor col = empty_vulkan({half ? p.batch * rows * plane_padded / 2 : p.batch * rows * plane_padded});
  TVK_CHECK(texel_view_fits(col, half ? Buffer::TexelFormat::R16F : Buffer::TexelFormat::R32), op,
            ": the patch matrix of ", p.batch * rows * plane_padded, " values exceeds this device's texel buffer limit");
  const GemmOperand a{w.gemm_weight, 0, rows, 1, half_weights};
  const GemmBias bias{w.gemm_bias, 0, 1, 0, false};
  // One product over the whole batch where gemm_tile128 takes it (gemm.h's column blocks): a
  // product per image of a small plane (resnet's 7x7 layers: 49 columns) would idle most of
  // each tile. The patch matrix then holds row k of every image side by side.
  const GemmOperand b_batch{col, 0, p.batch * plane_padded, 1, half};
  const bool one_product = kernel_options().im2col_one_product &&
                           gemm_tile128_takes(p.out_channels, p.batch * plane_padded, a, b_batch,
                                              w.gemm_bias.defined() ? &bias : nullptr, out, residual);
  const Im2colParams params{i32(p.in_w), i32(p.in_h), i32(p.in_channels), i32(p.batch), i32(p.out_w), i32(p.out_h),
                            i32(p.padding[1]), i32(p.padding[0]), 0};
  ShaderLaunch il = grid_launch("conv2d_im2col", {u32(op, plane_padded / 4), u32(op, rows), u32(op, p.batch)},
                     {u32(op, p.kernel_h), u32(op, p.kernel_w), u32(op, p.stride[0]), u32(op, p.stride[1]),
                      u32(op, p.dilation[0]), u32(op, p.dilation[1]), half ? 1u : 0u, one_product ? 1u : 0u});
  il.local = transform_local(il.global);
  launch(il, {col, texels1(input)}, params);
  if (one_product) {
    launch_tiled_gemm(op, out, 1, p.out_channels, rows, p.batch * plane_padded, a, b_batch,
                      w.gemm_bias.defined() ? &bias : nullptr, 1.0, 1.0, epi, residual,
                      GemmColumnBlocks{plane_padded, plane});
    return;
  }
  const GemmOperand b{col, rows * plane_padded, plane_padded, 1, half};
  launch_tiled_gemm(op, out, p.batch, p.out_channels, rows, plane, a, b, w.gemm_bias.defined() ? &bias : nullptr, 1.0,
                    1.0, epi, residual);
}

// An ungrouped convolution as an implicit GEMM (gemm.h's launch_conv_gemm), which needs no
// patch matrix.
void run_implicit_gemm(const char* op, const ops::Conv2dParams& p, const ConvWeights& w, const Tensor& input,
                       const Tensor& out, const Epilogue& epi, const Tensor& residual) {
  launch_conv_gemm(op, p, out, w.gemm_weight, input, w.gemm_bias, epi, residual);
}

DepthwiseParams depthwise_params(const char* op, const ops::Conv2dParams& p, const ConvWeights& w,
                                 const Epilogue& epi) {
  auto i32 = [op](int64_t v) { return to_i32(op, v); };
  return DepthwiseParams{i32(p.in_w),       i32(p.in_h),       i32(p.in_channels), i32(p.batch),
                         i32(p.out_w),      i32(p.out_h),      i32(p.padding[1]),  i32(p.padding[0]),
                         w.bias.defined() ? 1 : 0, epi.min, epi.max};
}

// A depthwise convolution, one output value per invocation (see conv2d_dw_pixel.glsl for why),
// reading storage buffers.
void run_depthwise_pixel(const char* op, const ops::Conv2dParams& p, const ConvWeights& w, const Tensor& input,
                         const Tensor& out, const Epilogue& epi) {
  const DepthwiseParams params = depthwise_params(op, p, w, epi);
  const std::vector<uint32_t> constants{u32(op, p.kernel_h), u32(op, p.kernel_w), u32(op, p.stride[0]),
                                        u32(op, p.stride[1]), u32(op, p.dilation[0]), u32(op, p.dilation[1]),
                                        p.out_w % 4 == 0 ? 1u : 0u};
  // Planes (image x channel) along z, at most 65535 per dispatch.
  constexpr int64_t kMaxPlanes = 65535;
  const int64_t planes = p.batch * p.in_channels;
  for (int64_t base = 0; base < planes; base += kMaxPlanes) {
    const int64_t count = std::min(kMaxPlanes, planes - base);
    ShaderLaunch l =
        grid_launch("conv2d_dw_pixel", {u32(op, (p.out_w + 3) / 4), u32(op, p.out_h), u32(op, count)}, constants);
    l.activation = epi.activation();
    const DepthwisePixelParams pp{params, to_i32(op, base)};
    launch(l, {out, input, w.weight, w.bias.defined() ? w.bias : w.weight}, pp);
  }
}

// A depthwise convolution, 4 rows of 4 outputs per invocation, reading texels.
void run_depthwise(const char* op, const ops::Conv2dParams& p, const ConvWeights& w, const Tensor& input,
                   const Tensor& out, const Epilogue& epi) {
  const DepthwiseParams params = depthwise_params(op, p, w, epi);
  constexpr int64_t kRows = 4;  // output rows per invocation, as in conv2d_dw.glsl
  const int64_t lanes = (p.out_h + kRows - 1) / kRows * ((p.out_w + 3) / 4);
  ShaderLaunch l;
  l.shader = "conv2d_dw";
  l.activation = epi.activation();
  l.local = lane_group(u32(op, lanes));
  l.global = {u32(op, lanes), 1, u32(op, p.batch * p.in_channels)};
  // Rows of a multiple of 4 values are read 4 per fetch (conv2d_dw.glsl's VEC_IN).
  const bool vec_in = p.in_w % 4 == 0;
  const auto format = vec_in ? Buffer::TexelFormat::RGBA32 : Buffer::TexelFormat::R32;
  const auto shift = static_cast<uint32_t>(((-p.padding[1]) % 4 + 4) % 4);
  l.constants = {u32(op, p.kernel_h), u32(op, p.kernel_w), u32(op, p.stride[0]), u32(op, p.stride[1]),
                 u32(op, p.dilation[0]), u32(op, p.dilation[1]), p.out_w % 4 == 0 ? 1u : 0u, vec_in ? 1u : 0u, shift};
  TVK_CHECK(texel_view_fits(input, format), op, ": the input ", input.shape_string(),
            " exceeds this device's texel buffer limit");
  // Without a bias the weight stands in for it (the shader ignores it).
  launch(l, {out, Binding(input, format), Binding(w.weight, w.weight_format),
             texels1(w.bias.defined() ? w.bias : w.weight)},
         params);
}

// Whether a method reads the weight forms only batch 2+ needs on GPUs (made at first use where
// deferred: with_batch_weights).
bool needs_batch_weights(ConvMethod m) {
  return m == ConvMethod::Winograd || m == ConvMethod::PointwiseGemm || m == ConvMethod::Im2colGemm ||
         m == ConvMethod::ImplicitGemm;
}

// Sums of fewer terms than this keep conv2d_oc8 where the GEMM methods would be chosen, and
// patch matrices larger than this keep it too (Im2colGemm makes the whole batch's at once).
constexpr VkDeviceSize kMaxPatchBytes = VkDeviceSize{256} << 20;

// What runs fastest where several methods can run: the rules measured on an NVIDIA GPU and
// lavapipe (docs/benchmarks.md); tuning on the device replaces them where it is on.
ConvMethod preferred_conv_method(const ops::Conv2dParams& p, const ConvWeights& w, const Tensor& input,
                                 const Tensor& out, const Tensor& residual) {
  const bool gpu = gpu_shaped_kernels(), forced_gemm = conv_gemm_forced();
  const int64_t terms = p.in_channels * p.kernel_h * p.kernel_w;
  switch (w.kernel) {
    case ConvKernel::Transposed:
      return ConvMethod::Transposed;
    case ConvKernel::Direct:
      return ConvMethod::Direct;
    case ConvKernel::Depthwise:
      return gpu && storage_binding_fits(out) && storage_binding_fits(input) ? ConvMethod::DepthwisePixel
                                                                              : ConvMethod::Depthwise;
    case ConvKernel::Winograd:
      // On GPUs batch 1 runs on the Oc8 packing: there Winograd's two extra dispatches cost more
      // than its GEMM saves (docs/benchmarks.md).
      if (!w.weight.defined() || p.batch > 1) return ConvMethod::Winograd;
      return split_pays(p) && split_can_run(p, w, input, out) ? ConvMethod::Split : ConvMethod::Oc8;
    case ConvKernel::Oc8:
      break;
  }
  const bool batched = p.batch > 1 || forced_gemm;
  if (kernel_options().conv_igemm && p.batch > 1 && p.kernel_h * p.kernel_w > 1 && terms >= kMinGemmTerms &&
      implicit_gemm_can_run(p, w, input, out, residual) &&
      conv_gemm_implicit_takes(p, w.gemm_weight, input, out, w.gemm_bias, residual))
    return ConvMethod::ImplicitGemm;
  if (batched && pointwise_gemm_can_run(p, w, input, out, residual)) return ConvMethod::PointwiseGemm;
  if (batched && (terms >= kMinGemmTerms || forced_gemm) && im2col_bytes(p) <= kMaxPatchBytes &&
      im2col_gemm_can_run(p, w, input, out, residual))
    return ConvMethod::Im2colGemm;
  if (split_pays(p) && split_can_run(p, w, input, out)) return ConvMethod::Split;
  // On CPU devices (lavapipe) the GEMM over whole texels reads 4 pixels per fetch where the
  // direct tile reads one; GPUs pad pointwise planes of partial quads that way at batch 2+.
  if ((!gpu || (is_pointwise(p) && p.batch > 1)) && im2col_oc8_can_run(p, w, input)) return ConvMethod::Im2colOc8;
  return ConvMethod::Oc8;
}
}  // namespace

bool conv_method_can_run(ConvMethod m, const ops::Conv2dParams& p, const ConvWeights& w, const Tensor& input,
                         const Tensor& out, const Tensor& residual) {
  const bool oc8_weights = (w.kernel == ConvKernel::Oc8 || w.kernel == ConvKernel::Winograd) && w.weight.defined();
  switch (m) {
    case ConvMethod::Auto:
      return false;
    case ConvMethod::Direct:
      return w.kernel == ConvKernel::Direct && !p.transposed && !residual.defined();
    case ConvMethod::Transposed:
      return w.kernel == ConvKernel::Transposed && !residual.defined();
    case ConvMethod::Depthwise:
      return w.kernel == ConvKernel::Depthwise && !residual.defined();
    case ConvMethod::DepthwisePixel:
      return w.kernel == ConvKernel::Depthwise && !residual.defined() && storage_binding_fits(out) &&
             storage_binding_fits(input);
    case ConvMethod::Oc8:
      return oc8_weights;
    case ConvMethod::Split:
      return oc8_weights && split_can_run(p, w, input, out);
    case ConvMethod::Im2colOc8:
      return oc8_weights && im2col_oc8_can_run(p, w, input);
    case ConvMethod::Winograd:
      return w.kernel == ConvKernel::Winograd && w.winograd.defined();  // a batch form (with_batch_weights)
    case ConvMethod::PointwiseGemm:
      return pointwise_gemm_can_run(p, w, input, out, residual);
    case ConvMethod::Im2colGemm:
      return im2col_gemm_can_run(p, w, input, out, residual);
    case ConvMethod::ImplicitGemm:
      return implicit_gemm_can_run(p, w, input, out, residual);
  }
  return false;
}

namespace {
// Runs `method` (one that can run the layer) into `out`.
Tensor run_method(ConvMethod method, const char* op, const ops::Conv2dParams& p, const Tensor& input,
                  const ConvWeights& w, const Epilogue& epi, const Tensor& residual, Tensor out) {
  const MethodScope scope(to_string(method));
  switch (method) {
    case ConvMethod::Auto:
      break;
    case ConvMethod::Direct:
    case ConvMethod::Transposed:
      return run_direct(op, p, input, w, epi, out);
    case ConvMethod::Depthwise:
      run_depthwise(op, p, w, input, out, epi);
      return out;
    case ConvMethod::DepthwisePixel:
      run_depthwise_pixel(op, p, w, input, out, epi);
      return out;
    case ConvMethod::Oc8:
      run_oc8(op, p, input, w.weight, w.weight_format, out, epi, residual,
              std::numeric_limits<int32_t>::max(), 1);
      return out;
    case ConvMethod::Split:
      run_split(op, p, w, input, out, epi, residual);
      return out;
    case ConvMethod::Im2colOc8:
      run_im2col_oc8(op, p, input, w, out, epi, residual);
      return out;
    case ConvMethod::Winograd:
      run_winograd(op, p, input, w, out, epi, residual);
      return out;
    case ConvMethod::PointwiseGemm:
      run_pointwise_gemm(op, p, w, input, out, epi, residual);
      return out;
    case ConvMethod::Im2colGemm:
      run_im2col_gemm(op, p, w, input, out, epi, residual);
      return out;
    case ConvMethod::ImplicitGemm:
      run_implicit_gemm(op, p, w, input, out, epi, residual);
      return out;
  }
  throw Error(detail::concat(op, ": no convolution method chosen"));
}

bool fp16_weights(const ConvWeights& w) {
  return w.weight_format == Buffer::TexelFormat::RGBA16F || w.weight_format == Buffer::TexelFormat::R16F ||
         w.winograd_format == Buffer::TexelFormat::R16F || w.winograd_format == Buffer::TexelFormat::RGBA16F ||
         w.gemm_format == Buffer::TexelFormat::R16F;
}

const char* form_name(ConvKernel k) {
  switch (k) {
    case ConvKernel::Oc8: return "oc8";
    case ConvKernel::Winograd: return "winograd";
    case ConvKernel::Depthwise: return "depthwise";
    case ConvKernel::Direct: return "direct";
    case ConvKernel::Transposed: return "transposed";
  }
  return "?";
}

// What decides which methods can run a layer and how fast: its geometry, the weights' form and
// precision, whether a residual is fused (and whether the batch forms exist).
std::string conv_signature(const ops::Conv2dParams& p, const ConvWeights& w, bool residual) {
  return detail::concat(p.transposed ? "conv_transpose2d" : "conv2d", " n", p.batch, " i", p.in_channels, "x", p.in_h,
                        "x", p.in_w, " o", p.out_channels, "x", p.out_h, "x", p.out_w, " k", p.kernel_h, "x", p.kernel_w,
                        " s", p.stride[0], "x", p.stride[1], " p", p.padding[0], "x", p.padding[1], " d", p.dilation[0],
                        "x", p.dilation[1], " op", p.output_padding[0], "x", p.output_padding[1], " g", p.groups, " ",
                        form_name(w.kernel), fp16_weights(w) ? " fp16" : " fp32", w.winograd.defined() ? "+wino" : "",
                        w.gemm_weight.defined() ? "+gemm" : "", residual ? " residual" : "");
}

// Tuning one layer (tuning.h): every method that can run it timed on random inputs of its shapes,
// each output checked against the reference's (`preferred`, the rules' choice), the fastest
// correct one returned and written to `table`. Runs eagerly, outside any capture this thread
// records (its tensors are its own), and waits for its work.
ConvMethod tune_conv_method(const char* op, const ops::Conv2dParams& p, const ConvWeights& w, const Tensor& x, const Tensor& out,
                            const Tensor& residual, const Epilogue& epi, ConvMethod preferred,
                            const std::string& signature, TuningTable& table, TuningClock& clock) {
  std::vector<std::string> methods{to_string(preferred)};
  for (ConvMethod m : kConvMethods)
    if (m != preferred && conv_method_can_run(m, p, w, x, out, residual)) methods.push_back(to_string(m));
  if (methods.size() == 1) return preferred;
  CommandStream::CaptureSuspension suspension;
  const Tensor input = rand(x.sizes(), 1, tvk::Device::Vulkan);
  const Tensor extra = residual.defined() ? rand(out.sizes(), 2, tvk::Device::Vulkan) : Tensor();
  const std::string best = tune_methods(
      signature, methods, [&] { return empty_vulkan(p.output_sizes()); },
      [&](const std::string& m, const Tensor& result) {
        run_method(*conv_method_named(m), op, p, input, w, epi, extra, result);
      },
      tuning_tolerance(fp16_weights(w)), table, clock);
  return *conv_method_named(best);
}
}  // namespace

Tensor run_convolution(const char* op, const ops::Conv2dParams& p, const Tensor& input, const ConvWeights& packed,
                       std::optional<double> out_min, std::optional<double> out_max, const Tensor& residual,
                       Tensor out, ops::FusedActivation act) {
  Epilogue epi;
  if (out_min) epi.min = static_cast<float>(*out_min);
  if (out_max) epi.max = static_cast<float>(*out_max);
  epi.act = act;
  check_vulkan_float(op, input, "input");
  if (out.defined()) {
    check_vulkan_float(op, out, "out");
    TVK_CHECK(out.sizes() == p.output_sizes() && out.is_contiguous(), op, ": out ", out.shape_string(),
              " is not a contiguous tensor of the output's shape");
  } else {
    out = empty_vulkan(p.output_sizes());
  }
  TVK_CHECK(!residual.defined() || residual.sizes() == out.sizes(), op, ": residual ", residual.shape_string(),
            " does not match the output ", out.shape_string());
  if (residual.defined()) check_vulkan_float(op, residual, "residual");
  // The method: the one the options force where it can run this layer, else the tuned one where
  // tuning knows the layer, else the preferred one.
  const KernelOptions& options = kernel_options();
  const bool batch_forms = p.batch > 1 || conv_gemm_forced() || needs_batch_weights(options.conv);
  const ConvWeights& w = batch_forms ? with_batch_weights(packed) : packed;
  ConvMethod method = options.conv != ConvMethod::Auto && conv_method_can_run(options.conv, p, w, input, out, residual)
                          ? options.conv
                          : preferred_conv_method(p, w, input, out, residual);
  const ConvWeights* run_weights = &w;
  if (options.conv == ConvMethod::Auto) {
    // Tuning sees every method, those that need the batch forms of the weights too (made then,
    // as a forced method would make them); the signature is the rules' view of the layer.
    const auto name = tuned_method(
        options, [&] { return conv_signature(p, w, residual.defined()); },
        [&](const std::string& signature, TuningTable& table, TuningClock& clock) {
          return std::string(to_string(tune_conv_method(op, p, with_batch_weights(packed), input, out, residual, epi,
                                                         method, signature, table, clock)));
        });
    const auto tuned = name ? conv_method_named(*name) : std::nullopt;
    if (tuned && *tuned != ConvMethod::Auto) {
      const ConvWeights& tw = needs_batch_weights(*tuned) ? with_batch_weights(packed) : w;
      if (conv_method_can_run(*tuned, p, tw, input, out, residual)) method = *tuned, run_weights = &tw;
    }
  }
  TVK_CHECK(!residual.defined() || conv_method_can_run(method, p, *run_weights, input, out, residual), op,
            ": a fused residual needs a method that adds it (", to_string(method), " does not)");
  if (options.log) options.log->add(op, to_string(method));
  return run_method(method, op, p, input, *run_weights, epi, residual, out);
}


namespace {

Tensor convolution_impl(const char* op, const Tensor& input, const Tensor& weight, const Tensor& bias,
                        const IntList& stride, const IntList& padding, const IntList& dilation, bool transposed,
                        const IntList& output_padding, int64_t groups, bool allow_unbatched) {
  const ops::Conv2dParams p = ops::conv2d_params(op, input, weight, bias, stride, padding, dilation, transposed,
                                                 output_padding, groups, allow_unbatched);
  check_vulkan_float(op, input, "input");
  check_vulkan_float(op, weight, "weight");
  if (bias.defined()) check_vulkan_float(op, bias, "bias");
  return run_convolution(op, p, input, prepare_conv_weights(weight, bias, groups, transposed, stride, dilation), std::nullopt,
                         std::nullopt);
}

using Schemas = ops::ConvolutionSchemas<convolution_impl>;

}  // namespace

TVK_REGISTER_VULKAN_KERNEL("aten::_convolution_mode", Schemas::convolution_mode);
TVK_REGISTER_VULKAN_KERNEL("aten::convolution_overrideable", Schemas::convolution);
TVK_REGISTER_VULKAN_KERNEL("aten::conv3d", Schemas::conv3d);
TVK_REGISTER_VULKAN_KERNEL("aten::conv3d.padding", Schemas::conv3d_padding);
TVK_REGISTER_VULKAN_KERNEL("aten::conv1d", Schemas::conv1d);
TVK_REGISTER_VULKAN_KERNEL("aten::conv1d.padding", Schemas::conv1d_padding);
TVK_REGISTER_VULKAN_KERNEL("aten::conv2d.padding", Schemas::conv2d_padding);
TVK_REGISTER_VULKAN_KERNEL("aten::conv_transpose1d", Schemas::conv_transpose1d);
TVK_REGISTER_VULKAN_KERNEL("aten::conv2d", Schemas::conv2d);
TVK_REGISTER_VULKAN_KERNEL("aten::conv_transpose2d.input", Schemas::conv_transpose2d);
TVK_REGISTER_VULKAN_KERNEL("aten::conv_transpose3d.input", Schemas::conv_transpose3d);
TVK_REGISTER_VULKAN_KERNEL("aten::convolution", Schemas::convolution);
TVK_REGISTER_VULKAN_KERNEL("aten::_convolution", Schemas::convolution_underscore);
TVK_REGISTER_VULKAN_KERNEL("aten::_convolution.deprecated", Schemas::convolution_deprecated);

}  // namespace tvk::vulkan
