// dst[dst_offset + sum(i_d * dst_strides[d])] = src[src_offset + sum(i_d * src_strides[d])] over
// `sizes` (rank <= 6, right-aligned): the copy behind every Vulkan view op and cat.
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(std430, binding = 1) readonly buffer In { float x[]; };
layout(push_constant) uniform Params {
  uint numel;
  uint src_offset;
  uint dst_offset;
  uint sizes[6];
  uint src_strides[6];
  uint dst_strides[6];
};

void main() {
  uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= numel) return;
  uint rest = i, src = src_offset, dst = dst_offset;
  for (int d = 5; d >= 0; --d) {
    uint c = rest % sizes[d];
    rest /= sizes[d];
    src += c * src_strides[d];
    dst += c * dst_strides[d];
  }
  y[dst] = x[src];
}
