// Random fills (rand_like, randn_like, uniform_, normal_): what the CPU and Vulkan kernels share.
// Each call draws a fresh 64-bit seed; a value is a hash of (seed, element index) on both devices
// (counter-based, as Philox is in PyTorch), so a fill needs no state beyond its seed. The stream
// differs from PyTorch's: models draw noise (dropout at inference is off), not reproduce it.
#pragma once

#include <cmath>
#include <cstdint>

namespace tvk::ops {

// A new seed per call: a process-wide counter mixed with the process's start.
uint64_t next_random_seed();

// PCG's output permutation of a 32-bit state: one well-mixed word per (seed, index, stream).
inline uint32_t random_word(uint32_t seed_lo, uint32_t seed_hi, uint32_t index, uint32_t stream) {
  uint32_t s = index * 747796405u + 2891336453u;
  s ^= seed_lo + stream * 0x9e3779b9u;
  s = ((s >> ((s >> 28u) + 4u)) ^ s) * 277803737u;
  s = (s >> 22u) ^ s;
  s ^= seed_hi;
  s = ((s >> ((s >> 28u) + 4u)) ^ s) * 277803737u;
  return (s >> 22u) ^ s;
}
// Uniform in [0, 1): 24 random bits.
inline float random_uniform(uint32_t seed_lo, uint32_t seed_hi, uint32_t index, uint32_t stream) {
  return static_cast<float>(random_word(seed_lo, seed_hi, index, stream) >> 8) * (1.0f / 16777216.0f);
}
// Standard normal by Box-Muller from two uniforms (the first kept away from 0).
inline float random_normal(uint32_t seed_lo, uint32_t seed_hi, uint32_t index) {
  const float u1 = 1.0f - random_uniform(seed_lo, seed_hi, index, 0);
  const float u2 = random_uniform(seed_lo, seed_hi, index, 1);
  return std::sqrt(-2.0f * std::log(u1)) * std::cos(6.28318530717958647692f * u2);
}

}  // namespace tvk::ops
