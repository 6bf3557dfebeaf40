// Winograd F(4,3) output transform: each invocation reads the 36 GEMM products of one tile of
// one output channel (M, as the GEMMs wrote them: [36][out_c][batch][tiles4]), computes the
// 4 x 4 outputs A^T M A, adds the bias and the residual (HAS_RESIDUAL), clamps, and stores the
// outputs that fall inside the image.
// ALIGNED = 1: out_w % 4 == 0, so each tile row of 4 outputs is one vec4 of the output and of
// the residual (bound as RGBA32 texels): one store and one fetch where lavapipe makes 4 of each.
#version 450
#include "nan_clamp.glslh"
#include "activations.glslh"
#include "fused_activation.glslh"
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const int HAS_RESIDUAL = 0;
layout(constant_id = 4) const int ALIGNED = 0;

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(std430, binding = 0) writeonly buffer Out4 { vec4 y4[]; };
layout(binding = 1) uniform samplerBuffer m;         // R32
layout(binding = 2) uniform samplerBuffer bias;      // R32; m stands in when has_bias = 0
layout(binding = 3) uniform samplerBuffer residual;  // R32 (RGBA32 when ALIGNED), the output's shape; m stands in without one
layout(push_constant) uniform Params {
  int out_w, out_h, out_c, batch;  // batch: images in this chunk
  int tiles_w, tiles, tiles4, has_bias;
  float out_min, out_max;
  // This dispatch's part: images batch_base.. (of the residual; of y from y_batch_base, which is
  // 0 when y is bound from the part's first image), tiles tile_base .. tile_base + tile_count.
  int batch_base, y_batch_base, tile_base, tile_count;
};

// A^T applied to 6 values: the 4 outputs of one row or column.
vec4 at4(float a0, float a1, float a2, float a3, float a4, float a5) {
  return vec4(a0 + a1 + a2 + a3 + a4, a1 - a2 + 2.0 * (a3 - a4), a1 + a2 + 4.0 * (a3 + a4),
              a1 - a2 + 8.0 * (a3 - a4) + a5);
}

// Column j of A^T M: the 6 products of column j, one per row of M, through A^T.
vec4 column(int src, int stride, int j) {
  return at4(texelFetch(m, src + j * stride).r, texelFetch(m, src + (6 + j) * stride).r,
             texelFetch(m, src + (12 + j) * stride).r, texelFetch(m, src + (18 + j) * stride).r,
             texelFetch(m, src + (24 + j) * stride).r, texelFetch(m, src + (30 + j) * stride).r);
}

// One output row of the tile, bias, residual and clamp applied; `o` indexes the output plane.
void store_row(int o_base, int r_base, int o, int valid, vec4 row) {
  if (ALIGNED == 1) {
    // o, o_base and r_base are multiples of 4 (so is the plane), and the row is whole.
    if (HAS_RESIDUAL == 1) row += texelFetch(residual, (r_base + o) / 4);
    y4[(o_base + o) / 4] = act(clamp_nan(row, out_min, out_max));
    return;
  }
  if (HAS_RESIDUAL == 1) {
    // Clamped reads: a partial tile at the image's edge never reads past the residual.
    int last = o + max(valid - 1, 0);
    row += vec4(texelFetch(residual, r_base + o).r, texelFetch(residual, r_base + min(o + 1, last)).r,
                texelFetch(residual, r_base + min(o + 2, last)).r, texelFetch(residual, r_base + min(o + 3, last)).r);
  }
  row = act(clamp_nan(row, out_min, out_max));
  if (valid >= 4) {
    y[o_base + o] = row.x; y[o_base + o + 1] = row.y; y[o_base + o + 2] = row.z; y[o_base + o + 3] = row.w;
  } else {
    if (valid > 0) y[o_base + o] = row.x;
    if (valid > 1) y[o_base + o + 1] = row.y;
    if (valid > 2) y[o_base + o + 2] = row.z;
  }
}

void main() {
  int t = int(gl_GlobalInvocationID.x), oc = int(gl_GlobalInvocationID.y), n = int(gl_GlobalInvocationID.z);
  int tg = tile_base + t;
  if (t >= tile_count || tg >= tiles || oc >= out_c || n >= batch) return;
  int stride = batch * out_c * tiles4;
  int src = (oc * batch + n) * tiles4 + t;
  // A^T M, column by column (written without loops or local arrays, which lavapipe keeps and
  // indexes lane by lane).
  vec4 c0 = column(src, stride, 0), c1 = column(src, stride, 1), c2 = column(src, stride, 2);
  vec4 c3 = column(src, stride, 3), c4 = column(src, stride, 4), c5 = column(src, stride, 5);
  float b = has_bias == 1 ? texelFetch(bias, oc).r : 0.0;
  int oy0 = (tg / tiles_w) * 4, ox0 = (tg % tiles_w) * 4;
  int plane = out_h * out_w;
  int o_base = ((y_batch_base + n) * out_c + oc) * plane;
  int r_base = ((batch_base + n) * out_c + oc) * plane;
  int valid = min(out_w - ox0, 4), o = oy0 * out_w + ox0;
  // Row i of (A^T M) A: row i of A^T M through A^T.
  store_row(o_base, r_base, o, valid, at4(c0.x, c1.x, c2.x, c3.x, c4.x, c5.x) + b);
  if (oy0 + 1 < out_h) store_row(o_base, r_base, o + out_w, valid, at4(c0.y, c1.y, c2.y, c3.y, c4.y, c5.y) + b);
  if (oy0 + 2 < out_h) store_row(o_base, r_base, o + 2 * out_w, valid, at4(c0.z, c1.z, c2.z, c3.z, c4.z, c5.z) + b);
  if (oy0 + 3 < out_h) store_row(o_base, r_base, o + 3 * out_w, valid, at4(c0.w, c1.w, c2.w, c3.w, c4.w, c5.w) + b);
}
