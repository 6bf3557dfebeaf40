// The one include for Vulkan declarations. With TVK_USE_VULKAN_WRAPPER the entry points come
// through volk (libvulkan loaded at run time); otherwise from linking libvulkan directly.
#pragma once

#if TVK_USE_VULKAN_WRAPPER
#include <volk.h>
#else
#include <vulkan/vulkan.h>
#endif

#include <string>

namespace tvk::vulkan {

const char* result_name(VkResult result);
// Throws OutOfMemoryError for the out-of-memory results, VulkanError for the rest.
[[noreturn]] void throw_vk_error(VkResult result, const char* call, const char* file, int line);

// A zeroed Vulkan info struct with its sType set.
template <typename T>
T make_info(VkStructureType type) {
  T info{};
  info.sType = type;
  return info;
}

// Loads the Vulkan entry points once; false with `reason` when no loader can be found.
bool load_vulkan_loader(std::string* reason);

// What to do when no driver is found, for the errors that say so.
inline constexpr const char* kInstallDriverHint =
    "install mesa-vulkan-drivers (lavapipe, a CPU driver) or your GPU's Vulkan driver; `tvk info` lists devices";

}  // namespace tvk::vulkan

// Checks a VkResult in one place: every call site names its call.
#define VK_CHECK(call)                                                                \
  do {                                                                                \
    VkResult tvk_vk_result_ = (call);                                                 \
    if (tvk_vk_result_ != VK_SUCCESS)                                                 \
      ::tvk::vulkan::throw_vk_error(tvk_vk_result_, #call, __FILE__, __LINE__);       \
  } while (0)
