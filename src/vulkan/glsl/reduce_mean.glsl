// Row means: out[r] = mean(in[r * cols .. r * cols + cols)); the host first permutes reduced
// dims to the end when they are not already there. One work group of 64 invocations per row,
// partial sums meeting in shared memory; the strided loop is cut into chunks because lavapipe
// stops any loop after 65535 iterations.
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(std430, binding = 1) readonly buffer In { float x[]; };
layout(push_constant) uniform Params {
  uint rows, cols;
};

const uint kGroup = 64;         // the work-group size the host launches (a power of two)
const uint kChunk = 1u << 20;   // values per chunk: 16384 loop iterations per invocation
shared float partial[kGroup];

void main() {
  uint r = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  uint t = gl_LocalInvocationID.x;
  uint base = (r < rows ? r : 0) * cols;
  float s = 0.0;
  for (uint c0 = 0; c0 < cols; c0 += kChunk)
    for (uint i = c0 + t; i < min(cols, c0 + kChunk); i += kGroup) s += x[base + i];
  partial[t] = s;
  barrier();
  for (uint w = kGroup / 2; w > 0; w >>= 1) {
    if (t < w) partial[t] += partial[t + w];
    barrier();
  }
  if (t == 0 && r < rows) y[r] = partial[0] / float(cols);
}
