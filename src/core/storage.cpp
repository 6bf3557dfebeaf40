#include "core/storage.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "core/run_scope.h"
#include "tvk/error.h"

namespace tvk {

CpuStorage::CpuStorage(size_t nbytes) : Storage(nbytes) {
  // Large buffers (a batch of images) start and end on page boundaries, so that a device may
  // map them for its copy engine to read (VK_EXT_external_memory_host imports whole pages).
  const size_t alignment = nbytes >= kPageAlignedBytes ? 4096 : 64;
  size_t padded = (nbytes + alignment - 1) / alignment * alignment;
  if (padded == 0) padded = alignment;
  if (padded < nbytes) throw OutOfMemoryError(detail::concat("a CPU tensor of ", nbytes, " bytes"));
  // Inside model code, the allocation counts against the run's budget before it is made.
  if (auto budget = RunScope::memory_owner()) {
    budget->charge(padded, "a CPU tensor");
    charged_ = std::move(budget);
  }
  data_ = std::aligned_alloc(alignment, padded);
  capacity_ = padded;
  if (data_ == nullptr) {
    if (charged_) charged_->refund(padded);
    throw OutOfMemoryError(detail::concat("out of host memory allocating ", nbytes, " bytes"));
  }
  std::memset(data_, 0, padded);
  deleter_ = [](void* p) { std::free(p); };
}

CpuStorage::CpuStorage(void* borrowed, size_t nbytes, std::function<void(void*)> deleter)
    : Storage(nbytes), data_(borrowed), capacity_(nbytes), deleter_(std::move(deleter)) {}

CpuStorage::~CpuStorage() {
  if (deleter_) deleter_(data_);
  if (charged_) charged_->refund(capacity_);
}

namespace {
DeviceBackend*& vulkan_slot() {
  static DeviceBackend* backend = nullptr;
  return backend;
}
}  // namespace

void register_device_backend(Device device, DeviceBackend* backend) {
  if (device == Device::Vulkan) vulkan_slot() = backend;
}

DeviceBackend* device_backend(Device device) {
  return device == Device::Vulkan ? vulkan_slot() : nullptr;
}

DeviceBackend& require_device_backend(Device device) {
  DeviceBackend* backend = device_backend(device);
  if (backend == nullptr)
    throw Error(detail::concat("the ", to_string(device),
                               " backend is not built into this tvk (configure with TVK_USE_VULKAN=ON)"));
  if (!backend->available())
    throw Error(detail::concat("Vulkan is not available: ", backend->unavailable_reason()));
  return *backend;
}

bool is_vulkan_available() {
  DeviceBackend* backend = device_backend(Device::Vulkan);
  if (backend == nullptr) return false;
  try {
    return backend->available();
  } catch (...) {
    return false;
  }
}

}  // namespace tvk
