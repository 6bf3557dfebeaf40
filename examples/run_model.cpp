// The seed's C++ model workflow: load a TorchScript file (torch.jit.save, optimized for Vulkan or
// not) on the Vulkan device, run forward on a CPU tensor, and read the result on the CPU. It also
// runs the model on the CPU and prints how far apart the two results are.
//   run_model MODEL.pt [N C H W]      (input shape, default 1 3 224 224)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>

#include "tvk/tvk.h"

int main(int argc, char** argv) {
  if (argc != 2 && argc != 6) {
    std::fprintf(stderr, "usage: run_model MODEL.pt [N C H W]\n");
    return 2;
  }
  try {
    tvk::IntList shape{1, 3, 224, 224};
    if (argc == 6)
      for (int i = 0; i < 4; ++i) shape[i] = std::atoll(argv[2 + i]);
    const tvk::Device device = tvk::is_vulkan_available() ? tvk::Device::Vulkan : tvk::Device::CPU;
    tvk::jit::Module module = tvk::jit::load(argv[1], device);
    tvk::Tensor input = tvk::rand(shape, /*seed=*/0);
    // A CPU input: the module moves it to the GPU and returns its outputs on the CPU.
    tvk::Tensor output = module.forward({input}).toTensor().cpu().contiguous();
    std::printf("%s on %s: input %s -> output %s\n", argv[1], to_string(device), input.shape_string().c_str(),
                output.shape_string().c_str());

    const float* out = output.data<float>();
    std::vector<int64_t> order(static_cast<size_t>(output.numel()));
    std::iota(order.begin(), order.end(), 0);
    const size_t k = std::min<size_t>(5, order.size());
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                      [&](int64_t a, int64_t b) { return out[a] > out[b]; });
    std::printf("top-%zu:", k);
    for (size_t i = 0; i < k; ++i) std::printf(" %lld (%.4f)", static_cast<long long>(order[i]), out[order[i]]);
    std::printf("\n");

    if (device == tvk::Device::Vulkan && !module.optimized_for_vulkan()) {
      tvk::Tensor reference = tvk::jit::load(argv[1], tvk::Device::CPU).forward({input}).toTensor().contiguous();
      double worst = 0, scale = 0;
      for (int64_t i = 0; i < output.numel(); ++i) {
        worst = std::fmax(worst, std::fabs(out[i] - reference.data<float>()[i]));
        scale = std::fmax(scale, std::fabs(reference.data<float>()[i]));
      }
      std::printf("max |vulkan - cpu| / max |cpu| = %.2e\n", worst / std::fmax(scale, 1e-30));
      return worst <= 1e-4 * std::fmax(scale, 1e-30) ? 0 : 1;
    }
    return 0;
  } catch (const tvk::Error& e) {
    std::fprintf(stderr, "run_model: %s\n", e.what());
    return 1;
  }
}
