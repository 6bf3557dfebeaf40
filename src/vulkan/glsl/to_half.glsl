// Converts float32 values to 16-bit floats, two per uint, the first in the low half, rounded to
// nearest even (half_round.glslh): the storage of weights packed in fp16 precision, which
// kernels read back as floats through R16F / RGBA16F texel views. A missing last value is 0.
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) writeonly buffer Out { uint h[]; };
layout(binding = 1) uniform samplerBuffer f;  // R32
layout(push_constant) uniform Params {
  int pairs, count;
};

#include "half_round.glslh"

void main() {
  int i = int(gl_GlobalInvocationID.x) + int(gl_GlobalInvocationID.y) * int(gl_NumWorkGroups.x * gl_WorkGroupSize.x);
  if (i >= pairs) return;
  float a = texelFetch(f, 2 * i).r;
  float b = 2 * i + 1 < count ? texelFetch(f, 2 * i + 1).r : 0.0;
  h[i] = pack_halves(vec2(a, b));
}
