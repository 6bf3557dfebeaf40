#include "vulkan/api/vk.h"

#include <mutex>

#include "tvk/error.h"

namespace tvk::vulkan {

const char* result_name(VkResult r) {
  switch (r) {
#define TVK_CASE(x) case x: return #x;
    TVK_CASE(VK_SUCCESS)
    TVK_CASE(VK_NOT_READY)
    TVK_CASE(VK_TIMEOUT)
    TVK_CASE(VK_INCOMPLETE)
    TVK_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    TVK_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    TVK_CASE(VK_ERROR_INITIALIZATION_FAILED)
    TVK_CASE(VK_ERROR_DEVICE_LOST)
    TVK_CASE(VK_ERROR_MEMORY_MAP_FAILED)
    TVK_CASE(VK_ERROR_LAYER_NOT_PRESENT)
    TVK_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    TVK_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    TVK_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    TVK_CASE(VK_ERROR_TOO_MANY_OBJECTS)
    TVK_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
    TVK_CASE(VK_ERROR_FRAGMENTED_POOL)
    TVK_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
    TVK_CASE(VK_ERROR_UNKNOWN)
#undef TVK_CASE
    default: return "VkResult(unknown)";
  }
}

void throw_vk_error(VkResult r, const char* call, const char* file, int line) {
  std::string msg = detail::concat("Vulkan call ", call, " failed with ", result_name(r), " (", r, ") at ", file,
                                   ":", line);
  if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY) throw OutOfMemoryError(msg);
  throw VulkanError(msg);
}

bool load_vulkan_loader(std::string* reason) {
#if TVK_USE_VULKAN_WRAPPER
  static std::once_flag once;
  static VkResult loaded = VK_ERROR_INITIALIZATION_FAILED;
  std::call_once(once, [] { loaded = volkInitialize(); });
  if (loaded != VK_SUCCESS) {
    if (reason)
      *reason = detail::concat("no Vulkan loader (libvulkan.so.1) could be loaded: install libvulkan1 and ",
                               kInstallDriverHint);
    return false;
  }
  return true;
#else
  (void)reason;
  return true;
#endif
}

}  // namespace tvk::vulkan
