// Bilinear resize over N*C planes, as PyTorch's upsample_bilinear2d: the source coordinate is
// dst * ratio (align_corners) or max(ratio * (dst + 0.5) - 0.5, 0), in float32, with the ratio
// the host derived from the sizes or the scale; the second tap is clamped to the last row or
// column. The input is read as R32 texels.
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(binding = 1) uniform samplerBuffer x;
layout(push_constant) uniform Params {
  int in_w, in_h, out_w, out_h, planes, align_corners;
  float ratio_w, ratio_h;
};

float source(int d, float ratio) {
  float s = align_corners == 1 ? ratio * float(d) : ratio * (float(d) + 0.5) - 0.5;
  return max(s, 0.0);
}

void main() {
  int ox = int(gl_GlobalInvocationID.x), oy = int(gl_GlobalInvocationID.y), c = int(gl_GlobalInvocationID.z);
  if (ox >= out_w || oy >= out_h || c >= planes) return;
  float sy = source(oy, ratio_h), sx = source(ox, ratio_w);
  int y0 = min(int(sy), in_h - 1), x0 = min(int(sx), in_w - 1);
  int y1 = min(y0 + 1, in_h - 1), x1 = min(x0 + 1, in_w - 1);
  float wy = sy - float(y0), wx = sx - float(x0);
  int base = c * in_h * in_w;
  float top = (1.0 - wx) * texelFetch(x, base + y0 * in_w + x0).r + wx * texelFetch(x, base + y0 * in_w + x1).r;
  float bottom = (1.0 - wx) * texelFetch(x, base + y1 * in_w + x0).r + wx * texelFetch(x, base + y1 * in_w + x1).r;
  y[(c * out_h + oy) * out_w + ox] = (1.0 - wy) * top + wy * bottom;
}
