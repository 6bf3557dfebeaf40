// Row means (MEAN = 1): out[r] = mean(in[r * cols .. r * cols + cols)), or sums (MEAN = 0,
// torch.sum); the host first permutes reduced dims to the end when they are not already there.
// One work group of 64 invocations per row, partial sums meeting in shared memory: lavapipe
// stops a shader's loop after 65535 iterations, so one invocation per row was wrong past that
// many values (now: past 64 x 65535).
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const int MEAN = 1;

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(std430, binding = 1) readonly buffer In { float x[]; };
layout(push_constant) uniform Params {
  uint rows, cols;
};

const uint kGroup = 64;         // the work-group size the host launches (a power of two)
shared float partial[kGroup];

void main() {
  uint r = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  uint t = gl_LocalInvocationID.x;
  uint base = (r < rows ? r : 0) * cols;
  float s = 0.0;
  for (uint i = t; i < cols; i += kGroup) s += x[base + i];
  partial[t] = s;
  barrier();
  for (uint w = kGroup / 2; w > 0; w >>= 1) {
    if (t < w) partial[t] += partial[t + w];
    barrier();
  }
  if (t == 0 && r < rows) y[r] = MEAN == 1 ? partial[0] / float(cols) : partial[0];
}
