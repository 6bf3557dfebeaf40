// softmax (LOG 0) / log_softmax (LOG 1) along one dim of a tensor seen as [outer, size, inner],
// subtracting the max for stability. WIDE = 0: one invocation per (outer, inner) pair. WIDE = 1
// (long dims): one work group of kGroup invocations per pair, each taking a strided part of the
// dim, the max and the sum meeting in shared memory: lavapipe stops a shader's loops after
// 65535 iterations, which one invocation walking a longer dim would pass. WIDE = 2 (GPUs, the
// softmax dim innermost): one subgroup per row, its invocations reading neighbouring elements
// (coalesced, where one invocation per row would read addresses a row apart) and meeting in
// subgroupMax / subgroupAdd.
#version 450
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const int LOG = 0;
layout(constant_id = 4) const int WIDE = 0;

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(std430, binding = 1) readonly buffer In { float x[]; };
layout(push_constant) uniform Params {
  uint outer, size, inner;
};

const uint kGroup = 64;  // WIDE: the work-group size the host launches (a power of two)
shared float partial[kGroup];

// WIDE: max (MAX 1) or sum (MAX 0) over the work group; every invocation gets it.
float group_reduce(float v, bool take_max) {
  uint t = gl_LocalInvocationID.x;
  partial[t] = v;
  barrier();
  for (uint w = kGroup / 2; w > 0; w >>= 1) {
    if (t < w) partial[t] = take_max ? max(partial[t], partial[t + w]) : partial[t] + partial[t + w];
    barrier();
  }
  float total = partial[0];
  barrier();
  return total;
}

// WIDE 2 (inner == 1): rows go to subgroups in turn, so every row is taken whatever size of
// subgroup the driver chose (the host sized the launch by the size the device reports).
void subgroup_rows() {
  const uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
  const uint first = (gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x) * gl_NumSubgroups + gl_SubgroupID;
  for (uint row = first; row < outer; row += groups * gl_NumSubgroups) {  // uniform in a subgroup
    const uint base = row * size;
    float m = uintBitsToFloat(0xff800000u);  // -inf
    for (uint k = gl_SubgroupInvocationID; k < size; k += gl_SubgroupSize) m = max(m, x[base + k]);
    m = subgroupMax(m);
    float sum = 0.0;
    for (uint k = gl_SubgroupInvocationID; k < size; k += gl_SubgroupSize) sum += exp(x[base + k] - m);
    sum = subgroupAdd(sum);
    const float log_sum = log(sum);
    for (uint k = gl_SubgroupInvocationID; k < size; k += gl_SubgroupSize) {
      const float shifted = x[base + k] - m;
      y[base + k] = LOG == 1 ? shifted - log_sum : exp(shifted) / sum;
    }
  }
}

void main() {
  uint i, k0, step;
  bool live;
  if (WIDE == 2) {
    subgroup_rows();
    return;
  }
  if (WIDE == 1) {
    i = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    k0 = gl_LocalInvocationID.x;
    step = kGroup;
    live = i < outer * inner;
    if (!live) i = 0;
  } else {
    i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (i >= outer * inner) return;
    k0 = 0;
    step = 1;
    live = true;
  }
  uint base = (i / inner) * size * inner + i % inner;
  float m = uintBitsToFloat(0xff800000u);  // -inf
  for (uint k = k0; k < size; k += step) m = max(m, x[base + k * inner]);
  if (WIDE == 1) m = group_reduce(m, true);
  float sum = 0.0;
  for (uint k = k0; k < size; k += step) sum += exp(x[base + k * inner] - m);
  if (WIDE == 1) sum = group_reduce(sum, false);
  float log_sum = log(sum);
  if (!live) return;
  for (uint k = k0; k < size; k += step) {
    float shifted = x[base + k * inner] - m;
    y[base + k * inner] = LOG == 1 ? shifted - log_sum : exp(shifted) / sum;
  }
}
