// Register-tiled matrix product for CPU devices (lavapipe), where shared memory and barriers are
// slow: out[s][i][j] = clamp(alpha * sum_k a[s][i][k] * b[s][k][j] + beta * bias[i][j]
// + residual[s][i][j]).
// Each invocation computes RM rows x 8 columns (the host sets RM = 8: 64 accumulators) from
// texel reads alone, so each value read feeds 8 (a) or RM (b) multiply-adds. Neighbouring
// invocations take neighbouring column octets of the same rows, so lavapipe's SIMD lanes read
// the same a values.
// A_VEC4 = 1: a's rows are read 4 values of k per RGBA32 texel (inner, row and batch strides
// multiples of 4, unit k stride); else one value per R32 texel through strides.
// B_MODE = 1: b's rows are read 4 columns per texel (RGBA32, or RGBA16F for fp16 weights; row
// and batch strides multiples of 4, unit column stride, rows long enough for the quad holding
// the last column). B_MODE = 2 (with A_VEC4): b's columns are read 4 values of k per texel
// (a transposed weight, attention's keys: unit k stride), each output a dot product.
// B_MODE = 0: value by value.
// Indices past the last row or column are clamped, not branched on: those results are dropped.
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const int A_VEC4 = 0;
layout(constant_id = 4) const int B_MODE = 0;
layout(constant_id = 5) const int RM = 4;  // rows per invocation

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

int b_base;
int j0;
int last_quad;  // the first column of the quad holding the last column

// b[k][j0 .. j0 + 3] (half = 0) or b[k][j0 + 4 .. j0 + 7] (half = 1).
vec4 b_quad(int k, int half_) {
  const int j = j0 + 4 * half_;
  if (B_MODE == 1) return texelFetch(b, (b_base + k * b_inner_stride + min(j, last_quad)) / 4);
  const int row = b_base + k * b_inner_stride;
  return vec4(texelFetch(b, row + min(j, cols - 1) * b_col_stride).r,
              texelFetch(b, row + min(j + 1, cols - 1) * b_col_stride).r,
              texelFetch(b, row + min(j + 2, cols - 1) * b_col_stride).r,
              texelFetch(b, row + min(j + 3, cols - 1) * b_col_stride).r);
}

void main() {
  j0 = int(gl_GlobalInvocationID.x) * 8;
  const int i0 = int(gl_GlobalInvocationID.y) * RM, s = int(gl_GlobalInvocationID.z);
  if (j0 >= cols || i0 >= rows || s >= batch) return;
  b_base = s * b_batch_stride;
  last_quad = (cols - 1) / 4 * 4;
  int arow[RM];
  for (int r = 0; r < RM; ++r) arow[r] = s * a_batch_stride + min(i0 + r, rows - 1) * a_row_stride;

  vec4 lo[RM], hi[RM];  // columns j0 .. j0 + 3 and j0 + 4 .. j0 + 7
  for (int r = 0; r < RM; ++r) {
    lo[r] = vec4(0.0);
    hi[r] = vec4(0.0);
  }
  if (A_VEC4 == 1 && B_MODE == 2) {
    int bcol[8];
    for (int c = 0; c < 8; ++c) bcol[c] = b_base + min(j0 + c, cols - 1) * b_col_stride;
    for (int k = 0; k < inner; k += 4) {
      vec4 av[RM];
      for (int r = 0; r < RM; ++r) av[r] = texelFetch(a, (arow[r] + k) / 4);
      for (int c = 0; c < 4; ++c) {
        const vec4 b0 = texelFetch(b, (bcol[c] + k) / 4), b1 = texelFetch(b, (bcol[c + 4] + k) / 4);
        for (int r = 0; r < RM; ++r) {
          lo[r][c] += dot(av[r], b0);
          hi[r][c] += dot(av[r], b1);
        }
      }
    }
  } else if (A_VEC4 == 1) {
    for (int k = 0; k < inner; k += 4) {
      vec4 av[RM];
      for (int r = 0; r < RM; ++r) av[r] = texelFetch(a, (arow[r] + k) / 4);
      for (int kk = 0; kk < 4; ++kk) {
        const vec4 b0 = b_quad(k + kk, 0), b1 = b_quad(k + kk, 1);
        for (int r = 0; r < RM; ++r) {
          lo[r] += av[r][kk] * b0;
          hi[r] += av[r][kk] * b1;
        }
      }
    }
  } else {
    for (int k = 0; k < inner; ++k) {
      const vec4 b0 = b_quad(k, 0), b1 = b_quad(k, 1);
      for (int r = 0; r < RM; ++r) {
        const float av = texelFetch(a, arow[r] + k * a_inner_stride).r;
        lo[r] += av * b0;
        hi[r] += av * b1;
      }
    }
  }

  for (int r = 0; r < RM; ++r) {
    const int i = i0 + r;
    if (i >= rows) break;
    for (int c = 0; c < 8; ++c) {
      const int j = j0 + c;
      if (j >= cols) break;
      float v = alpha * (c < 4 ? lo[r][c] : hi[r][c - 4]);
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
