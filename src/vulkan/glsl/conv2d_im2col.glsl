// The patches of a convolution as a matrix, for conv2d_oc8's pointwise GEMM (FLAT): row k =
// (input channel, ky, kx) of the filter, column = output pixel, so a KH x KW convolution with
// any stride, padding and dilation becomes a 1x1 convolution over K = in_c x KH x KW channels
// of the output's plane, with conv2d_pack's weights as they are. Values outside the image are
// 0. Each invocation writes 4 consecutive pixels of one row k; rows are the output's plane
// rounded up to whole texels, zero past its end. HALF = 1 (the GEMM kernels' operand in fp16
// precision): the matrix holds 16-bit floats, 4 per uvec2, which halves its memory traffic.
// ROWS_SPAN_BATCH = 1: one matrix for the whole batch, row k holding every image's pixels side
// by side ([k][n][pixel]), for one product over the batch (gemm.h's column blocks); 0: one
// matrix per image ([n][k][pixel]).
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const int KH = 3;
layout(constant_id = 4) const int KW = 3;
layout(constant_id = 5) const int SH = 1;
layout(constant_id = 6) const int SW = 1;
layout(constant_id = 7) const int DH = 1;
layout(constant_id = 8) const int DW = 1;
layout(constant_id = 9) const int HALF = 0;
layout(constant_id = 10) const int ROWS_SPAN_BATCH = 0;

layout(std430, binding = 0) writeonly buffer Col { vec4 col[]; };
layout(std430, binding = 0) writeonly buffer ColH { uvec2 colh[]; };
layout(binding = 1) uniform samplerBuffer x;  // R32, NCHW
layout(push_constant) uniform Params {
  int in_w, in_h, in_c, batch;  // batch: images in this part
  int out_w, out_h, pad_w, pad_h;
  int batch_base;  // the part's first image in x
};

float at(int base, int iy, int ix) {
  float v = texelFetch(x, base + clamp(iy, 0, in_h - 1) * in_w + clamp(ix, 0, in_w - 1)).r;
  return (iy >= 0 && iy < in_h && ix >= 0 && ix < in_w) ? v : 0.0;
}

void main() {
  int q = int(gl_GlobalInvocationID.x), k = int(gl_GlobalInvocationID.y), n = int(gl_GlobalInvocationID.z);
  int plane = out_h * out_w, plane4 = (plane + 3) / 4;
  int rows = in_c * KH * KW;
  if (q >= plane4 || k >= rows || n >= batch) return;
  int ic = k / (KH * KW), ky = (k / KW) % KH, kx = k % KW;
  int base = ((n + batch_base) * in_c + ic) * in_h * in_w;
  vec4 v;
  int oy = (q * 4) / out_w, ox = (q * 4) % out_w;  // one division per quad, then steps
  for (int i = 0; i < 4; ++i) {
    v[i] = q * 4 + i < plane ? at(base, oy * SH - pad_h + ky * DH, ox * SW - pad_w + kx * DW) : 0.0;
    if (++ox == out_w) {
      ox = 0;
      ++oy;
    }
  }
  int o = (ROWS_SPAN_BATCH == 1 ? k * batch + n : n * rows + k) * plane4 + q;
  if (HALF == 1)
    colh[o] = uvec2(packHalf2x16(v.xy), packHalf2x16(v.zw));
  else
    col[o] = v;
}
