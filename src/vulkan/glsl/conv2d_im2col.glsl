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
  // The quad's 4 pixels stepped along the output's rows from one division, without a loop
  // (lavapipe keeps loops, and stores the values they carry each iteration).
  int p0 = q * 4, oy0 = p0 / out_w, ox0 = p0 % out_w;
  int oy1 = oy0, ox1 = ox0 + 1;
  if (ox1 == out_w) { ox1 = 0; ++oy1; }
  int oy2 = oy1, ox2 = ox1 + 1;
  if (ox2 == out_w) { ox2 = 0; ++oy2; }
  int oy3 = oy2, ox3 = ox2 + 1;
  if (ox3 == out_w) { ox3 = 0; ++oy3; }
  int dy = ky * DH - pad_h, dx = kx * DW - pad_w;
  vec4 v = vec4(at(base, oy0 * SH + dy, ox0 * SW + dx), at(base, oy1 * SH + dy, ox1 * SW + dx),
                at(base, oy2 * SH + dy, ox2 * SW + dx), at(base, oy3 * SH + dy, ox3 * SW + dx));
  // Pixels past the plane (its last quad's) are 0.
  v = mix(vec4(0.0), v, lessThan(ivec4(p0, p0 + 1, p0 + 2, p0 + 3), ivec4(plane)));
  int o = (ROWS_SPAN_BATCH == 1 ? k * batch + n : n * rows + k) * plane4 + q;
  if (HALF == 1)
    colh[o] = uvec2(packHalf2x16(v.xy), packHalf2x16(v.zw));
  else
    col[o] = v;
}
