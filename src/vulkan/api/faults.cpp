#include "vulkan/api/faults.h"

#include <atomic>
#include <cstddef>

namespace tvk::vulkan::faults {
namespace {
std::atomic<int> g_armed[static_cast<size_t>(Point::kCount)];
}  // namespace

void arm(Point point, int count) { g_armed[static_cast<size_t>(point)].store(count); }

void disarm_all() {
  for (auto& a : g_armed) a.store(0);
}

bool hit(Point point) {
  std::atomic<int>& a = g_armed[static_cast<size_t>(point)];
  int n = a.load(std::memory_order_relaxed);
  while (n != 0) {
    if (n < 0) return true;
    if (a.compare_exchange_weak(n, n - 1)) return true;
  }
  return false;
}

}  // namespace tvk::vulkan::faults
