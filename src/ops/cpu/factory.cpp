// Factories: empty, empty_strided, zeros, ones, zeros_like, ones_like. They make tensors on the device they are given
// (CPU when None), so one kernel serves every device. dtype is PyTorch's ScalarType code.
#include "ops/registry.h"
#include "ops/shape_utils.h"

namespace tvk::ops::cpu {
namespace {

Device device_or_cpu(std::optional<Device> device) { return device.value_or(Device::CPU); }

Tensor empty_memory_format(IntList size, std::optional<int64_t> dtype, std::optional<int64_t>,
                           std::optional<Device> device, std::optional<bool>, std::optional<int64_t>) {
  return empty(size, dtype_from_code("aten::empty", dtype), device_or_cpu(device));
}

// On the CPU the strides are honoured; a Vulkan tensor is always contiguous, so there they
// only have to be valid.
Tensor empty_strided(IntList size, IntList stride, std::optional<int64_t> dtype, std::optional<int64_t>,
                     std::optional<Device> device, std::optional<bool>) {
  const char* op = "aten::empty_strided";
  TVK_CHECK(size.size() == stride.size(), op, ": size ", shape_string(size), " and stride ", shape_string(stride),
            " differ in length");
  int64_t extent = 1;
  for (size_t i = 0; i < size.size(); ++i) {
    TVK_CHECK(size[i] >= 0 && stride[i] >= 0, op, ": negative size or stride in ", shape_string(size), " / ",
              shape_string(stride));
    extent += (size[i] - 1) * stride[i];
  }
  const DType type = dtype_from_code(op, dtype);
  if (device_or_cpu(device) != Device::CPU) return empty(size, type, *device);
  if (numel_of(size) == 0) return empty(size, type).as_strided(size, stride, 0);
  return empty({extent}, type).as_strided(size, stride, 0);
}

Tensor zeros(IntList size, std::optional<int64_t> dtype, std::optional<int64_t>, std::optional<Device> device,
             std::optional<bool>) {
  return tvk::zeros(size, dtype_from_code("aten::zeros", dtype), device_or_cpu(device));
}
Tensor ones(IntList size, std::optional<int64_t> dtype, std::optional<int64_t>, std::optional<Device> device,
            std::optional<bool>) {
  return tvk::ones(size, dtype_from_code("aten::ones", dtype), device_or_cpu(device));
}

// zeros_like / ones_like: self's shape, and self's dtype and device unless given.
Tensor filled_like(const char* op, const Tensor& self, double value, std::optional<int64_t> dtype,
                   std::optional<Device> device) {
  check_defined(op, self);
  const DType type = dtype ? dtype_from_code(op, dtype) : self.dtype();
  return tvk::full(self.sizes(), value, type, device.value_or(self.device()));
}
Tensor zeros_like(const Tensor& self, std::optional<int64_t> dtype, std::optional<int64_t>,
                  std::optional<Device> device, std::optional<bool>, std::optional<int64_t>) {
  return filled_like("aten::zeros_like", self, 0.0, dtype, device);
}
Tensor ones_like(const Tensor& self, std::optional<int64_t> dtype, std::optional<int64_t>,
                 std::optional<Device> device, std::optional<bool>, std::optional<int64_t>) {
  return filled_like("aten::ones_like", self, 1.0, dtype, device);
}

}  // namespace

TVK_REGISTER_OP_ANY_DEVICE("aten::zeros_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, "
                           "Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
                           zeros_like);
TVK_REGISTER_OP_ANY_DEVICE("aten::ones_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, "
                           "Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
                           ones_like);
TVK_REGISTER_OP_ANY_DEVICE("aten::empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, "
                           "Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
                           empty_memory_format);
TVK_REGISTER_OP_ANY_DEVICE("aten::empty_strided(SymInt[] size, SymInt[] stride, *, ScalarType? dtype=None, "
                           "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
                           empty_strided);
TVK_REGISTER_OP_ANY_DEVICE("aten::zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, "
                           "Device? device=None, bool? pin_memory=None) -> Tensor",
                           zeros);
TVK_REGISTER_OP_ANY_DEVICE("aten::ones(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, "
                           "Device? device=None, bool? pin_memory=None) -> Tensor",
                           ones);

}  // namespace tvk::ops::cpu
