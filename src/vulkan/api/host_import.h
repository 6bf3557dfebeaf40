// HostImport: host memory the device reads directly (VK_EXT_external_memory_host), as a
// transfer-source buffer over it, so that a copy engine takes a large input from where the
// application wrote it instead of the host copying it into staging memory first.
#pragma once

#include "vulkan/api/device.h"

namespace tvk::vulkan {

class HostImport {
 public:
  // Imports [data, data + bytes): both aligned to the device's host_import_alignment, the
  // memory the caller's, valid and unmoved for this object's life. Throws VulkanError when the
  // driver refuses it (the caller then copies instead).
  HostImport(const Device& device, const void* data, VkDeviceSize bytes);
  ~HostImport();
  HostImport(const HostImport&) = delete;
  HostImport& operator=(const HostImport&) = delete;

  VkBuffer buffer() const { return buffer_; }
  const void* data() const { return data_; }
  VkDeviceSize bytes() const { return bytes_; }

 private:
  void release();

  const Device& device_;
  const void* data_;
  VkDeviceSize bytes_;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
};

}  // namespace tvk::vulkan
