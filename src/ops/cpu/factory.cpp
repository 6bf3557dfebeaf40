// Factories: empty, empty_strided, zeros, ones, zeros_like, ones_like, new_zeros, tensor, clone.
// They make tensors on the device they are given (CPU when None; self's for new_zeros and
// clone), so one kernel serves every device. dtype is PyTorch's ScalarType code.
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

// x.new_zeros(size): self's dtype and device unless given (swin_t's attention mask).
Tensor new_zeros(const Tensor& self, IntList size, std::optional<int64_t> dtype, std::optional<int64_t>,
                 std::optional<Device> device, std::optional<bool>) {
  check_defined("aten::new_zeros", self);
  const DType type = dtype ? dtype_from_code("aten::new_zeros", dtype) : self.dtype();
  return tvk::zeros(size, type, device.value_or(self.device()));
}

// torch.tensor(number, dtype=, device=): a 0-D tensor; int64 for ints, float32 for floats and
// bool for bools unless dtype says otherwise.
Tensor tensor_of(const char* op, double value, DType natural, std::optional<int64_t> dtype, std::optional<Device> device) {
  return tvk::full({}, value, dtype ? dtype_from_code(op, dtype) : natural, device_or_cpu(device));
}
Tensor tensor_int(int64_t t, std::optional<int64_t> dtype, std::optional<Device> device, bool) {
  TVK_CHECK(dtype || (t > -(int64_t{1} << 53) && t < (int64_t{1} << 53)), "aten::tensor: ", t,
            " is beyond the integers tvk's factories hold exactly (2^53)");
  return tensor_of("aten::tensor", static_cast<double>(t), DType::Int64, dtype, device);
}
Tensor tensor_float(double t, std::optional<int64_t> dtype, std::optional<Device> device, bool) {
  return tensor_of("aten::tensor", t, DType::Float32, dtype, device);
}
Tensor tensor_bool(bool t, std::optional<int64_t> dtype, std::optional<Device> device, bool) {
  return tensor_of("aten::tensor", t ? 1.0 : 0.0, DType::Bool, dtype, device);
}

Tensor clone(const Tensor& self, std::optional<int64_t>) {
  check_defined("aten::clone", self);
  return self.clone();
}

}  // namespace

TVK_REGISTER_OP_ANY_DEVICE("aten::new_zeros(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, "
                           "Device? device=None, bool? pin_memory=None) -> Tensor",
                           new_zeros);
TVK_REGISTER_OP_ANY_DEVICE("aten::tensor.int(int t, *, ScalarType? dtype=None, Device? device=None, "
                           "bool requires_grad=False) -> Tensor",
                           tensor_int);
TVK_REGISTER_OP_ANY_DEVICE("aten::tensor.float(float t, *, ScalarType? dtype=None, Device? device=None, "
                           "bool requires_grad=False) -> Tensor",
                           tensor_float);
TVK_REGISTER_OP_ANY_DEVICE("aten::tensor.bool(bool t, *, ScalarType? dtype=None, Device? device=None, "
                           "bool requires_grad=False) -> Tensor",
                           tensor_bool);
TVK_REGISTER_OP_ANY_DEVICE("aten::clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor", clone);
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
