// Tiled matrix product on tensor cores (cooperative matrices, VK_NV_cooperative_matrix), chosen
// in fp16 precision on devices that have them: out[s][i][j] = clamp(alpha * sum_k a[s][i][k] *
// b[s][k][j] + beta * bias[i][j] + residual[s][i][j], out_min, out_max), the contract of
// gemm_tiled.glsl (same push constants and bindings), with the operands rounded to fp16 (an fp32
// one against fp16 weights kept as two halves in gemm_coopmat_split, below) and the sums kept in
// fp32.
// A work group computes a BM x BN tile of one batch entry (z) with (BM / WM) x (BN / WN)
// subgroups of 32 invocations (the host only chooses this kernel where subgroups have 32), each
// a WM x WN part of it as fragments of FM x FN, the shape the device lists for fp16 inputs and
// fp32 sums. K advances BK at a time: the group stages a BM x BK slice of A and a BK x BN slice
// of B in shared memory as fp16, and every subgroup multiplies its fragments from there. The
// next slices are read into registers while the subgroups multiply the current ones.
// Operands are read as texels through their strides, so transposed weights need no copies.
// Each invocation reads runs of four values along the dimension its shared slice keeps
// contiguous: one texel where the host found whole quads there (A_QUADS: along k; B_QUADS 1:
// along n, 2: along k), else four. B's slice is kept [k][n], or [n][k] (B_K_MAJOR, read back as
// a column-major fragment) where B's unit stride runs along k. Slices hold four halves per
// uvec2, so each run is one shared store.
// The variant gemm_coopmat_split (where one operand is fp32 and the other already fp16, as
// activations against fp16 weights): that operand (A_SPLIT or B_SPLIT) is staged twice, its
// fp16 value and, beside it, what that rounding lost (also fp16), and each product takes both,
// so that only the other operand's rounding reaches the sums (about 2^-22 relative of this
// one's is left, not 2^-11). Its extra slices and products exist only in that variant: sized
// by specialisation constants, or left in gemm_coopmat as dead code over 1-value slices, they
// made NVIDIA's driver (580) return wrong sums from both kernels.
// VARIANT gemm_coopmat_split SPLIT=1
// Each subgroup then passes its sums through a small shared scratch, one fragment at a time,
// to the epilogue (alpha, bias, clamp), which writes neighbouring columns from neighbouring
// invocations.
// Every loop over fragments and registers is unrolled ([[unroll]]): with their bounds only
// known at specialisation, NVIDIA's driver otherwise kept the fragment arrays in memory, and
// vit_b_16's products took 3.4 times as long.
#version 450
#extension GL_NV_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const int FM = 16;  // fragment shape (the device's)
layout(constant_id = 4) const int FN = 16;
layout(constant_id = 5) const int FK = 16;
layout(constant_id = 6) const int BM = 64;  // work-group tile
layout(constant_id = 7) const int BN = 64;
layout(constant_id = 8) const int WM = 32;  // subgroup tile
layout(constant_id = 9) const int WN = 32;
layout(constant_id = 10) const int A_QUADS = 0;
layout(constant_id = 11) const int B_QUADS = 0;
layout(constant_id = 12) const int B_K_MAJOR = 0;
layout(constant_id = 13) const int A_SPLIT = 0;
layout(constant_id = 14) const int B_SPLIT = 0;

const int BK = 32;
const int WARPS_N = BN / WN;
const int THREADS = (BM / WM) * WARPS_N * 32;  // the host launches this many per group
const int FR = WM / FM, FC = WN / FN;          // fragments per subgroup, down and across
// Runs of four values of A and B each invocation stages per K step, one vec4 register each.
const int A_REGS = BM * BK / 4 / THREADS, B_REGS = BK * BN / 4 / THREADS;
// Row strides of the shared slices in uvec2 (four halves), padded by 16 bytes to spread banks;
// cooperative loads and stores need 16-byte aligned rows.
const int AS = BK / 4 + 2;                           // A: [row][k]
const int BS = B_K_MAJOR == 1 ? BK / 4 + 2 : BN / 4 + 2;  // B: [k][n] or [n][k]
const int CS = FN + 4;                               // the scratch, in floats

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

shared uvec2 a_sh[BM * AS];
shared uvec2 b_sh[B_K_MAJOR == 1 ? BN * BS : BK * BS];
#if defined(SPLIT)
shared uvec2 a_lo_sh[BM * AS];  // what a_sh's rounding lost (A_SPLIT)
shared uvec2 b_lo_sh[B_K_MAJOR == 1 ? BN * BS : BK * BS];  // (B_SPLIT)
#endif
shared float c_sh[(THREADS / 32) * FM * CS];  // one fragment per subgroup

int tid, row0, col0, a_base, b_base;
vec4 a_regs[A_REGS], b_regs[B_REGS];

// Run r of this invocation: which row (or column) of the slice and which four values along it.
ivec2 a_run(int r) {
  const int e = tid + r * THREADS;
  return ivec2(e / (BK / 4), (e % (BK / 4)) * 4);  // (m, k)
}
ivec2 b_run(int r) {
  const int e = tid + r * THREADS;
  return B_K_MAJOR == 1 ? ivec2(e / (BK / 4), (e % (BK / 4)) * 4)  // (n, k)
                        : ivec2(e / (BN / 4), (e % (BN / 4)) * 4);  // (k, n)
}

// Reads the K slice at k0 into registers.
void fetch(int k0) {
  [[unroll]] for (int r = 0; r < A_REGS; ++r) {
    const ivec2 mk = a_run(r);
    const int gi = row0 + mk.x, gk = k0 + mk.y;
    const int at = a_base + gi * a_row_stride + gk * a_inner_stride;
    if (A_QUADS == 1) {  // inner % 4 == 0: a quad is wholly in or out
      a_regs[r] = gi < rows && gk < inner ? texelFetch(a, at / 4) : vec4(0.0);
    } else {
      [[unroll]] for (int c = 0; c < 4; ++c)
        a_regs[r][c] = gi < rows && gk + c < inner ? texelFetch(a, at + c * a_inner_stride).r : 0.0;
    }
  }
  [[unroll]] for (int r = 0; r < B_REGS; ++r) {
    const ivec2 run = b_run(r);
    const int gj = col0 + (B_K_MAJOR == 1 ? run.x : run.y), gk = k0 + (B_K_MAJOR == 1 ? run.y : run.x);
    const int at = b_base + gk * b_inner_stride + gj * b_col_stride;
    if (B_QUADS != 0) {  // along n, columns past cols are dropped by the epilogue
      b_regs[r] = gj < cols && gk < inner ? texelFetch(b, at / 4) : vec4(0.0);
    } else {
      const int step = B_K_MAJOR == 1 ? b_inner_stride : b_col_stride;
      [[unroll]] for (int c = 0; c < 4; ++c) {
        const bool inside = B_K_MAJOR == 1 ? gj < cols && gk + c < inner : gj + c < cols && gk < inner;
        b_regs[r][c] = inside ? texelFetch(b, at + c * step).r : 0.0;
      }
    }
  }
}

uvec2 halves(vec4 v) { return uvec2(packHalf2x16(v.xy), packHalf2x16(v.zw)); }
#if defined(SPLIT)
// v - halves(v) (exact in fp32), rounded to fp16 in turn. The halves pass through an OR with a
// zero the compiler cannot see (rows is never negative): NVIDIA's folded unpackHalf2x16 of
// packHalf2x16 to v itself, which left nothing to keep.
uint opaque_zero;
uvec2 lost(vec4 v, uvec2 h) {
  h |= uvec2(opaque_zero);
  return halves(v - vec4(unpackHalf2x16(h.x), unpackHalf2x16(h.y)));
}
#endif

// Writes the registers fetch() filled into the shared slices, as fp16.
void stage() {
  [[unroll]] for (int r = 0; r < A_REGS; ++r) {
    const ivec2 mk = a_run(r);
    const uvec2 h = halves(a_regs[r]);
    a_sh[mk.x * AS + mk.y / 4] = h;
#if defined(SPLIT)
    if (A_SPLIT == 1) a_lo_sh[mk.x * AS + mk.y / 4] = lost(a_regs[r], h);
#endif
  }
  [[unroll]] for (int r = 0; r < B_REGS; ++r) {
    const ivec2 run = b_run(r);
    const uvec2 h = halves(b_regs[r]);
    b_sh[run.x * BS + run.y / 4] = h;
#if defined(SPLIT)
    if (B_SPLIT == 1) b_lo_sh[run.x * BS + run.y / 4] = lost(b_regs[r], h);
#endif
  }
}

void main() {
  tid = int(gl_LocalInvocationID.x);
#if defined(SPLIT)
  opaque_zero = uint(rows < 0);
#endif
  const int sg = int(gl_SubgroupID), lane = int(gl_SubgroupInvocationID);
  row0 = int(gl_WorkGroupID.y) * BM;
  col0 = int(gl_WorkGroupID.x) * BN;
  const int s = int(gl_WorkGroupID.z);
  a_base = s * a_batch_stride;
  b_base = s * b_batch_stride;
  const int wm = (sg / WARPS_N) * WM, wn = (sg % WARPS_N) * WN;  // this subgroup's part

  fcoopmatNV<32, gl_ScopeSubgroup, FM, FN> acc[FR * FC];
  [[unroll]] for (int f = 0; f < FR * FC; ++f) acc[f] = fcoopmatNV<32, gl_ScopeSubgroup, FM, FN>(0.0);

  fetch(0);
  for (int k0 = 0; k0 < inner; k0 += BK) {
    stage();
    barrier();
    if (k0 + BK < inner) fetch(k0 + BK);  // in flight while the fragments multiply
    [[unroll]] for (int kk = 0; kk < BK; kk += FK) {
      fcoopmatNV<16, gl_ScopeSubgroup, FK, FN> fb[FC];
#if defined(SPLIT)
      fcoopmatNV<16, gl_ScopeSubgroup, FK, FN> fb_lo[FC];
#endif
      [[unroll]] for (int j = 0; j < FC; ++j) {
        const int at = B_K_MAJOR == 1 ? (wn + j * FN) * BS + kk / 4 : kk * BS + (wn + j * FN) / 4;
        coopMatLoadNV(fb[j], b_sh, at, BS, B_K_MAJOR == 1);
#if defined(SPLIT)
        if (B_SPLIT == 1) coopMatLoadNV(fb_lo[j], b_lo_sh, at, BS, B_K_MAJOR == 1);
#endif
      }
      [[unroll]] for (int i = 0; i < FR; ++i) {
        fcoopmatNV<16, gl_ScopeSubgroup, FM, FK> fa;
        const int at = (wm + i * FM) * AS + kk / 4;
        coopMatLoadNV(fa, a_sh, at, AS, false);
#if defined(SPLIT)
        fcoopmatNV<16, gl_ScopeSubgroup, FM, FK> fa_lo;
        if (A_SPLIT == 1) coopMatLoadNV(fa_lo, a_lo_sh, at, AS, false);
#endif
        [[unroll]] for (int j = 0; j < FC; ++j) {
          acc[i * FC + j] = coopMatMulAddNV(fa, fb[j], acc[i * FC + j]);
#if defined(SPLIT)
          if (A_SPLIT == 1) acc[i * FC + j] = coopMatMulAddNV(fa_lo, fb[j], acc[i * FC + j]);
          if (B_SPLIT == 1) acc[i * FC + j] = coopMatMulAddNV(fa, fb_lo[j], acc[i * FC + j]);
#endif
        }
      }
    }
    barrier();
  }

  const int scratch = sg * FM * CS;
  [[unroll]] for (int f = 0; f < FR * FC; ++f) {
    coopMatStoreNV(acc[f], c_sh, scratch, CS, false);
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    const int fi = row0 + wm + (f / FC) * FM, fj = col0 + wn + (f % FC) * FN;
    for (int e = lane; e < FM * FN; e += 32) {
      const int i = fi + e / FN, j = fj + e % FN;
      if (i >= rows || j >= cols) continue;
      float v = alpha * c_sh[scratch + (e / FN) * CS + e % FN];
      if (has_bias == 1) v += beta * texelFetch(bias, bias_offset + i * bias_row_stride + j * bias_col_stride).r;
      if (has_residual == 1) v += texelFetch(residual, (s * rows + i) * cols + j).r;
      // Compares, not clamp(): NaN stays NaN, as in torch.
      if (v < out_min) v = out_min;
      if (v > out_max) v = out_max;
      v = act(v);
      y[(s * rows + i) * cols + j] = v;
    }
    subgroupBarrier();  // the scratch is read before the next fragment overwrites it
  }
}
