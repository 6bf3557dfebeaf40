// aten::{eq,ne,gt,lt,ge,le}.Tensor of two float32 tensors with NumPy broadcasting up to rank 6:
// a bool tensor, 4 elements per invocation packed into one 32-bit word, one byte each (as
// compare_scalar.glsl writes them). The host passes the output sizes and each input's strides,
// with stride 0 on broadcast dimensions.
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const int OP = 0;

layout(std430, binding = 0) writeonly buffer Out { uint y[]; };
layout(std430, binding = 1) readonly buffer A { float a[]; };
layout(std430, binding = 2) readonly buffer B { float b[]; };
layout(push_constant) uniform Params {
  uint numel;
  uint sizes[6];
  uint a_strides[6];
  uint b_strides[6];
};

#include "compare.glslh"

bool compare(uint i) {
  uint rest = i, ia = 0, ib = 0;
  for (int d = 5; d >= 0; --d) {
    uint c = rest % sizes[d];
    rest /= sizes[d];
    ia += c * a_strides[d];
    ib += c * b_strides[d];
  }
  return compare_values(a[ia], b[ib]);
}

void main() {
  uint w = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  uint first = w * 4u;
  if (first >= numel) return;
  uint word = 0u;
  for (uint k = 0u; k < 4u; ++k)
    if (first + k < numel && compare(first + k)) word |= 1u << (8u * k);
  y[w] = word;
}
