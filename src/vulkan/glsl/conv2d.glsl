// Direct 2-D convolution (stride, padding, dilation, groups), NCHW, weights OIHW. Each invocation
// computes 4 output channels of one output pixel, so it reads each input value once for 4
// filters when the 4 channels share a group (SHARED_GROUP = 1: out channels per group % 4 == 0,
// which covers plain and pointwise convolutions); otherwise (depthwise, odd group sizes) the 4
// channels are computed one after the other. Output clamped to [out_min, out_max] for fusions.
#version 450
#include "nan_clamp.glslh"
#include "activations.glslh"
#include "fused_activation.glslh"
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const int SHARED_GROUP = 1;

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

// Sum over one filter (all its input channels and taps) for output channel `oc` at (ox, oy).
float filter_sum(int n, int oc, int ox, int oy) {
  int ic0 = (oc / out_c_per_group) * in_c_per_group;
  int w_base = oc * in_c_per_group * kernel_h * kernel_w;
  float acc = 0.0;
  for (int ic = 0; ic < in_c_per_group; ++ic) {
    int in_base = (n * in_c + ic0 + ic) * in_h * in_w;
    for (int ky = 0; ky < kernel_h; ++ky) {
      int iy = oy * stride_h - pad_h + ky * dilation_h;
      if (iy < 0 || iy >= in_h) continue;
      for (int kx = 0; kx < kernel_w; ++kx) {
        int ix = ox * stride_w - pad_w + kx * dilation_w;
        if (ix < 0 || ix >= in_w) continue;
        acc += x[in_base + iy * in_w + ix] * w[w_base + (ic * kernel_h + ky) * kernel_w + kx];
      }
    }
  }
  return acc;
}

void main() {
  int ox = int(gl_GlobalInvocationID.x), oy = int(gl_GlobalInvocationID.y);
  int blocks = (out_c + 3) / 4;
  int n = int(gl_GlobalInvocationID.z) / blocks;
  int oc0 = (int(gl_GlobalInvocationID.z) % blocks) * 4;
  if (ox >= out_w || oy >= out_h || n >= batch) return;

  vec4 acc = vec4(0.0);
  if (SHARED_GROUP == 1) {
    int ic0 = (oc0 / out_c_per_group) * in_c_per_group;
    int filter_size = in_c_per_group * kernel_h * kernel_w;
    int w_base = oc0 * filter_size;
    for (int ic = 0; ic < in_c_per_group; ++ic) {
      int in_base = (n * in_c + ic0 + ic) * in_h * in_w;
      for (int ky = 0; ky < kernel_h; ++ky) {
        int iy = oy * stride_h - pad_h + ky * dilation_h;
        if (iy < 0 || iy >= in_h) continue;
        for (int kx = 0; kx < kernel_w; ++kx) {
          int ix = ox * stride_w - pad_w + kx * dilation_w;
          if (ix < 0 || ix >= in_w) continue;
          float v = x[in_base + iy * in_w + ix];
          int k = w_base + (ic * kernel_h + ky) * kernel_w + kx;
          acc += v * vec4(w[k], w[k + filter_size], w[k + 2 * filter_size], w[k + 3 * filter_size]);
        }
      }
    }
  } else {
    for (int j = 0; j < 4 && oc0 + j < out_c; ++j) acc[j] = filter_sum(n, oc0 + j, ox, oy);
  }

  int plane = out_h * out_w;
  int o = (n * out_c + oc0) * plane + oy * out_w + ox;
  for (int j = 0; j < 4 && oc0 + j < out_c; ++j) {
    float v = acc[j] + (has_bias == 1 ? b[oc0 + j] : 0.0);
    y[o + j * plane] = act(clamp_nan(v, out_min, out_max));
  }
}
