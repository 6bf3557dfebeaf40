#include "vulkan/api/memory_pool.h"

#include <algorithm>
#include <atomic>

#include "tvk/error.h"
#include "vulkan/api/faults.h"

namespace tvk::vulkan {

namespace {
// All pools of the process together (the context's and every capture arena): what benchmarks
// report as device memory.
std::atomic<uint64_t> g_used{0}, g_peak{0}, g_reserved{0};

void add_used(uint64_t bytes) {
  const uint64_t now = g_used.fetch_add(bytes) + bytes;
  uint64_t peak = g_peak.load();
  while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {
  }
}
}  // namespace

MemoryPool::MemoryPool(const Device& device) : device_(device) {}

MemoryStats MemoryPool::process_stats() {
  MemoryStats s;
  s.used_bytes = g_used.load();
  s.peak_used_bytes = g_peak.load();
  s.reserved_bytes = g_reserved.load();
  return s;
}

void MemoryPool::reset_process_peak() { g_peak.store(g_used.load()); }

namespace {
VkBufferCreateInfo tensor_buffer_info(VkDeviceSize size) {
  auto info = make_info<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
  info.size = size;
  info.usage = kTensorBufferUsage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  return info;
}
}  // namespace

MemoryPool::MemoryPool(const Device& device, ArenaTag) : device_(device), arena_(true) {
  // The memory types a tensor buffer may use, from a probe buffer.
  const VkBufferCreateInfo info = tensor_buffer_info(16);
  VkBuffer probe = VK_NULL_HANDLE;
  VK_CHECK(vkCreateBuffer(device.handle(), &info, nullptr, &probe));
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(device.handle(), probe, &req);
  vkDestroyBuffer(device.handle(), probe, nullptr);
  arena_type_bits_ = req.memoryTypeBits;
  const auto& limits = device.physical().limits;
  arena_alignment_ = std::max({VkDeviceSize{16}, req.alignment, limits.minStorageBufferOffsetAlignment,
                               limits.minTexelBufferOffsetAlignment});
}

Allocation MemoryPool::allocate_range(VkDeviceSize bytes) {
  TVK_CHECK(arena_, "allocate_range on a pool that is not an arena");
  VkMemoryRequirements req{};
  req.size = (std::max<VkDeviceSize>(bytes, 16) + 15) / 16 * 16;
  req.alignment = arena_alignment_;
  req.memoryTypeBits = arena_type_bits_;
  return allocate(req, MemoryUsage::DeviceTensor);
}

void MemoryPool::retire_view(VkBufferView view) {
  std::lock_guard<std::mutex> lock(mutex_);
  retired_views_.push_back(view);
}

MemoryPool::~MemoryPool() {
  for (VkBufferView v : retired_views_) vkDestroyBufferView(device_.handle(), v, nullptr);
  g_used.fetch_sub(used_);
  for (auto& block : blocks_) {
    g_reserved.fetch_sub(block->size);
    if (block->buffer) vkDestroyBuffer(device_.handle(), block->buffer, nullptr);
    if (block->mapped) vkUnmapMemory(device_.handle(), block->memory);
    vkFreeMemory(device_.handle(), block->memory, nullptr);
  }
}

std::vector<uint32_t> memory_type_candidates(const VkPhysicalDeviceMemoryProperties& mem, uint32_t type_bits,
                                             MemoryUsage usage) {
  constexpr VkMemoryPropertyFlags kLocal = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  constexpr VkMemoryPropertyFlags kHost = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  // Preference lists, best first; a type appears once.
  std::vector<VkMemoryPropertyFlags> wanted;
  if (usage == MemoryUsage::DeviceTensor) wanted = {kLocal | kHost, kLocal, 0};
  else wanted = {kHost | VK_MEMORY_PROPERTY_HOST_CACHED_BIT, kHost};
  std::vector<uint32_t> out;
  for (VkMemoryPropertyFlags flags : wanted) {
    for (uint32_t i = 0; i < mem.memoryTypeCount && i < VK_MAX_MEMORY_TYPES; ++i) {
      if (!(type_bits & (1u << i))) continue;
      if ((mem.memoryTypes[i].propertyFlags & flags) != flags) continue;
      // Skip small device-local + host-visible heaps (256 MiB BAR windows) for tensors.
      const VkDeviceSize heap = mem.memoryHeaps[mem.memoryTypes[i].heapIndex].size;
      if (usage == MemoryUsage::DeviceTensor && flags == (kLocal | kHost) && heap < (VkDeviceSize{1} << 30)) continue;
      if (std::find(out.begin(), out.end(), i) == out.end()) out.push_back(i);
    }
  }
  return out;
}

bool maps_memory_type(VkMemoryPropertyFlags flags) {
  constexpr VkMemoryPropertyFlags kCoherent = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  return (flags & kCoherent) == kCoherent;
}

bool MemoryPool::take_from(MemoryBlock& block, VkDeviceSize size, VkDeviceSize alignment, VkDeviceSize* offset) {
  for (auto it = block.free_ranges.begin(); it != block.free_ranges.end(); ++it) {
    const VkDeviceSize start = it->first, len = it->second;
    const VkDeviceSize aligned = (start + alignment - 1) / alignment * alignment;
    if (aligned + size > start + len) continue;
    block.free_ranges.erase(it);
    if (aligned > start) block.free_ranges[start] = aligned - start;
    if (aligned + size < start + len) block.free_ranges[aligned + size] = start + len - aligned - size;
    block.used += size;
    *offset = aligned;
    return true;
  }
  return false;
}

MemoryBlock* MemoryPool::new_block(uint32_t type_index, VkDeviceSize size) {
  auto info = make_info<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
  info.allocationSize = size;
  info.memoryTypeIndex = type_index;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkResult r = faults::hit(faults::Point::DeviceMemory) ? VK_ERROR_OUT_OF_DEVICE_MEMORY
                                                        : vkAllocateMemory(device_.handle(), &info, nullptr, &memory);
  if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY) return nullptr;
  if (r != VK_SUCCESS) throw_vk_error(r, "vkAllocateMemory", __FILE__, __LINE__);
  ++allocation_calls_;
  auto block = std::make_unique<MemoryBlock>();
  block->memory = memory;
  block->size = size;
  block->type_index = type_index;
  block->free_ranges[0] = size;
  // Mapped only when host-coherent: tvk reads and writes mapped memory with plain memcpy and no
  // vkFlush/vkInvalidateMappedMemoryRanges. A non-coherent type (possible only through the
  // last-resort choice for device tensors) stays unmapped and is reached through staging.
  if (maps_memory_type(device_.memory_properties().memoryTypes[type_index].propertyFlags)) {
    void* p = nullptr;
    r = vkMapMemory(device_.handle(), memory, 0, VK_WHOLE_SIZE, 0, &p);
    if (r != VK_SUCCESS) {
      vkFreeMemory(device_.handle(), memory, nullptr);
      throw_vk_error(r, "vkMapMemory", __FILE__, __LINE__);
    }
    block->mapped = static_cast<uint8_t*>(p);
    block->host_cached = (device_.memory_properties().memoryTypes[type_index].propertyFlags &
                          VK_MEMORY_PROPERTY_HOST_CACHED_BIT) != 0;
  }
  if (arena_) {
    const VkBufferCreateInfo info = tensor_buffer_info(size);
    r = vkCreateBuffer(device_.handle(), &info, nullptr, &block->buffer);
    if (r == VK_SUCCESS) r = vkBindBufferMemory(device_.handle(), block->buffer, memory, 0);
    if (r != VK_SUCCESS) {
      if (block->buffer) vkDestroyBuffer(device_.handle(), block->buffer, nullptr);
      if (block->mapped) vkUnmapMemory(device_.handle(), memory);
      vkFreeMemory(device_.handle(), memory, nullptr);
      throw_vk_error(r, "vkCreateBuffer (arena block)", __FILE__, __LINE__);
    }
  }
  g_reserved.fetch_add(size);
  blocks_.push_back(std::move(block));
  return blocks_.back().get();
}

Allocation MemoryPool::try_allocate_locked(VkDeviceSize size, VkDeviceSize alignment,
                                           const std::vector<uint32_t>& types) {
  for (uint32_t type : types) {
    for (auto& block : blocks_) {
      VkDeviceSize offset = 0;
      if (block->type_index == type && take_from(*block, size, alignment, &offset)) {
        note_used(size);
        return Allocation{block.get(), offset, size};
      }
    }
    const VkDeviceSize block_size =
        std::max(arena_ ? kArenaBlockSize : kBlockSize, (size + alignment + 0xFFFF) & ~VkDeviceSize{0xFFFF});
    // Never ask for more than the heap holds (an invalid call, not just a failing one).
    const auto& mem = device_.memory_properties();
    if (block_size > mem.memoryHeaps[mem.memoryTypes[type].heapIndex].size) continue;
    if (MemoryBlock* block = new_block(type, block_size)) {
      VkDeviceSize offset = 0;
      take_from(*block, size, alignment, &offset);
      note_used(size);
      return Allocation{block, offset, size};
    }
  }
  return {};
}

void MemoryPool::set_reclaimer(std::function<bool()> reclaimer) {
  std::lock_guard<std::mutex> lock(mutex_);
  reclaimer_ = std::move(reclaimer);
}

Allocation MemoryPool::allocate(const VkMemoryRequirements& req, MemoryUsage usage) {
  const VkDeviceSize size = std::max<VkDeviceSize>(req.size, 16);
  const VkDeviceSize alignment = std::max<VkDeviceSize>(req.alignment, 16);
  const auto types = memory_type_candidates(device_.memory_properties(), req.memoryTypeBits, usage);
  if (types.empty()) throw OutOfMemoryError("no Vulkan memory type fits the buffer's requirements");
  std::function<bool()> reclaimer;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (Allocation a = try_allocate_locked(size, alignment, types)) return a;
    reclaimer = reclaimer_;
  }
  // Tensors that only finished (or queued) GPU work still holds come back when that work is
  // retired; the reclaimer frees them through free(), which takes the lock, so it runs without.
  if (reclaimer && reclaimer()) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (Allocation a = try_allocate_locked(size, alignment, types)) return a;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  throw OutOfMemoryError(detail::concat("out of Vulkan device memory allocating ", size, " bytes (",
                                        stats_locked().reserved_bytes >> 20, " MiB already reserved)"));
}

void MemoryPool::free(const Allocation& a) {
  if (!a) return;
  std::lock_guard<std::mutex> lock(mutex_);
  MemoryBlock& block = *a.block;
  auto [it, inserted] = block.free_ranges.emplace(a.offset, a.size);
  (void)inserted;
  block.used -= a.size;
  used_ -= a.size;
  g_used.fetch_sub(a.size);
  // Coalesce with the next and previous free ranges.
  auto next = std::next(it);
  if (next != block.free_ranges.end() && it->first + it->second == next->first) {
    it->second += next->second;
    block.free_ranges.erase(next);
  }
  if (it != block.free_ranges.begin()) {
    auto prev = std::prev(it);
    if (prev->first + prev->second == it->first) {
      prev->second += it->second;
      block.free_ranges.erase(it);
    }
  }
  // Give an empty block back to the driver, unless it is the only one of its memory type (or
  // the pool is an arena, whose recorded work still names the block's buffer).
  if (block.used == 0 && !arena_) {
    const auto same_type = std::count_if(blocks_.begin(), blocks_.end(),
                                         [&](const auto& b) { return b->type_index == block.type_index; });
    if (same_type > 1) {
      if (block.mapped) vkUnmapMemory(device_.handle(), block.memory);
      vkFreeMemory(device_.handle(), block.memory, nullptr);
      g_reserved.fetch_sub(block.size);
      blocks_.erase(std::find_if(blocks_.begin(), blocks_.end(), [&](const auto& b) { return b.get() == &block; }));
    }
  }
}

MemoryStats MemoryPool::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_locked();
}

MemoryStats MemoryPool::stats_locked() const {
  MemoryStats s;
  s.allocations = allocation_calls_;
  for (auto& b : blocks_) {
    ++s.blocks;
    s.reserved_bytes += b->size;
    s.used_bytes += b->used;
  }
  return s;
}

void MemoryPool::note_used(VkDeviceSize size) {
  add_used(size);
  used_ += size;
}

}  // namespace tvk::vulkan
