// Built only with TVK_USE_VULKAN=OFF: the Vulkan queries answer "not built".
#include "tvk/vulkan_info.h"

namespace tvk {

VulkanInfo vulkan_info() {
  VulkanInfo info;
  info.error = "tvk was built with TVK_USE_VULKAN=OFF";
  return info;
}

}  // namespace tvk
