// aten::{eq,ne,gt,lt,ge,le}.Scalar on a float32, int64 or bool tensor: a bool tensor, 4
// elements per invocation packed into one 32-bit word, one byte each (a bool tensor's buffer is
// rounded up to whole words, vulkan_backend.cpp). int64 elements (INT64 = 1) are read as word
// pairs and compared as floats, exact below 2^24 in magnitude, negative ones included (indices
// and masks, not large integers); bool elements (BOOL = 1) as bytes, 0 or 1 (logical_not is == 0).
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const int OP = 0;
layout(constant_id = 4) const int INT64 = 0;
layout(constant_id = 5) const int BOOL = 0;

layout(std430, binding = 0) writeonly buffer Out { uint y[]; };
layout(std430, binding = 1) readonly buffer In { uint x[]; };
layout(push_constant) uniform Params {
  uint numel;
  float value;
};

#include "compare.glslh"

float element(uint i) {
  if (BOOL == 1) return float((x[i / 4u] >> (8u * (i % 4u))) & 0xffu);
  if (INT64 == 0) return uintBitsToFloat(x[i]);
  // A value within int32 (the high word only its sign) reads exactly; larger ones as floats.
  const int hi = int(x[2u * i + 1u]);
  const uint lo = x[2u * i];
  if ((hi == 0 && lo < 0x80000000u) || (hi == -1 && lo >= 0x80000000u)) return float(int(lo));
  return float(hi) * 4294967296.0 + float(lo);
}

void main() {
  uint w = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  uint first = w * 4u;
  if (first >= numel) return;
  uint word = 0u;
  for (uint k = 0u; k < 4u; ++k)
    if (first + k < numel && compare_values(element(first + k), value)) word |= 1u << (8u * k);
  y[w] = word;
}
