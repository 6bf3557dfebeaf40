// Ops that are other registered ops under another name or argument order (traced models call
// them: maxvit_t's swapaxes, swin_t's rsub and fill_, LSTMCell's unsafe_chunk), and old archives'
// meaning of div. One
// kernel for both devices: they dispatch on their inputs through the ops they call.
#include "ops/registry.h"
#include "ops/shape_utils.h"
#include "tvk/ops.h"

namespace tvk::ops {
namespace {

Tensor swapaxes(const Tensor& self, int64_t axis0, int64_t axis1) { return transpose(self, axis0, axis1); }

// other - alpha * self
Tensor rsub_tensor(const Tensor& self, const Tensor& other, double alpha) { return sub(other, self, alpha); }
Tensor rsub_scalar(const Tensor& self, double other, double alpha) { return add(mul(self, -alpha), other); }

// self[...] = value: copy_ from a 0-D tensor of self's dtype, on self's device (a view written
// in place reaches what it was taken from through copy_, ops/registry.cpp).
Tensor fill_scalar(const Tensor& self, double value) {
  check_defined("aten::fill_", self);
  const Tensor v = full({}, value, self.dtype(), self.device());
  return ops::call(require_op("aten::copy_"), Stack{IValue(self), IValue(v), IValue(false)}).toTensor();
}
Tensor fill_tensor(const Tensor& self, const Tensor& value) {
  check_defined("aten::fill_", self);
  check_defined("aten::fill_", value, "value");
  TVK_CHECK(value.dim() == 0, "aten::fill_: value must be a 0-D tensor, got ", value.shape_string());
  return fill_scalar(self, value.item());
}

// PyTorch's operator upgraders div_Tensor_0_3 and div_Scalar_0_3: in archives of format
// version 3 or older, torch.div of integral operands rounded toward zero; with a float operand
// it was true division, as now. The interpreter calls these for such archives' div
// (jit/runtime/interpreter.cpp), with integer scalars only.
Tensor legacy_div_tensor(const Tensor& self, const Tensor& other) {
  check_defined("tvk::legacy_div", self);
  check_defined("tvk::legacy_div", other, "other");
  if (self.dtype() == DType::Float32 || other.dtype() == DType::Float32) return div(self, other);
  return ops::call(require_op("aten::div.Tensor_mode"), Stack{IValue(self), IValue(other), IValue(std::string("trunc"))})
      .toTensor();
}
Tensor legacy_div_scalar(const Tensor& self, int64_t other) {
  check_defined("tvk::legacy_div", self);
  if (self.dtype() == DType::Float32) return div(self, static_cast<double>(other));
  return ops::call(require_op("aten::div.Scalar_mode"), Stack{IValue(self), IValue(other), IValue(std::string("trunc"))})
      .toTensor();
}

// The unsafe_ forms differ from chunk and split only in autograd's view tracking (traced
// LSTMCell and GRUCell call unsafe_chunk).
IValue unsafe_chunk(const Tensor& self, int64_t chunks, int64_t dim) {
  return call("aten::chunk", {IValue(self), IValue(chunks), IValue(dim)});
}
IValue unsafe_split(const Tensor& self, int64_t size, int64_t dim) {
  return call("aten::split.Tensor", {IValue(self), IValue(size), IValue(dim)});
}
IValue unsafe_split_with_sizes(const Tensor& self, IntList sizes, int64_t dim) {
  return call("aten::split_with_sizes", {IValue(self), IValue(sizes), IValue(dim)});
}

}  // namespace

TVK_REGISTER_OP_ANY_DEVICE("aten::unsafe_chunk(Tensor self, int chunks, int dim=0) -> Tensor[]", unsafe_chunk);
TVK_REGISTER_OP_ANY_DEVICE("aten::unsafe_split.Tensor(Tensor self, SymInt split_size, int dim=0) -> Tensor[]", unsafe_split);
TVK_REGISTER_OP_ANY_DEVICE("aten::unsafe_split_with_sizes(Tensor self, SymInt[] split_sizes, int dim=0) -> Tensor[]",
                           unsafe_split_with_sizes);
TVK_REGISTER_OP_ANY_DEVICE("tvk::legacy_div.Tensor(Tensor self, Tensor other) -> Tensor", legacy_div_tensor);
TVK_REGISTER_OP_ANY_DEVICE("tvk::legacy_div.Scalar(Tensor self, int other) -> Tensor", legacy_div_scalar);
TVK_REGISTER_OP_ANY_DEVICE("aten::fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)", fill_scalar);
TVK_REGISTER_OP_ANY_DEVICE("aten::fill_.Tensor(Tensor(a!) self, Tensor value) -> Tensor(a!)", fill_tensor);
TVK_REGISTER_OP_ANY_DEVICE("aten::swapaxes(Tensor(a) self, int axis0, int axis1) -> Tensor(a)", swapaxes);
TVK_REGISTER_OP_ANY_DEVICE("aten::swapdims(Tensor(a) self, int dim0, int dim1) -> Tensor(a)", swapaxes);
TVK_REGISTER_OP_ANY_DEVICE("aten::rsub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", rsub_tensor);
TVK_REGISTER_OP_ANY_DEVICE("aten::rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", rsub_scalar);

}  // namespace tvk::ops
