// Depthwise convolution (groups = channels) for GPUs: one output value per invocation, its
// KH x KW taps read from storage buffers with no loop-carried work, so that a layer costs one
// round of memory latency however small it is. conv2d_dw's tile (16 outputs per invocation,
// each input span read once) suits lavapipe, where a fetch costs more than the arithmetic; on
// an H200 at batch 1 it left most of the chip idle and each invocation waiting on a chain of
// fetches (measured: 54 depthwise layers at 7x7x96 took 0.43 ms with it, 0.20 ms with this).
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const int KH = 3;
layout(constant_id = 4) const int KW = 3;
layout(constant_id = 5) const int SH = 1;
layout(constant_id = 6) const int SW = 1;
layout(constant_id = 7) const int DH = 1;
layout(constant_id = 8) const int DW = 1;
layout(constant_id = 9) const int HALF = 0;  // 1: weights are 16-bit floats, two per uint

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(std430, binding = 1) readonly buffer X { float x[]; };
layout(std430, binding = 2) readonly buffer W { float w[]; };
layout(std430, binding = 2) readonly buffer WH { uint wh[]; };
layout(std430, binding = 3) readonly buffer B { float b[]; };  // the weight stands in when has_bias = 0
layout(push_constant) uniform Params {
  int in_w, in_h, channels, batch;
  int out_w, out_h, pad_w, pad_h;
  int has_bias;
  float out_min, out_max;
};

float weight(int i) { return HALF == 1 ? unpackHalf2x16(wh[i >> 1])[i & 1] : w[i]; }

void main() {
  int i = int(gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x);
  int plane = out_w * out_h;
  if (i >= plane * channels * batch) return;
  int plane_id = i / plane;  // n * channels + c
  int c = plane_id % channels;
  int p = i - plane_id * plane;
  int oy = p / out_w, ox = p - oy * out_w;
  float acc = has_bias == 1 ? b[c] : 0.0;
  int in_base = plane_id * in_h * in_w;
  for (int ky = 0; ky < KH; ++ky) {
    int iy = oy * SH - pad_h + ky * DH;
    for (int kx = 0; kx < KW; ++kx) {
      int ix = ox * SW - pad_w + kx * DW;
      bool ok = iy >= 0 && iy < in_h && ix >= 0 && ix < in_w;
      float v = x[in_base + clamp(iy, 0, in_h - 1) * in_w + clamp(ix, 0, in_w - 1)];
      acc += (ok ? v : 0.0) * weight(c * KH * KW + ky * KW + kx);
    }
  }
  y[i] = clamp(acc, out_min, out_max);
}
