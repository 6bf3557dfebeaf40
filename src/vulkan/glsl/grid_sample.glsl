// grid_sample over 4-D input as PyTorch's grid_sampler_2d: output (n, c, oy, ox) samples plane
// (n, c) at the grid's (x, y) in [-1, 1], unnormalized with or without align_corners.
// MODE 0 bilinear, 1 nearest (half to even), 2 bicubic; PADDING 0 zeros, 1 border, 2 reflection.
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const int MODE = 0;
layout(constant_id = 4) const int PADDING = 0;

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(std430, binding = 1) readonly buffer In { float x[]; };
layout(std430, binding = 2) readonly buffer Grid { float g[]; };
layout(push_constant) uniform Params {
  int in_w, in_h, out_w, out_h, channels, planes, align_corners;
};

#include "cubic.glslh"

float unnormalize(float v, int size) {
  return align_corners == 1 ? (v + 1.0) * 0.5 * float(size - 1) : ((v + 1.0) * float(size) - 1.0) * 0.5;
}
// Reflects v into [twice_low / 2, twice_high / 2] as often as it takes.
float reflect_coordinate(float v, float twice_low, float twice_high) {
  if (twice_low == twice_high) return 0.0;
  float lo = twice_low * 0.5, span = (twice_high - twice_low) * 0.5;
  v = abs(v - lo);
  float extra = mod(v, span);
  int flips = int(floor(v / span));
  return (flips % 2 == 0) ? extra + lo : span - extra + lo;
}
// The padding mode's move of a coordinate: border clips, reflection reflects then clips.
float pad_coordinate(float v, int size) {
  if (PADDING == 1) return clamp(v, 0.0, float(size - 1));
  if (PADDING == 2) {
    v = align_corners == 1 ? reflect_coordinate(v, 0.0, 2.0 * float(size - 1))
                           : reflect_coordinate(v, -1.0, 2.0 * float(size) - 1.0);
    return clamp(v, 0.0, float(size - 1));
  }
  return v;
}
float value(int plane, int iy, int ix) {
  if (iy < 0 || iy >= in_h || ix < 0 || ix >= in_w) return 0.0;
  return x[(plane * in_h + iy) * in_w + ix];
}
// bicubic reads each tap through the padding mode (zeros: outside reads 0).
float tap(int plane, int iy, int ix) {
  float fy = pad_coordinate(float(iy), in_h), fx = pad_coordinate(float(ix), in_w);
  return value(plane, int(fy), int(fx));
}

void main() {
  int ox = int(gl_GlobalInvocationID.x), oy = int(gl_GlobalInvocationID.y), p = int(gl_GlobalInvocationID.z);
  if (ox >= out_w || oy >= out_h || p >= planes) return;
  int n = p / channels;
  int gi = ((n * out_h + oy) * out_w + ox) * 2;
  float r;
  if (MODE == 2) {
    float fx = unnormalize(g[gi], in_w), fy = unnormalize(g[gi + 1], in_h);
    float x0 = floor(fx), y0 = floor(fy);
    float tx = fx - x0, ty = fy - y0;
    int ix = int(x0), iy = int(y0);
    float rows[4];
    for (int i = 0; i < 4; ++i)
      rows[i] = cubic_interp(tap(p, iy - 1 + i, ix - 1), tap(p, iy - 1 + i, ix), tap(p, iy - 1 + i, ix + 1),
                             tap(p, iy - 1 + i, ix + 2), tx);
    r = cubic_interp(rows[0], rows[1], rows[2], rows[3], ty);
  } else {
    float fx = pad_coordinate(unnormalize(g[gi], in_w), in_w), fy = pad_coordinate(unnormalize(g[gi + 1], in_h), in_h);
    if (MODE == 1) {
      r = value(p, int(roundEven(fy)), int(roundEven(fx)));
    } else {
      float x0 = floor(fx), y0 = floor(fy);
      int ix = int(x0), iy = int(y0);
      float e = fx - x0, s = fy - y0;
      r = value(p, iy, ix) * (1.0 - e) * (1.0 - s) + value(p, iy, ix + 1) * e * (1.0 - s) +
          value(p, iy + 1, ix) * (1.0 - e) * s + value(p, iy + 1, ix + 1) * e * s;
    }
  }
  y[(p * out_h + oy) * out_w + ox] = r;
}
