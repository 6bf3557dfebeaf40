// aten::to with a device: the transfers optimize_for_mobile inserts at a model's inputs and
// outputs. One kernel serves every device (it only moves or converts).
#include "ops/registry.h"
#include "ops/shape_utils.h"

namespace tvk::ops::cpu {
namespace {

Tensor to_prim_device(const Tensor& self, std::optional<Device> device, std::optional<int64_t> dtype, bool,
                      bool copy) {
  check_defined("aten::to", self);
  const DType type = dtype ? dtype_from_code("aten::to", dtype) : self.dtype();
  TVK_CHECK(type == self.dtype(), "aten::to: dtype conversion is not supported (", to_string(self.dtype()), " to ",
            to_string(type), ")");
  Tensor out = self.to(device.value_or(self.device()));
  return copy && out.is_same(self) ? out.clone() : out;
}

Tensor to_device(const Tensor& self, Device device, int64_t dtype, bool non_blocking, bool copy,
                 std::optional<int64_t>) {
  return to_prim_device(self, device, dtype, non_blocking, copy);
}
// x.to(dtype) where the dtype is the tensor's own (a dynamic-quantized linear's
// `Y.to(x.dtype)`): the tensor itself, or a copy.
Tensor to_dtype(const Tensor& self, int64_t dtype, bool non_blocking, bool copy, std::optional<int64_t>) {
  return to_prim_device(self, std::nullopt, dtype, non_blocking, copy);
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

}  // namespace tvk::ops::cpu
