#include "vulkan/api/buffer.h"

#include <utility>

#include "tvk/error.h"

namespace tvk::vulkan {

Buffer::Buffer(const Device& device, MemoryPool& pool, VkDeviceSize bytes, MemoryUsage usage)
    : device_(&device), pool_(&pool), bytes_(bytes) {
  // Kernels bind a tensor as one storage buffer; beyond this range the device cannot.
  const VkDeviceSize max_range = device.physical().limits.maxStorageBufferRange;
  if (usage == MemoryUsage::DeviceTensor && bytes > max_range)
    throw OutOfMemoryError(detail::concat("a Vulkan tensor of ", bytes, " bytes exceeds this device's largest storage "
                                          "buffer (maxStorageBufferRange = ", max_range, " bytes)"));
  auto info = make_info<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
  info.size = std::max<VkDeviceSize>(bytes, 16);  // Vulkan forbids empty buffers
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
               VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VK_CHECK(vkCreateBuffer(device.handle(), &info, nullptr, &buffer_));
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(device.handle(), buffer_, &req);
  try {
    allocation_ = pool.allocate(req, usage);
    VK_CHECK(vkBindBufferMemory(device.handle(), buffer_, allocation_.memory(), allocation_.offset));
  } catch (...) {
    release();
    throw;
  }
}

Buffer::~Buffer() { release(); }

Buffer::Buffer(Buffer&& o) noexcept { *this = std::move(o); }

Buffer& Buffer::operator=(Buffer&& o) noexcept {
  if (this != &o) {
    release();
    device_ = std::exchange(o.device_, nullptr);
    pool_ = std::exchange(o.pool_, nullptr);
    buffer_ = std::exchange(o.buffer_, VK_NULL_HANDLE);
    bytes_ = std::exchange(o.bytes_, 0);
    allocation_ = std::exchange(o.allocation_, Allocation{});
  }
  return *this;
}

void Buffer::release() {
  if (buffer_ != VK_NULL_HANDLE) vkDestroyBuffer(device_->handle(), buffer_, nullptr);
  buffer_ = VK_NULL_HANDLE;
  if (allocation_) pool_->free(allocation_);
  allocation_ = Allocation{};
}

}  // namespace tvk::vulkan
