// aten::argmax (MIN = 0) or aten::argmin (MIN = 1) along one dim of a float32 tensor seen as
// [outer, size, inner]: one work group
// of kGroup invocations per (outer, inner) pair, each scanning a strided part of the dim (so no
// invocation walks past lavapipe's 65535-iteration loop cap below 4M values), then the
// candidates meet in shared memory. As PyTorch's CPU kernel: NaN counts as the largest value,
// and ties go to the first index. The int64 result is written as two 32-bit words.
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const int MIN = 0;

layout(std430, binding = 0) writeonly buffer Out { uint y[]; };
layout(std430, binding = 1) readonly buffer In { float x[]; };
layout(push_constant) uniform Params {
  uint pairs, size, inner;
};

const uint kGroup = 64;  // the work-group size the host launches (a power of two)
shared float best_value[kGroup];
shared uint best_index[kGroup];

// Whether (v, i) beats (w, j): larger (smaller for MIN), NaN above every number either way, the
// first index on ties.
bool beats(float v, uint i, float w, uint j) {
  if (isnan(v) != isnan(w)) return isnan(v);
  if (isnan(v) || v == w) return i < j;
  return MIN == 1 ? v < w : v > w;
}

void main() {
  const uint pair = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  const uint t = gl_LocalInvocationID.x;
  const bool live = pair < pairs;
  const uint base = live ? (pair / inner) * size * inner + pair % inner : 0u;
  float v = 0.0;
  uint i = 0xffffffffu;  // no candidate yet: loses to any
  if (live) {
    for (uint k = t; k < size; k += kGroup) {
      const float w = x[base + k * inner];
      if (i == 0xffffffffu || beats(w, k, v, i)) {
        v = w;
        i = k;
      }
    }
  }
  best_value[t] = v;
  best_index[t] = i;
  barrier();
  for (uint w = kGroup / 2; w > 0u; w >>= 1) {
    if (t < w) {
      const uint j = best_index[t + w];
      if (j != 0xffffffffu && (best_index[t] == 0xffffffffu || beats(best_value[t + w], j, best_value[t], best_index[t]))) {
        best_value[t] = best_value[t + w];
        best_index[t] = j;
      }
    }
    barrier();
  }
  if (live && t == 0u) {
    y[2u * pair] = best_index[0];
    y[2u * pair + 1u] = 0u;
  }
}
