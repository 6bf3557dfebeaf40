#include "vulkan/api/device.h"

namespace tvk::vulkan {

Device::Device(const Instance&, const PhysicalDeviceInfo& physical) : physical_(physical) {
  vkGetPhysicalDeviceMemoryProperties(physical_.handle, &memory_);
  queue_family_ = static_cast<uint32_t>(physical_.compute_queue_family);
  const float priority = 1.0f;
  auto queue_info = make_info<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
  queue_info.queueFamilyIndex = queue_family_;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;

  auto info = make_info<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO);
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queue_info;
  VK_CHECK(vkCreateDevice(physical_.handle, &info, nullptr, &device_));
#if TVK_USE_VULKAN_WRAPPER
  volkLoadDevice(device_);
#endif
  vkGetDeviceQueue(device_, queue_family_, 0, &queue_);
}

Device::~Device() {
  if (device_ != VK_NULL_HANDLE) {
    vkDeviceWaitIdle(device_);
    vkDestroyDevice(device_, nullptr);
  }
}

}  // namespace tvk::vulkan
