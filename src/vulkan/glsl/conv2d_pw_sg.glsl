// Pointwise (1x1, no padding, any stride, ungrouped) convolution for GPUs when the output is
// small (batch 1): one subgroup computes 4 output pixels x 8 output channels, its lanes
// splitting the input channels (lane l takes channels l, l + subgroup size, ...) so that their
// weight and input reads are adjacent, and the partial sums meet through subgroupAdd. The
// split-K tile of conv2d_oc8 meets them through shared memory and barriers instead, which is
// what a batch-1 layer waited on. Weights are conv2d_pack's ([blocks][in_c][8], then the bias).
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const int SH = 1;
layout(constant_id = 4) const int SW = 1;
layout(constant_id = 5) const int HAS_RESIDUAL = 0;

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(binding = 1) uniform samplerBuffer x;         // R32, NCHW
layout(binding = 2) uniform samplerBuffer w;         // RGBA32 (or RGBA16F) texels
layout(binding = 3) uniform samplerBuffer residual;  // R32, the output's shape; x stands in without one
layout(push_constant) uniform Params {
  int in_w, in_h, in_c, batch;
  int out_w, out_h, out_c, blocks;
  int quads;  // output pixel quads per image
  float out_min, out_max;
};

void main() {
  int tile = int(gl_WorkGroupID.x * gl_NumSubgroups + gl_SubgroupID);
  if (tile >= batch * blocks * quads) return;  // the whole subgroup leaves together
  int quad = tile % quads, block = (tile / quads) % blocks, n = tile / (quads * blocks);
  int plane = out_h * out_w, in_plane = in_h * in_w;
  // The input offsets of the tile's 4 pixels (the last one repeated past the plane's end).
  int src[4];
  for (int i = 0; i < 4; ++i) {
    int p = min(quad * 4 + i, plane - 1);
    src[i] = n * in_c * in_plane + (p / out_w) * SH * in_w + (p % out_w) * SW;
  }
  vec4 acc[8];
  for (int j = 0; j < 8; ++j) acc[j] = vec4(0.0);
  int wbase = block * in_c * 2;
  for (int k = int(gl_SubgroupInvocationID); k < in_c; k += int(gl_SubgroupSize)) {
    int off = k * in_plane;
    vec4 v = vec4(texelFetch(x, src[0] + off).r, texelFetch(x, src[1] + off).r, texelFetch(x, src[2] + off).r,
                  texelFetch(x, src[3] + off).r);
    vec4 wl = texelFetch(w, wbase + k * 2), wh = texelFetch(w, wbase + k * 2 + 1);
    acc[0] += v * wl.x; acc[1] += v * wl.y; acc[2] += v * wl.z; acc[3] += v * wl.w;
    acc[4] += v * wh.x; acc[5] += v * wh.y; acc[6] += v * wh.z; acc[7] += v * wh.w;
  }
  for (int j = 0; j < 8; ++j) acc[j] = subgroupAdd(acc[j]);
  // Lane j stores output channel j of the tile.
  int j = int(gl_SubgroupInvocationID);
  int oc = block * 8 + j;
  if (j >= 8 || oc >= out_c) return;
  int bias4 = blocks * in_c * 2 + block * 2 + j / 4;
  vec4 v = acc[j] + texelFetch(w, bias4)[j % 4];
  int o = (n * out_c + oc) * plane;
  for (int i = 0; i < 4; ++i) {
    int p = quad * 4 + i;
    if (p >= plane) break;
    float s = v[i];
    if (HAS_RESIDUAL == 1) s += texelFetch(residual, o + p).r;
    y[o + p] = clamp(s, out_min, out_max);
  }
}
