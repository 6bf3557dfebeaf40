// Adaptive max pooling over N*C planes with PyTorch's int64 indices (position in the H x W
// plane), written as two 32-bit words (little-endian, non-negative) into an int64 tensor.
// As torch's kernel: the first of equal maxima, and the last NaN where there is one. GROUP 0
// (PoolMethod::Window): one invocation per cell. GROUP 1 (PoolMethod::Group): a work group of
// kGroup per cell (row_groups_launch), for windows of thousands of values (and past lavapipe's
// 65535 loop iterations), the parts meeting in shared memory.
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const int GROUP = 0;

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(std430, binding = 1) writeonly buffer Indices { uint indices[]; };
layout(std430, binding = 2) readonly buffer In { float x[]; };
layout(push_constant) uniform Params {
  int in_w, in_h, out_w, out_h, planes;
};

const uint kGroup = 64;
shared float best_value[kGroup];
shared int best_at[kGroup];

// Whether (v, i) wins over (w, j) as torch's scan in index order would have it.
bool wins(float v, int i, float w, int j) {
  if (isnan(v) || isnan(w)) return isnan(v) && (!isnan(w) || i > j);
  return v > w || (v == w && i < j);
}

void store(int o, float best, int best_index) {
  y[o] = best;
  indices[2 * o] = uint(best_index);
  indices[2 * o + 1] = 0u;
}

void main() {
  int ox, oy, c;
  const bool group = GROUP == 1;
  bool live;
  if (group) {
    const int cell = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x), cells = out_w * out_h;
    live = cell < cells * planes;
    c = live ? cell / cells : 0;
    const int in_plane = live ? cell - c * cells : 0;
    ox = in_plane % out_w;
    oy = in_plane / out_w;
  } else {
    ox = int(gl_GlobalInvocationID.x);
    oy = int(gl_GlobalInvocationID.y);
    c = int(gl_GlobalInvocationID.z);
    if (ox >= out_w || oy >= out_h || c >= planes) return;
    live = true;
  }
  const int y0 = (oy * in_h) / out_h, y1 = ((oy + 1) * in_h + out_h - 1) / out_h;
  const int x0 = (ox * in_w) / out_w, x1 = ((ox + 1) * in_w + out_w - 1) / out_w;
  const int base = c * in_h * in_w, w = x1 - x0, n = live ? (y1 - y0) * w : 0;
  const int first = group ? int(gl_LocalInvocationID.x) : 0, step = group ? int(kGroup) : 1;
  float best = uintBitsToFloat(0xff800000u);  // -inf
  int best_index = y0 * in_w + x0;
  for (int k = first; k < n; k += step) {
    const int at = (y0 + k / w) * in_w + x0 + k % w;
    const float v = x[base + at];
    if (v > best || isnan(v)) {
      best = v;
      best_index = at;
    }
  }
  if (!group) {
    store((c * out_h + oy) * out_w + ox, best, best_index);
    return;
  }
  const uint t = gl_LocalInvocationID.x;
  if (int(t) >= n) best_index = 0x7fffffff;  // an invocation that saw nothing never wins a tie
  best_value[t] = best;
  best_at[t] = best_index;
  barrier();
  for (uint s = kGroup / 2; s > 0; s >>= 1) {
    if (t < s && wins(best_value[t + s], best_at[t + s], best_value[t], best_at[t])) {
      best_value[t] = best_value[t + s];
      best_at[t] = best_at[t + s];
    }
    barrier();
  }
  if (t == 0 && live) store((c * out_h + oy) * out_w + ox, best_value[0], best_at[0]);
}
