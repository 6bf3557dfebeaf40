// fp32 matrix product for GPUs, for large products (convolutions as GEMMs, their Winograd
// products): out[s][i][j] = clamp(alpha * sum_k a[s][i][k] * b[s][k][j] + beta * bias[i][j] +
// residual[s][i][j], out_min, out_max), the contract of gemm_tiled.glsl.
// A work group of TILE_N / 8 x TILE_M / 8 invocations computes a TILE_M x TILE_N tile (each 128
// or 64); each invocation 8 rows x 8 columns (64 accumulators: rows 4 ty .. 4 ty + 3 and
// TILE_M / 2 + the same, columns 4 tx .. 4 tx + 3 and TILE_N / 2 + the same), so each value read
// from shared memory feeds 8 multiply-adds where gemm_tiled's 4 x 4 feeds 4, and the loads of the
// next K slice from memory are in flight while the current one is multiplied. 64-row tiles serve
// products of at most 64 rows (resnet's 64-channel layers), which a 128-row tile would half idle;
// 64-column tiles products of at most 256 columns (the implicit GEMM's small planes).
// B is read as vec4 along its rows (unit column stride, rows a multiple of 4 floats apart: the
// host checks), A value by value through its strides. Storage buffers throughout.
// VARIANT conv2d_igemm IMPLICIT_CONV=1
// conv2d_igemm: B is the patch matrix of a convolution's NCHW input, never made (an implicit
// GEMM): row k = (channel, ky, kx) of the kernel, column j = output pixel j of the batch's
// images side by side; each value is gathered from the input as the slice is loaded (0 outside
// the image). A is the [out, in x kh x kw] weight matrix; out is NCHW (column blocks of one
// plane).
#version 450
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(constant_id = 3) const int TILE_M = 128;  // rows of a work group's tile: 128 or 64
// Column blocks (gemm.h's GemmColumnBlocks): B's columns are images' pixels side by side,
// COL_BLOCK per image of which the first COL_VALID are real; out is NCHW over them. 0: off.
layout(constant_id = 4) const int COL_BLOCK = 0;
layout(constant_id = 5) const int COL_VALID = 0;
const int TK = 8;  // K per shared-memory step (16 measured no faster on the H200)
// Split K: work group z = s * SPLITS + part sums part's share of the inner dimension and stores
// it, raw (no epilogue), at gemm_epilogue.glslh's split_part_index in out; gemm_split_sum.glsl
// adds the parts up with the epilogue. 1: no split.
layout(constant_id = 6) const int SPLITS = 1;
layout(constant_id = 7) const int TILE_N = 128;  // columns of a work group's tile: 128 or 64
const int TX = TILE_N / 8;                      // invocations along x (the host launches this shape)
const int THREADS = TX * TILE_M / 8;
const int A_LOADS = TILE_M * TK / THREADS;      // A values an invocation loads per slice
const int A_STEP = THREADS / TK;                // rows between them
const int B_LOADS = TILE_N * TK / 4 / THREADS;  // B quads an invocation loads per slice
#if defined(IMPLICIT_CONV)
layout(constant_id = 8) const int KH = 1;
layout(constant_id = 9) const int KW = 1;
layout(constant_id = 10) const int SH = 1;
layout(constant_id = 11) const int SW = 1;
layout(constant_id = 12) const int DH = 1;
layout(constant_id = 13) const int DW = 1;
const int TAPS = KH * KW;
#endif

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(std430, binding = 0) writeonly buffer Out4 { vec4 y4[]; };
layout(std430, binding = 1) readonly buffer A { float a[]; };
#if defined(IMPLICIT_CONV)
layout(std430, binding = 2) readonly buffer X { float x[]; };  // the input, NCHW
#else
layout(std430, binding = 2) readonly buffer B { vec4 b4[]; };
#endif
layout(std430, binding = 3) readonly buffer Bias { float bias[]; };          // a stands in when has_bias = 0
layout(std430, binding = 4) readonly buffer Residual { float residual[]; };  // a stands in when has_residual = 0
layout(push_constant) uniform Params {
#include "gemm_params.glslh"
#if defined(IMPLICIT_CONV)
  // The convolution's geometry (b_batch_stride is an input image's size): pixel j of the
  // output plane reads from (j / out_w * SH - pad_h, j % out_w * SW - pad_w) on.
  int in_w, in_h, out_w, out_h, pad_w, pad_h;
#endif
};

// A's slice as [k][row] (4 floats of padding per k so that the stores along k hit different
// banks while rows stay vec4-aligned), B's as [k][column quad].
shared vec4 a_tile[TK][TILE_M / 4 + 1];
shared vec4 b_tile[TK][TILE_N / 4];

// The accumulators are named variables, not an array: an array indexed in a loop the compiler
// does not unroll lives in local memory, and then every multiply-add goes through it (the first
// form of this kernel, with vec4 acc[8][2], ran 6x slower than gemm_tiled on an H200).
vec4 c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51, c60, c61, c70, c71;

#include "nan_clamp.glslh"
#include "activations.glslh"
#include "fused_activation.glslh"
#include "gemm_epilogue.glslh"

// Output row `row` of batch entry s (of split part `part`): columns c0 .. c0 + 3 from `left`,
// c0 + TILE_N / 2 .. + 3 from `right`.
void store_row(int s, int part, int row, int c0, vec4 left, vec4 right) {
  if (row >= rows) return;
  [[unroll]] for (int h = 0; h < 2; ++h) {
    const int first = c0 + TILE_N / 2 * h;
    const vec4 v = h == 0 ? left : right;
    if (first >= cols) continue;
    if (SPLITS > 1) {  // this part's raw sums
      if (cols % 4 == 0) {
        y4[split_part_index(part, s, row, first) / 4] = v;
      } else {
        [[unroll]] for (int c = 0; c < 4; ++c)
          if (first + c < cols) y[split_part_index(part, s, row, first + c)] = v[c];
      }
    } else if (out_quads()) {  // 4 whole columns, stored as one vec4
      const int o = out_index(s, row, first);
      y4[o / 4] = vec4(epilogue(v.x, row, first, o), epilogue(v.y, row, first + 1, o + 1),
                       epilogue(v.z, row, first + 2, o + 2), epilogue(v.w, row, first + 3, o + 3));
    } else {
      [[unroll]] for (int c = 0; c < 4; ++c) {
        const int o = out_index(s, row, first + c);
        if (o >= 0) y[o] = epilogue(v[c], row, first + c, o);
      }
    }
  }
}

#if defined(IMPLICIT_CONV)
// The invocation's 4 B columns (output pixels): where each one's window starts in the input,
// as a row, a column and an element offset. Columns past the product repeat the last one.
int win_y[4], win_x[4], win_at[4];

void find_windows(int first_col) {
  const int plane = out_h * out_w;
  [[unroll]] for (int i = 0; i < 4; ++i) {
    const int j = min(first_col + i, cols - 1), image = j / plane, pixel = j - image * plane;
    const int oy = pixel / out_w;
    win_y[i] = oy * SH - pad_h;
    win_x[i] = (pixel - oy * out_w) * SW - pad_w;
    win_at[i] = image * b_batch_stride + win_y[i] * in_w + win_x[i];
  }
}

// Row k of the patch matrix at the invocation's 4 columns: tap (ky, kx) of channel c.
vec4 patch_quad(int k) {
  const int c = k / TAPS, t = k - c * TAPS, ky = t / KW, kx = t - ky * KW;
  const int dy = ky * DH, dx = kx * DW, d = c * in_h * in_w + dy * in_w + dx;
  vec4 v;
  [[unroll]] for (int i = 0; i < 4; ++i) {
    const bool inside = uint(win_y[i] + dy) < uint(in_h) && uint(win_x[i] + dx) < uint(in_w);
    v[i] = inside ? x[win_at[i] + d] : 0.0;
  }
  return v;
}
#endif

// A's term gk of row gi, 0 outside the product and this part's terms.
float load_a(int a_base, int gi, int gk, int k_end) {
  return gi < rows && gk < k_end ? a[a_base + gi * a_row_stride + gk * a_inner_stride] : 0.0;
}

// B's quad at row gk (inside this part's terms) and columns b_col .. b_col + 3.
vec4 load_b(int b_base4, int gk, int b_col) {
#if defined(IMPLICIT_CONV)
  return patch_quad(gk);
#else
  return b4[b_base4 + (gk * b_inner_stride + b_col) / 4];
#endif
}

void main() {
  const int tx = int(gl_LocalInvocationID.x), ty = int(gl_LocalInvocationID.y);
  const int tid = ty * TX + tx;
  const int row0 = int(gl_WorkGroupID.y) * TILE_M, col0 = int(gl_WorkGroupID.x) * TILE_N;
  const int s = int(gl_WorkGroupID.z) / SPLITS, part = int(gl_WorkGroupID.z) % SPLITS;
  // This part's terms: whole slices of TK, the last part's share shorter.
  const int share = ((inner + SPLITS - 1) / SPLITS + TK - 1) / TK * TK;
  const int k_begin = part * share, k_end = min(inner, k_begin + share);
  const int a_base = s * a_batch_stride, b_base4 = s * b_batch_stride / 4;
  // Loads: A's TILE_M x TK slice, A_LOADS values per invocation (TK neighbouring invocations
  // walk k along one row); B's TK x TILE_N slice, B_LOADS vec4 per invocation (TILE_N / 4
  // neighbours walk one row of B; an invocation's next quad lies B_K_STEP rows further on).
  const int a_k = tid % TK, a_m = tid / TK;  // rows a_m + A_STEP r
  const int b_k = tid / (TILE_N / 4), b_q = tid % (TILE_N / 4);
  const int b_col = col0 + b_q * 4;
  const int B_K_STEP = THREADS / (TILE_N / 4);
#if defined(IMPLICIT_CONV)
  find_windows(b_col);
#endif

  float a_next[A_LOADS];  // rows a_m + A_STEP r at column a_k
  [[unroll]] for (int r = 0; r < A_LOADS; ++r) a_next[r] = load_a(a_base, row0 + a_m + A_STEP * r, k_begin + a_k, k_end);
  vec4 b_next[B_LOADS];
  [[unroll]] for (int q = 0; q < B_LOADS; ++q) {
    const int gk = k_begin + b_k + B_K_STEP * q;
    b_next[q] = gk < k_end && b_col < cols ? load_b(b_base4, gk, b_col) : vec4(0.0);
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
      [[unroll]] for (int r = 0; r < A_LOADS; ++r) a_next[r] = load_a(a_base, row0 + a_m + A_STEP * r, k1 + a_k, k_end);
      [[unroll]] for (int q = 0; q < B_LOADS; ++q) {
        const int gk = k1 + b_k + B_K_STEP * q;
        b_next[q] = gk < k_end && b_col < cols ? load_b(b_base4, gk, b_col) : vec4(0.0);
      }
    }
    [[unroll]] for (int k = 0; k < TK; ++k) {
      const vec4 a0 = a_tile[k][ty], a1 = a_tile[k][TILE_M / 8 + ty];
      const vec4 b0 = b_tile[k][tx], b1 = b_tile[k][TX + tx];
      c00 += a0.x * b0; c01 += a0.x * b1; c10 += a0.y * b0; c11 += a0.y * b1;
      c20 += a0.z * b0; c21 += a0.z * b1; c30 += a0.w * b0; c31 += a0.w * b1;
      c40 += a1.x * b0; c41 += a1.x * b1; c50 += a1.y * b0; c51 += a1.y * b1;
      c60 += a1.z * b0; c61 += a1.z * b1; c70 += a1.w * b0; c71 += a1.w * b1;
    }
    barrier();
  }

  const int c0 = col0 + 4 * tx, r0 = row0 + 4 * ty, r1 = row0 + TILE_M / 2 + 4 * ty;
  store_row(s, part, r0, c0, c00, c01);
  store_row(s, part, r0 + 1, c0, c10, c11);
  store_row(s, part, r0 + 2, c0, c20, c21);
  store_row(s, part, r0 + 3, c0, c30, c31);
  store_row(s, part, r1, c0, c40, c41);
  store_row(s, part, r1 + 1, c0, c50, c51);
  store_row(s, part, r1 + 2, c0, c60, c61);
  store_row(s, part, r1 + 3, c0, c70, c71);
}
