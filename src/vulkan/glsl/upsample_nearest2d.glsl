// Nearest-neighbour resize over N*C planes: source index = min(floor((dst + offset) * ratio),
// in - 1) in float32, with the ratio the host derived from the scale or the sizes as PyTorch
// does; offset 0.5 for nearest-exact, else 0.
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(std430, binding = 1) readonly buffer In { float x[]; };
layout(push_constant) uniform Params {
  int in_w, in_h, out_w, out_h, planes;
  float ratio_w, ratio_h, offset;
};

void main() {
  int ox = int(gl_GlobalInvocationID.x), oy = int(gl_GlobalInvocationID.y), c = int(gl_GlobalInvocationID.z);
  if (ox >= out_w || oy >= out_h || c >= planes) return;
  int iy = min(int(floor((float(oy) + offset) * ratio_h)), in_h - 1);
  int ix = min(int(floor((float(ox) + offset) * ratio_w)), in_w - 1);
  y[(c * out_h + oy) * out_w + ox] = x[(c * in_h + iy) * in_w + ix];
}
