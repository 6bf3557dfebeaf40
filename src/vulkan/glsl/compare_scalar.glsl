// aten::{eq,ne,gt,lt,ge,le}.Scalar on a float32 or int64 tensor: a bool tensor, 4 elements per
// invocation packed into one 32-bit word, one byte each (a bool tensor's buffer is rounded up
// to whole words, vulkan_backend.cpp). int64 elements (INT64 = 1) are read as word pairs and
// compared as floats, exact below 2^24 in magnitude (indices and masks, not large integers).
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const int OP = 0;
layout(constant_id = 4) const int INT64 = 0;

layout(std430, binding = 0) writeonly buffer Out { uint y[]; };
layout(std430, binding = 1) readonly buffer In { uint x[]; };
layout(push_constant) uniform Params {
  uint numel;
  float value;
};

const int EQ = 0, NE = 1, GT = 2, LT = 3, GE = 4, LE = 5;

bool compare(float a) {
  if (OP == EQ) return a == value;
  if (OP == NE) return a != value;
  if (OP == GT) return a > value;
  if (OP == LT) return a < value;
  if (OP == GE) return a >= value;
  return a <= value;
}

float element(uint i) {
  if (INT64 == 0) return uintBitsToFloat(x[i]);
  return float(int(x[2u * i + 1u])) * 4294967296.0 + float(x[2u * i]);
}

void main() {
  uint w = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  uint first = w * 4u;
  if (first >= numel) return;
  uint word = 0u;
  for (uint k = 0u; k < 4u; ++k)
    if (first + k < numel && compare(element(first + k))) word |= 1u << (8u * k);
  y[w] = word;
}
