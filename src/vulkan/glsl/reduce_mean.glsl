// Row means: out[r] = mean(in[r * cols .. r * cols + cols)); the host first permutes reduced
// dims to the end when they are not already there.
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(std430, binding = 1) readonly buffer In { float x[]; };
layout(push_constant) uniform Params {
  uint rows, cols;
};

void main() {
  uint r = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (r >= rows) return;
  float sum = 0.0;
  for (uint i = 0; i < cols; ++i) sum += x[r * cols + i];
  y[r] = sum / float(cols);
}
