// Buffer: a VkBuffer bound to memory from the pool; frees both when destroyed.
#pragma once

#include <atomic>

#include "vulkan/api/memory_pool.h"

namespace tvk::vulkan {

class Buffer {
 public:
  Buffer() = default;
  // Throws OutOfMemoryError or VulkanError.
  Buffer(const Device& device, MemoryPool& pool, VkDeviceSize bytes, MemoryUsage usage);
  // A range of an arena's block buffer (see MemoryPool::allocate_range); no VkBuffer of its own.
  Buffer(const Device& device, MemoryPool& arena, VkDeviceSize bytes);
  // Bytes [offset, offset + bytes) of `whole` (a channel slice a kernel writes in place): owns
  // nothing, has no texel views and no host mapping, and must not outlive `whole`.
  static Buffer slice_of(const Buffer& whole, VkDeviceSize offset, VkDeviceSize bytes);
  ~Buffer();
  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&& other) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  VkBuffer handle() const { return buffer_; }
  // Where this buffer's bytes start in handle(): 0, except for arena ranges.
  VkDeviceSize offset() const { return offset_; }
  VkDeviceSize bytes() const { return bytes_; }
  // Whether the bytes are a range of a capture arena's block (a slice: whether its whole's are).
  bool in_arena() const { return arena_range_; }
  // Host pointer when the memory is host-visible and coherent, else nullptr.
  uint8_t* mapped() const { return allocation_ ? allocation_.mapped() : nullptr; }
  // Whether reading mapped() from the host is fast (cached memory, not a BAR window).
  bool host_cached() const { return allocation_ && allocation_.host_cached(); }

  // A uniform-texel-buffer view of the whole buffer as R32_SFLOAT (Texel1) or
  // R32G32B32A32_SFLOAT (Texel4), made on first use and destroyed with the buffer. Throws when
  // the size is not a whole number of texels or exceeds maxTexelBufferElements.
  // R16F / RGBA16F: 16-bit floats (weights packed in fp16 precision), read as floats.
  enum class TexelFormat { R32, RGBA32, R16F, RGBA16F };
  static constexpr int kTexelFormats = 4;
  VkBufferView texel_view(TexelFormat format) const;
  // Whether texel_view(format) can be made for a buffer of `bytes`.
  static bool texel_view_fits(const Device& device, VkDeviceSize bytes, TexelFormat format);

 private:
  void release();

  const Device* device_ = nullptr;
  MemoryPool* pool_ = nullptr;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceSize bytes_ = 0;
  VkDeviceSize offset_ = 0;
  bool owns_buffer_ = true;
  bool arena_range_ = false;
  bool slice_ = false;
  Allocation allocation_;
  // Made lazily by const callers (kernels binding a tensor): atomics, no lock.
  mutable std::atomic<VkBufferView> views_[kTexelFormats] = {VK_NULL_HANDLE, VK_NULL_HANDLE, VK_NULL_HANDLE,
                                                              VK_NULL_HANDLE};
};

}  // namespace tvk::vulkan
