// max_pool2d / avg_pool2d of a fixed window (kernel, stride and dilation are specialisation
// constants, so the tap loops unroll): each invocation computes 4 neighbouring outputs of one
// row of one plane, reading each input row's span once for all 4 (a 3x3 stride-2 window: 9
// loads a row for 4 outputs, where one output per invocation makes 12). No branches: indices
// outside the image are clamped and the value replaced (-inf for max, 0 for avg), which is what
// lavapipe needs to run the loops without per-lane masks. pool2d.glsl handles the rest.
// Semantics as pool2d.glsl: NaN wins a max; avg divides by the window clipped to the padded
// image (count_include_pad) or to the image, or by divisor_override.
// Inputs are read through a texel buffer (lavapipe gathers texel fetches in SIMD; storage loads
// inside loops go lane by lane); STORAGE_BUFFERS = 1 (pool2d_tile_storage, GPUs) reads a
// storage buffer.
// VARIANT pool2d_tile_storage STORAGE_BUFFERS=1
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const int MODE = 0;  // 0 max, 1 avg
layout(constant_id = 4) const int KH = 1;
layout(constant_id = 5) const int KW = 1;
layout(constant_id = 6) const int SH = 1;
layout(constant_id = 7) const int SW = 1;
layout(constant_id = 8) const int DH = 1;
layout(constant_id = 9) const int DW = 1;

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
#ifndef STORAGE_BUFFERS
#define STORAGE_BUFFERS 0
#endif
#if STORAGE_BUFFERS
layout(std430, binding = 1) readonly buffer In { float x[]; };
#define LOAD(i) x[i]
#else
layout(binding = 1) uniform samplerBuffer x;
#define LOAD(i) texelFetch(x, i).x
#endif
// The push-constant block of pool2d.glsl (the host fills one struct for both).
layout(push_constant) uniform Params {
  int in_w, in_h, out_w, out_h;
  int planes, kernel_w, kernel_h, stride_w;
  int stride_h, pad_w, pad_h, dilation_w;
  int dilation_h, count_include_pad, divisor_override;
};

const int MAX = 0, AVG = 1;
const int OUTS = 4;                           // outputs per invocation, along the row
const int SPAN = (OUTS - 1) * SW + (KW - 1) * DW + 1;  // input columns they read

void main() {
  const int ox0 = int(gl_GlobalInvocationID.x) * OUTS, oy = int(gl_GlobalInvocationID.y);
  const int c = int(gl_GlobalInvocationID.z);
  if (ox0 >= out_w || oy >= out_h || c >= planes) return;
  const int base = c * in_h * in_w;
  const int x0 = ox0 * SW - pad_w;  // first input column of the span
  const float kFill = MODE == MAX ? uintBitsToFloat(0xff800000u) : 0.0;  // -inf / 0
  float r[OUTS];
  for (int j = 0; j < OUTS; ++j) r[j] = kFill;
  for (int ky = 0; ky < KH; ++ky) {
    const int iy = oy * SH - pad_h + ky * DH;
    const bool row_in = iy >= 0 && iy < in_h;
    const int row = base + clamp(iy, 0, in_h - 1) * in_w;
    float v[SPAN];
    for (int s = 0; s < SPAN; ++s) {
      const int ix = x0 + s;
      const float loaded = LOAD(row + clamp(ix, 0, in_w - 1));
      v[s] = row_in && ix >= 0 && ix < in_w ? loaded : kFill;
    }
    for (int j = 0; j < OUTS; ++j)
      for (int kx = 0; kx < KW; ++kx) {
        const float t = v[j * SW + kx * DW];
        if (MODE == MAX)
          r[j] = t > r[j] || isnan(t) ? t : r[j];
        else
          r[j] += t;
      }
  }
  const int out_row = (c * out_h + oy) * out_w;
  for (int j = 0; j < OUTS; ++j) {
    const int ox = ox0 + j;
    if (ox >= out_w) break;
    float result = r[j];
    if (MODE == AVG) {
      int ys = oy * SH - pad_h, xs = ox * SW - pad_w;
      int ye = min(ys + KH, in_h + pad_h), xe = min(xs + KW, in_w + pad_w);
      const int pool_size = (ye - ys) * (xe - xs);  // padding counts, the ceil_mode overhang does not
      ys = max(ys, 0); xs = max(xs, 0); ye = min(ye, in_h); xe = min(xe, in_w);
      const int divisor = divisor_override != 0 ? divisor_override
                          : (count_include_pad == 1 ? pool_size : (ye - ys) * (xe - xs));
      result /= float(divisor);
    }
    y[out_row + ox] = result;
  }
}
