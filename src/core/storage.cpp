#include "core/storage.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "tvk/error.h"

namespace tvk {

CpuStorage::CpuStorage(size_t nbytes) : Storage(nbytes) {
  size_t padded = ((nbytes + 63) / 64) * 64;
  if (padded == 0) padded = 64;
  data_ = std::aligned_alloc(64, padded);
  if (data_ == nullptr)
    throw OutOfMemoryError(detail::concat("out of host memory allocating ", nbytes, " bytes"));
  std::memset(data_, 0, padded);
  deleter_ = [](void* p) { std::free(p); };
}

CpuStorage::CpuStorage(void* borrowed, size_t nbytes, std::function<void(void*)> deleter)
    : Storage(nbytes), data_(borrowed), deleter_(std::move(deleter)) {}

CpuStorage::~CpuStorage() {
  if (deleter_) deleter_(data_);
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
