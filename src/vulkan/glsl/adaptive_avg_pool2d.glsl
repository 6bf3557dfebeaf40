// Adaptive average pooling over N*C planes: output cell i covers input
// [floor(i*in/out), ceil((i+1)*in/out)) in each dim. GROUP 0 (PoolMethod::Window): one
// invocation per cell, its window in a loop. GROUP 1 (PoolMethod::Group): one work group of
// kGroup invocations per cell (row_groups_launch), each summing a strided part of the window and
// the parts meeting in shared memory: global pooling (squeeze-and-excitation blocks, classifier
// heads) has few cells of thousands of values, where one invocation per cell leaves the GPU idle
// and walks one plane serially.
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const int GROUP = 0;

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(std430, binding = 1) readonly buffer In { float x[]; };
layout(push_constant) uniform Params {
  int in_w, in_h, out_w, out_h, planes;
};

const uint kGroup = 64;  // GROUP 1: the work-group size the host launches (a power of two)
shared float partial[kGroup];

// The window of cell (ox, oy) and the plane's first element.
void window(int ox, int oy, int c, out int y0, out int y1, out int x0, out int x1, out int base) {
  y0 = (oy * in_h) / out_h;
  y1 = ((oy + 1) * in_h + out_h - 1) / out_h;
  x0 = (ox * in_w) / out_w;
  x1 = ((ox + 1) * in_w + out_w - 1) / out_w;
  base = c * in_h * in_w;
}

void main() {
  int y0, y1, x0, x1, base;
  if (GROUP == 0) {
    const int ox = int(gl_GlobalInvocationID.x), oy = int(gl_GlobalInvocationID.y), c = int(gl_GlobalInvocationID.z);
    if (ox >= out_w || oy >= out_h || c >= planes) return;
    window(ox, oy, c, y0, y1, x0, x1, base);
    float sum = 0.0;
    for (int iy = y0; iy < y1; ++iy)
      for (int ix = x0; ix < x1; ++ix) sum += x[base + iy * in_w + ix];
    y[(c * out_h + oy) * out_w + ox] = sum / float((y1 - y0) * (x1 - x0));
    return;
  }
  // GROUP 1: every invocation of the group reaches the barriers; a group past the last cell
  // (the launch's fold into y) sums nothing and stores nothing.
  const int cell = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
  const int cells = out_w * out_h;
  const bool live = cell < cells * planes;
  const int c = live ? cell / cells : 0, in_plane = live ? cell - c * cells : 0;
  window(in_plane % out_w, in_plane / out_w, c, y0, y1, x0, x1, base);
  const int w = x1 - x0, n = live ? (y1 - y0) * w : 0;
  const uint t = gl_LocalInvocationID.x;
  float sum = 0.0;
  if (w == in_w) {  // whole rows: the window is contiguous
    const int first = base + y0 * in_w;
    for (int k = int(t); k < n; k += int(kGroup)) sum += x[first + k];
  } else {
    for (int k = int(t); k < n; k += int(kGroup)) sum += x[base + (y0 + k / w) * in_w + x0 + k % w];
  }
  partial[t] = sum;
  barrier();
  for (uint s = kGroup / 2; s > 0; s >>= 1) {
    if (t < s) partial[t] += partial[t + s];
    barrier();
  }
  if (t == 0 && live) y[cell] = partial[0] / float(n);
}
