// max_pool2d (MODE 0: dilation, padding never selected, NaN wins) and avg_pool2d (MODE 1:
// count_include_pad, divisor_override) over N*C planes; one output element per invocation.
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const int MODE = 0;

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(std430, binding = 1) readonly buffer In { float x[]; };
layout(push_constant) uniform Params {
  int in_w, in_h, out_w, out_h;
  int planes, kernel_w, kernel_h, stride_w;
  int stride_h, pad_w, pad_h, dilation_w;
  int dilation_h, count_include_pad, divisor_override;  // divisor_override 0: none
};

const int MAX = 0, AVG = 1;

void main() {
  int ox = int(gl_GlobalInvocationID.x), oy = int(gl_GlobalInvocationID.y), c = int(gl_GlobalInvocationID.z);
  if (ox >= out_w || oy >= out_h || c >= planes) return;
  int base = c * in_h * in_w;
  float r;
  if (MODE == MAX) {
    r = uintBitsToFloat(0xff800000u);  // -inf
    for (int ky = 0; ky < kernel_h; ++ky) {
      int iy = oy * stride_h - pad_h + ky * dilation_h;
      if (iy < 0 || iy >= in_h) continue;
      for (int kx = 0; kx < kernel_w; ++kx) {
        int ix = ox * stride_w - pad_w + kx * dilation_w;
        if (ix < 0 || ix >= in_w) continue;
        float v = x[base + iy * in_w + ix];
        if (v > r || isnan(v)) r = v;
      }
    }
  } else {
    int y0 = oy * stride_h - pad_h, x0 = ox * stride_w - pad_w;
    int y1 = min(y0 + kernel_h, in_h + pad_h), x1 = min(x0 + kernel_w, in_w + pad_w);
    int pool_size = (y1 - y0) * (x1 - x0);  // padding counts, the ceil_mode overhang does not
    y0 = max(y0, 0); x0 = max(x0, 0); y1 = min(y1, in_h); x1 = min(x1, in_w);
    float sum = 0.0;
    for (int iy = y0; iy < y1; ++iy)
      for (int ix = x0; ix < x1; ++ix) sum += x[base + iy * in_w + ix];
    int divisor = divisor_override != 0 ? divisor_override
                  : (count_include_pad == 1 ? pool_size : (y1 - y0) * (x1 - x0));
    r = sum / float(divisor);
  }
  y[(c * out_h + oy) * out_w + ox] = r;
}
