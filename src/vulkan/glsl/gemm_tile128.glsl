// fp32 matrix product for GPUs, for large products (convolutions as GEMMs at batch 2+, their
// Winograd products): out[s][i][j] = clamp(alpha * sum_k a[s][i][k] * b[s][k][j] + beta *
// bias[i][j] + residual[s][i][j], out_min, out_max), the contract of gemm_tiled.glsl.
// A work group of 16 x TILE_M / 8 invocations computes a TILE_M x 128 tile (TILE_M 128 or 64);
// each invocation 8 rows x 8 columns (64 accumulators: rows 4 ty .. 4 ty + 3 and TILE_M / 2 +
// the same, columns 4 tx .. 4 tx + 3 and 64 + the same), so each value read from shared memory
// feeds 8 multiply-adds where gemm_tiled's 4 x 4 feeds 4, and the loads of the next K slice from
// memory are in flight while the current one is multiplied. The 64-row tile serves products of
// at most 64 rows (resnet's 64-channel layers), which a 128-row tile would half idle.
// B is read as vec4 along its rows (unit column stride, rows a multiple of 4 floats apart: the
// host checks), A value by value through its strides. Storage buffers throughout.
#version 450
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(constant_id = 3) const int TILE_M = 128;  // rows of a work group's tile: 128 or 64
// Column blocks (gemm.h's GemmColumnBlocks): B's columns are images' pixels side by side,
// COL_BLOCK per image of which the first COL_VALID are real; out is NCHW over them. 0: off.
layout(constant_id = 4) const int COL_BLOCK = 0;
layout(constant_id = 5) const int COL_VALID = 0;
const int TILE = 128;                // columns of a work group's tile
const int TK = 8;  // K per shared-memory step (16 measured no faster on the H200)
// Split K: work group z = s * SPLITS + part sums part's share of the inner dimension and stores
// it, raw, as entry part * batch + s of out (the host then passes no bias, residual or clamp,
// and gemm_split_sum.glsl adds the parts up with the epilogue). 1: no split.
layout(constant_id = 6) const int SPLITS = 1;
const int THREADS = 2 * TILE_M;      // 16 x TILE_M / 8 (the host launches this shape)
const int A_LOADS = TILE_M * TK / THREADS;    // A values an invocation loads per slice
const int A_STEP = THREADS / TK;              // rows between them
const int B_LOADS = TILE * TK / 4 / THREADS;  // B quads an invocation loads per slice

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(std430, binding = 0) writeonly buffer Out4 { vec4 y4[]; };
layout(std430, binding = 1) readonly buffer A { float a[]; };
layout(std430, binding = 2) readonly buffer B { vec4 b4[]; };
layout(std430, binding = 3) readonly buffer Bias { float bias[]; };          // a stands in when has_bias = 0
layout(std430, binding = 4) readonly buffer Residual { float residual[]; };  // a stands in when has_residual = 0
// The push-constant block of gemm_tiled.glsl (the host fills one struct for both).
layout(push_constant) uniform Params {
  int rows, cols, inner, batch;
  int a_batch_stride, a_row_stride, a_inner_stride;
  int b_batch_stride, b_inner_stride, b_col_stride;
  int bias_offset, bias_row_stride, bias_col_stride, has_bias;
  float alpha, beta, out_min, out_max;
  int has_residual;
};

// A's slice as [k][row] (4 floats of padding per k so that the stores along k hit different
// banks while rows stay vec4-aligned), B's as [k][column quad].
shared vec4 a_tile[TK][TILE_M / 4 + 1];
shared vec4 b_tile[TK][TILE / 4];

// The accumulators are named variables, not an array: an array indexed in a loop the compiler
// does not unroll lives in local memory, and then every multiply-add goes through it (the first
// form of this kernel, with vec4 acc[8][2], ran 6x slower than gemm_tiled on an H200).
vec4 c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51, c60, c61, c70, c71;

// Where output column j of row `row` goes in out (and residual), or -1 for none.
int out_index(int s, int row, int j) {
  if (j >= cols) return -1;
  if (COL_BLOCK == 0) return (s * rows + row) * cols + j;
  const int image = j / COL_BLOCK, pixel = j - image * COL_BLOCK;
  return pixel < COL_VALID ? (image * rows + row) * COL_VALID + pixel : -1;
}

// Output row `row`: columns c0 .. c0 + 3 from `left`, c0 + 64 .. c0 + 67 from `right`.
void store_row(int s, int row, int c0, vec4 left, vec4 right) {
  // Bias reads clamped into the product (rows and columns past it are not stored).
  const int bias_row = min(row, rows - 1);
  [[unroll]] for (int h = 0; h < 2; ++h) {
    const int first = c0 + 64 * h;
    vec4 v = alpha * (h == 0 ? left : right);
    if (has_bias == 1)
      [[unroll]] for (int c = 0; c < 4; ++c)
        v[c] += beta * bias[bias_offset + bias_row * bias_row_stride + min(first + c, cols - 1) * bias_col_stride];
    if (row < rows && first < cols) {
      const int o = out_index(s, row, first);
      // 4 whole columns, stored as one vec4 (the 4 columns lie in one image where there are blocks)
      if (COL_BLOCK == 0 ? cols % 4 == 0 : COL_VALID == COL_BLOCK && COL_BLOCK % 4 == 0) {
        if (has_residual == 1) v += vec4(residual[o], residual[o + 1], residual[o + 2], residual[o + 3]);
        // Compares, not clamp(): NaN stays NaN, as in torch.
        [[unroll]] for (int c = 0; c < 4; ++c) {
          if (v[c] < out_min) v[c] = out_min;
          if (v[c] > out_max) v[c] = out_max;
        }
        y4[o / 4] = v;
      } else {
        [[unroll]] for (int c = 0; c < 4; ++c) {
          const int oc = out_index(s, row, first + c);
          if (oc >= 0) {
            float e = v[c];
            if (has_residual == 1) e += residual[oc];
            if (e < out_min) e = out_min;
            if (e > out_max) e = out_max;
            y[oc] = e;
          }
        }
      }
    }
  }
}

void main() {
  const int tx = int(gl_LocalInvocationID.x), ty = int(gl_LocalInvocationID.y);
  const int tid = ty * 16 + tx;
  const int row0 = int(gl_WorkGroupID.y) * TILE_M, col0 = int(gl_WorkGroupID.x) * TILE;
  const int s = int(gl_WorkGroupID.z) / SPLITS, part = int(gl_WorkGroupID.z) % SPLITS;
  // This part's terms: whole slices of TK, the last part's share shorter.
  const int share = ((inner + SPLITS - 1) / SPLITS + TK - 1) / TK * TK;
  const int k_begin = part * share, k_end = min(inner, k_begin + share);
  const int a_base = s * a_batch_stride, b_base4 = s * b_batch_stride / 4;
  // Loads: A's TILE_M x TK slice, A_LOADS values per invocation (TK neighbouring invocations
  // walk k along one row); B's TK x 128 slice, B_LOADS vec4 per invocation (32 neighbours walk
  // one row of B; an invocation's next quad lies THREADS / 32 rows further on).
  const int a_k = tid % TK, a_m = tid / TK;  // rows a_m + A_STEP r
  const int b_k = tid / (TILE / 4), b_q = tid % (TILE / 4);
  const int b_col = col0 + b_q * 4;
  const int B_K_STEP = THREADS / (TILE / 4);

  float a_next[A_LOADS];  // rows a_m + A_STEP r at column a_k
  [[unroll]] for (int r = 0; r < A_LOADS; ++r) {
    const int gi = row0 + a_m + A_STEP * r, gk = k_begin + a_k;
    a_next[r] = gi < rows && gk < k_end ? a[a_base + gi * a_row_stride + gk * a_inner_stride] : 0.0;
  }
  vec4 b_next[B_LOADS];
  [[unroll]] for (int q = 0; q < B_LOADS; ++q) {
    const int gk = k_begin + b_k + B_K_STEP * q;
    b_next[q] = gk < k_end && b_col < cols ? b4[b_base4 + (gk * b_inner_stride + b_col) / 4] : vec4(0.0);
  }

  c00 = c01 = c10 = c11 = c20 = c21 = c30 = c31 = vec4(0.0);
  c40 = c41 = c50 = c51 = c60 = c61 = c70 = c71 = vec4(0.0);
  for (int k0 = k_begin; k0 < k_end; k0 += TK) {
    [[unroll]] for (int r = 0; r < A_LOADS; ++r) {
      const int m = a_m + A_STEP * r;
      a_tile[a_k][m / 4][m % 4] = a_next[r];
    }
    [[unroll]] for (int q = 0; q < B_LOADS; ++q) b_tile[b_k + B_K_STEP * q][b_q] = b_next[q];
    barrier();
    // The next slice's loads go out before this one's multiply-adds.
    const int k1 = k0 + TK;
    if (k1 < k_end) {
      [[unroll]] for (int r = 0; r < A_LOADS; ++r) {
        const int gi = row0 + a_m + A_STEP * r, gk = k1 + a_k;
        a_next[r] = gi < rows && gk < k_end ? a[a_base + gi * a_row_stride + gk * a_inner_stride] : 0.0;
      }
      [[unroll]] for (int q = 0; q < B_LOADS; ++q) {
        const int gk = k1 + b_k + B_K_STEP * q;
        b_next[q] = gk < k_end && b_col < cols ? b4[b_base4 + (gk * b_inner_stride + b_col) / 4] : vec4(0.0);
      }
    }
    [[unroll]] for (int k = 0; k < TK; ++k) {
      const vec4 a0 = a_tile[k][ty], a1 = a_tile[k][TILE_M / 8 + ty];
      const vec4 b0 = b_tile[k][tx], b1 = b_tile[k][16 + tx];
      c00 += a0.x * b0; c01 += a0.x * b1; c10 += a0.y * b0; c11 += a0.y * b1;
      c20 += a0.z * b0; c21 += a0.z * b1; c30 += a0.w * b0; c31 += a0.w * b1;
      c40 += a1.x * b0; c41 += a1.x * b1; c50 += a1.y * b0; c51 += a1.y * b1;
      c60 += a1.z * b0; c61 += a1.z * b1; c70 += a1.w * b0; c71 += a1.w * b1;
    }
    barrier();
  }

  const int c0 = col0 + 4 * tx, r0 = row0 + 4 * ty, r1 = row0 + TILE_M / 2 + 4 * ty;
  const int entry = part * batch + s;
  store_row(entry, r0, c0, c00, c01);
  store_row(entry, r0 + 1, c0, c10, c11);
  store_row(entry, r0 + 2, c0, c20, c21);
  store_row(entry, r0 + 3, c0, c30, c31);
  store_row(entry, r1, c0, c40, c41);
  store_row(entry, r1 + 1, c0, c50, c51);
  store_row(entry, r1 + 2, c0, c60, c61);
  store_row(entry, r1 + 3, c0, c70, c71);
}
