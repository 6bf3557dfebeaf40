// Linear layer y = x W^T + b for packed weights: W^T padded to a multiple of 4 output columns
// and read as RGBA32 texels ([K][N/4], the bias after them), so each invocation computes 4
// outputs of one row with one input read and one weight texel per step of K. A work group
// covers one row (z), so the input read is the same for all its invocations. KSPLIT > 1 (GPUs):
// the work group's y dimension splits K, partial sums meet in shared memory (a tree).
#version 450
#include "nan_clamp.glslh"
#include "activations.glslh"
#include "fused_activation.glslh"
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(constant_id = 3) const int KSPLIT = 1;
const int kMaxInvocations = 256;  // x * y of the work group (checked by the host)
shared vec4 partial[kMaxInvocations];

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(binding = 1) uniform samplerBuffer x;  // R32: [rows][inner]
layout(binding = 2) uniform samplerBuffer w;  // RGBA32: [inner][cols4], then [cols4] bias
layout(push_constant) uniform Params {
  int rows, inner, cols, cols4;
  float out_min, out_max;
};

void main() {
  int n4 = int(gl_GlobalInvocationID.x);
  int m = int(gl_WorkGroupID.z);
  bool live = n4 < cols4;
  int c = min(n4, cols4 - 1);
  int slice = int(gl_LocalInvocationID.y);
  vec4 acc = slice == 0 ? texelFetch(w, inner * cols4 + c) : vec4(0.0);  // the bias, once
  int xb = m * inner;
  for (int k = slice; k < inner; k += KSPLIT) acc += texelFetch(x, xb + k).r * texelFetch(w, k * cols4 + c);
  if (KSPLIT > 1) {
    // Tree reduction over the slices (KSPLIT is a power of two).
    int wx = int(gl_WorkGroupSize.x), lx = int(gl_LocalInvocationID.x);
    partial[slice * wx + lx] = acc;
    for (int step = KSPLIT / 2; step > 0; step /= 2) {
      barrier();
      if (slice < step) {
        acc += partial[(slice + step) * wx + lx];
        partial[slice * wx + lx] = acc;
      }
    }
    if (slice != 0) return;
  }
  if (!live) return;
  acc = act(clamp_nan(acc, out_min, out_max));
  int o = m * cols + n4 * 4;
  for (int i = 0; i < 4; ++i) {
    if (n4 * 4 + i >= cols) break;
    y[o + i] = acc[i];
  }
}
