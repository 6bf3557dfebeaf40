#include "vulkan/api/buffer.h"

#include <utility>

#include "tvk/error.h"

namespace tvk::vulkan {

Buffer::Buffer(const Device& device, MemoryPool& pool, VkDeviceSize bytes, MemoryUsage usage)
    : device_(&device), pool_(&pool), bytes_(bytes) {
  // A tensor may exceed maxStorageBufferRange: kernels read it through texel views, or bind it
  // in parts, and a kernel that needs it whole as a storage buffer says so (shader_dispatch).
  auto info = make_info<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
  info.size = std::max<VkDeviceSize>(bytes, 16);  // Vulkan forbids empty buffers
  info.usage = kTensorBufferUsage;
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

Buffer::Buffer(const Device& device, MemoryPool& arena, VkDeviceSize bytes)
    : device_(&device), pool_(&arena), bytes_(bytes), owns_buffer_(false), arena_range_(true) {
  allocation_ = arena.allocate_range(bytes);
  buffer_ = allocation_.block->buffer;
  offset_ = allocation_.offset;
}

Buffer Buffer::slice_of(const Buffer& whole, VkDeviceSize offset, VkDeviceSize bytes) {
  TVK_CHECK(offset <= whole.bytes_ && bytes <= whole.bytes_ - offset, "a slice of ", bytes, " bytes at ", offset,
            " exceeds its buffer of ", whole.bytes_, " bytes");
  Buffer b;
  b.device_ = whole.device_;
  b.buffer_ = whole.buffer_;
  b.bytes_ = bytes;
  b.offset_ = whole.offset_ + offset;
  b.owns_buffer_ = false;
  b.arena_range_ = whole.arena_range_;
  b.slice_ = true;
  return b;
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
    offset_ = std::exchange(o.offset_, 0);
    owns_buffer_ = std::exchange(o.owns_buffer_, true);
    arena_range_ = std::exchange(o.arena_range_, false);
    slice_ = std::exchange(o.slice_, false);
    allocation_ = std::exchange(o.allocation_, Allocation{});
    for (int i = 0; i < kTexelFormats; ++i) views_[i].store(o.views_[i].exchange(VK_NULL_HANDLE));
  }
  return *this;
}

namespace {
VkDeviceSize texel_bytes(Buffer::TexelFormat f) {
  switch (f) {
    case Buffer::TexelFormat::R32: return 4;
    case Buffer::TexelFormat::RGBA32: return 16;
    case Buffer::TexelFormat::R16F: return 2;
    case Buffer::TexelFormat::RGBA16F: return 8;
  }
  return 4;
}
VkFormat vk_format(Buffer::TexelFormat f) {
  switch (f) {
    case Buffer::TexelFormat::R32: return VK_FORMAT_R32_SFLOAT;
    case Buffer::TexelFormat::RGBA32: return VK_FORMAT_R32G32B32A32_SFLOAT;
    case Buffer::TexelFormat::R16F: return VK_FORMAT_R16_SFLOAT;
    case Buffer::TexelFormat::RGBA16F: return VK_FORMAT_R16G16B16A16_SFLOAT;
  }
  return VK_FORMAT_R32_SFLOAT;
}
const char* format_name(Buffer::TexelFormat f) {
  switch (f) {
    case Buffer::TexelFormat::R32: return "R32";
    case Buffer::TexelFormat::RGBA32: return "RGBA32";
    case Buffer::TexelFormat::R16F: return "R16F";
    case Buffer::TexelFormat::RGBA16F: return "RGBA16F";
  }
  return "?";
}
}  // namespace

bool Buffer::texel_view_fits(const Device& device, VkDeviceSize bytes, TexelFormat format) {
  const VkDeviceSize texel = texel_bytes(format);
  return bytes > 0 && bytes % texel == 0 && bytes / texel <= device.physical().limits.maxTexelBufferElements;
}

VkBufferView Buffer::texel_view(TexelFormat format) const {
  std::atomic<VkBufferView>& slot = views_[static_cast<int>(format)];
  if (VkBufferView v = slot.load(std::memory_order_acquire)) return v;
  TVK_CHECK(!slice_, "a slice of a buffer is only written through storage bindings, not viewed as texels");
  TVK_CHECK(texel_view_fits(*device_, bytes_, format), "a buffer of ", bytes_, " bytes cannot be viewed as ",
            format_name(format), " texels (maxTexelBufferElements = ",
            device_->physical().limits.maxTexelBufferElements, ")");
  auto info = make_info<VkBufferViewCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO);
  info.buffer = buffer_;
  info.format = vk_format(format);
  info.offset = offset_;
  info.range = bytes_;
  VkBufferView view = VK_NULL_HANDLE;
  VK_CHECK(vkCreateBufferView(device_->handle(), &info, nullptr, &view));
  VkBufferView expected = VK_NULL_HANDLE;
  if (!slot.compare_exchange_strong(expected, view, std::memory_order_acq_rel)) {
    vkDestroyBufferView(device_->handle(), view, nullptr);  // another thread made one first
    return expected;
  }
  return view;
}

void Buffer::release() {
  for (auto& slot : views_) {
    VkBufferView v = slot.exchange(VK_NULL_HANDLE);
    if (!v) continue;
    if (owns_buffer_) vkDestroyBufferView(device_->handle(), v, nullptr);
    else pool_->retire_view(v);  // an arena range: recorded work may still name the view
  }
  if (buffer_ != VK_NULL_HANDLE && owns_buffer_) vkDestroyBuffer(device_->handle(), buffer_, nullptr);
  buffer_ = VK_NULL_HANDLE;
  offset_ = 0;
  owns_buffer_ = true;
  arena_range_ = false;
  slice_ = false;
  if (allocation_) pool_->free(allocation_);
  allocation_ = Allocation{};
}

}  // namespace tvk::vulkan
