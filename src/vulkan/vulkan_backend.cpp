// Registers the Vulkan DeviceBackend with the core at start-up.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "vulkan/ops/kernel_options.h"
#include "vulkan/ops/shader_dispatch.h"
#include "vulkan/vulkan_storage.h"

namespace tvk::vulkan {

namespace {
Buffer make_buffer(Context& ctx, const std::shared_ptr<MemoryPool>& arena, size_t nbytes) {
  if (arena) return Buffer(ctx.device(), *arena, nbytes);
  return Buffer(ctx.device(), ctx.memory(), nbytes, MemoryUsage::DeviceTensor);
}
std::shared_ptr<MemoryPool> capture_arena() {
  Capture* capture = CommandStream::current_capture();
  return capture ? capture->arena() : nullptr;
}
}  // namespace

namespace {
// Whole words, and at least one texel of every format: an empty tensor (batch 0) still binds
// as a valid view, and its kernels dispatch nothing. Shaders write bool tensors (a byte per
// element) a word at a time.
size_t buffer_bytes(size_t nbytes) { return nbytes > SIZE_MAX - 3 ? nbytes : std::max<size_t>(16, (nbytes + 3) / 4 * 4); }

// The largest device-local heap: what the device says it holds for tensors.
uint64_t device_heap_bytes(Context& context) {
  const VkPhysicalDeviceMemoryProperties& mem = context.device().memory_properties();
  uint64_t most = 0;
  for (uint32_t i = 0; i < mem.memoryHeapCount && i < VK_MAX_MEMORY_HEAPS; ++i)
    if (mem.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) most = std::max<uint64_t>(most, mem.memoryHeaps[i].size);
  return most;
}

// Inside a model run, a tensor of its own (not a range of a plan's arena) counts against the
// run's device memory before its buffer is made. Tensors that queued GPU work still holds are
// given back once it is done: past the limit, that work is finished first and the charge tried
// again.
std::shared_ptr<MemoryBudget> charge_run(Context& context, const std::shared_ptr<MemoryPool>& arena, size_t bytes) {
  if (arena) return nullptr;
  std::shared_ptr<MemoryBudget> budget = RunScope::memory_owner();
  if (!budget) return nullptr;
  try {
    budget->charge_device(bytes, device_heap_bytes(context), "a Vulkan tensor");
  } catch (const OutOfMemoryError&) {
    context.stream().synchronize();
    budget->charge_device(bytes, device_heap_bytes(context), "a Vulkan tensor");
  }
  return budget;
}
}  // namespace

VulkanStorage::VulkanStorage(std::shared_ptr<Context> context, size_t nbytes)
    : Storage(nbytes), context_(std::move(context)), arena_(capture_arena()),
      charge_(charge_run(*context_, arena_, buffer_bytes(nbytes)), buffer_bytes(nbytes)),
      buffer_(make_buffer(*context_, arena_, buffer_bytes(nbytes))) {}

VulkanStorage::VulkanStorage(std::shared_ptr<const VulkanStorage> whole, size_t offset, size_t nbytes)
    : Storage(nbytes), context_(whole->context_), arena_(whole->arena_), whole_(whole),
      buffer_(Buffer::slice_of(whole->buffer_, offset, nbytes)) {}

Tensor slice_for_writing(const Tensor& whole, size_t byte_offset, const IntList& sizes) {
  storage_of(whole);  // checks it is a Vulkan tensor
  TVK_CHECK(whole.is_contiguous() && whole.storage_offset() == 0, "a slice needs a contiguous Vulkan tensor");
  const size_t nbytes = static_cast<size_t>(numel_of(sizes)) * sizeof(float);
  auto slice = std::make_shared<VulkanStorage>(
      std::static_pointer_cast<const VulkanStorage>(whole.storage()), byte_offset, nbytes);
  return Tensor(std::move(slice), sizes, contiguous_strides(sizes), 0, DType::Float32);
}

const VulkanStorage& storage_of(const Tensor& t) {
  TVK_CHECK(t.defined() && t.device() == tvk::Device::Vulkan, "expected a Vulkan tensor");
  return static_cast<const VulkanStorage&>(*t.storage());
}

namespace {

// The chunks in which a recording's input upload is sent (Capture::Upload), so that a replay's
// copy over the bus overlaps the host's writing of the next chunk into staging memory.
// TVK_UPLOAD_CHUNK_KB=<n> sets another size (tests use small ones); 0 sends each upload whole,
// with the recording.
size_t upload_chunk_bytes() {
  static const size_t bytes = [] {
    const char* v = std::getenv("TVK_UPLOAD_CHUNK_KB");
    return static_cast<size_t>(v ? std::max(0L, std::strtol(v, nullptr, 10)) : 4096) << 10;
  }();
  return bytes;
}

class VulkanCapture final : public DeviceCapture {
 public:
  explicit VulkanCapture(std::shared_ptr<Context> ctx) : ctx_(std::move(ctx)), capture_(ctx_->device()) {
    ctx_->stream().begin_capture(capture_);
  }
  ~VulkanCapture() override {
    try {
      if (CommandStream::current_capture() == &capture_) ctx_->stream().end_capture(capture_);
      // A recording dropped mid-way (the model raised, say) may have command buffers of its
      // first run on the GPU: let them finish before their resources go.
      if (capture_.first_run_in_flight()) ctx_->stream().replay(capture_);
    } catch (...) {
      // A lost device: the context's destruction reports it.
    }
  }
  void end() override { ctx_->stream().end_capture(capture_); }
  bool replayable() const override { return capture_.replayable(); }
  void replay() override {
    TVK_CHECK(capture_.replayable(), "this recording cannot be replayed");
    ctx_->stream().replay(capture_);
  }
  void* upload_slot(const void* source, size_t nbytes) const override {
    // The latest upload from there: callers ask right after recording it, and a host buffer
    // may have been uploaded (or freed and reused) before.
    const auto& uploads = capture_.uploads();
    for (auto u = uploads.rbegin(); u != uploads.rend(); ++u)
      if (u->source == source && u->bytes == nbytes) return u->staging;
    return nullptr;
  }
  size_t upload_chunk_bytes(const void* slot) const override {
    const ptrdiff_t i = upload_at(slot);
    if (i < 0 || capture_.first_run_in_flight()) return 0;
    const Capture::Upload& u = capture_.uploads()[static_cast<size_t>(i)];
    return u.chunk_copies.empty() ? 0 : u.chunk_bytes;
  }
  void send_upload_chunk(const void* slot, size_t chunk) override {
    const ptrdiff_t i = upload_at(slot);
    TVK_CHECK(i >= 0, "no upload was recorded into this slot");
    ctx_->stream().send_upload_chunk(capture_, static_cast<size_t>(i), chunk);
  }
  bool send_upload_from(const void* slot, const std::shared_ptr<const CpuStorage>& owner, const void* source,
                        size_t nbytes) override {
    static const bool enabled = [] {  // TVK_HOST_IMPORT=0: always through staging
      const char* v = std::getenv("TVK_HOST_IMPORT");
      return !(v && std::string(v) == "0");
    }();
    const ptrdiff_t i = upload_at(slot);
    if (!enabled || i < 0 || !owner || capture_.uploads()[static_cast<size_t>(i)].bytes != nbytes) return false;
    const auto* begin = static_cast<const uint8_t*>(owner->data());
    const auto* from = static_cast<const uint8_t*>(source);
    if (from < begin || static_cast<size_t>(from - begin) >= owner->capacity()) return false;
    return ctx_->stream().send_upload_from_host(capture_, static_cast<size_t>(i), source,
                                                owner->capacity() - static_cast<size_t>(from - begin), owner);
  }
  const void* download_slot(const Storage& storage, size_t nbytes) override {
    if (CommandStream::current_capture() != &capture_ || nbytes == 0) return nullptr;
    const Buffer& from = static_cast<const VulkanStorage&>(storage).buffer();
    auto staging = std::make_shared<Buffer>(ctx_->device(), ctx_->memory(), nbytes, MemoryUsage::Staging);
    ctx_->stream().copy(from.handle(), staging->handle(), nbytes, from.offset(), staging->offset());
    downloads_.push_back(staging);
    return staging->mapped();
  }
  size_t dispatches() const override { return capture_.dispatches(); }
  size_t commands() const override { return capture_.commands(); }
  bool recording() const override { return CommandStream::current_capture() == &capture_; }

 private:
  // The latest upload whose staging memory is `slot`, or -1.
  ptrdiff_t upload_at(const void* slot) const {
    const auto& uploads = capture_.uploads();
    for (size_t i = uploads.size(); i-- > 0;)
      if (uploads[i].staging == slot) return static_cast<ptrdiff_t>(i);
    return -1;
  }

  std::shared_ptr<Context> ctx_;
  Capture capture_;
  // Host-cached copies of the outputs, written by the recording's last commands: reading an
  // output this way costs no submit of its own after a replay.
  std::vector<std::shared_ptr<Buffer>> downloads_;
};

class VulkanBackend final : public DeviceBackend {
 public:
  bool available() override { return Context::try_get(nullptr) != nullptr; }

  std::string unavailable_reason() override {
    std::string reason;
    Context::try_get(&reason);
    return reason;
  }

  std::shared_ptr<Storage> allocate(size_t nbytes) override {
    return std::make_shared<VulkanStorage>(Context::get(), nbytes);
  }

  void upload(const std::shared_ptr<Storage>& dst, const void* src, size_t nbytes) override {
    auto& storage = static_cast<VulkanStorage&>(*dst);
    Context& ctx = storage.context();
    if (nbytes == 0) return;
    Capture* capture = CommandStream::current_capture();
    // Fresh storages are never in use by queued work, so a mapped buffer is written directly;
    // not while capturing, where the range may be reused and the upload must happen in order
    // (and again at each replay).
    if (uint8_t* p = storage.buffer().mapped(); p && !ctx.force_staging() && !capture) {
      std::memcpy(p, src, nbytes);
      return;
    }
    auto staging = std::make_shared<Buffer>(ctx.device(), ctx.memory(), nbytes, MemoryUsage::Staging);
    std::memcpy(staging->mapped(), src, nbytes);
    // Both ends of the pending copy live until it has run, even if the tensor is dropped now.
    if (capture) {
      Capture::Upload u;
      u.source = src;
      u.staging = staging->mapped();
      u.bytes = nbytes;
      ctx.stream().record_upload(std::move(u), staging->handle(), storage.buffer().handle(), staging->offset(),
                                 storage.buffer().offset(), upload_chunk_bytes(), {staging, dst});
      return;
    }
    ctx.stream().copy(staging->handle(), storage.buffer().handle(), nbytes, staging->offset(), storage.buffer().offset(),
                      {staging, dst});
  }

  void download(const Storage& src, void* dst, size_t nbytes) override {
    auto& storage = static_cast<const VulkanStorage&>(src);
    Context& ctx = storage.context();
    if (nbytes == 0) return;
    // Mapped memory is read directly only when cached: uncached reads (a ReBAR window on a
    // discrete GPU) crawl at a few hundred MB/s, slower than a copy into staging memory.
    if (const uint8_t* p = storage.buffer().mapped(); p && storage.buffer().host_cached() && !ctx.force_staging()) {
      ctx.stream().synchronize();
      std::memcpy(dst, p, nbytes);
      return;
    }
    Buffer staging(ctx.device(), ctx.memory(), nbytes, MemoryUsage::Staging);
    ctx.stream().copy(storage.buffer().handle(), staging.handle(), nbytes, storage.buffer().offset(), staging.offset());
    ctx.stream().synchronize();
    std::memcpy(dst, staging.mapped(), nbytes);
  }

  void copy(const std::shared_ptr<Storage>& src, const std::shared_ptr<Storage>& dst, size_t nbytes) override {
    auto& from = static_cast<const VulkanStorage&>(*src);
    auto& to = static_cast<const VulkanStorage&>(*dst);
    CommandStream& stream = from.context().stream();
    stream.copy(from.buffer().handle(), to.buffer().handle(), nbytes, from.buffer().offset(), to.buffer().offset(),
                {src, dst});
  }

  void synchronize() override {
    if (auto ctx = Context::try_get(nullptr)) ctx->stream().synchronize();
  }

  bool replay_allowed() override {
    auto ctx = Context::try_get(nullptr);
    return ctx && !ctx->stream().profiling();
  }

  std::unique_ptr<DeviceCapture> begin_capture() override {
    auto ctx = Context::try_get(nullptr);
    // A profile times every dispatch of eager batches; recordings carry no timestamps.
    if (!ctx || ctx->stream().profiling() || CommandStream::current_capture()) return nullptr;
    return std::make_unique<VulkanCapture>(ctx);
  }

  std::shared_ptr<void> tuning_scope(Tuning tuning) override {
    KernelOptions options = kernel_options();
    options.tuning = tuning;
    return std::make_shared<ScopedKernelOptions>(std::move(options));
  }
};

const bool registered = [] {
  static VulkanBackend backend;
  register_device_backend(tvk::Device::Vulkan, &backend);
  return true;
}();

}  // namespace
}  // namespace tvk::vulkan
