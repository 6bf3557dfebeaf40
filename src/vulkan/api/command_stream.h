// CommandStream: records dispatches and copies into command buffers and submits them in
// batches, at sync points (a download, synchronize()) or when a batch is full. Resources a
// pending batch uses are kept alive until its fence signals.
#pragma once

#include <array>
#include <atomic>
#include <deque>
#include <map>
#include <string>
#include <memory>
#include <mutex>
#include <vector>

#include "vulkan/api/buffer.h"
#include "vulkan/api/host_import.h"
#include "vulkan/api/pipeline.h"

namespace tvk::vulkan {

// One binding of a dispatch: a storage buffer range, or (for samplerBuffer bindings) a texel
// view; which one the shader wants comes from its reflected interface.
struct BufferBinding {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize offset = 0;
  VkDeviceSize range = VK_WHOLE_SIZE;
  VkBufferView texel_view = VK_NULL_HANDLE;
};

// GPU time of the dispatches that carried one label (an op name), from timestamp queries.
struct ProfileStat {
  double gpu_ns = 0;
  uint64_t dispatches = 0;
};

// A buffer range a recorded command reads or writes, for placing barriers.
struct BufferAccess {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize begin = 0, end = 0;
  bool write = false;
};

// One command buffer being recorded or run, with what its dispatches need: descriptor sets and
// the resources to keep alive until it has finished.
struct Recording {
  VkCommandBuffer commands = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  std::vector<VkDescriptorPool> descriptor_pools;
  uint32_t sets_in_last_pool = 0;
  std::vector<std::shared_ptr<const void>> keep_alive;
  uint32_t recorded = 0;
  VkQueryPool profile_queries = VK_NULL_HANDLE;  // 2 per dispatch, when profiling
  std::vector<std::pair<const char*, const char*>> profile_labels;  // (label, shader)
  std::vector<std::string> profile_shapes;  // per dispatch, when TVK_PROFILE_DISPATCHES=1
  // Accesses since the last barrier; a command that touches one of them in conflict (either
  // side writes) gets a barrier first. The first command always does (earlier submissions).
  std::vector<BufferAccess> since_barrier;
  bool fresh = true;
};

class MemoryPool;

// Work recorded once and submitted many times, like a CUDA graph: while a thread captures, the
// dispatches and copies it queues go into this capture's command buffers instead of running,
// tensors it makes take ranges of the capture's arena (reused by liveness as they are freed),
// and host data it uploads goes through staging buffers that replay() re-sends. A long
// recording is cut into command buffers of kDispatchesPerCommandBuffer, each submitted as soon
// as it is full, so the first run's GPU work starts while the host is still recording; the
// first replay() finishes that run. A read-back while capturing cannot be recorded: it runs
// what was captured so far and marks the capture broken.
class Capture {
 public:
  static constexpr uint32_t kDispatchesPerCommandBuffer = 32;

  explicit Capture(const Device& device);
  ~Capture();
  Capture(const Capture&) = delete;
  Capture& operator=(const Capture&) = delete;

  // True after end_capture when nothing broke the recording: replay() may be used.
  bool replayable() const { return ended_ && !broken_; }
  bool broken() const { return broken_; }
  uint32_t dispatches() const;
  size_t commands() const { return commands_; }  // dispatches and copies recorded
  size_t command_buffers() const { return recs_.size(); }
  // Command buffers of the first run already submitted, whose completion replay() waits for.
  bool first_run_in_flight() const { return submitted_ > 0; }
  const std::shared_ptr<MemoryPool>& arena() const { return arena_; }

  // A host upload made while capturing: replay() sends what is in `staging` again, so writing
  // new bytes there changes what the next replay uploads. A large upload recorded before any
  // other command (a model's input) is not in the capture's command buffers but copied by
  // command buffers of its own, one per chunk of `chunk_bytes`, which
  // CommandStream::send_upload_chunk may submit one by one ahead of the replay, each as soon as
  // the host has written its part of `staging`.
  struct Upload {
    const void* source = nullptr;  // the host pointer the data came from while capturing
    uint8_t* staging = nullptr;
    size_t bytes = 0;
    size_t chunk_bytes = 0;
    std::vector<VkCommandBuffer> chunk_copies;  // empty: the copy is in the capture's commands
    size_t chunks_sent = 0;  // of this run, guarded by the stream's lock
    VkBuffer dst = VK_NULL_HANDLE;  // where the bytes go, for copies from elsewhere
    VkDeviceSize dst_offset = 0;
    // The host memory last sent directly (CommandStream::send_upload_from_host): the memory's
    // owner, kept alive with its import (declared after it, so the import goes first: the
    // memory must outlive it), and the command buffer that copies it to dst.
    std::shared_ptr<const void> host_owner;
    std::shared_ptr<HostImport> host_import;
    VkCommandBuffer host_copy = VK_NULL_HANDLE;
    // Memory offered once and not imported (an import costs more than a staging copy, so only
    // memory that comes back is imported), held weakly.
    std::weak_ptr<const void> host_candidate;
    const void* host_candidate_data = nullptr;
    bool host_import_refused = false;  // the driver refused an import here: staging from then on
  };
  const std::vector<Upload>& uploads() const { return uploads_; }

 private:
  friend class CommandStream;
  const Device& device_;
  Recording& rec() { return *recs_.back(); }
  void add_command_buffer();  // allocates and begins one more

  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  std::vector<std::unique_ptr<Recording>> recs_;
  size_t submitted_ = 0;  // leading command buffers of the first run already submitted
  size_t commands_ = 0;
  std::shared_ptr<MemoryPool> arena_;
  std::vector<Upload> uploads_;
  bool ended_ = false, broken_ = false;
};

class CommandStream {
 public:
  static constexpr uint32_t kDispatchesPerBatch = 128;
  static constexpr size_t kMaxInFlight = 4;  // submitted batches before the oldest is waited for
  static constexpr uint32_t kTimestampQueries = 256;

  explicit CommandStream(const Device& device);
  ~CommandStream();
  CommandStream(const CommandStream&) = delete;
  CommandStream& operator=(const CommandStream&) = delete;

  // `label` (a string that outlives the stream, e.g. an op name; nullptr: the shader's name)
  // names the dispatch in profiles. `keep` stays alive until the dispatch has run: it joins the
  // batch the dispatch is recorded in, in the same step, so a flush from another thread cannot
  // come between them.
  void dispatch(const Pipeline& pipeline, const std::vector<BufferBinding>& buffers, const void* push_constants,
                uint32_t push_bytes, std::array<uint32_t, 3> groups, const char* label = nullptr,
                std::vector<std::shared_ptr<const void>> keep = {});
  // `keep` as for dispatch.
  void copy(VkBuffer src, VkBuffer dst, VkDeviceSize bytes, VkDeviceSize src_offset = 0, VkDeviceSize dst_offset = 0,
            std::vector<std::shared_ptr<const void>> keep = {});
  // Records the upload `u` (its staging buffer `staging` at staging_offset, to dst at
  // dst_offset) into the capture being recorded on this thread: in chunks of its own when it
  // comes before any other command and is at least `chunk_bytes` x 2 (Capture::Upload), or
  // kHostImportMinBytes on a device that imports host memory (then maybe one chunk), else as
  // copy(). chunk_bytes 0: never in chunks.
  void record_upload(Capture::Upload u, VkBuffer staging, VkBuffer dst, VkDeviceSize staging_offset,
                     VkDeviceSize dst_offset, size_t chunk_bytes, std::vector<std::shared_ptr<const void>> keep);
  // Submits chunk `chunk` of the capture's upload `upload` (one with chunk_copies) for the next
  // run; replay() submits the chunks not sent before it.
  void send_upload_chunk(Capture& capture, size_t upload, size_t chunk);
  // Uploads at the head of a capture from this size on get command buffers of their own on
  // devices that import host memory, even where they are too small to be sent in chunks.
  static constexpr size_t kHostImportMinBytes = size_t{1} << 20;
  // Submits the capture's upload `upload` (one with chunk_copies, none sent yet) for the next
  // run as one copy straight from host memory [source, source + its bytes rounded up to the
  // device's import alignment), of which `available` bytes from source on are the caller's and
  // `owner` keeps valid: imported the second time in a row
  // the same memory comes (importing 19 MB took 3-4 ms on the H200, more than the staging
  // copy it saves, so memory seen once is not imported) and reused while it keeps coming.
  // False, having sent nothing, where it is not done (memory new to this upload, no import on
  // this device, misaligned memory, a driver that refuses it).
  bool send_upload_from_host(Capture& capture, size_t upload, const void* source, size_t available,
                             std::shared_ptr<const void> owner);

  // Submits what is recorded without waiting.
  void flush();
  // Submits and waits for every batch; afterwards the host sees all results.
  void synchronize();
  // At process exit: drops the work recorded but not submitted (nothing can read its results
  // any more) and waits for what was submitted, so the device may be destroyed.
  void drop_unsubmitted_and_wait();
  // For an allocation that found no memory: retires finished batches and waits for the ones in
  // flight, so what they kept alive is freed. Work still being recorded is left as it is (the
  // caller may be recording it). Returns whether any batch was retired.
  bool reclaim_memory();
  // How long a wait for the GPU may take before it throws VulkanError (default 120 s: a hung
  // device is reported instead of blocking forever). Work still running after such an error
  // keeps its resources until a later wait sees it finish.
  void set_wait_timeout_ns(uint64_t ns) { wait_timeout_ns_ = ns; }

  // Timestamps: reset(), then mark() around work; after synchronize(), elapsed_ns(a, b).
  bool timestamps_supported() const { return query_pool_ != VK_NULL_HANDLE; }
  void reset_timestamps();
  uint32_t mark_timestamp();
  double elapsed_ns(uint32_t from, uint32_t to) const;

  // Profiling: with it on, every dispatch is bracketed by timestamps, and the GPU time of each
  // finished batch is added up per label. Turning it on or off synchronizes first.
  void set_profiling(bool on);
  bool profiling() const { return profiling_; }
  // The per-label totals since the last call (after synchronize(), every batch is counted).
  std::map<std::string, ProfileStat> take_profile();

  uint64_t submits() const { return submits_; }
  uint64_t host_uploads() const { return host_uploads_; }  // sent by send_upload_from_host
  uint64_t dispatches() const { return dispatches_total_; }
  uint64_t waited_ns() const { return waited_ns_; }  // host time in fence waits, since start

  // Capture (see Capture): from begin_capture to end_capture, this thread's work is recorded
  // into `capture`. Other threads keep running eagerly.
  void begin_capture(Capture& capture);
  void end_capture(Capture& capture);
  // The capture this thread records into, or nullptr.
  static Capture* current_capture();
  // Submits the capture (after any queued eager work) and waits for it.
  void replay(Capture& capture);

  // While one lives, this thread's work runs eagerly even inside a capture, and the tensors it
  // makes are not the capture's: for work done once whose results outlive the capture (weights
  // made at their first use). Its work must be submitted before the capture's next command
  // buffer is (synchronize() does), so that the barrier that begins that buffer covers it.
  class CaptureSuspension {
   public:
    CaptureSuspension();
    ~CaptureSuspension();
    CaptureSuspension(const CaptureSuspension&) = delete;
    CaptureSuspension& operator=(const CaptureSuspension&) = delete;

   private:
    Capture* suspended_;
  };

 private:
  using Batch = Recording;

  Batch& recording();
  VkDescriptorSet allocate_set(Batch& batch, VkDescriptorSetLayout layout, uint32_t buffers);
  // A global memory barrier before a command with `accesses`, when they conflict with what ran
  // since the last one.
  void barrier_for(Batch& batch, const BufferAccess* accesses, size_t count);
  void record_dispatch(Batch& batch, const Pipeline& pipeline, const std::vector<BufferBinding>& buffers,
                       const void* push_constants, uint32_t push_bytes, std::array<uint32_t, 3> groups,
                       const char* label);
  void end_commands(Batch& batch);
  // A read-back while capturing: runs what was captured, marks it broken, goes on eagerly.
  void break_capture();
  // A full command buffer of a capture: ended, submitted (first run), and a new one begun.
  void roll_capture(Capture& capture);
  void submit_locked();
  void retire_locked();
  // Pops the oldest batch in flight (finished) and keeps it for reuse.
  void recycle_oldest_locked();
  // Waits for every batch in flight, oldest first, and recycles each.
  void wait_all_locked();
  void wait_locked(Batch& batch);
  // Waits (bounded, so a hung device is reported) for `fence`.
  void wait_fence(VkFence fence);
  // Submits the capture's command buffers not yet submitted, signalling `fence` (may be null).
  void submit_capture_locked(Capture& capture, VkFence fence);
  void recycle(Batch& batch);
  void collect_profile(Batch& batch);

  const Device& device_;
  std::recursive_mutex mutex_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkQueryPool query_pool_ = VK_NULL_HANDLE;
  uint32_t next_query_ = 0;
  std::unique_ptr<Batch> current_;
  std::deque<std::unique_ptr<Batch>> in_flight_;
  std::vector<std::unique_ptr<Batch>> spare_;
  bool profiling_ = false;
  // 120 s, or TVK_WAIT_TIMEOUT_S (slow devices: lavapipe under qemu takes minutes per model).
  std::atomic<uint64_t> wait_timeout_ns_{default_wait_timeout_ns()};
  static uint64_t default_wait_timeout_ns();
  // How long a wait polls the fence before it sleeps in the driver (TVK_WAIT_SPIN_US; 1 ms on
  // GPUs, 0 on CPU devices, whose work needs the cores a poll would take).
  uint64_t wait_spin_ns_ = 0;
  bool profile_dispatches_ = false;  // profile keys name each dispatch's shape (TVK_PROFILE_DISPATCHES=1)
  std::map<std::string, ProfileStat> profile_;
  std::atomic<uint64_t> submits_{0};
  std::atomic<uint64_t> host_uploads_{0};
  std::atomic<uint64_t> dispatches_total_{0};
  std::atomic<uint64_t> waited_ns_{0};
};

}  // namespace tvk::vulkan
