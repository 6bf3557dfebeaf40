// Winograd F(4,3) input transform: each invocation takes one 6 x 6 input tile (4 x 4 outputs,
// stride 4, padding read as 0) of one channel and writes V = B^T d B as 36 values, one per
// weight set of the GEMMs that follow: V is [36][channels][batch][tiles4], so each set is one
// [channels] x [batch x tiles4] matrix (conv2d_oc8 over 36 images of that many "pixels", or a
// batched GEMM of 36). Tiles past the last (tiles4 rounds up to a multiple of 4, so the GEMM
// reads 4 tiles per texel) are written as 0. Large convolutions run in parts of images and of
// tiles, so that V and the GEMM's output fit one binding.
// HALF = 1 (the GEMM kernels' operand in fp16 precision): V holds 16-bit floats, which halves
// its memory traffic. Neighbouring tiles are neighbouring lanes (the host makes the work
// group's x even), so the even lane of each pair packs both values into one uint.
#version 450
#extension GL_KHR_shader_subgroup_shuffle : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const int HALF = 0;

layout(std430, binding = 0) writeonly buffer V { float v[]; };
layout(std430, binding = 0) writeonly buffer VH { uint vh[]; };
layout(binding = 1) uniform samplerBuffer x;  // R32, NCHW
layout(push_constant) uniform Params {
  int in_w, in_h, channels, batch;  // batch: images in this chunk
  int pad_w, pad_h, tiles_w, tiles;
  // This dispatch's part: images batch_base.. of x, tiles tile_base .. tile_base + tile_count,
  // written as a plane of tiles4 (tile_count rounded up to 4) values per channel.
  int tiles4, batch_base, tile_base, tile_count;
};

// The 6 input values of one tile row, 0 outside the image (clamped fetch, no branch). Written
// without loops or local arrays: lavapipe keeps such loops, and indexes such arrays lane by lane.
float at(int rb, bool row_ok, int ix) {
  float val = texelFetch(x, rb + clamp(ix, 0, in_w - 1)).r;
  return (row_ok && ix >= 0 && ix < in_w) ? val : 0.0;
}
void load_row(int base, int iy, int ix0, bool tile_ok, out vec3 lo, out vec3 hi) {
  bool row_ok = tile_ok && iy >= 0 && iy < in_h;
  int rb = base + clamp(iy, 0, in_h - 1) * in_w;
  lo = vec3(at(rb, row_ok, ix0), at(rb, row_ok, ix0 + 1), at(rb, row_ok, ix0 + 2));
  hi = vec3(at(rb, row_ok, ix0 + 3), at(rb, row_ok, ix0 + 4), at(rb, row_ok, ix0 + 5));
}

// One value of V; `o` has the parity of the tile (tiles4 and the set stride are multiples of 4).
void put(int o, float val) {
  if (HALF == 1) {
    float odd = subgroupShuffleXor(val, 1u);
    if ((o & 1) == 0) vh[o >> 1] = packHalf2x16(vec2(val, odd));
  } else {
    v[o] = val;
  }
}

// One row of B^T d through B^T (as its transpose, B), stored as weight sets i * 6 .. i * 6 + 5.
void store_row(int o, int stride, vec3 lo, vec3 hi) {
  float a0 = lo.x, a1 = lo.y, a2 = lo.z, a3 = hi.x, a4 = hi.y, a5 = hi.z;
  put(o, 4.0 * a0 - 5.0 * a2 + a4);
  put(o + stride, -4.0 * (a1 + a2) + a3 + a4);
  put(o + 2 * stride, 4.0 * (a1 - a2) - a3 + a4);
  put(o + 3 * stride, -2.0 * (a1 - a3) - a2 + a4);
  put(o + 4 * stride, 2.0 * (a1 - a3) - a2 + a4);
  put(o + 5 * stride, 4.0 * a1 - 5.0 * a3 + a5);
}

void main() {
  int t = int(gl_GlobalInvocationID.x), c = int(gl_GlobalInvocationID.y), n = int(gl_GlobalInvocationID.z);
  // Both lanes of a pair leave or stay: tiles4 is even, and they share c and n.
  if (t >= tiles4 || c >= channels || n >= batch) return;
  int tg = tile_base + t;
  bool tile_ok = t < tile_count && tg < tiles;
  int ty = tg / tiles_w, tx = tg % tiles_w;
  int iy0 = ty * 4 - pad_h, ix0 = tx * 4 - pad_w;
  int base = ((n + batch_base) * channels + c) * in_h * in_w;
  vec3 l0, h0, l1, h1, l2, h2, l3, h3, l4, h4, l5, h5;
  load_row(base, iy0, ix0, tile_ok, l0, h0);
  load_row(base, iy0 + 1, ix0, tile_ok, l1, h1);
  load_row(base, iy0 + 2, ix0, tile_ok, l2, h2);
  load_row(base, iy0 + 3, ix0, tile_ok, l3, h3);
  load_row(base, iy0 + 4, ix0, tile_ok, l4, h4);
  load_row(base, iy0 + 5, ix0, tile_ok, l5, h5);
  // B^T d: rows combined as vectors, then each row of it through B.
  int stride = batch * channels * tiles4;
  int dst = (c * batch + n) * tiles4 + t;
  store_row(dst, stride, 4.0 * l0 - 5.0 * l2 + l4, 4.0 * h0 - 5.0 * h2 + h4);
  store_row(dst + 6 * stride, stride, -4.0 * (l1 + l2) + l3 + l4, -4.0 * (h1 + h2) + h3 + h4);
  store_row(dst + 12 * stride, stride, 4.0 * (l1 - l2) - l3 + l4, 4.0 * (h1 - h2) - h3 + h4);
  store_row(dst + 18 * stride, stride, -2.0 * (l1 - l3) - l2 + l4, -2.0 * (h1 - h3) - h2 + h4);
  store_row(dst + 24 * stride, stride, 2.0 * (l1 - l3) - l2 + l4, 2.0 * (h1 - h3) - h2 + h4);
  store_row(dst + 30 * stride, stride, 4.0 * l1 - 5.0 * l3 + l5, 4.0 * h1 - 5.0 * h3 + h5);
}
