// Layer norm over rows of `cols` elements (the normalized trailing dims): one work group of
// 64 invocations per row. Each invocation sums a strided part of the row, the parts meet in
// shared memory (mean, then biased variance), and the row is written. One invocation per row
// was wrong on lavapipe for long rows: gallivm stops a shader's loop after 65535 iterations
// (nested loops included), which a row of 800,000 values passed. Now each invocation takes
// cols / 64 values: rows up to 64 x 65535 values are right there.
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(std430, binding = 1) readonly buffer In { float x[]; };
layout(std430, binding = 2) readonly buffer Weight { float weight[]; };  // x stands in when absent
layout(std430, binding = 3) readonly buffer Bias { float bias[]; };
layout(push_constant) uniform Params {
  uint rows, cols, has_weight, has_bias;
  float eps;
};

const uint kGroup = 64;         // the work-group size the host launches (a power of two)
shared float partial[kGroup];

// The sum over the work group of `v`; every invocation gets it.
float group_sum(float v) {
  uint t = gl_LocalInvocationID.x;
  partial[t] = v;
  barrier();
  for (uint w = kGroup / 2; w > 0; w >>= 1) {
    if (t < w) partial[t] += partial[t + w];
    barrier();
  }
  float total = partial[0];
  barrier();  // before partial is written again
  return total;
}

void main() {
  uint r = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  uint t = gl_LocalInvocationID.x;
  bool live = r < rows;
  uint base = (live ? r : 0) * cols;
  float s = 0.0;
  for (uint i = t; i < cols; i += kGroup) s += x[base + i];
  float mean = group_sum(s) / float(cols);
  float sq = 0.0;
  for (uint i = t; i < cols; i += kGroup) {
    float d = x[base + i] - mean;
    sq += d * d;
  }
  float inv_std = inversesqrt(group_sum(sq) / float(cols) + eps);
  if (!live) return;
  for (uint i = t; i < cols; i += kGroup) {
    float v = (x[base + i] - mean) * inv_std;
    if (has_weight == 1u) v *= weight[i];
    if (has_bias == 1u) v += bias[i];
    y[base + i] = v;
  }
}
