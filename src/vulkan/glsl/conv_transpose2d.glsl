// Transposed 2-D convolution, NCHW, weights [Cin, Cout/groups, kH, kW]: each invocation gathers
// one output element from the input pixels whose (strided, dilated) kernels cover it.
#version 450
#include "nan_clamp.glslh"
#include "activations.glslh"
#include "fused_activation.glslh"
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(std430, binding = 1) readonly buffer In { float x[]; };
layout(std430, binding = 2) readonly buffer Weight { float w[]; };
layout(std430, binding = 3) readonly buffer Bias { float b[]; };  // the weight stands in when has_bias = 0
layout(push_constant) uniform Params {
  int in_w, in_h, in_c, batch;
  int out_w, out_h, out_c, has_bias;
  int kernel_w, kernel_h, stride_w, stride_h;
  int pad_w, pad_h, dilation_w, dilation_h;
  int in_c_per_group, out_c_per_group;
  float out_min, out_max;
};

void main() {
  int ox = int(gl_GlobalInvocationID.x), oy = int(gl_GlobalInvocationID.y);
  int n = int(gl_GlobalInvocationID.z) / out_c, oc = int(gl_GlobalInvocationID.z) % out_c;
  if (ox >= out_w || oy >= out_h || n >= batch) return;
  int g = oc / out_c_per_group, ocg = oc % out_c_per_group;
  float acc = has_bias == 1 ? b[oc] : 0.0;
  for (int ky = 0; ky < kernel_h; ++ky) {
    int ty = oy + pad_h - ky * dilation_h;  // = iy * stride_h for a contributing input row
    if (ty < 0 || ty % stride_h != 0 || ty / stride_h >= in_h) continue;
    int iy = ty / stride_h;
    for (int kx = 0; kx < kernel_w; ++kx) {
      int tx = ox + pad_w - kx * dilation_w;
      if (tx < 0 || tx % stride_w != 0 || tx / stride_w >= in_w) continue;
      int ix = tx / stride_w;
      for (int i = 0; i < in_c_per_group; ++i) {
        int ic = g * in_c_per_group + i;
        acc += x[((n * in_c + ic) * in_h + iy) * in_w + ix] *
               w[((ic * out_c_per_group + ocg) * kernel_h + ky) * kernel_w + kx];
      }
    }
  }
  y[((n * out_c + oc) * out_h + oy) * out_w + ox] = act(clamp_nan(acc, out_min, out_max));
}
