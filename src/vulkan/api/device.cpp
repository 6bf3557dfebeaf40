#include "vulkan/api/device.h"

#include <cstdlib>
#include <cstring>
#include <vector>

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

  std::vector<const char*> extensions;
  const void** tail = &info.pNext;  // the end of the feature chain
  // Cooperative matrices where the device has them (instance.cpp checked every feature below).
  auto coop = make_info<VkPhysicalDeviceCooperativeMatrixFeaturesNV>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV);
  auto memory_model =
      make_info<VkPhysicalDeviceVulkanMemoryModelFeatures>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES);
  auto f16 = make_info<VkPhysicalDeviceShaderFloat16Int8Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES);
  auto features = make_info<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
  if (physical_.cooperative_matrix()) {
    coop.cooperativeMatrix = VK_TRUE;
    memory_model.vulkanMemoryModel = VK_TRUE;
    f16.shaderFloat16 = VK_TRUE;
    features.pNext = &coop;
    coop.pNext = &memory_model;
    memory_model.pNext = &f16;
    *tail = &features;
    tail = const_cast<const void**>(&f16.pNext);
    extensions.push_back("VK_NV_cooperative_matrix");
  }
  // 16-bit storage where the device has it: fp16 weights are read as f16vec4 (half_weights.glslh).
  auto storage16 = make_info<VkPhysicalDevice16BitStorageFeatures>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES);
  if (physical_.storage_16bit) {
    storage16.storageBuffer16BitAccess = VK_TRUE;
    *tail = &storage16;
    tail = const_cast<const void**>(&storage16.pNext);
  }
  if (physical_.host_import_alignment != 0) extensions.push_back("VK_EXT_external_memory_host");
  // Pipeline statistics only when asked: capturing them may cost the driver time at creation.
  auto executable_info = make_info<VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR);
  const char* stats = std::getenv("TVK_PIPELINE_STATS");
  if (stats && std::strcmp(stats, "1") == 0 && physical_.pipeline_statistics) {
    executable_info.pipelineExecutableInfo = VK_TRUE;
    *tail = &executable_info;
    extensions.push_back("VK_KHR_pipeline_executable_properties");
    capture_statistics_ = true;
  }
  info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.empty() ? nullptr : extensions.data();
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
