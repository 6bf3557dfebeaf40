// Bicubic resize over N*C planes as PyTorch's upsample_bicubic2d: the source coordinate is
// dst * ratio (align_corners) or (dst + 0.5) * ratio - 0.5, unclamped; its floor (at most in - 1)
// and the fraction (clamped to [0, 1]) pick four rows and four columns, each read clamped to
// the plane's edge.
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(std430, binding = 1) readonly buffer In { float x[]; };
layout(push_constant) uniform Params {
  int in_w, in_h, out_w, out_h, planes, align_corners;
  float ratio_w, ratio_h;
};

#include "cubic.glslh"

float at(int c, int iy, int ix) { return x[(c * in_h + clamp(iy, 0, in_h - 1)) * in_w + clamp(ix, 0, in_w - 1)]; }

void main() {
  int ox = int(gl_GlobalInvocationID.x), oy = int(gl_GlobalInvocationID.y), c = int(gl_GlobalInvocationID.z);
  if (ox >= out_w || oy >= out_h || c >= planes) return;
  float ry = align_corners == 1 ? ratio_h * float(oy) : ratio_h * (float(oy) + 0.5) - 0.5;
  float rx = align_corners == 1 ? ratio_w * float(ox) : ratio_w * (float(ox) + 0.5) - 0.5;
  int iy = min(int(floor(ry)), in_h - 1), ix = min(int(floor(rx)), in_w - 1);
  float ty = clamp(ry - float(iy), 0.0, 1.0), tx = clamp(rx - float(ix), 0.0, 1.0);
  float rows[4];
  for (int i = 0; i < 4; ++i) {
    int r = iy - 1 + i;
    rows[i] = cubic_interp(at(c, r, ix - 1), at(c, r, ix), at(c, r, ix + 1), at(c, r, ix + 2), tx);
  }
  y[(c * out_h + oy) * out_w + ox] = cubic_interp(rows[0], rows[1], rows[2], rows[3], ty);
}
