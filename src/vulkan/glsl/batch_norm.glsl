// Inference batch norm: y = (x - mean[c]) / sqrt(var[c] + eps) * weight[c] + bias[c], where c is
// dim 1 of an (N, C, *) tensor. Missing weight/bias (flags 0) mean 1/0; the mean buffer stands in.
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(std430, binding = 1) readonly buffer In { float x[]; };
layout(std430, binding = 2) readonly buffer Weight { float weight[]; };
layout(std430, binding = 3) readonly buffer Bias { float bias[]; };
layout(std430, binding = 4) readonly buffer Mean { float mean[]; };
layout(std430, binding = 5) readonly buffer Var { float var[]; };
layout(push_constant) uniform Params {
  uint numel, channels, inner, has_weight, has_bias;
  float eps;
};

void main() {
  uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= numel) return;
  uint c = (i / inner) % channels;
  float scale = (has_weight == 1u ? weight[c] : 1.0) / sqrt(var[c] + eps);
  y[i] = (x[i] - mean[c]) * scale + (has_bias == 1u ? bias[c] : 0.0);
}
