// Ungrouped convolution for GPUs at batch 1, written for latency: each row (y) of a work group
// computes 4 output pixels x 8 output channels (one channel block), and the row's S lanes split
// the sum's K = in_c x KH x KW terms (lane t takes t, t + S, ...), UNROLL terms' loads in flight
// at a time, so that no lane waits on more than a few dependent rounds of memory. The tile's 32
// partial sums meet by a reduce-scatter within each subgroup (each lane ends with the
// subgroup's totals of some of them: 31 shuffles per lane in a subgroup of 32, where a
// subgroupAdd of each took 160), then through shared memory across the row's subgroups. The
// group's up to 4 rows take consecutive channel blocks of the same pixels, so that they read the
// same inputs (the later rows from the cache).
// Weights are conv2d_pack's ([blocks][K][8] then the bias), read as vec4 (or, in fp16, as a
// uvec2 of 4 packed halves), so neighbouring lanes read neighbouring weights. Kernel size,
// stride and dilation are specialisation constants; a 1x1 kernel (sent without padding) reads
// no masks.
// VARIANT conv2d_split16 WEIGHTS16=1
// WEIGHTS16 = 1 (conv2d_split16, for devices with 16-bit storage): fp16 weights read as f16vec4
// (half_weights.glslh).
#version 450
#if WEIGHTS16
#extension GL_EXT_shader_16bit_storage : require
#endif
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_control_flow_attributes : require
#include "nan_clamp.glslh"
#include "activations.glslh"
#include "fused_activation.glslh"
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const int SH = 1;
layout(constant_id = 4) const int SW = 1;
layout(constant_id = 5) const int HAS_RESIDUAL = 0;
layout(constant_id = 6) const int VEC_IN = 0;  // 1 (1x1 only): a tile's 4 input pixels are one aligned vec4
layout(constant_id = 7) const int HALF = 0;    // 1: weights are packed halves
layout(constant_id = 8) const int KH = 1;
layout(constant_id = 9) const int KW = 1;
layout(constant_id = 10) const int DH = 1;
layout(constant_id = 11) const int DW = 1;
layout(constant_id = 12) const int SUBGROUP = 32;  // the device's subgroup size, 8 or more
// 1: filter rows 3 wide at horizontal stride and dilation 1 and padding 1 over rows of whole
// vec4s (in_w = out_w, a multiple of 4): each term is a filter row, read as 3 aligned vec4s.
layout(constant_id = 13) const int ROW3 = 0;

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(std430, binding = 1) readonly buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer X4 { vec4 x4[]; };
layout(std430, binding = 2) readonly buffer W { vec4 w[]; };
#define HALF_WEIGHTS_BINDING 2
#include "half_weights.glslh"
layout(std430, binding = 3) readonly buffer R { float residual[]; };  // x stands in without one
layout(push_constant) uniform Params {
  int in_w, in_h, in_c, batch;
  int out_w, out_h, out_c, blocks;
  int quads;  // output pixel quads per image
  float out_min, out_max;
  int pad_w, pad_h;
};

const int UNROLL = 4;  // terms per lane in flight
const int TAPS = KH * KW;
const bool POINT = TAPS == 1;
// A tile's 32 sums per subgroup; subgroups have at least 8 lanes and do not straddle rows.
shared float partial[4 * gl_WorkGroupSize.x * gl_WorkGroupSize.y];
// Lanes among which the reduce-scatter splits the 32 sums, and sums each ends with.
const int SCATTER = SUBGROUP < 32 ? SUBGROUP : 32, KEPT = 32 / SCATTER;

// This lane's partial sums of the tile: acc[j] holds output channel j's 4 pixels.
vec4 acc[8];

// One term: 4 pixels' inputs v times output channels 0-3 (wl) and 4-7 (wh) of the block.
void accumulate(vec4 v, vec4 wl, vec4 wh) {
  acc[0] += v * wl.x; acc[1] += v * wl.y; acc[2] += v * wl.z; acc[3] += v * wl.w;
  acc[4] += v * wh.x; acc[5] += v * wh.y; acc[6] += v * wh.z; acc[7] += v * wh.w;
}

vec4 weight(int i) {
  if (HALF == 1) return half_weights(i);
  return w[i];
}

void main() {
  // The group's rows (y) take consecutive channel blocks of the same 4 pixels, so that they
  // read the same inputs (from the cache, after the first row).
  int rows = int(gl_WorkGroupSize.y), row = int(gl_LocalInvocationID.y), block_groups = (blocks + rows - 1) / rows;
  int tile = int(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x);
  if (tile >= batch * block_groups * quads) return;  // the whole group leaves together
  int quad = tile % quads, n = tile / (quads * block_groups);
  int block = ((tile / quads) % block_groups) * rows + row;
  int wblock = min(block, blocks - 1);  // a row past the last block computes a copy, unstored
  int plane = out_h * out_w, in_plane = in_h * in_w;
  // Per pixel of the quad: where its window starts, and (KxK) which taps fall inside the image.
  int src[4];
  uint inside[4];
  for (int i = 0; i < 4; ++i) {
    int p = min(quad * 4 + i, plane - 1);  // the last pixel repeated past the plane's end
    int iy = (p / out_w) * SH - pad_h, ix = (p % out_w) * SW - pad_w;
    src[i] = n * in_c * in_plane + iy * in_w + ix;
    inside[i] = 0u;
    if (!POINT)
      [[unroll]] for (int ky = 0; ky < KH; ++ky)
        [[unroll]] for (int kx = 0; kx < KW; ++kx) {
          int yy = iy + ky * DH, xx = ix + kx * DW;
          if (yy >= 0 && yy < in_h && xx >= 0 && xx < in_w) inside[i] |= 1u << (ky * KW + kx);
        }
  }
  for (int j = 0; j < 8; ++j) acc[j] = vec4(0.0);
  int lane = int(gl_LocalInvocationID.x), S = int(gl_WorkGroupSize.x);
  int wbase = wblock * in_c * TAPS * 2;
  // Lane t takes terms t, t + S, ... of the K = in_c x KH x KW sum, term e being tap e % TAPS of
  // channel e / TAPS: neighbouring lanes read neighbouring weights and, along a filter row,
  // neighbouring inputs.
  int K = in_c * TAPS;
  if (ROW3 == 1) {
    // The quad is columns 4k .. 4k + 3 of one output row; a filter row over it reads input
    // columns 4k - 1 .. 4k + 4: the last value of the vec4 before, the vec4 at 4k, and the
    // first of the vec4 after (0 past the row's ends). Term e is filter row e % KH of channel
    // e / KH; 2 terms' loads in flight (9 vec4s each).
    const int k4 = (quad * 4 % out_w) / 4, iy0 = (quad * 4 / out_w) * SH - pad_h, row4 = in_w / 4;
    const int rows_k = in_c * KH;
    for (int e0 = lane; e0 < rows_k; e0 += 2 * S) {
      vec4 lo[2], mid[2], hi[2], wt[2][6];
      [[unroll]] for (int u = 0; u < 2; ++u) {
        const int e = min(e0 + u * S, rows_k - 1), c = e / KH, ky = e % KH;
        const int iy = iy0 + ky * DH;
        const bool ok = e0 + u * S < rows_k && iy >= 0 && iy < in_h;
        const int at = ((n * in_c + c) * in_plane + clamp(iy, 0, in_h - 1) * in_w) / 4 + k4;
        lo[u] = ok && k4 > 0 ? x4[at - 1] : vec4(0.0);
        mid[u] = ok ? x4[at] : vec4(0.0);
        hi[u] = ok && k4 + 1 < row4 ? x4[at + 1] : vec4(0.0);
        const int wi = wbase + (c * TAPS + ky * 3) * 2;
        [[unroll]] for (int j = 0; j < 6; ++j) wt[u][j] = weight(wi + j);
      }
      [[unroll]] for (int u = 0; u < 2; ++u) {
        const vec4 taps[3] = vec4[3](vec4(lo[u].w, mid[u].xyz), mid[u], vec4(mid[u].yzw, hi[u].x));
        [[unroll]] for (int kx = 0; kx < 3; ++kx) accumulate(taps[kx], wt[u][kx * 2], wt[u][kx * 2 + 1]);
      }
    }
  } else {
    for (int e0 = lane; e0 < K; e0 += UNROLL * S) {
      vec4 v[UNROLL], wl[UNROLL], wh4[UNROLL];
      [[unroll]] for (int u = 0; u < UNROLL; ++u) {
        int e = e0 + u * S;
        bool ok = e < K;
        int ec = min(e, K - 1);
        int c = ec / TAPS, t = ec % TAPS;
        int d = c * in_plane + (t / KW) * DH * in_w + (t % KW) * DW;
        vec4 xv;
        if (POINT) {
          xv = VEC_IN == 1 ? x4[(src[0] + d) / 4]
                           : vec4(x[src[0] + d], x[src[1] + d], x[src[2] + d], x[src[3] + d]);
        } else {
          // Taps outside the image read element 0 and count as 0: no branch around the load.
          bvec4 in4 = bvec4((inside[0] >> t & 1u) != 0u, (inside[1] >> t & 1u) != 0u,
                            (inside[2] >> t & 1u) != 0u, (inside[3] >> t & 1u) != 0u);
          xv = vec4(x[in4.x ? src[0] + d : 0], x[in4.y ? src[1] + d : 0], x[in4.z ? src[2] + d : 0],
                    x[in4.w ? src[3] + d : 0]);
          xv = mix(vec4(0.0), xv, in4);
        }
        v[u] = ok ? xv : vec4(0.0);
        wl[u] = weight(wbase + ec * 2);
        wh4[u] = weight(wbase + ec * 2 + 1);
      }
      [[unroll]] for (int u = 0; u < UNROLL; ++u) accumulate(v[u], wl[u], wh4[u]);
    }
  }
  // Reduce-scatter of the 32 sums (sum j * 4 + i: pixel i, channel j of the block): at each step
  // a lane keeps half of its live sums, the half its partner (lane ^ o) gives away, and adds the
  // partner's. Lane l ends with the subgroup's totals of sums (l % SCATTER) * KEPT + k, k < KEPT.
  float sums[32];
  [[unroll]] for (int j = 0; j < 8; ++j)
    [[unroll]] for (int i = 0; i < 4; ++i) sums[j * 4 + i] = acc[j][i];
  // Step S (of 5) halves the live sums to 16 >> S, between lanes SCATTER >> (S + 1) apart; the
  // bounds are literals so that every index is constant once unrolled.
#define SCATTER_STEP(S)                                                                       \
  if ((SCATTER >> (S + 1)) >= 1) {                                                            \
    const uint o = uint(SCATTER >> (S + 1));                                                  \
    const bool upper = (gl_SubgroupInvocationID & o) != 0u;                                   \
    [[unroll]] for (int k = 0; k < (16 >> S); ++k) {                                          \
      const float given = subgroupShuffleXor(upper ? sums[k] : sums[k + (16 >> S)], o);       \
      sums[k] = (upper ? sums[k + (16 >> S)] : sums[k]) + given;                              \
    }                                                                                         \
  }
  SCATTER_STEP(0)
  SCATTER_STEP(1)
  SCATTER_STEP(2)
  SCATTER_STEP(3)
  SCATTER_STEP(4)
  // Subgroups wider than 32: lanes l and l ^ 32, ... hold parts of the same sum.
  [[unroll]] for (int o = 32; o < SUBGROUP; o *= 2) sums[0] += subgroupShuffleXor(sums[0], uint(o));
  const int sublane = int(gl_SubgroupInvocationID);
  if (sublane < SCATTER)
    [[unroll]] for (int k = 0; k < KEPT; ++k) partial[gl_SubgroupID * 32 + sublane * KEPT + k] = sums[k];
  barrier();
  // Lane t (t < 32) of a row stores pixel t % 4 of output channel t / 4 of the row's block.
  if (lane >= 32 || block >= blocks) return;
  int j = lane / 4, i = lane % 4;
  int oc = block * 8 + j, p = quad * 4 + i;
  if (oc >= out_c || p >= plane) return;
  float s = weight(blocks * in_c * TAPS * 2 + block * 2 + j / 4)[j % 4];
  int row_subgroups = S / int(gl_SubgroupSize), first = row * row_subgroups;
  for (int g = first; g < first + row_subgroups; ++g) s += partial[g * 32 + lane];
  int o = (n * out_c + oc) * plane + p;
  if (HAS_RESIDUAL == 1) s += residual[o];
  y[o] = act(clamp_nan(s, out_min, out_max));
}
