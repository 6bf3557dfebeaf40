// Buffer: a VkBuffer bound to memory from the pool; frees both when destroyed.
#pragma once

#include "vulkan/api/memory_pool.h"

namespace tvk::vulkan {

class Buffer {
 public:
  Buffer() = default;
  // Throws OutOfMemoryError or VulkanError.
  Buffer(const Device& device, MemoryPool& pool, VkDeviceSize bytes, MemoryUsage usage);
  ~Buffer();
  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&& other) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  VkBuffer handle() const { return buffer_; }
  VkDeviceSize bytes() const { return bytes_; }
  // Host pointer when the memory is host-visible and coherent, else nullptr.
  uint8_t* mapped() const { return allocation_ ? allocation_.mapped() : nullptr; }

 private:
  void release();

  const Device* device_ = nullptr;
  MemoryPool* pool_ = nullptr;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceSize bytes_ = 0;
  Allocation allocation_;
};

}  // namespace tvk::vulkan
