// aten::index, index_select, embedding: y[o][i][j] = x[o][rows[i]][j] over [outer, count, inner], x read as
// [outer, size, inner], in 32-bit words (bits copied as they are: an int64 element is 2 words). rows is an int64 tensor read as 32-bit word pairs (little-endian); the
// host checked every row against size, and min() keeps a stray one inside x all the same.
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) writeonly buffer Out { uint y[]; };
layout(std430, binding = 1) readonly buffer In { uint x[]; };
layout(std430, binding = 2) readonly buffer Rows { uint rows[]; };
layout(push_constant) uniform Params {
  uint numel, count, size, inner;
};

void main() {
  uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= numel) return;
  uint j = i % inner, r = i / inner;
  uint k = r % count, o = r / count;
  uint row = min(rows[2u * k], size - 1u);
  y[i] = x[(o * size + row) * inner + j];
}
