// Storage: the bytes behind tensors, and the interface a device backend implements.
// The core knows no Vulkan: the Vulkan layer registers a DeviceBackend at start-up.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

#include "tvk/device.h"

namespace tvk {

class Storage {
 public:
  explicit Storage(size_t nbytes) : nbytes_(nbytes) {}
  virtual ~Storage() = default;
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  virtual Device device() const = 0;
  size_t nbytes() const { return nbytes_; }

 private:
  size_t nbytes_;
};

// Host memory, owned or borrowed (from_blob).
class CpuStorage final : public Storage {
 public:
  explicit CpuStorage(size_t nbytes);  // zero-filled, 64-byte aligned
  CpuStorage(void* borrowed, size_t nbytes, std::function<void(void*)> deleter);
  ~CpuStorage() override;
  Device device() const override { return Device::CPU; }
  void* data() const { return data_; }

 private:
  void* data_ = nullptr;
  std::function<void(void*)> deleter_;
};

// What a device other than the CPU provides to the core.
class DeviceBackend {
 public:
  virtual ~DeviceBackend() = default;
  // Lazily initialises; false (never a throw) when the device cannot be used.
  virtual bool available() = 0;
  // Why available() is false, for error messages.
  virtual std::string unavailable_reason() = 0;
  virtual std::shared_ptr<Storage> allocate(size_t nbytes) = 0;
  // Copies host bytes into `dst`; the backend keeps `dst` alive until the copy has run, so the
  // caller may drop it at once.
  virtual void upload(const std::shared_ptr<Storage>& dst, const void* src, size_t nbytes) = 0;
  virtual void download(const Storage& src, void* dst, size_t nbytes) = 0;
  // Device-to-device copy of the first `nbytes`.
  virtual void copy(const std::shared_ptr<Storage>& src, const std::shared_ptr<Storage>& dst, size_t nbytes) = 0;
  // Waits until all queued work is done.
  virtual void synchronize() = 0;
};

// Registration hook (called from the backend's static initialiser); nullptr when absent.
void register_device_backend(Device device, DeviceBackend* backend);
DeviceBackend* device_backend(Device device);
// Throws tvk::Error explaining why when the backend is missing or unavailable.
DeviceBackend& require_device_backend(Device device);

}  // namespace tvk
