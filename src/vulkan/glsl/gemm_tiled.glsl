// Tiled matrix product for matrices of many rows (linear over tokens, attention's batched
// products, batch-32 heads): out[s][i][j] = clamp(alpha * sum_k a[s][i][k] * b[s][k][j]
// + beta * bias[i][j] + residual[s][i][j], out_min, out_max).
// A work group of 16 x 16 invocations computes a 64 x 64 tile of one batch entry (z); each
// invocation 4 rows x 4 columns (16 accumulators), rows ty + 16 r and columns 4 tx .. 4 tx + 3.
// K advances 16 at a time through shared memory: the group loads a 64 x 16 slice of A and a
// 16 x 64 slice of B once, so each value read from memory feeds 64 multiply-adds instead of 1.
// Operands are read as texels through (batch, row, inner) strides, so transposed weights and
// broadcast operands need no copies; a 16-bit view (R16F) reads fp16 weights. The loads walk
// the operand's unit-stride dimension across neighbouring invocations (coalesced on GPUs).
// The bias is read through its own offset and strides (0 where it broadcasts).
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

const int TILE = 64;      // rows and columns of a work group's tile
const int TK = 16;        // K per shared-memory step
const int THREADS = 256;  // 16 x 16 (the host launches this shape)

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(binding = 1) uniform samplerBuffer a;
layout(binding = 2) uniform samplerBuffer b;
layout(binding = 3) uniform samplerBuffer bias;  // a stands in when has_bias = 0
layout(binding = 4) uniform samplerBuffer residual;  // [batch][rows][cols]; a stands in when has_residual = 0
layout(push_constant) uniform Params {
#include "gemm_params.glslh"
};

#include "nan_clamp.glslh"
#include "activations.glslh"
#include "fused_activation.glslh"

// A's slice as [k][row] (one pad column so that stores along k hit different banks), B's as
// [k][column quad].
shared float a_tile[TK][TILE + 1];
shared vec4 b_tile[TK][TILE / 4 + 1];

void main() {
  const int tx = int(gl_LocalInvocationID.x), ty = int(gl_LocalInvocationID.y);
  const int tid = ty * 16 + tx;
  const int row0 = int(gl_WorkGroupID.y) * TILE, col0 = int(gl_WorkGroupID.x) * TILE;
  const int s = int(gl_WorkGroupID.z);
  const int a_base = s * a_batch_stride, b_base = s * b_batch_stride;
  // Which dimension neighbouring invocations walk when loading (uniform over the dispatch).
  const bool a_along_k = a_inner_stride == 1;
  const bool b_along_n = b_col_stride == 1 || b_inner_stride != 1;

  vec4 acc[4] = vec4[4](vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));
  for (int k0 = 0; k0 < inner; k0 += TK) {
    for (int r = 0; r < TILE * TK / THREADS; ++r) {
      const int e = tid + r * THREADS;
      const int m = a_along_k ? e / TK : e % TILE;
      const int k = a_along_k ? e % TK : e / TILE;
      const int gi = row0 + m, gk = k0 + k;
      float v = 0.0;
      if (gi < rows && gk < inner) v = texelFetch(a, a_base + gi * a_row_stride + gk * a_inner_stride).r;
      a_tile[k][m] = v;
    }
    for (int r = 0; r < TILE * TK / THREADS; ++r) {
      const int e = tid + r * THREADS;
      const int n = b_along_n ? e % TILE : e / TK;
      const int k = b_along_n ? e / TILE : e % TK;
      const int gj = col0 + n, gk = k0 + k;
      float v = 0.0;
      if (gj < cols && gk < inner) v = texelFetch(b, b_base + gk * b_inner_stride + gj * b_col_stride).r;
      b_tile[k][n / 4][n % 4] = v;
    }
    barrier();
    for (int k = 0; k < TK; ++k) {
      const vec4 bv = b_tile[k][tx];
      for (int r = 0; r < 4; ++r) acc[r] += a_tile[k][ty + 16 * r] * bv;
    }
    barrier();
  }

  for (int r = 0; r < 4; ++r) {
    const int i = row0 + ty + 16 * r;
    if (i >= rows) break;
    for (int c = 0; c < 4; ++c) {
      const int j = col0 + tx * 4 + c;
      if (j >= cols) break;
      float v = alpha * acc[r][c];
      if (has_bias == 1) v += beta * texelFetch(bias, bias_offset + i * bias_row_stride + j * bias_col_stride).r;
      if (has_residual == 1) v += texelFetch(residual, (s * rows + i) * cols + j).r;
      // Compares, not clamp(): NaN stays NaN, as in torch.
      if (v < out_min) v = out_min;
      if (v > out_max) v = out_max;
      v = act(v);
      y[(s * rows + i) * cols + j] = v;
    }
  }
}
