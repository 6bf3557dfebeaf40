// Registers the Vulkan DeviceBackend with the core at start-up.
#include <cstring>

#include "vulkan/vulkan_storage.h"

namespace tvk::vulkan {

VulkanStorage::VulkanStorage(std::shared_ptr<Context> context, size_t nbytes)
    : Storage(nbytes),
      context_(std::move(context)),
      buffer_(context_->device(), context_->memory(), nbytes, MemoryUsage::DeviceTensor) {}

const VulkanStorage& storage_of(const Tensor& t) {
  TVK_CHECK(t.defined() && t.device() == tvk::Device::Vulkan, "expected a Vulkan tensor");
  return static_cast<const VulkanStorage&>(*t.storage());
}

namespace {

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
    // Fresh storages are never in use by queued work, so a mapped buffer is written directly.
    if (uint8_t* p = storage.buffer().mapped(); p && !ctx.force_staging()) {
      std::memcpy(p, src, nbytes);
      return;
    }
    auto staging = std::make_shared<Buffer>(ctx.device(), ctx.memory(), nbytes, MemoryUsage::Staging);
    std::memcpy(staging->mapped(), src, nbytes);
    ctx.stream().copy(staging->handle(), storage.buffer().handle(), nbytes);
    // Both ends of the pending copy live until it has run, even if the tensor is dropped now.
    ctx.stream().keep_alive(staging);
    ctx.stream().keep_alive(dst);
  }

  void download(const Storage& src, void* dst, size_t nbytes) override {
    auto& storage = static_cast<const VulkanStorage&>(src);
    Context& ctx = storage.context();
    if (nbytes == 0) return;
    if (const uint8_t* p = storage.buffer().mapped(); p && !ctx.force_staging()) {
      ctx.stream().synchronize();
      std::memcpy(dst, p, nbytes);
      return;
    }
    Buffer staging(ctx.device(), ctx.memory(), nbytes, MemoryUsage::Staging);
    ctx.stream().copy(storage.buffer().handle(), staging.handle(), nbytes);
    ctx.stream().synchronize();
    std::memcpy(dst, staging.mapped(), nbytes);
  }

  void copy(const std::shared_ptr<Storage>& src, const std::shared_ptr<Storage>& dst, size_t nbytes) override {
    auto& from = static_cast<const VulkanStorage&>(*src);
    auto& to = static_cast<const VulkanStorage&>(*dst);
    CommandStream& stream = from.context().stream();
    stream.copy(from.buffer().handle(), to.buffer().handle(), nbytes);
    stream.keep_alive(src);
    stream.keep_alive(dst);
  }

  void synchronize() override {
    if (auto ctx = Context::try_get(nullptr)) ctx->stream().synchronize();
  }
};

const bool registered = [] {
  static VulkanBackend backend;
  register_device_backend(tvk::Device::Vulkan, &backend);
  return true;
}();

}  // namespace
}  // namespace tvk::vulkan
