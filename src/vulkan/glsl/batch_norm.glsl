// Inference batch norm: y = (x - mean[c]) / sqrt(var[c] + eps) * weight[c] + bias[c], where c is
// dim 1 of an (N, C, *) tensor. Missing weight/bias (flags 0) mean 1/0; the mean buffer stands in.
// QUADS = 1 (the plane a multiple of 4): an invocation takes 4 neighbours of one channel, so the
// per-channel loads, which llvmpipe makes one invocation at a time, happen once for 4 values,
// and x and y move as vec4.
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const int QUADS = 0;

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(std430, binding = 0) writeonly buffer Out4 { vec4 y4[]; };
layout(std430, binding = 1) readonly buffer In { float x[]; };
layout(std430, binding = 1) readonly buffer In4 { vec4 x4[]; };
layout(std430, binding = 2) readonly buffer Weight { float weight[]; };
layout(std430, binding = 3) readonly buffer Bias { float bias[]; };
layout(std430, binding = 4) readonly buffer Mean { float mean[]; };
layout(std430, binding = 5) readonly buffer Var { float var[]; };
layout(push_constant) uniform Params {
  uint numel, channels, inner, has_weight, has_bias;  // QUADS: numel and inner count quads
  float eps;
};

void main() {
  uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= numel) return;
  uint c = (i / inner) % channels;
  float scale = (has_weight == 1u ? weight[c] : 1.0) / sqrt(var[c] + eps);
  float shift = (has_bias == 1u ? bias[c] : 0.0) - mean[c] * scale;
  if (QUADS == 1) {
    y4[i] = x4[i] * scale + shift;
  } else {
    y[i] = x[i] * scale + shift;
  }
}
