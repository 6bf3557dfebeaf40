// Pointwise (1x1, no padding, any stride, ungrouped) convolution for GPUs at batch 1, written
// for latency: each row (y) of a work group computes 4 output pixels x 8 output channels (one
// channel block; the group's up to 4 rows take consecutive blocks of the same pixels), and the
// row's S lanes split the input channels (lane t takes t, t + S, ...), four channels' loads in
// flight at a time, so that no lane waits on more than a few dependent rounds of memory. The
// partial sums meet through subgroupAdd, then through shared memory across the row's
// subgroups. Weights are conv2d_pack's ([blocks][in_c][8] then the bias), read as vec4 (or, in
// fp16, as a uvec2 of 4 packed halves).
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const int SH = 1;
layout(constant_id = 4) const int SW = 1;
layout(constant_id = 5) const int HAS_RESIDUAL = 0;
layout(constant_id = 6) const int VEC_IN = 0;  // 1: a tile's 4 input pixels are one aligned vec4
layout(constant_id = 7) const int HALF = 0;    // 1: weights are packed halves

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(std430, binding = 1) readonly buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer X4 { vec4 x4[]; };
layout(std430, binding = 2) readonly buffer W { vec4 w[]; };
layout(std430, binding = 2) readonly buffer WH { uvec2 wh[]; };
layout(std430, binding = 3) readonly buffer R { float residual[]; };  // x stands in without one
layout(push_constant) uniform Params {
  int in_w, in_h, in_c, batch;
  int out_w, out_h, out_c, blocks;
  int quads;  // output pixel quads per image
  float out_min, out_max;
};

const int UNROLL = 4;  // input channels per lane in flight
// 8 per subgroup; subgroups have at least 8 lanes and do not straddle rows.
shared vec4 partial[gl_WorkGroupSize.x * gl_WorkGroupSize.y];

vec4 weight(int i) {
  if (HALF == 1) {
    uvec2 u = wh[i];
    return vec4(unpackHalf2x16(u.x), unpackHalf2x16(u.y));
  }
  return w[i];
}

void main() {
  // The group's rows (y) take consecutive channel blocks of the same 4 pixels, so that they
  // read the same inputs (from the cache, after the first row).
  int rows = int(gl_WorkGroupSize.y), block_groups = (blocks + rows - 1) / rows;
  int tile = int(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x);
  if (tile >= batch * block_groups * quads) return;  // the whole group leaves together
  int quad = tile % quads, n = tile / (quads * block_groups);
  int block = ((tile / quads) % block_groups) * rows + int(gl_LocalInvocationID.y);
  int wblock = min(block, blocks - 1);  // a row past the last block computes a copy, unstored
  int plane = out_h * out_w, in_plane = in_h * in_w;
  int src[4];
  for (int i = 0; i < 4; ++i) {
    int p = min(quad * 4 + i, plane - 1);  // the last pixel repeated past the plane's end
    src[i] = n * in_c * in_plane + (p / out_w) * SH * in_w + (p % out_w) * SW;
  }
  vec4 acc[8];
  for (int j = 0; j < 8; ++j) acc[j] = vec4(0.0);
  int lane = int(gl_LocalInvocationID.x), S = int(gl_WorkGroupSize.x);
  int wbase = wblock * in_c * 2;
  for (int k0 = lane; k0 < in_c; k0 += UNROLL * S) {
    vec4 v[UNROLL], wl[UNROLL], wh4[UNROLL];
    for (int u = 0; u < UNROLL; ++u) {
      int k = k0 + u * S;
      bool ok = k < in_c;
      int kc = min(k, in_c - 1);
      int off = kc * in_plane;
      vec4 xv = VEC_IN == 1 ? x4[(src[0] + off) / 4]
                            : vec4(x[src[0] + off], x[src[1] + off], x[src[2] + off], x[src[3] + off]);
      v[u] = ok ? xv : vec4(0.0);
      wl[u] = weight(wbase + kc * 2);
      wh4[u] = weight(wbase + kc * 2 + 1);
    }
    for (int u = 0; u < UNROLL; ++u) {
      acc[0] += v[u] * wl[u].x; acc[1] += v[u] * wl[u].y; acc[2] += v[u] * wl[u].z; acc[3] += v[u] * wl[u].w;
      acc[4] += v[u] * wh4[u].x; acc[5] += v[u] * wh4[u].y; acc[6] += v[u] * wh4[u].z; acc[7] += v[u] * wh4[u].w;
    }
  }
  for (int j = 0; j < 8; ++j) acc[j] = subgroupAdd(acc[j]);
  if (subgroupElect())
    for (int j = 0; j < 8; ++j) partial[gl_SubgroupID * 8 + j] = acc[j];
  barrier();
  // Lane t (t < 32) of a row stores pixel t % 4 of output channel t / 4 of the row's block.
  if (lane >= 32 || block >= blocks) return;
  int j = lane / 4, i = lane % 4;
  int oc = block * 8 + j, p = quad * 4 + i;
  if (oc >= out_c || p >= plane) return;
  float s = weight(blocks * in_c * 2 + block * 2 + j / 4)[j % 4];
  int row_subgroups = S / int(gl_SubgroupSize), first = int(gl_LocalInvocationID.y) * row_subgroups;
  for (int g = first; g < first + row_subgroups; ++g) s += partial[g * 8 + j][i];
  int o = (n * out_c + oc) * plane + p;
  if (HAS_RESIDUAL == 1) s += residual[o];
  y[o] = clamp(s, out_min, out_max);
}
