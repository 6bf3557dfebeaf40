// Adaptive average pooling over N*C planes: output cell i covers input
// [floor(i*in/out), ceil((i+1)*in/out)) in each dim.
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(std430, binding = 1) readonly buffer In { float x[]; };
layout(push_constant) uniform Params {
  int in_w, in_h, out_w, out_h, planes;
};

void main() {
  int ox = int(gl_GlobalInvocationID.x), oy = int(gl_GlobalInvocationID.y), c = int(gl_GlobalInvocationID.z);
  if (ox >= out_w || oy >= out_h || c >= planes) return;
  int y0 = (oy * in_h) / out_h, y1 = ((oy + 1) * in_h + out_h - 1) / out_h;
  int x0 = (ox * in_w) / out_w, x1 = ((ox + 1) * in_w + out_w - 1) / out_w;
  int base = c * in_h * in_w;
  float sum = 0.0;
  for (int iy = y0; iy < y1; ++iy)
    for (int ix = x0; ix < x1; ++ix) sum += x[base + iy * in_w + ix];
  y[(c * out_h + oy) * out_w + ox] = sum / float((y1 - y0) * (x1 - x0));
}
