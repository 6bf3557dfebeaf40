// Running sums (or, with PRODUCT, products) along one dimension of x seen as [outer, size, inner]: an invocation per
// (outer, inner) line adds its `size` values in order (as the CPU kernel does, so the rounding
// matches). gallivm ends a loop after 65535 iterations, so the host sends longer lines to the
// CPU fallback.
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const int PRODUCT = 0;

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(std430, binding = 1) readonly buffer In { float x[]; };
layout(push_constant) uniform Params {
  uint lines;  // outer * inner
  uint size, inner;
};

void main() {
  uint line = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (line >= lines) return;
  uint o = line / inner, i = line % inner;
  uint at = o * size * inner + i;
  float acc = PRODUCT == 1 ? 1.0 : 0.0;
  for (uint j = 0; j < size; ++j, at += inner) {
    acc = PRODUCT == 1 ? acc * x[at] : acc + x[at];
    y[at] = acc;
  }
}
