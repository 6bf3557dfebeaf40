// Storage: the bytes behind tensors, and the interface a device backend implements.
// The core knows no Vulkan: the Vulkan layer registers a DeviceBackend at start-up.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

#include "tvk/device.h"
#include "tvk/tensor.h"
#include "tvk/vulkan_info.h"

namespace tvk {

// Where the elements of a copy made by a view op came from. Vulkan's view ops (select, slice,
// permute...) copy, since Vulkan tensors are contiguous; PyTorch's return views, so that
// `x[a:b] = v` (a slice, then copy_) writes into x. The copy's storage keeps this note, and an
// in-place op on it writes the copy back through it (ops/registry.cpp, write_back_view). The
// root is the first storage that is not such a copy, held weakly: once it is gone nothing can
// read what a write-back would give it.
struct ViewSource {
  std::weak_ptr<Storage> root;
  IntList sizes, strides;  // the copy's elements, in its storage's order, as a view of the root
  int64_t offset = 0;
  DType dtype = DType::Float32;
  // False when the view of the view could not be expressed as one strided view of the root
  // (a reshape that strides cannot express): writing through it is an error.
  bool writable = true;
};

class Storage {
 public:
  explicit Storage(size_t nbytes) : nbytes_(nbytes) {}
  virtual ~Storage() = default;
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  virtual Device device() const = 0;
  size_t nbytes() const { return nbytes_; }

  // Set once, by the view op that made this storage, before its tensor is handed out.
  void set_view_source(ViewSource source) { view_source_ = std::make_unique<ViewSource>(std::move(source)); }
  const ViewSource* view_source() const { return view_source_.get(); }
  void forbid_writes_through_view() {
    if (view_source_) view_source_->writable = false;
  }

 private:
  size_t nbytes_;
  std::unique_ptr<ViewSource> view_source_;
};

// Host memory, owned or borrowed (from_blob).
class CpuStorage final : public Storage {
 public:
  // Owned allocations of at least this many bytes are page-aligned and padded to whole pages.
  static constexpr size_t kPageAlignedBytes = size_t{64} << 10;
  explicit CpuStorage(size_t nbytes);  // zero-filled, 64-byte aligned (or page-aligned, above)
  CpuStorage(void* borrowed, size_t nbytes, std::function<void(void*)> deleter);
  ~CpuStorage() override;
  Device device() const override { return Device::CPU; }
  void* data() const { return data_; }
  // The bytes that belong to this storage from data() on: nbytes() and an owned allocation's
  // padding.
  size_t capacity() const { return capacity_; }

 private:
  void* data_ = nullptr;
  size_t capacity_ = 0;
  std::function<void(void*)> deleter_;
  // The run's budget this allocation was charged to (made inside model code), else null.
  std::shared_ptr<class MemoryBudget> charged_;
};

// Work recorded once and run many times (see DeviceBackend::begin_capture).
class DeviceCapture {
 public:
  virtual ~DeviceCapture() = default;
  // Stops recording on this thread.
  virtual void end() = 0;
  // False when the recording could not be kept (something read results back while capturing,
  // which ran the work there and then): the work is done, but replay() is not available.
  virtual bool replayable() const = 0;
  // Runs the recorded work again and waits for it.
  virtual void replay() = 0;
  // Where to write new bytes for the host data last uploaded from `source` while capturing, so
  // the next replay uploads them instead; nullptr when nothing was uploaded from there.
  virtual void* upload_slot(const void* source, size_t nbytes) const = 0;
  // A large upload may be sent in chunks, each as soon as the host has written it into its slot,
  // so that the device copies one chunk while the host writes the next: the chunk size for
  // `slot` (an upload_slot), 0 where the upload is sent whole with the replay.
  virtual size_t upload_chunk_bytes(const void* /*slot*/) const { return 0; }
  // Sends chunk `chunk` of the upload at `slot` for the next replay: chunks in order, each once;
  // replay() sends those not sent before it.
  virtual void send_upload_chunk(const void* /*slot*/, size_t /*chunk*/) {}
  // Sends the upload at `slot` for the next replay straight from `source` (nbytes of host
  // memory in `owner`), which the device then reads itself: no copy into the slot. The backend
  // may keep `owner` alive, and mapped, until a later call with other memory or its own end.
  // The source must not change until the replay has finished. False when it cannot (the
  // device lacks the means, the memory is not aligned as it needs, chunks were sent): then the
  // caller writes the slot.
  virtual bool send_upload_from(const void* /*slot*/, const std::shared_ptr<const CpuStorage>& /*owner*/,
                                const void* /*source*/, size_t /*nbytes*/) {
    return false;
  }
  // While recording: copies the first `nbytes` of `storage` (a tensor of this device) into host
  // memory as the recording's last step, and again at the end of every replay. Returns where
  // the bytes land, readable once the work has finished; nullptr when the backend has no such
  // copy (the caller then downloads after the work).
  virtual const void* download_slot(const Storage& storage, size_t nbytes) = 0;
  virtual size_t dispatches() const = 0;
  // Commands (dispatches and copies) recorded so far: a caller compares two counts to learn
  // whether a step put work on the device.
  virtual size_t commands() const = 0;
  // Whether this thread is still recording into it (false once ended or broken by a read-back).
  virtual bool recording() const = 0;
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
  // Records the work this thread queues from now until end() instead of running it (storages
  // allocated meanwhile belong to the recording's memory plan); nullptr when not possible now.
  virtual std::unique_ptr<DeviceCapture> begin_capture() { return nullptr; }
  // False while recordings should not be used (a profile wants every dispatch timed).
  virtual bool replay_allowed() { return false; }
  // Puts `tuning` (tvk/vulkan_info.h) in force for this thread's kernels until the returned
  // object is dropped; nullptr where the backend does not tune.
  virtual std::shared_ptr<void> tuning_scope(Tuning /*tuning*/) { return nullptr; }
};

// Registration hook (called from the backend's static initialiser); nullptr when absent.
void register_device_backend(Device device, DeviceBackend* backend);
DeviceBackend* device_backend(Device device);
// Throws tvk::Error explaining why when the backend is missing or unavailable.
DeviceBackend& require_device_backend(Device device);

}  // namespace tvk
