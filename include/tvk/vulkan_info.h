// What `tvk info` reports about the Vulkan installation, without exposing Vulkan handles.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tvk {

struct VulkanDeviceInfo {
  uint32_t index = 0;
  std::string name;
  std::string type;  // "discrete GPU", "integrated GPU", "virtual GPU", "CPU", "other"
  std::string driver;
  std::string api_version;
  uint32_t subgroup_size = 0;
  bool fp16_arithmetic = false;
  bool storage_16bit = false;
  uint64_t device_local_bytes = 0;
  bool usable = false;  // has a compute queue and Vulkan 1.1
  bool selected = false;
};

struct VulkanInfo {
  bool built = false;         // compiled with TVK_USE_VULKAN
  bool loader_found = false;  // libvulkan could be loaded
  bool validation = false;    // the Khronos validation layer is active
  std::string error;          // why no device is selected, if none is
  std::vector<VulkanDeviceInfo> devices;
  std::string pipeline_cache_file;
};

// Enumerates devices and marks the one tvk uses; never throws.
VulkanInfo vulkan_info();

}  // namespace tvk
