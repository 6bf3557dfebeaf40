// One GRU step's gates (ops/recurrent.h): an invocation per (batch row, hidden unit) reads the
// three gate pre-activations of step `t` from gates_x and gates_h and writes the new h.
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) writeonly buffer H { float h_out[]; };
layout(std430, binding = 1) readonly buffer GatesX { float gx[]; };  // [T, B, 3H]
layout(std430, binding = 2) readonly buffer GatesH { float gh[]; };  // [B, 3H]
layout(std430, binding = 3) readonly buffer HIn { float h_in[]; };   // [B, H]
layout(push_constant) uniform Params {
  uint count;   // B * H
  uint hidden;  // H
  uint x_base;  // t * B * 3H: step t's first gate in gates_x
};

float sigmoid(float v) { return 1.0 / (1.0 + exp(-v)); }

void main() {
  uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= count) return;
  uint b = i / hidden, j = i % hidden;
  uint x = x_base + b * 3 * hidden + j, g = b * 3 * hidden + j;
  float r = sigmoid(gx[x] + gh[g]);
  float z = sigmoid(gx[x + hidden] + gh[g + hidden]);
  float n = tanh(clamp(gx[x + 2 * hidden] + r * gh[g + 2 * hidden], -15.0, 15.0));
  h_out[i] = (1.0 - z) * n + z * h_in[i];
}
