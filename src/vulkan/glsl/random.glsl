// Random fills (ops/random.h, whose hash this mirrors): y[i] = lo + (hi - lo) * U(seed, i) for
// UNIFORM, else lo + hi * N(seed, i) (lo the mean, hi the standard deviation).
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const int UNIFORM = 1;

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(push_constant) uniform Params {
  uint numel;
  uint seed_lo, seed_hi;
  float lo, hi;
};

uint random_word(uint index, uint stream) {
  uint s = index * 747796405u + 2891336453u;
  s ^= seed_lo + stream * 0x9e3779b9u;
  s = ((s >> ((s >> 28u) + 4u)) ^ s) * 277803737u;
  s = (s >> 22u) ^ s;
  s ^= seed_hi;
  s = ((s >> ((s >> 28u) + 4u)) ^ s) * 277803737u;
  return (s >> 22u) ^ s;
}
float random_uniform(uint index, uint stream) { return float(random_word(index, stream) >> 8u) * (1.0 / 16777216.0); }

void main() {
  uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= numel) return;
  if (UNIFORM == 1) {
    y[i] = lo + (hi - lo) * random_uniform(i, 0u);
  } else {
    float u1 = 1.0 - random_uniform(i, 0u), u2 = random_uniform(i, 1u);
    y[i] = lo + hi * sqrt(-2.0 * log(u1)) * cos(6.28318530717958647692 * u2);
  }
}
