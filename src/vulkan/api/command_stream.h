// CommandStream: records dispatches and copies into command buffers and submits them in
// batches, at sync points (a download, synchronize()) or when a batch is full. Resources a
// pending batch uses are kept alive until its fence signals.
#pragma once

#include <array>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "vulkan/api/buffer.h"
#include "vulkan/api/pipeline.h"

namespace tvk::vulkan {

struct BufferBinding {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize offset = 0;
  VkDeviceSize range = VK_WHOLE_SIZE;
};

class CommandStream {
 public:
  static constexpr uint32_t kDispatchesPerBatch = 128;
  static constexpr uint32_t kTimestampQueries = 256;

  explicit CommandStream(const Device& device);
  ~CommandStream();
  CommandStream(const CommandStream&) = delete;
  CommandStream& operator=(const CommandStream&) = delete;

  void dispatch(const Pipeline& pipeline, const std::vector<BufferBinding>& buffers, const void* push_constants,
                uint32_t push_bytes, std::array<uint32_t, 3> groups);
  void copy(VkBuffer src, VkBuffer dst, VkDeviceSize bytes, VkDeviceSize src_offset = 0, VkDeviceSize dst_offset = 0);
  // Keeps `resource` alive until the work recorded so far has finished.
  void keep_alive(std::shared_ptr<const void> resource);

  // Submits what is recorded without waiting.
  void flush();
  // Submits and waits for every batch; afterwards the host sees all results.
  void synchronize();

  // Timestamps: reset(), then mark() around work; after synchronize(), elapsed_ns(a, b).
  bool timestamps_supported() const { return query_pool_ != VK_NULL_HANDLE; }
  void reset_timestamps();
  uint32_t mark_timestamp();
  double elapsed_ns(uint32_t from, uint32_t to) const;

  uint64_t submits() const { return submits_; }
  uint64_t dispatches() const { return dispatches_total_; }

 private:
  struct Batch {
    VkCommandBuffer commands = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    std::vector<VkDescriptorPool> descriptor_pools;
    uint32_t sets_in_last_pool = 0;
    std::vector<std::shared_ptr<const void>> keep_alive;
    uint32_t recorded = 0;
  };

  Batch& recording();
  VkDescriptorSet allocate_set(Batch& batch, VkDescriptorSetLayout layout, uint32_t buffers);
  void barrier(Batch& batch);
  void submit_locked();
  void wait_locked(Batch& batch);
  void recycle(Batch& batch);

  const Device& device_;
  std::recursive_mutex mutex_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkQueryPool query_pool_ = VK_NULL_HANDLE;
  uint32_t next_query_ = 0;
  std::unique_ptr<Batch> current_;
  std::deque<std::unique_ptr<Batch>> in_flight_;
  std::vector<std::unique_ptr<Batch>> spare_;
  uint64_t submits_ = 0;
  uint64_t dispatches_total_ = 0;
};

}  // namespace tvk::vulkan
