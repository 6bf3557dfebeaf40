// Device: the logical VkDevice with its compute queue, made for one physical device.
#pragma once

#include "vulkan/api/instance.h"

namespace tvk::vulkan {

class Device {
 public:
  Device(const Instance& instance, const PhysicalDeviceInfo& physical);
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  VkDevice handle() const { return device_; }
  VkQueue queue() const { return queue_; }
  uint32_t queue_family() const { return queue_family_; }
  const PhysicalDeviceInfo& physical() const { return physical_; }
  const VkPhysicalDeviceMemoryProperties& memory_properties() const { return memory_; }
  // Whether pipelines are made with their statistics captured, to be printed
  // (TVK_PIPELINE_STATS=1 on a device with VK_KHR_pipeline_executable_properties).
  bool captures_pipeline_statistics() const { return capture_statistics_; }

 private:
  PhysicalDeviceInfo physical_;
  VkPhysicalDeviceMemoryProperties memory_{};
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t queue_family_ = 0;
  bool capture_statistics_ = false;
};

}  // namespace tvk::vulkan
