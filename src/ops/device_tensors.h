// Tensors a packed context keeps on the CPU (what it pickles) and gives on the device a call runs
// on, moved there once: the LSTM, GRU, batch-norm and layer-norm contexts of
// optimize_for_mobile(backend="vulkan"). Undefined tensors (an absent bias) stay undefined.
#pragma once

#include <mutex>
#include <vector>

#include "tvk/tensor.h"

namespace tvk::ops {

class DeviceTensors {
 public:
  // Keeps CPU copies of `tensors` (before any call runs).
  void set(const std::vector<Tensor>& tensors) {
    cpu_.clear();
    for (const Tensor& t : tensors) cpu_.push_back(t.defined() ? t.cpu() : Tensor());
  }
  const std::vector<Tensor>& cpu() const { return cpu_; }
  // The tensors on `device` (the CPU copies for the CPU).
  const std::vector<Tensor>& on(Device device) const {
    if (device == Device::CPU) return cpu_;
    std::lock_guard<std::mutex> lock(mutex_);
    if (moved_.empty() || device_ != device) {
      moved_.clear();
      for (const Tensor& t : cpu_) moved_.push_back(t.defined() ? t.to(device) : Tensor());
      device_ = device;
    }
    return moved_;
  }

 private:
  std::vector<Tensor> cpu_;
  mutable std::mutex mutex_;
  mutable std::vector<Tensor> moved_;
  mutable Device device_ = Device::CPU;
};

}  // namespace tvk::ops
