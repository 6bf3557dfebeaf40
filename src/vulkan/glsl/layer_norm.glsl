// Layer norm over rows of `cols` elements (the normalized trailing dims): one invocation per row
// computes the mean and biased variance, then writes the row.
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

void main() {
  uint r = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (r >= rows) return;
  uint base = r * cols;
  float sum = 0.0;
  for (uint i = 0; i < cols; ++i) sum += x[base + i];
  float mean = sum / float(cols);
  float sq = 0.0;
  for (uint i = 0; i < cols; ++i) {
    float d = x[base + i] - mean;
    sq += d * d;
  }
  float inv_std = inversesqrt(sq / float(cols) + eps);
  for (uint i = 0; i < cols; ++i) {
    float v = (x[base + i] - mean) * inv_std;
    if (has_weight == 1u) v *= weight[i];
    if (has_bias == 1u) v += bias[i];
    y[base + i] = v;
  }
}
