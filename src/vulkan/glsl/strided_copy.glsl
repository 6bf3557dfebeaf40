// dst[dst_offset + sum(i_d * dst_strides[d])] = src[src_offset + sum(i_d * src_strides[d])] over
// `sizes` (right-aligned; the host merges dims that are contiguous in both views and drops
// those of size 1, so RANK, a specialisation constant, is the number left): the copy behind
// every Vulkan view op and cat. Each invocation copies RUN consecutive elements of the
// innermost dim (the host divides that dim's size by RUN and multiplies its strides by RUN; the
// elements of a run are src_step / dst_step apart), so the index arithmetic, a division per
// dim, is done once per run. Words are copied as bits: float32 elements, and int64 ones as two
// words each (the host doubles the geometry).
#version 450
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const int RANK = 6;
layout(constant_id = 4) const int RUN = 1;

layout(std430, binding = 0) writeonly buffer Out { uint y[]; };
layout(std430, binding = 1) readonly buffer In { uint x[]; };
layout(push_constant) uniform Params {
  uint runs;  // invocations with work: numel / RUN
  uint src_offset;
  uint dst_offset;
  uint src_step, dst_step;
  uint sizes[6];
  uint src_strides[6];
  uint dst_strides[6];
};

void main() {
  uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= runs) return;
  uint rest = i, src = src_offset, dst = dst_offset;
  [[unroll]] for (int d = 5; d > 6 - RANK; --d) {
    uint c = rest % sizes[d];
    rest /= sizes[d];
    src += c * src_strides[d];
    dst += c * dst_strides[d];
  }
  src += rest * src_strides[6 - RANK];  // the outermost dim: what is left is its index
  dst += rest * dst_strides[6 - RANK];
  [[unroll]] for (int r = 0; r < RUN; ++r) y[dst + r * dst_step] = x[src + r * src_step];
}
