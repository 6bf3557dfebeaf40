#include "vulkan/api/command_stream.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tvk/error.h"
#include "vulkan/api/faults.h"
#include "vulkan/api/memory_pool.h"

namespace tvk::vulkan {

namespace {
constexpr uint32_t kSetsPerPool = 256;
constexpr uint32_t kBuffersPerSet = 8;  // average; a pool holds kSetsPerPool * kBuffersPerSet descriptors
thread_local Capture* t_capture = nullptr;

VkCommandBuffer allocate_command_buffer(VkDevice device, VkCommandPool pool) {
  auto alloc = make_info<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
  alloc.commandPool = pool;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  VkCommandBuffer commands = VK_NULL_HANDLE;
  VK_CHECK(vkAllocateCommandBuffers(device, &alloc, &commands));
  return commands;
}
}  // namespace

Capture::Capture(const Device& device) : device_(device) {
  auto info = make_info<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
  info.queueFamilyIndex = device.queue_family();
  VK_CHECK(vkCreateCommandPool(device.handle(), &info, nullptr, &pool_));
  auto fence = make_info<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
  VkResult r = vkCreateFence(device.handle(), &fence, nullptr, &fence_);
  if (r != VK_SUCCESS) {
    vkDestroyCommandPool(device.handle(), pool_, nullptr);
    throw_vk_error(r, "creating a capture", __FILE__, __LINE__);
  }
  arena_ = std::make_shared<MemoryPool>(device, MemoryPool::ArenaTag{});
}

Capture::~Capture() {
  if (t_capture == this) t_capture = nullptr;
  VkDevice dev = device_.handle();
  // Replays wait for their fence, and an unfinished first run is finished by the owner
  // (VulkanCapture), so nothing recorded here is still running.
  for (auto& rec : recs_)
    for (VkDescriptorPool p : rec->descriptor_pools) vkDestroyDescriptorPool(dev, p, nullptr);
  vkDestroyFence(dev, fence_, nullptr);
  vkDestroyCommandPool(dev, pool_, nullptr);  // frees the command buffers
}

uint32_t Capture::dispatches() const {
  uint32_t n = 0;
  for (const auto& rec : recs_) n += rec->recorded;
  return n;
}

void Capture::add_command_buffer() {
  auto rec = std::make_unique<Recording>();
  rec->commands = allocate_command_buffer(device_.handle(), pool_);
  auto begin = make_info<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
  VK_CHECK(vkBeginCommandBuffer(rec->commands, &begin));
  recs_.push_back(std::move(rec));
}

CommandStream::CommandStream(const Device& device) : device_(device) {
  auto info = make_info<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
  info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  info.queueFamilyIndex = device.queue_family();
  VK_CHECK(vkCreateCommandPool(device.handle(), &info, nullptr, &pool_));
  if (device.physical().timestamps) {
    auto q = make_info<VkQueryPoolCreateInfo>(VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO);
    q.queryType = VK_QUERY_TYPE_TIMESTAMP;
    q.queryCount = kTimestampQueries;
    if (vkCreateQueryPool(device.handle(), &q, nullptr, &query_pool_) != VK_SUCCESS) query_pool_ = VK_NULL_HANDLE;
  }
  // Waking from vkWaitForFences took 0.1 ms of a 0.6 ms mobilenet_v2 inference on an H200;
  // polling the fence first brought the median from 0.57-0.60 to 0.46-0.47 ms. Work longer
  // than the poll (large batches) sleeps as before.
  const bool cpu_device = device.physical().type == VK_PHYSICAL_DEVICE_TYPE_CPU;
  uint64_t spin_us = cpu_device ? 0 : 1000;
  if (const char* env = std::getenv("TVK_WAIT_SPIN_US"); env && *env) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(env, &end, 10);
    if (end && *end == '\0' && v <= 1000000) spin_us = v;
  }
  wait_spin_ns_ = spin_us * 1000;
}

CommandStream::~CommandStream() {
  VkDevice dev = device_.handle();
  try {
    synchronize();
  } catch (...) {
    // A wait that timed out (a slow device, e.g. under emulation) leaves work in flight: its
    // objects may be destroyed only once it is done. A lost device returns at once.
    vkDeviceWaitIdle(dev);
  }
  auto destroy = [&](Batch& b) {
    for (VkDescriptorPool p : b.descriptor_pools) vkDestroyDescriptorPool(dev, p, nullptr);
    if (b.profile_queries) vkDestroyQueryPool(dev, b.profile_queries, nullptr);
    if (b.fence) vkDestroyFence(dev, b.fence, nullptr);
  };
  if (current_) destroy(*current_);
  for (auto& b : in_flight_) destroy(*b);
  for (auto& b : spare_) destroy(*b);
  if (query_pool_) vkDestroyQueryPool(dev, query_pool_, nullptr);
  vkDestroyCommandPool(dev, pool_, nullptr);  // frees the command buffers
}

CommandStream::Batch& CommandStream::recording() {
  if (current_) return *current_;
  std::unique_ptr<Batch> batch;
  if (!spare_.empty()) {
    batch = std::move(spare_.back());
    spare_.pop_back();
  } else {
    batch = std::make_unique<Batch>();
    batch->commands = allocate_command_buffer(device_.handle(), pool_);
    auto fence = make_info<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
    VK_CHECK(vkCreateFence(device_.handle(), &fence, nullptr, &batch->fence));
  }
  auto begin = make_info<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  VK_CHECK(vkBeginCommandBuffer(batch->commands, &begin));
  if (profiling_) {
    if (!batch->profile_queries) {
      auto q = make_info<VkQueryPoolCreateInfo>(VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO);
      q.queryType = VK_QUERY_TYPE_TIMESTAMP;
      q.queryCount = 2 * kDispatchesPerBatch;
      VK_CHECK(vkCreateQueryPool(device_.handle(), &q, nullptr, &batch->profile_queries));
    }
    vkCmdResetQueryPool(batch->commands, batch->profile_queries, 0, 2 * kDispatchesPerBatch);
  }
  current_ = std::move(batch);
  return *current_;
}

VkDescriptorSet CommandStream::allocate_set(Batch& batch, VkDescriptorSetLayout layout, uint32_t buffers) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!batch.descriptor_pools.empty() && batch.sets_in_last_pool < kSetsPerPool) {
      auto info = make_info<VkDescriptorSetAllocateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO);
      info.descriptorPool = batch.descriptor_pools.back();
      info.descriptorSetCount = 1;
      info.pSetLayouts = &layout;
      VkDescriptorSet set = VK_NULL_HANDLE;
      VkResult r = vkAllocateDescriptorSets(device_.handle(), &info, &set);
      if (r == VK_SUCCESS) {
        ++batch.sets_in_last_pool;
        return set;
      }
      if (r != VK_ERROR_OUT_OF_POOL_MEMORY && r != VK_ERROR_FRAGMENTED_POOL)
        throw_vk_error(r, "vkAllocateDescriptorSets", __FILE__, __LINE__);
    }
    const uint32_t per_type = std::max(kSetsPerPool * kBuffersPerSet, buffers);
    VkDescriptorPoolSize sizes[2] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, per_type},
                                     {VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, per_type}};
    auto info = make_info<VkDescriptorPoolCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO);
    info.maxSets = kSetsPerPool;
    info.poolSizeCount = 2;
    info.pPoolSizes = sizes;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    VK_CHECK(vkCreateDescriptorPool(device_.handle(), &info, nullptr, &pool));
    batch.descriptor_pools.push_back(pool);
    batch.sets_in_last_pool = 0;
  }
  throw VulkanError("could not allocate a descriptor set from a fresh pool");
}

void CommandStream::barrier_for(Batch& batch, const BufferAccess* accesses, size_t count) {
  bool conflict = batch.fresh;
  for (size_t i = 0; i < count && !conflict; ++i)
    for (const BufferAccess& p : batch.since_barrier)
      if (p.buffer == accesses[i].buffer && accesses[i].begin < p.end && p.begin < accesses[i].end &&
          (p.write || accesses[i].write)) {
        conflict = true;
        break;
      }
  if (!conflict) {
    batch.since_barrier.insert(batch.since_barrier.end(), accesses, accesses + count);
    return;
  }
  batch.since_barrier.assign(accesses, accesses + count);
  batch.fresh = false;
  // One global memory barrier: independent commands between two barriers may overlap on the
  // GPU; a command that needs an earlier one's results waits for everything before it.
  auto mb = make_info<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                     VK_ACCESS_TRANSFER_WRITE_BIT;
  vkCmdPipelineBarrier(batch.commands,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &mb, 0, nullptr,
                       0, nullptr);
}

namespace {
// "groups=AxBxC local=AxBxC spec=..." : what tells one layer's dispatch from another's.
std::string dispatch_shape(const PipelineKey& key, const std::array<uint32_t, 3>& groups) {
  std::string s = "groups=" + std::to_string(groups[0]) + "x" + std::to_string(groups[1]) + "x" +
                  std::to_string(groups[2]) + " local=" + std::to_string(key.local_size[0]) + "x" +
                  std::to_string(key.local_size[1]) + "x" + std::to_string(key.local_size[2]) + " spec=";
  for (size_t i = 0; i < key.constants.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(key.constants[i]);
  }
  return s;
}
}  // namespace

void CommandStream::dispatch(const Pipeline& pipeline, const std::vector<BufferBinding>& buffers,
                             const void* push_constants, uint32_t push_bytes, std::array<uint32_t, 3> groups,
                             const char* label, std::vector<std::shared_ptr<const void>> keep) {
  TVK_CHECK(buffers.size() == pipeline.key().buffers, "shader ", pipeline.key().shader, " binds ",
            pipeline.key().buffers, " buffers, got ", buffers.size());
  TVK_CHECK(push_bytes <= kMaxPushConstantBytes, "push constants of ", push_bytes, " bytes exceed ",
            kMaxPushConstantBytes);
  const ShaderInterface& shader = pipeline.interface();
  TVK_CHECK(shader.push_constant_bytes == 0 || shader.push_constant_bytes == push_bytes, "shader ",
            pipeline.key().shader, " declares ", shader.push_constant_bytes, " bytes of push constants, the kernel pushes ",
            push_bytes);
  const auto& limits = device_.physical().limits;
  for (int i = 0; i < 3; ++i)
    TVK_CHECK(groups[i] <= limits.maxComputeWorkGroupCount[i], "shader ", pipeline.key().shader, ": ", groups[i],
              " work groups in dimension ", i, " exceed the device limit ", limits.maxComputeWorkGroupCount[i]);
  if (groups[0] == 0 || groups[1] == 0 || groups[2] == 0) return;  // empty tensor: nothing to do
  if (Capture* capture = t_capture) {
    // The capture belongs to this thread: no lock.
    record_dispatch(capture->rec(), pipeline, buffers, push_constants, push_bytes, groups, label);
    ++capture->commands_;
    auto& kept = capture->rec().keep_alive;
    kept.insert(kept.end(), std::make_move_iterator(keep.begin()), std::make_move_iterator(keep.end()));
    if (capture->rec().recorded >= Capture::kDispatchesPerCommandBuffer) roll_capture(*capture);
    return;
  }
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  Batch& batch = recording();
  record_dispatch(batch, pipeline, buffers, push_constants, push_bytes, groups, label);
  batch.keep_alive.insert(batch.keep_alive.end(), std::make_move_iterator(keep.begin()),
                          std::make_move_iterator(keep.end()));
  ++dispatches_total_;
  if (batch.recorded >= kDispatchesPerBatch) submit_locked();
}

void CommandStream::record_dispatch(Batch& batch, const Pipeline& pipeline, const std::vector<BufferBinding>& buffers,
                                    const void* push_constants, uint32_t push_bytes, std::array<uint32_t, 3> groups,
                                    const char* label) {
  const ShaderInterface& shader = pipeline.interface();
  VkDescriptorSet set = allocate_set(batch, pipeline.set_layout(), static_cast<uint32_t>(buffers.size()));
  constexpr size_t kMaxBindings = 16;
  TVK_CHECK(buffers.size() <= kMaxBindings, "shader ", pipeline.key().shader, " binds more than ", kMaxBindings, " buffers");
  std::array<VkDescriptorBufferInfo, kMaxBindings> infos{};
  std::array<VkWriteDescriptorSet, kMaxBindings> writes{};
  for (size_t i = 0; i < buffers.size(); ++i) {
    writes[i] = make_info<VkWriteDescriptorSet>(VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET);
    writes[i].dstSet = set;
    writes[i].dstBinding = static_cast<uint32_t>(i);
    writes[i].descriptorCount = 1;
    if (shader.bindings[i] == BindingKind::UniformTexelBuffer) {
      TVK_CHECK(buffers[i].texel_view != VK_NULL_HANDLE, "shader ", pipeline.key().shader, ": binding ", i,
                " is a samplerBuffer but the kernel gave no texel view");
      writes[i].descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
      writes[i].pTexelBufferView = &buffers[i].texel_view;
    } else {
      infos[i] = {buffers[i].buffer, buffers[i].offset, buffers[i].range};
      writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      writes[i].pBufferInfo = &infos[i];
    }
  }
  vkUpdateDescriptorSets(device_.handle(), static_cast<uint32_t>(buffers.size()), writes.data(), 0, nullptr);

  std::array<BufferAccess, 2 * kMaxBindings> accesses{};
  size_t n_access = 0;
  for (size_t i = 0; i < buffers.size(); ++i) {
    const VkDeviceSize begin = buffers[i].offset;
    const VkDeviceSize end = buffers[i].range == VK_WHOLE_SIZE ? VK_WHOLE_SIZE : begin + buffers[i].range;
    if (shader.reads[i]) accesses[n_access++] = {buffers[i].buffer, begin, end, false};
    if (shader.writes[i]) accesses[n_access++] = {buffers[i].buffer, begin, end, true};
  }
  barrier_for(batch, accesses.data(), n_access);
  vkCmdBindPipeline(batch.commands, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.handle());
  vkCmdBindDescriptorSets(batch.commands, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout(), 0, 1, &set, 0, nullptr);
  // Always push the full range so every byte the layout declares is defined.
  uint8_t push[kMaxPushConstantBytes] = {};
  if (push_bytes) std::memcpy(push, push_constants, push_bytes);
  vkCmdPushConstants(batch.commands, pipeline.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, kMaxPushConstantBytes, push);
  const bool timed = profiling_ && batch.profile_queries != VK_NULL_HANDLE;
  const auto query = static_cast<uint32_t>(2 * batch.profile_labels.size());
  if (timed)
    vkCmdWriteTimestamp(batch.commands, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, batch.profile_queries, query);
  vkCmdDispatch(batch.commands, groups[0], groups[1], groups[2]);
  if (timed) {
    vkCmdWriteTimestamp(batch.commands, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, batch.profile_queries, query + 1);
    batch.profile_labels.emplace_back(label, pipeline.key().shader.c_str());
    if (profile_dispatches_) batch.profile_shapes.push_back(dispatch_shape(pipeline.key(), groups));
  }
  ++batch.recorded;
}

void CommandStream::copy(VkBuffer src, VkBuffer dst, VkDeviceSize bytes, VkDeviceSize src_offset,
                         VkDeviceSize dst_offset, std::vector<std::shared_ptr<const void>> keep) {
  if (bytes == 0) return;
  const BufferAccess accesses[2] = {{src, src_offset, src_offset + bytes, false},
                                    {dst, dst_offset, dst_offset + bytes, true}};
  if (Capture* capture = t_capture) {
    barrier_for(capture->rec(), accesses, 2);
    VkBufferCopy region{src_offset, dst_offset, bytes};
    vkCmdCopyBuffer(capture->rec().commands, src, dst, 1, &region);
    ++capture->commands_;
    auto& kept = capture->rec().keep_alive;
    kept.insert(kept.end(), std::make_move_iterator(keep.begin()), std::make_move_iterator(keep.end()));
    return;
  }
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  Batch& batch = recording();
  barrier_for(batch, accesses, 2);
  VkBufferCopy region{src_offset, dst_offset, bytes};
  vkCmdCopyBuffer(batch.commands, src, dst, 1, &region);
  batch.keep_alive.insert(batch.keep_alive.end(), std::make_move_iterator(keep.begin()),
                          std::make_move_iterator(keep.end()));
  ++batch.recorded;
}

void CommandStream::end_commands(Batch& batch) {
  // Make every write of this batch visible to the host once its fence signals.
  auto mb = make_info<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(batch.commands, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                       VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, nullptr, 0, nullptr);
  VK_CHECK(vkEndCommandBuffer(batch.commands));
}

void CommandStream::submit_locked() {
  if (!current_) return;
  Batch& batch = *current_;
  end_commands(batch);
  auto submit = make_info<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &batch.commands;
  VK_CHECK(vkQueueSubmit(device_.queue(), 1, &submit, batch.fence));
  ++submits_;
  in_flight_.push_back(std::move(current_));
  retire_locked();
}

bool CommandStream::reclaim_memory() {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  const bool any = !in_flight_.empty();
  wait_all_locked();
  return any;
}

void CommandStream::retire_locked() {
  // Batches the GPU has finished give back what they kept alive now, not at the next
  // synchronize(), so a loop that never reads results back runs in bounded memory; past
  // kMaxInFlight batches the oldest is waited for.
  while (!in_flight_.empty()) {
    Batch& oldest = *in_flight_.front();
    if (in_flight_.size() > kMaxInFlight) {
      wait_locked(oldest);
    } else {
      const VkResult r = faults::hit(faults::Point::DeviceLost) ? VK_ERROR_DEVICE_LOST
                                                                : vkGetFenceStatus(device_.handle(), oldest.fence);
      if (r == VK_NOT_READY) break;
      if (r != VK_SUCCESS) throw_vk_error(r, "vkGetFenceStatus", __FILE__, __LINE__);
    }
    recycle_oldest_locked();
  }
}

void CommandStream::recycle_oldest_locked() {
  std::unique_ptr<Batch> batch = std::move(in_flight_.front());
  in_flight_.pop_front();
  recycle(*batch);
  spare_.push_back(std::move(batch));
}

void CommandStream::wait_all_locked() {
  while (!in_flight_.empty()) {
    // Waited for while still in flight: if the wait throws (a timeout), the batch and what it
    // keeps alive stay until a later wait sees the GPU finish with them.
    wait_locked(*in_flight_.front());
    recycle_oldest_locked();
  }
}


void CommandStream::collect_profile(Batch& batch) {
  if (batch.profile_labels.empty()) return;
  const auto n = static_cast<uint32_t>(2 * batch.profile_labels.size());
  std::vector<uint64_t> ticks(n);
  VK_CHECK(vkGetQueryPoolResults(device_.handle(), batch.profile_queries, 0, n, n * sizeof(uint64_t), ticks.data(),
                                 sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
  const double period = device_.physical().timestamp_period_ns;
  for (size_t i = 0; i < batch.profile_labels.size(); ++i) {
    const auto [label, shader] = batch.profile_labels[i];
    std::string key = label ? std::string(label) + " [" + shader + "]" : std::string(shader);
    if (i < batch.profile_shapes.size()) key += " " + batch.profile_shapes[i];
    ProfileStat& stat = profile_[key];
    const uint64_t begin = ticks[2 * i], end = ticks[2 * i + 1];
    stat.gpu_ns += end > begin ? static_cast<double>(end - begin) * period : 0.0;
    ++stat.dispatches;
  }
  batch.profile_labels.clear();
  batch.profile_shapes.clear();
}

void CommandStream::set_profiling(bool on) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  if (on == profiling_) return;
  TVK_CHECK(!on || device_.physical().timestamps, "this Vulkan device has no timestamp queries on its compute queue");
  synchronize();
  profiling_ = on;
  const char* detail = std::getenv("TVK_PROFILE_DISPATCHES");
  profile_dispatches_ = on && detail && std::string(detail) == "1";
}

std::map<std::string, ProfileStat> CommandStream::take_profile() {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  std::map<std::string, ProfileStat> out;
  out.swap(profile_);
  return out;
}

void CommandStream::recycle(Batch& batch) {
  collect_profile(batch);
  VK_CHECK(vkResetFences(device_.handle(), 1, &batch.fence));
  VK_CHECK(vkResetCommandBuffer(batch.commands, 0));
  for (VkDescriptorPool p : batch.descriptor_pools) VK_CHECK(vkResetDescriptorPool(device_.handle(), p, 0));
  // Keep one descriptor pool; more were only needed for an unusually large batch.
  while (batch.descriptor_pools.size() > 1) {
    vkDestroyDescriptorPool(device_.handle(), batch.descriptor_pools.back(), nullptr);
    batch.descriptor_pools.pop_back();
  }
  batch.sets_in_last_pool = 0;
  batch.keep_alive.clear();
  batch.recorded = 0;
  batch.since_barrier.clear();
  batch.fresh = true;
}

void CommandStream::wait_locked(Batch& batch) { wait_fence(batch.fence); }

uint64_t CommandStream::default_wait_timeout_ns() {
  const char* env = std::getenv("TVK_WAIT_TIMEOUT_S");
  if (env && *env) {
    char* end = nullptr;
    const double seconds = std::strtod(env, &end);
    if (end && *end == '\0' && seconds > 0 && seconds < 1e9) return static_cast<uint64_t>(seconds * 1e9);
  }
  return 120ull * 1000 * 1000 * 1000;
}

void CommandStream::wait_fence(VkFence fence) {
  // A bounded wait: a hung device is reported instead of blocking forever.
  const uint64_t timeout = wait_timeout_ns_;
  if (faults::hit(faults::Point::DeviceLost)) throw_vk_error(VK_ERROR_DEVICE_LOST, "vkWaitForFences", __FILE__, __LINE__);
  const auto start = std::chrono::steady_clock::now();
  // Time spent here is time the host waited for the GPU (benchmarks split latency by it).
  struct CountWait {
    std::atomic<uint64_t>& total;
    std::chrono::steady_clock::time_point start;
    ~CountWait() {
      total += static_cast<uint64_t>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
    }
  } count{waited_ns_, start};
  if (wait_spin_ns_ > 0) {
    const auto until = start + std::chrono::nanoseconds(wait_spin_ns_);
    do {
      const VkResult s = vkGetFenceStatus(device_.handle(), fence);
      if (s == VK_SUCCESS) return;
      if (s != VK_NOT_READY) throw_vk_error(s, "vkGetFenceStatus", __FILE__, __LINE__);
    } while (std::chrono::steady_clock::now() < until);
  }
  const VkResult r = vkWaitForFences(device_.handle(), 1, &fence, VK_TRUE, timeout);
  if (r == VK_TIMEOUT)
    throw VulkanError(detail::concat("Vulkan queue did not finish within ", timeout / 1e9, " s (device hung?)"));
  if (r != VK_SUCCESS) throw_vk_error(r, "vkWaitForFences", __FILE__, __LINE__);
}

void CommandStream::flush() {
  if (t_capture) break_capture();
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  submit_locked();
}

void CommandStream::synchronize() {
  if (t_capture) break_capture();
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  submit_locked();
  wait_all_locked();
}

void CommandStream::drop_unsubmitted_and_wait() {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  if (current_) {
    // Its timestamps were never written: nothing to collect.
    current_->profile_labels.clear();
    current_->profile_shapes.clear();
    recycle(*current_);  // resets the command buffer, still recording, and frees what it kept
    spare_.push_back(std::move(current_));
  }
  wait_all_locked();
}

Capture* CommandStream::current_capture() { return t_capture; }

CommandStream::CaptureSuspension::CaptureSuspension() : suspended_(t_capture) { t_capture = nullptr; }
CommandStream::CaptureSuspension::~CaptureSuspension() { t_capture = suspended_; }

void CommandStream::begin_capture(Capture& capture) {
  TVK_CHECK(t_capture == nullptr, "a capture is already being recorded on this thread");
  TVK_CHECK(!capture.ended_ && capture.recs_.empty(), "a capture can be recorded only once");
  capture.add_command_buffer();
  t_capture = &capture;
}

void CommandStream::record_upload(Capture::Upload u, VkBuffer staging, VkBuffer dst, VkDeviceSize staging_offset,
                                  VkDeviceSize dst_offset, size_t chunk_bytes,
                                  std::vector<std::shared_ptr<const void>> keep) {
  Capture* capture = t_capture;
  TVK_CHECK(capture != nullptr, "an upload recorded while not capturing");
  // Before any other command: the capture's first command then has a barrier for everything
  // earlier on the queue, these copies included (barrier_for: a fresh recording's first).
  const bool head = capture->recs_.size() == 1 && capture->rec().fresh;
  u.dst = dst;
  u.dst_offset = dst_offset;
  // Where the device imports host memory, an upload too small for chunks but large enough for
  // the host's copy to show (a batch of 8 images, 4.8 MB: 0.4 ms of host time on the H200)
  // gets a command buffer of its own as well, so that a replay may copy it straight from the
  // caller's memory (send_upload_from_host); otherwise it goes with the replay's submission.
  const bool importable = device_.physical().host_import_alignment != 0 && u.bytes >= kHostImportMinBytes;
  if (!head || chunk_bytes == 0 || (u.bytes < 2 * chunk_bytes && !importable)) {
    copy(staging, dst, u.bytes, staging_offset, dst_offset, std::move(keep));
    capture->uploads_.push_back(std::move(u));
    return;
  }
  u.chunk_bytes = chunk_bytes;
  for (size_t begin = 0; begin < u.bytes; begin += chunk_bytes) {
    VkCommandBuffer commands = allocate_command_buffer(device_.handle(), capture->pool_);
    u.chunk_copies.push_back(commands);
    auto info = make_info<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
    VK_CHECK(vkBeginCommandBuffer(commands, &info));
    VkBufferCopy region{staging_offset + begin, dst_offset + begin, std::min(chunk_bytes, u.bytes - begin)};
    vkCmdCopyBuffer(commands, staging, dst, 1, &region);
    VK_CHECK(vkEndCommandBuffer(commands));
  }
  ++capture->commands_;
  auto& kept = capture->recs_.front()->keep_alive;
  kept.insert(kept.end(), std::make_move_iterator(keep.begin()), std::make_move_iterator(keep.end()));
  capture->uploads_.push_back(std::move(u));
}

void CommandStream::send_upload_chunk(Capture& capture, size_t upload, size_t chunk) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  TVK_CHECK(upload < capture.uploads_.size(), "no upload ", upload, " in this capture");
  Capture::Upload& u = capture.uploads_[upload];
  TVK_CHECK(chunk == u.chunks_sent && chunk < u.chunk_copies.size(), "upload chunk ", chunk, " sent out of order");
  TVK_CHECK(capture.submitted_ == 0, "an upload chunk sent while the capture's first run is in flight");
  submit_locked();  // eager work queued before runs first
  auto submit = make_info<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &u.chunk_copies[chunk];
  VK_CHECK(vkQueueSubmit(device_.queue(), 1, &submit, VK_NULL_HANDLE));
  ++submits_;
  ++u.chunks_sent;
}

bool CommandStream::send_upload_from_host(Capture& capture, size_t upload, const void* source, size_t available,
                                          std::shared_ptr<const void> owner) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  const VkDeviceSize alignment = device_.physical().host_import_alignment;
  if (alignment == 0 || upload >= capture.uploads_.size() || capture.submitted_ != 0) return false;
  Capture::Upload& u = capture.uploads_[upload];
  if (u.chunk_copies.empty() || u.chunks_sent != 0 || u.host_import_refused ||
      reinterpret_cast<uintptr_t>(source) % alignment != 0)
    return false;
  // The import takes whole pages: the caller's memory must reach to the last page's end.
  const VkDeviceSize bytes = (u.bytes + alignment - 1) / alignment * alignment;
  if (bytes > available) return false;
  if (!u.host_import || u.host_import->data() != source || u.host_import->bytes() != bytes || u.host_owner != owner) {
    if (u.host_candidate.lock() != owner || u.host_candidate_data != source) {
      u.host_candidate = owner;
      u.host_candidate_data = source;
      return false;
    }
    std::shared_ptr<HostImport> fresh;
    try {
      fresh = std::make_shared<HostImport>(device_, source, bytes);
    } catch (const Error&) {
      u.host_import_refused = true;  // not tried again: a refusal may cost what an import does
      return false;                  // the staging copy still works
    }
    // The previous run, the last user of the old import's copy, has finished (submitted_ == 0).
    if (u.host_copy != VK_NULL_HANDLE) vkFreeCommandBuffers(device_.handle(), capture.pool_, 1, &u.host_copy);
    u.host_copy = VK_NULL_HANDLE;
    u.host_import.reset();
    u.host_owner.reset();
    VkCommandBuffer commands = allocate_command_buffer(device_.handle(), capture.pool_);
    auto info = make_info<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
    VK_CHECK(vkBeginCommandBuffer(commands, &info));
    VkBufferCopy region{0, u.dst_offset, u.bytes};
    vkCmdCopyBuffer(commands, fresh->buffer(), u.dst, 1, &region);
    VK_CHECK(vkEndCommandBuffer(commands));
    u.host_copy = commands;
    u.host_import = std::move(fresh);
    u.host_owner = std::move(owner);
  }
  submit_locked();  // eager work queued before runs first
  auto submit = make_info<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &u.host_copy;
  VK_CHECK(vkQueueSubmit(device_.queue(), 1, &submit, VK_NULL_HANDLE));
  ++submits_;
  ++host_uploads_;
  u.chunks_sent = u.chunk_copies.size();  // the replay sends none of the staging chunks
  return true;
}

void CommandStream::submit_capture_locked(Capture& capture, VkFence fence) {
  submit_locked();  // eager work queued before (weights being packed, say) runs first
  std::vector<VkCommandBuffer> buffers;
  // A run's start: the upload chunks not sent ahead go first.
  if (capture.submitted_ == 0)
    for (Capture::Upload& u : capture.uploads_) {
      for (size_t i = u.chunks_sent; i < u.chunk_copies.size(); ++i) buffers.push_back(u.chunk_copies[i]);
      u.chunks_sent = u.chunk_copies.size();
    }
  for (size_t i = capture.submitted_; i < capture.recs_.size(); ++i) buffers.push_back(capture.recs_[i]->commands);
  auto submit = make_info<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
  submit.commandBufferCount = static_cast<uint32_t>(buffers.size());
  submit.pCommandBuffers = buffers.data();
  VK_CHECK(vkQueueSubmit(device_.queue(), 1, &submit, fence));
  ++submits_;
}

void CommandStream::roll_capture(Capture& capture) {
  end_commands(capture.rec());
  {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    submit_capture_locked(capture, VK_NULL_HANDLE);
    capture.submitted_ = capture.recs_.size();
  }
  capture.add_command_buffer();
}

void CommandStream::end_capture(Capture& capture) {
  if (t_capture == &capture) {
    t_capture = nullptr;
    end_commands(capture.rec());
  }
  capture.ended_ = true;
}

void CommandStream::break_capture() {
  Capture& capture = *t_capture;
  t_capture = nullptr;
  end_commands(capture.rec());
  capture.broken_ = true;
  replay(capture);  // what was recorded so far, once
}

void CommandStream::replay(Capture& capture) {
  TVK_CHECK(t_capture == nullptr, "replay while capturing");
  TVK_CHECK(!capture.recs_.empty(), "replay of an empty capture");
  {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    // The rest of the first run, or all of a later one. The fence's signal covers earlier
    // submissions on the queue too.
    submit_capture_locked(capture, capture.fence_);
    capture.submitted_ = 0;
  }
  wait_fence(capture.fence_);
  VK_CHECK(vkResetFences(device_.handle(), 1, &capture.fence_));
  {
    std::lock_guard<std::recursive_mutex> lock(mutex_);
    for (Capture::Upload& u : capture.uploads_) u.chunks_sent = 0;  // the next run sends them again
  }
  dispatches_total_ += capture.dispatches();
}

void CommandStream::reset_timestamps() {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  TVK_CHECK(query_pool_ != VK_NULL_HANDLE, "this Vulkan device has no timestamp queries on its compute queue");
  vkCmdResetQueryPool(recording().commands, query_pool_, 0, kTimestampQueries);
  next_query_ = 0;
}

uint32_t CommandStream::mark_timestamp() {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  TVK_CHECK(query_pool_ != VK_NULL_HANDLE, "this Vulkan device has no timestamp queries on its compute queue");
  TVK_CHECK(next_query_ < kTimestampQueries, "more than ", kTimestampQueries, " timestamps since reset");
  vkCmdWriteTimestamp(recording().commands, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, query_pool_, next_query_);
  return next_query_++;
}

double CommandStream::elapsed_ns(uint32_t from, uint32_t to) const {
  TVK_CHECK(from < next_query_ && to < next_query_, "timestamp index out of range");
  uint64_t values[2] = {};
  VK_CHECK(vkGetQueryPoolResults(device_.handle(), query_pool_, from, 1, sizeof(uint64_t), &values[0],
                                 sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
  VK_CHECK(vkGetQueryPoolResults(device_.handle(), query_pool_, to, 1, sizeof(uint64_t), &values[1],
                                 sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
  return static_cast<double>(values[1] - values[0]) * device_.physical().timestamp_period_ns;
}

}  // namespace tvk::vulkan
