// Convolution as a register-tiled GEMM over NCHW: each invocation computes 4 output pixels of
// one row x 8 output channels (32 accumulators). A work group covers pixels of one 8-channel
// block, so all its invocations read the same weights, and each input value read feeds 8
// multiply-adds. Weights come packed by conv2d_pack.glsl ([block][K][8] then the bias) and
// are read as RGBA32 texels: one texel is 4 output channels of one tap. Inputs are read as
// texels too (RGBA32 = 4 pixels when FLAT, else R32), never with branches: an index outside
// the image is clamped and its value replaced by 0, so only lanes past the end of the work
// (which, without a split, leave first) mask lavapipe's loops.
// Kernel size, stride and dilation are specialisation constants so the tap loops unroll.
// FLAT = 1: 1x1, stride 1, no padding and H*W % 4 == 0, so 4 pixels are one texel.
// PADDED = 1 (FLAT only): the input's plane is the output's rounded up to a multiple of 4 (an
// im2col matrix with zero columns past the end), so outputs and the residual go value by value.
// ALIGNED = 1: out_w % 4 == 0, so each row of 4 outputs is stored as one vec4.
// HAS_RESIDUAL = 1: a tensor of the output's shape is added before the clamp (conv + add + relu
// in one pass).
// STORAGE_BUFFERS = 1 (the variant conv2d_oc8_storage, for GPUs): inputs, weights and the
// residual are read from storage buffers instead of texel buffers.
// VARIANT conv2d_oc8_storage STORAGE_BUFFERS=1
// STORAGE_BUFFERS = 2 (conv2d_oc8_storage16, for devices with 16-bit storage): the same, fp16
// weights read as f16vec4 (half_weights.glslh).
// VARIANT conv2d_oc8_storage16 STORAGE_BUFFERS=2
// KSPLIT > 1 (GPUs, where one invocation per tile leaves most of the chip idle on small
// layers): the work group's y dimension splits the input channels, and the partial sums meet in
// shared memory (a tree reduction). The work group then has gl_WorkGroupSize.x pixel quads x
// KSPLIT slices.
#version 450
#ifndef STORAGE_BUFFERS
#define STORAGE_BUFFERS 0
#endif
#if STORAGE_BUFFERS == 2
#extension GL_EXT_shader_16bit_storage : require
#define WEIGHTS16 1
#endif
#include "nan_clamp.glslh"
#include "activations.glslh"
#include "fused_activation.glslh"
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const int KH = 1;
layout(constant_id = 4) const int KW = 1;
layout(constant_id = 5) const int SH = 1;
layout(constant_id = 6) const int SW = 1;
layout(constant_id = 7) const int DH = 1;
layout(constant_id = 8) const int DW = 1;
layout(constant_id = 9) const int FLAT = 0;
layout(constant_id = 10) const int HAS_RESIDUAL = 0;
layout(constant_id = 11) const int ALIGNED = 0;  // out_w % 4 == 0: a row of 4 outputs is one vec4
layout(constant_id = 12) const int KSPLIT = 1;
// UNROLL = 4 (GPUs; on lavapipe the FLAT GEMM): the channel loop runs 4 channels per iteration.
// On a GPU the loads of 4 channels are then in flight together; one channel at a time leaves
// it waiting on each load's latency. llvmpipe stores each loop-carried value (here the 32
// accumulators) once per iteration, blended with the loop's lane mask, so 4 channels per
// iteration pay that store a quarter as often (profiled with perf on the JIT code). Its direct
// tile keeps UNROLL = 1: 4 x KH x KW taps per iteration only grow the code there.
layout(constant_id = 13) const int UNROLL = 1;
// FOLD = 1 (FLAT only, for planes of a few texels, e.g. Winograd's 36 GEMMs on a 7x7 image):
// the work groups' x runs over images x pixel quads and z over the channel blocks, so the
// lanes of a work group are not mostly past the end of one small plane.
layout(constant_id = 14) const int FOLD = 0;
layout(constant_id = 15) const int PADDED = 0;

const int kMaxInvocations = 128;  // x * y of the work group (checked by the host)
shared vec4 partial[kMaxInvocations * 8];

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(std430, binding = 0) writeonly buffer Out4 { vec4 y4[]; };
#if STORAGE_BUFFERS
// The storage-buffer form: measured on an H200, GPU time at batch 32 fell 7-12% (mobilenet_v2
// 2.57 -> 2.39 ms, squeezenet1_1 3.11 -> 2.75, resnet18 5.32 -> 4.80) and resnet18's at batch 1
// 13% (0.68 -> 0.59): texel fetches go through the texture units, which serve fewer loads per
// clock than the load/store path. lavapipe keeps texel fetches (see architecture.md).
layout(constant_id = 16) const int HALF = 0;  // 1: weights are 16-bit floats, 4 per uvec2
layout(std430, binding = 1) readonly buffer X1 { float x1[]; };
layout(std430, binding = 1) readonly buffer X4 { vec4 x4[]; };
layout(std430, binding = 2) readonly buffer W4 { vec4 w4[]; };
#define HALF_WEIGHTS_BINDING 2
#include "half_weights.glslh"
layout(std430, binding = 3) readonly buffer R1 { float r1[]; };
layout(std430, binding = 3) readonly buffer R4 { vec4 r4[]; };
vec4 x_texel(int i) { return x4[i]; }
float x_value(int i) { return x1[i]; }
vec4 w_texel(int i) {
  if (HALF == 1) return half_weights(i);
  return w4[i];
}
vec4 r_texel(int i) { return r4[i]; }
float r_value(int i) { return r1[i]; }
#else
layout(binding = 1) uniform samplerBuffer x;         // RGBA32 texels when FLAT, else R32
layout(binding = 2) uniform samplerBuffer w;         // RGBA32 texels
layout(binding = 3) uniform samplerBuffer residual;  // as x (R32 when PADDED); the input stands in without one
vec4 x_texel(int i) { return texelFetch(x, i); }
float x_value(int i) { return texelFetch(x, i).r; }
vec4 w_texel(int i) { return texelFetch(w, i); }
vec4 r_texel(int i) { return texelFetch(residual, i); }
float r_value(int i) { return texelFetch(residual, i).r; }
#endif
layout(push_constant) uniform Params {
  int in_w, in_h, in_c, batch;
  int out_w, out_h, out_c, blocks;
  int pad_w, pad_h, in_c_per_group, out_c_per_group;
  float out_min, out_max;
  // The first image of this dispatch: an output larger than one storage-buffer binding may hold
  // is written in batch chunks, each binding its part of the output (indices below are
  // relative to it), while inputs and the residual are read whole through texel views.
  int batch_base;
  // Weight sets (Winograd's 36 transformed filters): image n uses set n / wset_images, and the
  // bias follows all wset_count sets. A plain convolution has one set for every image.
  int wset_images, wset_count;
};

// Row span of input one invocation reads per tap row: 4 outputs, KW taps.
const int SPAN = 3 * SW + (KW - 1) * DW + 1;

vec4 acc0 = vec4(0.0), acc1 = vec4(0.0), acc2 = vec4(0.0), acc3 = vec4(0.0);
vec4 acc4 = vec4(0.0), acc5 = vec4(0.0), acc6 = vec4(0.0), acc7 = vec4(0.0);

void fma8(vec4 v, vec4 wl, vec4 wh) {
  acc0 += v * wl.x; acc1 += v * wl.y; acc2 += v * wl.z; acc3 += v * wl.w;
  acc4 += v * wh.x; acc5 += v * wh.y; acc6 += v * wh.z; acc7 += v * wh.w;
}

// One input channel of a FLAT (1x1) tile: 4 pixels as one texel.
void flat_channel(int xi, int plane4, int wbase, int ic) {
  fma8(x_texel(xi + ic * plane4), w_texel(wbase + ic * 2), w_texel(wbase + ic * 2 + 1));
}

// One input channel of a general tile: KH x KW taps over 4 outputs of one row.
void tile_channel(int n, int ic0, int oy, int ix0, int wbase, int ic) {
  int in_base = ((n + batch_base) * in_c + ic0 + ic) * in_h * in_w;
  for (int ky = 0; ky < KH; ++ky) {
    int iy = oy * SH - pad_h + ky * DH;
    bool row_ok = iy >= 0 && iy < in_h;
    int rb = in_base + clamp(iy, 0, in_h - 1) * in_w;
    float row[SPAN];
    for (int s = 0; s < SPAN; ++s) {
      int ix = ix0 + s;
      float v = x_value(rb + clamp(ix, 0, in_w - 1));
      row[s] = (row_ok && ix >= 0 && ix < in_w) ? v : 0.0;
    }
    for (int kx = 0; kx < KW; ++kx) {
      vec4 v = vec4(row[kx * DW], row[kx * DW + SW], row[kx * DW + 2 * SW], row[kx * DW + 3 * SW]);
      int wk = wbase + ((ic * KH + ky) * KW + kx) * 2;
      fma8(v, w_texel(wk), w_texel(wk + 1));
    }
  }
}

// Output channel oc0 + j of this invocation's 4 pixels, `v` with its bias: the residual added,
// clamped and stored.
void store_channel(int n, int oc0, int q, int oy, int ox0, int out_plane, int j, vec4 v) {
  if (oc0 + j >= out_c) return;
  int o = (n * out_c + oc0 + j) * out_plane;
  int r_base = batch_base * out_c * out_plane;  // the residual is bound whole
  if (FLAT == 1 && PADDED == 0) {
    int o4 = o / 4 + q;
    if (HAS_RESIDUAL == 1) v += r_texel(r_base / 4 + o4);
    y4[o4] = act(clamp_nan(v, out_min, out_max));
  } else if (FLAT == 0 && ALIGNED == 1) {
    int o4 = (o + oy * out_w + ox0) / 4;
    int r = r_base + o4 * 4;
    if (HAS_RESIDUAL == 1) v += vec4(r_value(r), r_value(r + 1), r_value(r + 2), r_value(r + 3));
    y4[o4] = act(clamp_nan(v, out_min, out_max));
  } else {
    // Value by value, written without a loop: the 4 pixels run from `first` to the end of the
    // plane (PADDED: it is not whole texels) or of the row, `last` values on (0 to 3 stored).
    int first = o + (FLAT == 1 ? q * 4 : oy * out_w + ox0);
    int last = FLAT == 1 ? out_plane - 1 - q * 4 : out_w - 1 - ox0;
    if (HAS_RESIDUAL == 1)
      v += vec4(r_value(r_base + first), r_value(r_base + first + min(1, last)),
                r_value(r_base + first + min(2, last)), r_value(r_base + first + min(3, last)));
    v = act(clamp_nan(v, out_min, out_max));
    y[first] = v.x;
    if (last >= 1) y[first + 1] = v.y;
    if (last >= 2) y[first + 2] = v.z;
    if (last >= 3) y[first + 3] = v.w;
  }
}

void main() {
  int lane = int(gl_GlobalInvocationID.x);
  int slice = int(gl_LocalInvocationID.y);
  int n = int(gl_WorkGroupID.z) / blocks;
  int block = int(gl_WorkGroupID.z) % blocks;
  int q = lane;  // FLAT: the pixel quad within the image
  if (FOLD == 1) {
    int plane4 = in_h * in_w / 4;
    n = min(lane / plane4, batch - 1);
    q = lane % plane4;
    block = int(gl_WorkGroupID.z);
  }
  int oc0 = block * 8;
  int ic0 = (oc0 / out_c_per_group) * in_c_per_group;
  int k_size = in_c_per_group * KH * KW;
  int wset_texels = blocks * k_size * 2;
  int wbase = ((n + batch_base) / wset_images) * wset_texels + block * k_size * 2;
  int out_plane = out_h * out_w;

  int oy = 0, ox0 = 0;
  bool live;
  int ic = slice;
  if (FLAT == 1) {
    int plane4 = in_h * in_w / 4;
    live = FOLD == 1 ? lane < batch * plane4 : lane < plane4;
    // Lanes past the work leave before the loop (without a split, no barrier waits for them),
    // where they used to run it in full on clamped indices: Winograd's 36 GEMMs on a 7x7 image
    // fill 36 of 64 lanes, squeezenet1_1's classifier 43, and on lavapipe, which runs a work
    // group 8 lanes at a time, those GEMMs took 24-44% less time once the idle lanes left.
    if (KSPLIT == 1 && !live) return;
    int xi = ((n + batch_base) * in_c + ic0) * plane4 + min(q, plane4 - 1);
    if (UNROLL == 4) {
      for (; ic + 3 * KSPLIT < in_c_per_group; ic += 4 * KSPLIT) {
        flat_channel(xi, plane4, wbase, ic);
        flat_channel(xi, plane4, wbase, ic + KSPLIT);
        flat_channel(xi, plane4, wbase, ic + 2 * KSPLIT);
        flat_channel(xi, plane4, wbase, ic + 3 * KSPLIT);
      }
    }
    for (; ic < in_c_per_group; ic += KSPLIT) flat_channel(xi, plane4, wbase, ic);
  } else {
    int quads = (out_w + 3) / 4;
    live = lane < out_h * quads;
    if (KSPLIT == 1 && !live) return;  // as above
    int l = min(lane, out_h * quads - 1);
    oy = l / quads;
    ox0 = (l % quads) * 4;
    int ix0 = ox0 * SW - pad_w;
    if (UNROLL == 4) {
      for (; ic + 3 * KSPLIT < in_c_per_group; ic += 4 * KSPLIT) {
        tile_channel(n, ic0, oy, ix0, wbase, ic);
        tile_channel(n, ic0, oy, ix0, wbase, ic + KSPLIT);
        tile_channel(n, ic0, oy, ix0, wbase, ic + 2 * KSPLIT);
        tile_channel(n, ic0, oy, ix0, wbase, ic + 3 * KSPLIT);
      }
    }
    for (; ic < in_c_per_group; ic += KSPLIT) tile_channel(n, ic0, oy, ix0, wbase, ic);
  }
  if (KSPLIT > 1) {
    // Tree reduction over the slices (KSPLIT is a power of two): log2(KSPLIT) steps, where one
    // invocation summing every slice would wait on KSPLIT * 8 shared-memory loads in a row.
    int wx = int(gl_WorkGroupSize.x), lx = int(gl_LocalInvocationID.x);
    int me = (slice * wx + lx) * 8;
    partial[me] = acc0; partial[me + 1] = acc1; partial[me + 2] = acc2; partial[me + 3] = acc3;
    partial[me + 4] = acc4; partial[me + 5] = acc5; partial[me + 6] = acc6; partial[me + 7] = acc7;
    for (int step = KSPLIT / 2; step > 0; step /= 2) {
      barrier();
      if (slice < step) {
        int other = ((slice + step) * wx + lx) * 8;
        acc0 += partial[other]; acc1 += partial[other + 1]; acc2 += partial[other + 2]; acc3 += partial[other + 3];
        acc4 += partial[other + 4]; acc5 += partial[other + 5]; acc6 += partial[other + 6]; acc7 += partial[other + 7];
        partial[me] = acc0; partial[me + 1] = acc1; partial[me + 2] = acc2; partial[me + 3] = acc3;
        partial[me + 4] = acc4; partial[me + 5] = acc5; partial[me + 6] = acc6; partial[me + 7] = acc7;
      }
    }
    if (slice != 0) return;
  }
  if (!live) return;

  int bias4 = wset_count * wset_texels + block * 2;
  vec4 bl = w_texel(bias4), bh = w_texel(bias4 + 1);
  // Written out channel by channel, without a loop over an array of the accumulators: lavapipe
  // keeps such loops and indexes such arrays lane by lane (squeezenet1_1's 27-term stem took
  // 3-8% less time without).
  store_channel(n, oc0, q, oy, ox0, out_plane, 0, acc0 + bl.x);
  store_channel(n, oc0, q, oy, ox0, out_plane, 1, acc1 + bl.y);
  store_channel(n, oc0, q, oy, ox0, out_plane, 2, acc2 + bl.z);
  store_channel(n, oc0, q, oy, ox0, out_plane, 3, acc3 + bl.w);
  store_channel(n, oc0, q, oy, ox0, out_plane, 4, acc4 + bh.x);
  store_channel(n, oc0, q, oy, ox0, out_plane, 5, acc5 + bh.y);
  store_channel(n, oc0, q, oy, ox0, out_plane, 6, acc6 + bh.z);
  store_channel(n, oc0, q, oy, ox0, out_plane, 7, acc7 + bh.w);
}
