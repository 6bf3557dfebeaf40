// Helpers shared by the C++ tests.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>

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
inline double max_abs_diff(const Tensor& a, const Tensor& b) {
  Tensor x = a.cpu().contiguous(), y = b.cpu().contiguous();
  EXPECT_EQ(x.sizes(), y.sizes());
  if (x.sizes() != y.sizes()) return INFINITY;
  double worst = 0;
  const float* px = x.data<float>();
  const float* py = y.data<float>();
  for (int64_t i = 0; i < x.numel(); ++i) {
    const double d = std::fabs(static_cast<double>(px[i]) - py[i]);
    if (!(d <= worst)) worst = d;  // NaN propagates as a failure
  }
  return worst;
}

inline double max_abs(const Tensor& a) {
  Tensor x = a.cpu().contiguous();
  double m = 0;
  for (int64_t i = 0; i < x.numel(); ++i) m = std::max(m, std::fabs(static_cast<double>(x.data<float>()[i])));
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
