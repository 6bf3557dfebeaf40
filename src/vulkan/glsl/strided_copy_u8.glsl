// The copy behind the Vulkan view ops for bool tensors (one byte per element, four to a word):
// y, contiguous from its start, gets x[src_offset + sum(i_d * src_strides[d])] over `sizes`
// (right-aligned, padded with 1s), in bytes. Each invocation writes one whole word of y, so no
// two write the same word.
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) writeonly buffer Out { uint y[]; };
layout(std430, binding = 1) readonly buffer In { uint x[]; };
layout(push_constant) uniform Params {
  uint numel;
  uint src_offset;
  uint sizes[6];
  uint src_strides[6];
};

void main() {
  uint w = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  uint first = w * 4u;
  if (first >= numel) return;
  uint word = 0u;
  for (uint k = 0u; k < 4u && first + k < numel; ++k) {
    uint rest = first + k, src = src_offset;
    for (int d = 5; d >= 0; --d) {
      src += (rest % sizes[d]) * src_strides[d];
      rest /= sizes[d];
    }
    word |= ((x[src / 4u] >> (8u * (src % 4u))) & 0xffu) << (8u * k);
  }
  y[w] = word;
}
