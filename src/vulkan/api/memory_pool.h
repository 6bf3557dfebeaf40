// MemoryPool: sub-allocates tensors and staging buffers from large VkDeviceMemory blocks,
// so a model with hundreds of tensors makes a handful of vkAllocateMemory calls.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "vulkan/api/device.h"

namespace tvk::vulkan {

// What every tensor buffer may be used for: bound as a storage buffer or a uniform texel
// buffer, and copied to and from.
constexpr VkBufferUsageFlags kTensorBufferUsage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                                  VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT |
                                                  VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;

enum class MemoryUsage {
  DeviceTensor,  // GPU-resident; host-visible when the device offers it (unified memory, ReBAR)
  Staging,       // host-visible, for uploads and downloads
};

// The memory types an allocation for `usage` may take among `type_bits`, best first. Staging
// memory is mapped, so it must be host-coherent (tvk never flushes or invalidates); device
// tensors prefer device-local host-visible (coherent) memory of a large heap, then any
// device-local type, then any type.
std::vector<uint32_t> memory_type_candidates(const VkPhysicalDeviceMemoryProperties& mem, uint32_t type_bits,
                                             MemoryUsage usage);
// Whether a block of a type with `flags` is mapped: host-visible and host-coherent only.
bool maps_memory_type(VkMemoryPropertyFlags flags);

struct MemoryBlock {
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkBuffer buffer = VK_NULL_HANDLE;  // arena pools: one buffer over the whole block
  VkDeviceSize size = 0;
  uint32_t type_index = 0;
  uint8_t* mapped = nullptr;  // whole block mapped once when host-visible
  // Host reads of mapped memory are fast only when it is host-cached; a device-local
  // host-visible heap (a PCIe BAR window) reads back at a few hundred MB/s.
  bool host_cached = false;
  std::map<VkDeviceSize, VkDeviceSize> free_ranges;  // offset -> size, coalesced
  VkDeviceSize used = 0;
};

struct Allocation {
  MemoryBlock* block = nullptr;
  VkDeviceSize offset = 0;
  VkDeviceSize size = 0;
  explicit operator bool() const { return block != nullptr; }
  VkDeviceMemory memory() const { return block->memory; }
  // Host pointer, or nullptr when the memory is not host-visible.
  uint8_t* mapped() const { return block->mapped ? block->mapped + offset : nullptr; }
  bool host_cached() const { return block->host_cached; }
};

struct MemoryStats {
  uint64_t blocks = 0;
  uint64_t reserved_bytes = 0;  // in VkDeviceMemory blocks
  uint64_t used_bytes = 0;      // handed out
  uint64_t allocations = 0;     // vkAllocateMemory calls so far
  uint64_t peak_used_bytes = 0; // process_stats() only: the most handed out at once since reset_process_peak()
};

class MemoryPool {
 public:
  static constexpr VkDeviceSize kBlockSize = VkDeviceSize{64} << 20;
  static constexpr VkDeviceSize kArenaBlockSize = VkDeviceSize{8} << 20;

  explicit MemoryPool(const Device& device);
  // An arena: each block is one VkBuffer that tensors take ranges of (allocate_range), and
  // blocks stay until the arena is destroyed, so work recorded against a range stays valid
  // after the tensor that had it is freed and the range reused by a later one.
  struct ArenaTag {};
  MemoryPool(const Device& device, ArenaTag);
  bool is_arena() const { return arena_; }
  // Arena pools only: a range of `bytes` in a block buffer, aligned for storage and texel use.
  Allocation allocate_range(VkDeviceSize bytes);
  // Arena pools only: a texel view of a freed range, destroyed with the arena (recorded
  // descriptor sets may still name it).
  void retire_view(VkBufferView view);
  ~MemoryPool();
  MemoryPool(const MemoryPool&) = delete;
  MemoryPool& operator=(const MemoryPool&) = delete;

  // Throws OutOfMemoryError when no memory type can satisfy the request, even after the
  // reclaimer (if set) has freed what finished GPU work was holding.
  Allocation allocate(const VkMemoryRequirements& requirements, MemoryUsage usage);
  // Called, without the pool's lock, when an allocation finds no memory: frees what it can
  // (the Context retires finished GPU work and waits for work in flight, whose kept-alive
  // tensors hold memory) and returns whether anything may have been freed.
  void set_reclaimer(std::function<bool()> reclaimer);
  void free(const Allocation& allocation);
  MemoryStats stats() const;
  // Every pool of the process together: used, peak used since reset_process_peak(), reserved.
  static MemoryStats process_stats();
  static void reset_process_peak();

 private:
  MemoryStats stats_locked() const;
  MemoryBlock* new_block(uint32_t type_index, VkDeviceSize size);
  // One attempt over every candidate type; an empty Allocation when none has room.
  Allocation try_allocate_locked(VkDeviceSize size, VkDeviceSize alignment, const std::vector<uint32_t>& types);
  static bool take_from(MemoryBlock& block, VkDeviceSize size, VkDeviceSize alignment, VkDeviceSize* offset);

  const Device& device_;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<MemoryBlock>> blocks_;
  uint64_t allocation_calls_ = 0;
  uint64_t used_ = 0;  // handed out by this pool (its share of the process totals)
  bool arena_ = false;
  std::vector<VkBufferView> retired_views_;
  std::function<bool()> reclaimer_;
  uint32_t arena_type_bits_ = 0;
  VkDeviceSize arena_alignment_ = 16;
  void note_used(VkDeviceSize size);
};

}  // namespace tvk::vulkan
