// The second pass of a product split along K (gemm_tile128.glsl with SPLITS > 1): out[s][i][j]
// = clamp(alpha * sum_p partial[p][s][i][j] + beta * bias[i][j] + residual[s][i][j], out_min,
// out_max), the epilogue gemm_tile128.glsl applies when it does not split, column blocks
// included. Each invocation sums 4 neighbouring columns of one row.
#version 450
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const int SPLITS = 2;
// Column blocks, as in gemm_tile128.glsl: COL_BLOCK columns per image, the first COL_VALID
// real, out NCHW over them; 0: off.
layout(constant_id = 4) const int COL_BLOCK = 0;
layout(constant_id = 5) const int COL_VALID = 0;

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(std430, binding = 1) readonly buffer Partial { float partial[]; };  // gemm_epilogue.glslh's split_part_index
layout(std430, binding = 2) readonly buffer Bias { float bias[]; };          // partial stands in when has_bias = 0
layout(std430, binding = 3) readonly buffer Residual { float residual[]; };  // partial stands in when has_residual = 0
layout(push_constant) uniform Params {
#include "gemm_params.glslh"
};

#include "nan_clamp.glslh"
#include "activations.glslh"
#include "fused_activation.glslh"
#include "gemm_epilogue.glslh"

void main() {
  const int q = int(gl_GlobalInvocationID.x), row = int(gl_GlobalInvocationID.y), s = int(gl_GlobalInvocationID.z);
  if (4 * q >= cols || row >= rows || s >= batch) return;
  [[unroll]] for (int c = 0; c < 4; ++c) {
    const int j = 4 * q + c, o = out_index(s, row, j);
    if (o < 0) continue;
    float sum = 0.0;
    [[unroll]] for (int p = 0; p < SPLITS; ++p) sum += partial[split_part_index(p, s, row, j)];
    y[o] = epilogue(sum, row, j, o);
  }
}
