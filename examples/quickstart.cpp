// The seed's C++ workflow in a few lines: check for Vulkan, move a tensor to the GPU, run ops
// there, bring the result back, and compare it with the same ops on the CPU.
#include <cmath>
#include <cstdio>

#include "tvk/tvk.h"

int main() {
  try {
    if (!tvk::is_vulkan_available()) {
      std::fprintf(stderr, "quickstart: no Vulkan device (run `tvk info` to see why)\n");
      return 1;
    }
    tvk::Tensor input = tvk::rand({1, 2, 2, 3});
    tvk::Tensor on_gpu = input.vulkan();
    tvk::Tensor result = tvk::hardtanh(tvk::add(on_gpu, on_gpu, 0.5), 0.0, 1.2).cpu();
    tvk::Tensor expected = tvk::hardtanh(tvk::add(input, input, 0.5), 0.0, 1.2);

    double worst = 0;
    for (int64_t i = 0; i < result.numel(); ++i)
      worst = std::fmax(worst, std::fabs(result.data<float>()[i] - expected.data<float>()[i]));
    std::printf("input  %s on %s -> result %s on %s\n", input.shape_string().c_str(), to_string(on_gpu.device()),
                result.shape_string().c_str(), to_string(result.device()));
    std::printf("hardtanh(x + 0.5 * x, 0, 1.2): first values %.4f %.4f %.4f, max |vulkan - cpu| = %.2e\n",
                result.data<float>()[0], result.data<float>()[1], result.data<float>()[2], worst);
    return worst <= 1e-6 ? 0 : 1;
  } catch (const tvk::Error& e) {
    std::fprintf(stderr, "quickstart: %s\n", e.what());
    return 1;
  }
}
