// Packs 3x3 OIHW weights for Winograd F(4,3) (conv2d_wino_in / conv2d_oc8 / conv2d_wino_out):
// each filter g becomes U = G g G^T, 6 x 6 values, and the 36 transformed filters are laid out
// as 36 weight sets of conv2d_oc8's packed form, [36][blocks][in_c][8] (channels past out_c
// zero), followed by one zero bias section [blocks x 8]: the bias is added after the output
// transform, not to each of the 36 products. PLAIN = 1 lays them out as 36 plain [out_c][in_c]
// matrices instead, for the GEMM kernels (gemm.h) and no bias section.
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const int PLAIN = 0;

layout(std430, binding = 0) writeonly buffer Packed { float p[]; };
layout(std430, binding = 1) readonly buffer Weight { float w[]; };
layout(push_constant) uniform Params {
  int out_c, in_c, blocks;
};

// G applied to a 3-vector (one column or row of the filter).
void g6(float a0, float a1, float a2, out float r[6]) {
  r[0] = a0 * 0.25;
  r[1] = (a0 + a1 + a2) * (-1.0 / 6.0);
  r[2] = (a0 - a1 + a2) * (-1.0 / 6.0);
  r[3] = a0 * (1.0 / 24.0) + a1 * (1.0 / 12.0) + a2 * (1.0 / 6.0);
  r[4] = a0 * (1.0 / 24.0) - a1 * (1.0 / 12.0) + a2 * (1.0 / 6.0);
  r[5] = a2;
}

void main() {
  int ic = int(gl_GlobalInvocationID.x), oc = int(gl_GlobalInvocationID.y);
  if (ic >= in_c || oc >= (PLAIN == 1 ? out_c : blocks * 8)) return;
  int set_size = PLAIN == 1 ? out_c * in_c : blocks * in_c * 8;
  if (PLAIN == 0 && ic == 0) p[36 * set_size + oc] = 0.0;
  int dst = PLAIN == 1 ? oc * in_c + ic : ((oc / 8) * in_c + ic) * 8 + oc % 8;
  if (oc >= out_c) {
    for (int xi = 0; xi < 36; ++xi) p[xi * set_size + dst] = 0.0;
    return;
  }
  int src = (oc * in_c + ic) * 9;
  // (G g): 6 rows of 3, column by column.
  float c0[6], c1[6], c2[6];
  g6(w[src], w[src + 3], w[src + 6], c0);
  g6(w[src + 1], w[src + 4], w[src + 7], c1);
  g6(w[src + 2], w[src + 5], w[src + 8], c2);
  // (G g) G^T: each row through G.
  for (int i = 0; i < 6; ++i) {
    float r[6];
    g6(c0[i], c1[i], c2[i], r);
    for (int j = 0; j < 6; ++j) p[(i * 6 + j) * set_size + dst] = r[j];
  }
}
