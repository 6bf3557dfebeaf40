// Ops that read only a tensor's metadata (size, dim, numel, is_floating_point) or its single
// value (Int, Float, item):
// one kernel serves every device.
#include "ops/registry.h"
#include "ops/shape_utils.h"

namespace tvk::ops::cpu {
namespace {

IntList size(const Tensor& self) { return self.sizes(); }
int64_t size_int(const Tensor& self, int64_t dim) { return self.sizes()[wrap_dim("aten::size", dim, self.dim())]; }
int64_t dim(const Tensor& self) { return self.dim(); }
int64_t numel(const Tensor& self) { return self.numel(); }
// len(t): the size of the first dimension (TorchScript's aten::len.Tensor; the interpreter's
// len builtin answers the same when it runs, this op when a graph is frozen).
int64_t len_tensor(const Tensor& t) {
  check_defined("aten::len", t, "t");
  TVK_CHECK(t.dim() > 0, "aten::len: len() of a 0-d tensor");
  return t.sizes()[0];
}

double single_value(const char* op, const Tensor& a) {
  check_defined(op, a, "a");
  TVK_CHECK(a.numel() == 1, op, ": expected a one-element tensor, got ", a.shape_string());
  return a.item();
}
// Float to int truncates toward zero, as C++ and PyTorch's item<int64_t>() do.
int64_t int_tensor(const Tensor& a) {
  if (a.dtype() == DType::Int64) {
    TVK_CHECK(a.numel() == 1, "aten::Int: expected a one-element tensor, got ", a.shape_string());
    return *a.cpu().contiguous().data<int64_t>();  // exact beyond 2^53
  }
  return static_cast<int64_t>(single_value("aten::Int", a));
}
double float_tensor(const Tensor& a) { return single_value("aten::Float", a); }
bool is_floating_point(const Tensor& self) {
  check_defined("aten::is_floating_point", self);
  return self.dtype() == DType::Float32;
}
// x.item(): a Python number of the tensor's kind (int for int64, exact; bool for bool).
IValue item(const Tensor& self) {
  check_defined("aten::item", self);
  switch (self.dtype()) {
    case DType::Int64: return IValue(int_tensor(self));
    case DType::Bool: return IValue(single_value("aten::item", self) != 0);
    case DType::Float32: break;
  }
  return IValue(single_value("aten::item", self));
}
// A number as a 0-D CPU tensor (traced models wrap sizes in it before int()): int64 for ints,
// float32 for floats.
Tensor num_to_tensor(const IValue& a) {
  TVK_CHECK(a.isInt() || a.isDouble() || a.isBool(), "prim::NumToTensor: expected a number, got ", a.tag_name());
  if (a.isDouble()) return full({}, a.toDouble());
  Tensor t = empty({}, DType::Int64);
  *t.data<int64_t>() = a.isBool() ? static_cast<int64_t>(a.toBool()) : a.toInt();
  return t;
}

}  // namespace

TVK_REGISTER_OP_ANY_DEVICE("aten::size(Tensor self) -> int[]", size);
TVK_REGISTER_OP_ANY_DEVICE("aten::size.int(Tensor self, int dim) -> int", size_int);
TVK_REGISTER_OP_ANY_DEVICE("aten::dim(Tensor self) -> int", dim);
TVK_REGISTER_OP_ANY_DEVICE("aten::numel(Tensor self) -> int", numel);
TVK_REGISTER_OP_ANY_DEVICE("aten::len.Tensor(Tensor t) -> int", len_tensor);
TVK_REGISTER_OP_ANY_DEVICE("aten::Int.Tensor(Tensor a) -> int", int_tensor);
TVK_REGISTER_OP_ANY_DEVICE("aten::Float.Tensor(Tensor a) -> float", float_tensor);
TVK_REGISTER_OP_ANY_DEVICE("aten::is_floating_point(Tensor self) -> bool", is_floating_point);
TVK_REGISTER_OP_ANY_DEVICE("aten::item(Tensor self) -> Scalar", item);
TVK_REGISTER_OP_ANY_DEVICE("aten::_local_scalar_dense(Tensor self) -> Scalar", item);
TVK_REGISTER_OP("prim::NumToTensor.Scalar(Scalar a) -> Tensor", num_to_tensor);

}  // namespace tvk::ops::cpu
