// VulkanStorage: tensor bytes in a Vulkan buffer. Vulkan tensors are always contiguous with
// storage offset 0, so a kernel can bind the buffer as a flat array.
#pragma once

#include <memory>

#include "core/run_scope.h"
#include "core/storage.h"
#include "tvk/tensor.h"
#include "vulkan/api/buffer.h"
#include "vulkan/api/context.h"

namespace tvk::vulkan {

class VulkanStorage final : public Storage {
 public:
  // Memory from the context's pool, or a range of the capture's arena while this thread captures.
  VulkanStorage(std::shared_ptr<Context> context, size_t nbytes);
  // Bytes [offset, offset + nbytes) of `whole`'s buffer, which it keeps alive (see Buffer::slice_of).
  VulkanStorage(std::shared_ptr<const VulkanStorage> whole, size_t offset, size_t nbytes);
  tvk::Device device() const override { return tvk::Device::Vulkan; }
  const Buffer& buffer() const { return buffer_; }
  Context& context() const { return *context_; }

 private:
  std::shared_ptr<Context> context_;  // keeps the device alive while tensors exist
  std::shared_ptr<MemoryPool> arena_;  // the capture arena the buffer is a range of, if any
  std::shared_ptr<const VulkanStorage> whole_;  // a slice's storage
  // The model run's budget this storage counts against (Limits::max_device_memory), if any:
  // charged before the buffer is made, given back when the storage goes (or its buffer fails).
  struct DeviceCharge {
    std::shared_ptr<MemoryBudget> budget;
    size_t bytes = 0;
    DeviceCharge() = default;
    DeviceCharge(std::shared_ptr<MemoryBudget> b, size_t n) : budget(std::move(b)), bytes(n) {}
    DeviceCharge(const DeviceCharge&) = delete;
    DeviceCharge& operator=(const DeviceCharge&) = delete;
    ~DeviceCharge() {
      if (budget) budget->refund_device(bytes);
    }
  };
  DeviceCharge charge_;
  Buffer buffer_;
};

// The storage of a Vulkan tensor; throws when `t` is not one.
const VulkanStorage& storage_of(const Tensor& t);

// A contiguous float32 tensor of `sizes` over bytes of `whole` from `byte_offset`: writing it
// writes them (a convolution placing its output as channels of a concatenation). Throws unless
// the range lies inside `whole`.
Tensor slice_for_writing(const Tensor& whole, size_t byte_offset, const IntList& sizes);

}  // namespace tvk::vulkan
