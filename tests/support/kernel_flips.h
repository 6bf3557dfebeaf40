// The kernel-choice option sets a test of kernels with several paths runs its body under, one
// after another in one process (as ncnn flips its Option per layer test), instead of the whole
// suite being run again under an environment variable:
// - "defaults": the options in force (the environment's);
// - "split4": the GPU shapes with reductions split by up to 4 (the GPU kernels, on any device);
// - "conv_gemm": every convolution the GEMM kernels can run on them, batch 1 included;
// - "no_winograd": 3x3 stride-1 convolutions on the direct kernels.
// The options object carries the choice (vulkan/ops/kernel_options.h); the body reads it back
// with vulkan::kernel_options() where its expectations depend on the path.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#if TVK_USE_VULKAN
#include "vulkan/ops/kernel_options.h"

namespace tvk::testing_support {

struct KernelFlip {
  std::string name;
  vulkan::KernelOptions options;
};

inline std::vector<KernelFlip> kernel_flips() {
  const vulkan::KernelOptions base = vulkan::kernel_options();
  std::vector<KernelFlip> flips{{"defaults", base}, {"split4", base}, {"conv_gemm", base}, {"no_winograd", base}};
  flips[1].options.reduction_split = 4;
  flips[2].options.conv_gemm = vulkan::Toggle::On;
  flips[3].options.winograd = false;
  return flips;
}

// Runs body() under each flip in turn; a failure names the flip it happened under.
template <class Body>
void for_each_kernel_flip(Body&& body) {
  for (const KernelFlip& flip : kernel_flips()) {
    SCOPED_TRACE("kernel options: " + flip.name);
    const vulkan::ScopedKernelOptions scope(flip.options);
    body();
  }
}

}  // namespace tvk::testing_support
#else
namespace tvk::testing_support {
// Without Vulkan there is no choice to flip: the body runs once (its Vulkan tests skip).
template <class Body>
void for_each_kernel_flip(Body&& body) {
  body();
}
}  // namespace tvk::testing_support
#endif
