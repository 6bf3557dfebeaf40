// aten::masked_fill.Scalar: y = mask ? value : x over the broadcast of both shapes (rank <= 6),
// each read through its strides (stride 0 on broadcast dimensions), the bool mask as bytes.
// Elements are copied as bits: one 32-bit word (float32), or two (INT64 = 1).
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const int INT64 = 0;

layout(std430, binding = 0) writeonly buffer Out { uint y[]; };
layout(std430, binding = 1) readonly buffer In { uint x[]; };
layout(std430, binding = 2) readonly buffer Mask { uint mask[]; };
layout(push_constant) uniform Params {
  uint numel;
  uint value_lo, value_hi;  // the fill value's bits: a float32's, or an int64's two words
  uint sizes[6];
  uint x_strides[6];
  uint mask_strides[6];
};

void main() {
  uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= numel) return;
  uint rest = i, m = 0u, o = 0u;
  for (int d = 5; d >= 0; --d) {
    uint c = rest % sizes[d];
    rest /= sizes[d];
    o += c * x_strides[d];
    m += c * mask_strides[d];
  }
  bool set = ((mask[m >> 2u] >> (8u * (m & 3u))) & 0xffu) != 0u;
  if (INT64 == 0) {
    y[i] = set ? value_lo : x[o];
  } else {
    y[2u * i] = set ? value_lo : x[2u * o];
    y[2u * i + 1u] = set ? value_hi : x[2u * o + 1u];
  }
}
