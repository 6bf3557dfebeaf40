// Depthwise convolution (groups = channels, one filter per channel), NCHW: each invocation
// computes a 4 x 4 tile of output pixels; a work group covers one channel, so its KH x KW
// weights are read once into registers, and each input row span is read once for every tap
// and output row that uses it. Input and weights are R32 texels, read without branches
// (clamped index, value replaced by 0 outside the image). Kernel size, stride and dilation are
// specialisation constants, so all tap loops unroll. ALIGNED = 1 (out_w % 4 == 0) stores each
// output row of the tile as one vec4. VEC_IN = 1 (in_w % 4 == 0): the input is bound as RGBA32
// texels and a row span is read 4 values per fetch; the span starts SHIFT = (-pad_w) mod 4
// values into its first texel, the same for every invocation.
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
layout(constant_id = 9) const int ALIGNED = 0;
layout(constant_id = 10) const int VEC_IN = 0;
layout(constant_id = 11) const int SHIFT = 0;

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(std430, binding = 0) writeonly buffer Out4 { vec4 y4[]; };
layout(binding = 1) uniform samplerBuffer x;  // R32, or RGBA32 when VEC_IN
layout(binding = 2) uniform samplerBuffer w;
layout(binding = 3) uniform samplerBuffer b;  // the weight stands in when has_bias = 0
layout(push_constant) uniform Params {
  int in_w, in_h, channels, batch;
  int out_w, out_h, pad_w, pad_h;
  int has_bias;
  float out_min, out_max;
};

const int ROWS = 4;                                  // output rows per invocation
const int SPAN = 3 * SW + (KW - 1) * DW + 1;         // input columns per row read
const int IN_ROWS = (ROWS - 1) * SH + (KH - 1) * DH + 1;  // input rows per invocation
const int TEXELS = (SHIFT + SPAN + 3) / 4;           // RGBA32 texels per row span (VEC_IN)

void main() {
  int lane = int(gl_GlobalInvocationID.x);
  int plane_id = int(gl_WorkGroupID.z);  // n * channels + c
  int c = plane_id % channels;
  int quads = (out_w + 3) / 4;
  int tiles = ((out_h + ROWS - 1) / ROWS) * quads;
  bool live = lane < tiles;
  int l = min(lane, tiles - 1);
  int oy0 = (l / quads) * ROWS;
  int ox0 = (l % quads) * 4;

  float wt[KH * KW];
  for (int t = 0; t < KH * KW; ++t) wt[t] = texelFetch(w, c * KH * KW + t).r;
  vec4 acc[ROWS];
  float bias = has_bias == 1 ? texelFetch(b, c).r : 0.0;
  for (int r = 0; r < ROWS; ++r) acc[r] = vec4(bias);
  int in_base = plane_id * in_h * in_w;
  int ix0 = ox0 * SW - pad_w;
  for (int t = 0; t < IN_ROWS; ++t) {
    int iy = oy0 * SH - pad_h + t;
    bool row_ok = iy >= 0 && iy < in_h;
    int rb = in_base + clamp(iy, 0, in_h - 1) * in_w;
    float row[SPAN];
    if (VEC_IN == 1) {
      int t0 = (ix0 - SHIFT) / 4;  // exact: ix0 - SHIFT is a multiple of 4
      int row_texels = in_w / 4;
      float vals[TEXELS * 4];
      for (int j = 0; j < TEXELS; ++j) {
        int t = t0 + j;
        vec4 v = texelFetch(x, rb / 4 + clamp(t, 0, row_texels - 1));
        bool ok = row_ok && t >= 0 && t < row_texels;
        for (int e = 0; e < 4; ++e) vals[j * 4 + e] = ok ? v[e] : 0.0;
      }
      for (int s = 0; s < SPAN; ++s) row[s] = vals[SHIFT + s];
    } else {
      for (int s = 0; s < SPAN; ++s) {
        int ix = ix0 + s;
        float v = texelFetch(x, rb + clamp(ix, 0, in_w - 1)).r;
        row[s] = (row_ok && ix >= 0 && ix < in_w) ? v : 0.0;
      }
    }
    for (int r = 0; r < ROWS; ++r)
      for (int ky = 0; ky < KH; ++ky)
        if (r * SH + ky * DH == t)
          for (int kx = 0; kx < KW; ++kx)
            acc[r] += vec4(row[kx * DW], row[kx * DW + SW], row[kx * DW + 2 * SW], row[kx * DW + 3 * SW]) *
                      wt[ky * KW + kx];
  }
  if (!live) return;
  for (int r = 0; r < ROWS; ++r) {
    if (oy0 + r >= out_h) break;
    vec4 v = act(clamp_nan(acc[r], out_min, out_max));
    int o = plane_id * out_h * out_w + (oy0 + r) * out_w + ox0;
    if (ALIGNED == 1) {
      y4[o / 4] = v;
    } else {
      for (int i = 0; i < 4; ++i) {
        if (ox0 + i >= out_w) break;
        y[o + i] = v[i];
      }
    }
  }
}
