// Depthwise convolution (groups = channels) for GPUs: one invocation computes 4 adjacent output
// values of a row, from KH input row spans read from storage buffers with no loop-carried
// work, so that a layer costs one round of memory latency however small it is. The grid is
// (quads of a row, rows, planes): no division per invocation. conv2d_dw's tile (16 outputs
// per invocation, each input span read once) suits lavapipe, where a fetch costs more than the
// arithmetic; on an H200 at batch 1 it left most of the chip idle and each invocation waiting
// on a chain of fetches (measured: 54 depthwise layers at 7x7x96 took 0.43 ms with it, 0.20 ms
// with one output per invocation).
#version 450
#include "nan_clamp.glslh"
#include "activations.glslh"
#include "fused_activation.glslh"
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const int KH = 3;
layout(constant_id = 4) const int KW = 3;
layout(constant_id = 5) const int SH = 1;
layout(constant_id = 6) const int SW = 1;
layout(constant_id = 7) const int DH = 1;
layout(constant_id = 8) const int DW = 1;
layout(constant_id = 9) const int ALIGNED = 0;  // 1: out_w % 4 == 0, a quad is one vec4 store

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(std430, binding = 0) writeonly buffer Out4 { vec4 y4[]; };
layout(std430, binding = 1) readonly buffer X { float x[]; };
layout(std430, binding = 2) readonly buffer W { float w[]; };
layout(std430, binding = 3) readonly buffer B { float b[]; };  // the weight stands in when has_bias = 0
layout(push_constant) uniform Params {
  int in_w, in_h, channels, batch;
  int out_w, out_h, pad_w, pad_h;
  int has_bias;
  float out_min, out_max;
  int plane_base;  // the first plane (n * channels + c) of this dispatch
};

const int SPAN = 3 * SW + (KW - 1) * DW + 1;  // input values of a row span

void main() {
  int ox0 = int(gl_GlobalInvocationID.x) * 4, oy = int(gl_GlobalInvocationID.y);
  int plane_id = plane_base + int(gl_GlobalInvocationID.z);  // n * channels + c
  if (ox0 >= out_w || oy >= out_h) return;
  int c = plane_id % channels;
  vec4 acc = vec4(has_bias == 1 ? b[c] : 0.0);
  int in_base = plane_id * in_h * in_w, ix0 = ox0 * SW - pad_w;
  for (int ky = 0; ky < KH; ++ky) {
    int iy = oy * SH - pad_h + ky * DH;
    bool row_ok = iy >= 0 && iy < in_h;
    int rb = in_base + clamp(iy, 0, in_h - 1) * in_w;
    float row[SPAN];
    for (int s = 0; s < SPAN; ++s) {
      int ix = ix0 + s;
      float v = x[rb + clamp(ix, 0, in_w - 1)];
      row[s] = row_ok && ix >= 0 && ix < in_w ? v : 0.0;
    }
    for (int kx = 0; kx < KW; ++kx)
      acc += vec4(row[kx * DW], row[kx * DW + SW], row[kx * DW + 2 * SW], row[kx * DW + 3 * SW]) *
             w[c * KH * KW + ky * KW + kx];
  }
  acc = act(clamp_nan(acc, out_min, out_max));
  int o = plane_id * out_h * out_w + oy * out_w + ox0;
  if (ALIGNED == 1) {
    y4[o / 4] = acc;
  } else {
    for (int i = 0; i < 4; ++i)
      if (ox0 + i < out_w) y[o + i] = acc[i];
  }
}
