// aten::where.self: y = condition ? a : b over the broadcast of the three shapes (rank <= 6),
// each read through its strides (stride 0 on broadcast dimensions), the bool condition as
// bytes. Elements are copied as bits: one 32-bit word (float32), or two (INT64 = 1).
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const int INT64 = 0;

layout(std430, binding = 0) writeonly buffer Out { uint y[]; };
layout(std430, binding = 1) readonly buffer Cond { uint cond[]; };
layout(std430, binding = 2) readonly buffer A { uint a[]; };
layout(std430, binding = 3) readonly buffer B { uint b[]; };
layout(push_constant) uniform Params {
  uint numel;
  uint sizes[6];
  uint cond_strides[6];
  uint a_strides[6];
  uint b_strides[6];
};

void main() {
  uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= numel) return;
  uint rest = i, c = 0u, oa = 0u, ob = 0u;
  for (int d = 5; d >= 0; --d) {
    uint k = rest % sizes[d];
    rest /= sizes[d];
    c += k * cond_strides[d];
    oa += k * a_strides[d];
    ob += k * b_strides[d];
  }
  bool take_a = ((cond[c >> 2u] >> (8u * (c & 3u))) & 0xffu) != 0u;
  if (INT64 == 0) {
    y[i] = take_a ? a[oa] : b[ob];
  } else {
    y[2u * i] = take_a ? a[2u * oa] : b[2u * ob];
    y[2u * i + 1u] = take_a ? a[2u * oa + 1u] : b[2u * ob + 1u];
  }
}
