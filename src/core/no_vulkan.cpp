// Built only with TVK_USE_VULKAN=OFF: the Vulkan queries answer "not built".
#include "tvk/vulkan_info.h"

#include "tvk/error.h"

namespace tvk {

VulkanInfo vulkan_info() {
  VulkanInfo info;
  info.error = "tvk was built with TVK_USE_VULKAN=OFF";
  return info;
}

VulkanCounters vulkan_counters() { return {}; }
void vulkan_reset_peak_memory() {}
void vulkan_synchronize() {}
void vulkan_set_profiling(bool) { throw Error("tvk was built with TVK_USE_VULKAN=OFF: no GPU profile"); }
std::vector<OpGpuTime> vulkan_take_profile() { return {}; }
void set_vulkan_precision(Precision precision) {
  if (precision != Precision::FP32) throw UnsupportedError("tvk was built with TVK_USE_VULKAN=OFF: no fp16 precision");
}
Precision vulkan_precision() { return Precision::FP32; }
std::vector<TunedLayer> vulkan_tuned_layers() { return {}; }
std::string vulkan_tuning_file() { return ""; }
const char* to_string(Precision precision) { return precision == Precision::FP16 ? "fp16" : "fp32"; }

}  // namespace tvk
