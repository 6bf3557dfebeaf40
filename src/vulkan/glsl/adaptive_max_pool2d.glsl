// Adaptive max pooling over N*C planes with PyTorch's int64 indices (position in the H x W
// plane), written as two 32-bit words (little-endian, non-negative) into an int64 tensor.
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(std430, binding = 1) writeonly buffer Indices { uint indices[]; };
layout(std430, binding = 2) readonly buffer In { float x[]; };
layout(push_constant) uniform Params {
  int in_w, in_h, out_w, out_h, planes;
};

void main() {
  int ox = int(gl_GlobalInvocationID.x), oy = int(gl_GlobalInvocationID.y), c = int(gl_GlobalInvocationID.z);
  if (ox >= out_w || oy >= out_h || c >= planes) return;
  int y0 = (oy * in_h) / out_h, y1 = ((oy + 1) * in_h + out_h - 1) / out_h;
  int x0 = (ox * in_w) / out_w, x1 = ((ox + 1) * in_w + out_w - 1) / out_w;
  int base = c * in_h * in_w;
  float best = uintBitsToFloat(0xff800000u);  // -inf
  int best_index = y0 * in_w + x0;
  for (int iy = y0; iy < y1; ++iy)
    for (int ix = x0; ix < x1; ++ix) {
      float v = x[base + iy * in_w + ix];
      if (v > best || isnan(v)) {
        best = v;
        best_index = iy * in_w + ix;
      }
    }
  int o = (c * out_h + oy) * out_w + ox;
  y[o] = best;
  indices[2 * o] = uint(best_index);
  indices[2 * o + 1] = 0u;
}
