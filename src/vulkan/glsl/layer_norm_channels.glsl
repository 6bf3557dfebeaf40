// tvk::layer_norm_channels: layer norm over dim 1 of an (N, C, plane) tensor, one invocation per
// (image, position): it walks the position's C values (a plane apart; neighbouring invocations
// read neighbouring addresses) for the mean, then the biased variance, then writes. Where
// ConvNeXt permutes to channels-last for aten::layer_norm and back, this reads NCHW in place.
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(std430, binding = 1) readonly buffer In { float x[]; };
layout(std430, binding = 2) readonly buffer Weight { float weight[]; };  // x stands in when absent
layout(std430, binding = 3) readonly buffer Bias { float bias[]; };
layout(push_constant) uniform Params {
  uint positions, channels, plane, has_weight, has_bias;
  float eps;
};

void main() {
  const uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= positions) return;
  const uint n = i / plane, base = n * channels * plane + (i - n * plane);
  float s = 0.0;
  for (uint c = 0; c < channels; ++c) s += x[base + c * plane];
  const float mean = s / float(channels);
  float sq = 0.0;
  for (uint c = 0; c < channels; ++c) {
    const float d = x[base + c * plane] - mean;
    sq += d * d;
  }
  const float inv_std = inversesqrt(sq / float(channels) + eps);
  for (uint c = 0; c < channels; ++c) {
    float v = (x[base + c * plane] - mean) * inv_std;
    if (has_weight == 1) v *= weight[c];
    if (has_bias == 1) v += bias[c];
    y[base + c * plane] = v;
  }
}
