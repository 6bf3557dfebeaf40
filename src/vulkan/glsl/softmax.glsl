// softmax (LOG 0) / log_softmax (LOG 1) along one dim of a tensor seen as [outer, size, inner]:
// one invocation per (outer, inner) pair, subtracting the max for stability.
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const int LOG = 0;

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(std430, binding = 1) readonly buffer In { float x[]; };
layout(push_constant) uniform Params {
  uint outer, size, inner;
};

void main() {
  uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= outer * inner) return;
  uint base = (i / inner) * size * inner + i % inner;
  float m = uintBitsToFloat(0xff800000u);  // -inf
  for (uint k = 0; k < size; ++k) m = max(m, x[base + k * inner]);
  float sum = 0.0;
  for (uint k = 0; k < size; ++k) sum += exp(x[base + k * inner] - m);
  float log_sum = log(sum);
  for (uint k = 0; k < size; ++k) {
    float shifted = x[base + k * inner] - m;
    y[base + k * inner] = LOG == 1 ? shifted - log_sum : exp(shifted) / sum;
  }
}
