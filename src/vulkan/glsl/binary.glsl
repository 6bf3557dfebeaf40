// Elementwise out = a (op) alpha * b with NumPy broadcasting up to rank 6 (add, sub, mul, div,
// pow, floor_divide, remainder, maximum, minimum, atan2, fmod, division rounded toward zero):
// the host passes the output sizes and each input's strides,
// with stride 0 on broadcast dimensions.
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const int OP = 0;

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(std430, binding = 1) readonly buffer A { float a[]; };
layout(std430, binding = 2) readonly buffer B { float b[]; };
layout(push_constant) uniform Params {
  uint numel;
  float alpha;
  uint sizes[6];
  uint a_strides[6];
  uint b_strides[6];
};

const int ADD = 0, SUB = 1, MUL = 2, DIV = 3, POW = 4, FLOOR_DIV = 5, REMAINDER = 6, MAXIMUM = 7, MINIMUM = 8,
          ATAN2 = 9, FMOD = 10, TRUNC_DIV = 11;

#include "torch_math.glslh"

void main() {
  uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= numel) return;
  uint rest = i, ia = 0, ib = 0;
  for (int d = 5; d >= 0; --d) {
    uint c = rest % sizes[d];
    rest /= sizes[d];
    ia += c * a_strides[d];
    ib += c * b_strides[d];
  }
  float va = a[ia], vb = b[ib];
  float r;
  if (OP == ADD) r = va + alpha * vb;
  else if (OP == SUB) r = va - alpha * vb;
  else if (OP == MUL) r = va * vb;
  else if (OP == POW) r = torch_pow(va, vb);
  else if (OP == FLOOR_DIV) r = floor_div(va, vb);
  else if (OP == REMAINDER) r = python_mod(va, vb);
  else if (OP == MAXIMUM) r = (isnan(va) || isnan(vb)) ? va + vb : max(va, vb);  // NaN wins, as in torch
  else if (OP == MINIMUM) r = (isnan(va) || isnan(vb)) ? va + vb : min(va, vb);
  else if (OP == ATAN2) r = torch_atan2(va, vb);
  else if (OP == FMOD) r = c_fmod(va, vb);
  else if (OP == TRUNC_DIV) r = trunc(va / vb);
  else r = va / vb;
  y[i] = r;
}
