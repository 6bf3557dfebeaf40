// tvk::Tensor: a strided view over a storage that lives on one device.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "tvk/device.h"
#include "tvk/dtype.h"
#include "tvk/error.h"

namespace tvk {

class Storage;
using IntList = std::vector<int64_t>;

class Tensor {
 public:
  Tensor() = default;  // undefined tensor
  Tensor(std::shared_ptr<Storage> storage, IntList sizes, IntList strides, int64_t offset, DType dtype);

  bool defined() const { return storage_ != nullptr; }
  const IntList& sizes() const { return sizes_; }
  const IntList& strides() const { return strides_; }
  int64_t size(int64_t dim) const;
  int64_t stride(int64_t dim) const;
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t numel() const;
  int64_t storage_offset() const { return offset_; }
  DType dtype() const { return dtype_; }
  Device device() const;
  bool is_vulkan() const { return device() == Device::Vulkan; }
  bool is_contiguous() const;
  size_t nbytes() const { return static_cast<size_t>(numel()) * element_size(dtype_); }
  const std::shared_ptr<Storage>& storage() const { return storage_; }

  // Element pointer of a CPU tensor (at storage_offset); throws for other devices or dtypes.
  template <typename T> T* data() const {
    check_data_access(dtype_of<T>::value);
    return static_cast<T*>(raw_data());
  }
  void* raw_data() const;

  // Device moves: copies (a no-op returning *this when already there).
  Tensor to(Device device) const;
  Tensor vulkan() const { return to(Device::Vulkan); }
  Tensor cpu() const { return to(Device::CPU); }

  // Shape views that never copy; throw when the strides cannot express them.
  Tensor as_strided(IntList sizes, IntList strides, int64_t offset) const;
  Tensor view(IntList sizes) const;
  // Ops that may copy; these go through the dispatcher.
  Tensor contiguous() const;
  Tensor clone() const;
  Tensor reshape(IntList sizes) const;

  // The single value of a one-element CPU or Vulkan tensor, as double.
  double item() const;
  std::string shape_string() const;
  // Same storage, same view.
  bool is_same(const Tensor& other) const;

 private:
  void check_data_access(DType want) const;

  std::shared_ptr<Storage> storage_;
  IntList sizes_;
  IntList strides_;
  int64_t offset_ = 0;
  DType dtype_ = DType::Float32;
};

// Both throw tvk::Error when a product overflows int64 (sizes come from model files).
IntList contiguous_strides(const IntList& sizes);
int64_t numel_of(const IntList& sizes);
// Throws tvk::Error unless the view (sizes, strides and offset in elements of `element_size`
// bytes) addresses only bytes below `storage_bytes`: non-negative sizes, strides and offset, and
// no overflow on the way. Every tensor is checked by this when it is made, and every geometry a
// device kernel is given, so no index past a buffer reaches a kernel.
void check_view_in_bounds(const IntList& sizes, const IntList& strides, int64_t offset, size_t element_size,
                          size_t storage_bytes);
// The bytes a view spans from its storage's start: one past its last element (0 when it holds
// none). The same checks, throwing tvk::Error; how borrowed memory (from_blob, DLPack) is sized.
uint64_t view_end_bytes(const IntList& sizes, const IntList& strides, int64_t offset, size_t element_size);
std::string shape_string(const IntList& sizes);

// Factories: contiguous tensors on `device` (CPU by default).
Tensor empty(IntList sizes, DType dtype = DType::Float32, Device device = Device::CPU);
Tensor zeros(IntList sizes, DType dtype = DType::Float32, Device device = Device::CPU);
Tensor ones(IntList sizes, DType dtype = DType::Float32, Device device = Device::CPU);
Tensor full(IntList sizes, double value, DType dtype = DType::Float32, Device device = Device::CPU);
// Uniform [0, 1) floats from a generator seeded by `seed` (deterministic per seed).
Tensor rand(IntList sizes, uint64_t seed = 0, Device device = Device::CPU);
// Standard normal floats, deterministic per seed.
Tensor randn(IntList sizes, uint64_t seed = 0, Device device = Device::CPU);
// Wraps caller memory without copying; the caller keeps it alive. Strides default to contiguous.
Tensor from_blob(void* data, IntList sizes, DType dtype = DType::Float32, IntList strides = {});
// Copies `values` into a new CPU tensor of `sizes`.
Tensor tensor_from(const std::vector<float>& values, IntList sizes);

}  // namespace tvk
