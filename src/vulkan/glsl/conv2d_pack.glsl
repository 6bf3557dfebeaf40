// Packs OIHW convolution weights (and the bias) for conv2d_oc8: blocks of 8 output channels,
// each block a [K][8] matrix (K = in channels per group x KH x KW), so one filter tap of 8
// output channels is two vec4 loads; channels past out_c are zero. The bias follows the
// weights as [blocks x 8] (zeros without a bias).
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) writeonly buffer Packed { float p[]; };
layout(std430, binding = 1) readonly buffer Weight { float w[]; };
layout(std430, binding = 2) readonly buffer Bias { float b[]; };  // the weight stands in when has_bias = 0
layout(push_constant) uniform Params {
  int out_c, k, blocks, has_bias;
};

void main() {
  int e = int(gl_GlobalInvocationID.x) + int(gl_GlobalInvocationID.y) * int(gl_NumWorkGroups.x * gl_WorkGroupSize.x);
  int weights = blocks * k * 8;
  if (e < weights) {
    int j = e % 8, kk = (e / 8) % k, oc = (e / (8 * k)) * 8 + j;
    p[e] = oc < out_c ? w[oc * k + kk] : 0.0;
  } else if (e < weights + blocks * 8) {
    int oc = e - weights;
    p[e] = (has_bias == 1 && oc < out_c) ? b[oc] : 0.0;
  }
}
