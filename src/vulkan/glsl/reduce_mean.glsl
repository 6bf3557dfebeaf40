// Row reductions of in[r * cols .. r * cols + cols): MODE 0 sums (torch.sum), 1 means, 2 maxima
// and 3 minima (torch.amax / amin; NaN wins, as in PyTorch), 4 products (torch.prod). The host first permutes reduced dims
// to the end when they are not already there.
// One work group of 64 invocations per row, partial sums meeting in shared memory: lavapipe
// stops a shader's loop after 65535 iterations, so one invocation per row was wrong past that
// many values (now: past 64 x 65535).
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const int MODE = 1;

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(std430, binding = 1) readonly buffer In { float x[]; };
layout(push_constant) uniform Params {
  uint rows, cols;
};

const uint kGroup = 64;         // the work-group size the host launches (a power of two)
shared float partial[kGroup];

float combine(float a, float b) {
  if (MODE < 2) return a + b;
  if (MODE == 4) return a * b;
  if (isnan(a) || isnan(b)) return isnan(a) ? a : b;
  return MODE == 2 ? max(a, b) : min(a, b);
}

void main() {
  uint r = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  uint t = gl_LocalInvocationID.x;
  uint base = (r < rows ? r : 0) * cols;
  // The identity of each mode: 0, -inf for maxima, +inf for minima, 1 for products.
  float s = MODE == 2 ? uintBitsToFloat(0xff800000u) : MODE == 3 ? uintBitsToFloat(0x7f800000u) : MODE == 4 ? 1.0 : 0.0;
  for (uint i = t; i < cols; i += kGroup) s = combine(s, x[base + i]);
  partial[t] = s;
  barrier();
  for (uint w = kGroup / 2; w > 0; w >>= 1) {
    if (t < w) partial[t] = combine(partial[t], partial[t + w]);
    barrier();
  }
  if (t == 0 && r < rows) y[r] = MODE == 1 ? partial[0] / float(cols) : partial[0];
}
