// aten::to: the transfers optimize_for_mobile inserts at a model's inputs and outputs, and dtype
// conversions. Moves serve every device; a conversion runs on the CPU (cpu_loops.h
// copy_converting); on Vulkan, masks convert to and from bool with Vulkan kernels, and other
// conversions throw UnsupportedError, which the opt-in CPU fallback takes.
#include "ops/cpu/cpu_loops.h"
#include "ops/registry.h"
#include "ops/shape_utils.h"

namespace tvk::ops::cpu {
namespace {

Tensor convert(const Tensor& self, DType type) {
  // On Vulkan, masks convert with Vulkan kernels: to bool as x != 0, from bool as a fill of ones
  // where the mask is set.
  if (self.device() == Device::Vulkan && type == DType::Bool)
    return call("aten::ne.Scalar", {self, IValue(0.0)}).toTensor();
  if (self.device() == Device::Vulkan && self.dtype() == DType::Bool && type == DType::Float32)
    return call("aten::masked_fill.Scalar", {zeros(self.sizes(), DType::Float32, Device::Vulkan), self, IValue(1.0)})
        .toTensor();
  if (self.device() != Device::CPU)
    throw UnsupportedError(detail::concat("aten::to: converting a ", to_string(self.device()), " tensor from ",
                                          to_string(self.dtype()), " to ", to_string(type),
                                          " is not supported there (the CPU fallback, --cpu-fallback or TVK_CPU_FALLBACK=1, runs it on the CPU)"));
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

// The keyword form (D2Go's files: x.to(dtype=..., layout=..., device=..., pin_memory=...,
// non_blocking=..., copy=..., memory_format=...)); layout, pinning and memory format do not
// change a tvk tensor's values.
Tensor to_dtype_layout(const Tensor& self, std::optional<int64_t> dtype, std::optional<int64_t>,
                       std::optional<Device> device, std::optional<bool>, bool, bool copy, std::optional<int64_t>) {
  return to_impl(self, device, dtype, copy);
}
Tensor to_prim_dtype(const Tensor& self, std::optional<int64_t> dtype, bool, bool copy) {
  return to_impl(self, std::nullopt, dtype, copy);
}
Tensor to_prim_other(const Tensor& self, bool, bool copy) { return to_impl(self, std::nullopt, std::nullopt, copy); }
Tensor type_as(const Tensor& self, const Tensor& other) {
  check_defined("aten::type_as", other, "other");
  return to_impl(self, std::nullopt, dtype_code(other.dtype()), false);
}

}  // namespace

TVK_REGISTER_OP_ANY_DEVICE("aten::to.dtype_layout(Tensor(a) self, *, ScalarType? dtype=None, Layout? layout=None, "
                           "Device? device=None, bool? pin_memory=None, bool non_blocking=False, bool copy=False, "
                           "MemoryFormat? memory_format=None) -> Tensor(a)",
                           to_dtype_layout);
TVK_REGISTER_OP_ANY_DEVICE("aten::to.prim_dtype(Tensor(a) self, int? dtype=None, bool non_blocking=False, "
                           "bool copy=False) -> Tensor(b|a)",
                           to_prim_dtype);
TVK_REGISTER_OP_ANY_DEVICE("aten::to.prim_other(Tensor(a) self, bool non_blocking=False, bool copy=False) -> Tensor(b|a)",
                           to_prim_other);
TVK_REGISTER_OP_ANY_DEVICE("aten::type_as(Tensor self, Tensor other) -> Tensor", type_as);
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
