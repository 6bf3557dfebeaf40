// The context must be destroyed by tvk's exit handler, before the driver's own handlers run,
// even when the program ends with GPU work queued and never read back: that work keeps its
// tensors, and tensors keep the context (issue 14; the NVIDIA driver crashes at exit in
// vkDestroyDevice when the device outlives it). Exits 0 when the context is gone by the time an
// exit handler registered before it runs (handlers run in reverse order), 1 if it is alive.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "tvk/ops.h"
#include "vulkan/api/context.h"

namespace {
std::weak_ptr<tvk::vulkan::Context> g_context;

void check_context_destroyed() {
  if (!g_context.expired()) {
    std::fprintf(stderr, "exit_order: the Vulkan context is still alive after tvk's exit handler\n");
    std::_Exit(1);
  }
  std::fprintf(stderr, "exit_order: the Vulkan context was destroyed at exit\n");
}
}  // namespace

int main() {
  std::atexit(check_context_destroyed);  // registered first, so it runs after tvk's handler
  std::string reason;
  auto context = tvk::vulkan::Context::try_get(&reason);
  if (!context) {
    std::fprintf(stderr, "exit_order: no Vulkan device (%s); skipped\n", reason.c_str());
    return 0;
  }
  g_context = context;
  context.reset();
  {
    // Queued, never read back: only the command stream holds these tensors now.
    const tvk::Tensor x = tvk::rand({256, 256}, 1).vulkan();
    (void)tvk::relu(tvk::matmul(x, x));
  }
  return 0;
}
