// aten::to: the transfers optimize_for_mobile inserts at a model's inputs and outputs, and dtype
// conversions. Moves serve every device; a conversion runs on the CPU (cpu_loops.h
// copy_converting), and on Vulkan throws UnsupportedError, which the opt-in CPU fallback takes.
#include "ops/cpu/cpu_loops.h"
#include "ops/registry.h"
#include "ops/shape_utils.h"

namespace tvk::ops::cpu {
namespace {

Tensor convert(const Tensor& self, DType type) {
  if (self.device() != Device::CPU)
    throw UnsupportedError(detail::concat("aten::to: converting a ", to_string(self.device()), " tensor from ",
                                          to_string(self.dtype()), " to ", to_string(type),
                                          " is not supported there (the CPU fallback runs it on the CPU)"));
  Tensor out = empty(self.sizes(), type);
  copy_converting(out, self);
  return out;
}

Tensor to_impl(const Tensor& self, std::optional<Device> device, std::optional<int64_t> dtype, bool copy) {
  check_defined("aten::to", self);
  const DType type = dtype ? dtype_from_code("aten::to", dtype) : self.dtype();
  if (type != self.dtype()) {
    // Convert where the data is cheapest to read: on the CPU before a move away, after a move to it.
    return self.device() == Device::CPU ? convert(self, type).to(device.value_or(Device::CPU))
                                        : convert(self.to(device.value_or(self.device())), type);
  }
  Tensor out = self.to(device.value_or(self.device()));
  return copy && out.is_same(self) ? out.clone() : out;
}

Tensor to_prim_device(const Tensor& self, std::optional<Device> device, std::optional<int64_t> dtype, bool, bool copy) {
  return to_impl(self, device, dtype, copy);
}
Tensor to_device(const Tensor& self, Device device, int64_t dtype, bool, bool copy, std::optional<int64_t>) {
  return to_impl(self, device, dtype, copy);
}
Tensor to_dtype(const Tensor& self, int64_t dtype, bool, bool copy, std::optional<int64_t>) {
  return to_impl(self, std::nullopt, dtype, copy);
}
// x.to(other): other's dtype and device.
Tensor to_other(const Tensor& self, const Tensor& other, bool, bool copy, std::optional<int64_t>) {
  check_defined("aten::to", other, "other");
  return to_impl(self, other.device(), dtype_code(other.dtype()), copy);
}

}  // namespace

TVK_REGISTER_OP_ANY_DEVICE("aten::to.prim_Device(Tensor(a) self, Device? device, int? dtype=None, "
                           "bool non_blocking=False, bool copy=False) -> Tensor(b|a)",
                           to_prim_device);
TVK_REGISTER_OP_ANY_DEVICE("aten::to.device(Tensor(a) self, Device device, ScalarType dtype, bool non_blocking=False, "
                           "bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)",
                           to_device);
TVK_REGISTER_OP_ANY_DEVICE("aten::to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, "
                           "MemoryFormat? memory_format=None) -> Tensor(a)",
                           to_dtype);
TVK_REGISTER_OP_ANY_DEVICE("aten::to.other(Tensor(a) self, Tensor other, bool non_blocking=False, bool copy=False, "
                           "MemoryFormat? memory_format=None) -> Tensor(a)",
                           to_other);

}  // namespace tvk::ops::cpu
