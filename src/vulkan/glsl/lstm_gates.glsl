// One LSTM step's gates (ops/recurrent.h): an invocation per (batch row, hidden unit) reads the
// four gate pre-activations of step `t` from gates_x and gates_h and writes h and the new c.
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(std430, binding = 0) writeonly buffer H { float h_out[]; };
layout(std430, binding = 1) writeonly buffer C { float c_out[]; };
layout(std430, binding = 2) readonly buffer GatesX { float gx[]; };  // [T, B, 4H]
layout(std430, binding = 3) readonly buffer GatesH { float gh[]; };  // [B, 4H]
layout(std430, binding = 4) readonly buffer CIn { float c_in[]; };   // [B, H]
layout(push_constant) uniform Params {
  uint count;   // B * H
  uint hidden;  // H
  uint x_base;  // t * B * 4H: step t's first gate in gates_x
};

float sigmoid(float v) { return 1.0 / (1.0 + exp(-v)); }
float tanh_(float v) { return tanh(clamp(v, -15.0, 15.0)); }  // tanh(15) is 1 in float; no inf / inf

void main() {
  uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= count) return;
  uint b = i / hidden, j = i % hidden;
  uint x = x_base + b * 4 * hidden + j, g = b * 4 * hidden + j;
  float in_gate = sigmoid(gx[x] + gh[g]);
  float forget = sigmoid(gx[x + hidden] + gh[g + hidden]);
  float cand = tanh_(gx[x + 2 * hidden] + gh[g + 2 * hidden]);
  float out_gate = sigmoid(gx[x + 3 * hidden] + gh[g + 3 * hidden]);
  float c = forget * c_in[i] + in_gate * cand;
  c_out[i] = c;
  h_out[i] = out_gate * tanh_(c);
}
