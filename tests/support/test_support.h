// Helpers shared by the C++ tests.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "tvk/tvk.h"

namespace tvk::testing_support {

// TVK_REQUIRE_VULKAN=1 (scripts/test.sh sets it): a missing Vulkan device fails, not skips.
bool vulkan_required();
// TVK_VALIDATION and TVK_REQUIRE_VULKAN both set by the caller (scripts/test.sh): the layer
// must then really be active. Elsewhere (e.g. a GPU machine without the layer) it is optional.
bool validation_required();
extern bool validation_set_by_environment;
// Validation messages the running test provokes on purpose (the listener forgives them).
extern uint64_t expected_validation_messages;

// An environment variable, or `fallback` when it is unset.
inline std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

// Max |a - b| over two float tensors of one shape (both brought to the CPU).
// The elements of a float32, int64 or bool tensor as doubles, in row-major order.
inline std::vector<double> values_of(const Tensor& t) {
  const Tensor c = t.cpu().contiguous();
  std::vector<double> out(static_cast<size_t>(c.numel()));
  for (int64_t i = 0; i < c.numel(); ++i) {
    switch (c.dtype()) {
      case DType::Float32: out[static_cast<size_t>(i)] = c.data<float>()[i]; break;
      case DType::Int64: out[static_cast<size_t>(i)] = static_cast<double>(c.data<int64_t>()[i]); break;
      case DType::Bool: out[static_cast<size_t>(i)] = c.data<bool>()[i] ? 1.0 : 0.0; break;
    }
  }
  return out;
}

inline double max_abs_diff(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.sizes(), b.sizes());
  if (a.sizes() != b.sizes()) return INFINITY;
  const std::vector<double> x = values_of(a), y = values_of(b);
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double d = std::fabs(x[i] - y[i]);
    if (!(d <= worst)) worst = d;  // NaN propagates as a failure
  }
  return worst;
}

inline double max_abs(const Tensor& a) {
  double m = 0;
  for (double v : values_of(a)) m = std::max(m, std::fabs(v));
  return m;
}

}  // namespace tvk::testing_support

// Skips the test when no Vulkan device exists, or fails it under TVK_REQUIRE_VULKAN=1.
#define TVK_NEED_VULKAN()                                                            \
  do {                                                                               \
    if (!::tvk::is_vulkan_available()) {                                             \
      if (::tvk::testing_support::vulkan_required())                                 \
        FAIL() << "TVK_REQUIRE_VULKAN is set but no Vulkan device is available";     \
      GTEST_SKIP() << "no Vulkan device";                                            \
    }                                                                                \
  } while (0)
