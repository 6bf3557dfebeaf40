// Elementwise arithmetic with broadcasting: add, sub, mul, div (Tensor and Scalar forms).
#include "ops/cpu/cpu_loops.h"
#include "ops/registry.h"
#include "ops/shape_utils.h"

namespace tvk::ops::cpu {
namespace {

template <typename F>
Tensor broadcast_binary(const char* op, const Tensor& a, const Tensor& b, F&& f) {
  check_float(op, a, "self");
  check_float(op, b, "other");
  const IntList sizes = broadcast_shapes(op, a.sizes(), b.sizes());
  Tensor out = empty(sizes);
  const float* pa = a.data<float>();
  const float* pb = b.data<float>();
  float* po = out.data<float>();
  strided_loop<2>(sizes, {broadcast_strides(a, sizes), broadcast_strides(b, sizes)},
                  [&](int64_t i, int64_t oa, int64_t ob) { po[i] = f(pa[oa], pb[ob]); });
  return out;
}

// Writes `result` (same shape as `self`) back into `self`'s possibly strided view.
Tensor assign_in_place(const char* op, const Tensor& self, const Tensor& result) {
  TVK_CHECK(result.sizes() == self.sizes(), op, ": output of shape ", result.shape_string(),
            " does not match the in-place target ", self.shape_string());
  float* dst = self.data<float>();
  const float* src = result.data<float>();
  strided_loop<1>(self.sizes(), {self.strides()}, [&](int64_t i, int64_t o) { dst[o] = src[i]; });
  return self;
}

Tensor add_tensor(const Tensor& self, const Tensor& other, Scalar alpha) {
  const float a = static_cast<float>(alpha);
  return broadcast_binary("aten::add", self, other, [a](float x, float y) { return x + a * y; });
}
Tensor add_scalar(const Tensor& self, Scalar other, Scalar alpha) {
  check_float("aten::add", self);
  const float v = static_cast<float>(other * alpha);
  return map_float(self, [v](float x) { return x + v; });
}
Tensor add_inplace(const Tensor& self, const Tensor& other, Scalar alpha) {
  return assign_in_place("aten::add_", self, add_tensor(self, other, alpha));
}
Tensor sub_tensor(const Tensor& self, const Tensor& other, Scalar alpha) {
  const float a = static_cast<float>(alpha);
  return broadcast_binary("aten::sub", self, other, [a](float x, float y) { return x - a * y; });
}
Tensor sub_scalar(const Tensor& self, Scalar other, Scalar alpha) {
  check_float("aten::sub", self);
  const float v = static_cast<float>(other * alpha);
  return map_float(self, [v](float x) { return x - v; });
}
Tensor mul_tensor(const Tensor& self, const Tensor& other) {
  return broadcast_binary("aten::mul", self, other, [](float x, float y) { return x * y; });
}
Tensor mul_scalar(const Tensor& self, Scalar other) {
  check_float("aten::mul", self);
  const float v = static_cast<float>(other);
  return map_float(self, [v](float x) { return x * v; });
}
Tensor div_tensor(const Tensor& self, const Tensor& other) {
  return broadcast_binary("aten::div", self, other, [](float x, float y) { return x / y; });
}
Tensor div_scalar(const Tensor& self, Scalar other) {
  check_float("aten::div", self);
  const float v = static_cast<float>(other);
  return map_float(self, [v](float x) { return x / v; });
}

// In-place forms: the result is computed as by the out-of-place op and written back into
// `self` (which may be a strided view), after checking it keeps self's shape.
Tensor sub_inplace(const Tensor& self, const Tensor& other, Scalar alpha) {
  return assign_in_place("aten::sub_", self, sub_tensor(self, other, alpha));
}
Tensor mul_inplace(const Tensor& self, const Tensor& other) {
  return assign_in_place("aten::mul_", self, mul_tensor(self, other));
}
Tensor div_inplace(const Tensor& self, const Tensor& other) {
  return assign_in_place("aten::div_", self, div_tensor(self, other));
}
Tensor add_scalar_inplace(const Tensor& self, Scalar other, Scalar alpha) {
  return assign_in_place("aten::add_", self, add_scalar(self, other, alpha));
}
Tensor sub_scalar_inplace(const Tensor& self, Scalar other, Scalar alpha) {
  return assign_in_place("aten::sub_", self, sub_scalar(self, other, alpha));
}
Tensor mul_scalar_inplace(const Tensor& self, Scalar other) {
  return assign_in_place("aten::mul_", self, mul_scalar(self, other));
}
Tensor div_scalar_inplace(const Tensor& self, Scalar other) {
  return assign_in_place("aten::div_", self, div_scalar(self, other));
}

}  // namespace

TVK_REGISTER_OP("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", add_tensor);
TVK_REGISTER_OP("aten::add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", add_scalar);
TVK_REGISTER_OP("aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)", add_inplace);
TVK_REGISTER_OP("aten::sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", sub_tensor);
TVK_REGISTER_OP("aten::sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", sub_scalar);
TVK_REGISTER_OP("aten::mul.Tensor(Tensor self, Tensor other) -> Tensor", mul_tensor);
TVK_REGISTER_OP("aten::mul.Scalar(Tensor self, Scalar other) -> Tensor", mul_scalar);
TVK_REGISTER_OP("aten::div.Tensor(Tensor self, Tensor other) -> Tensor", div_tensor);
TVK_REGISTER_OP("aten::div.Scalar(Tensor self, Scalar other) -> Tensor", div_scalar);
TVK_REGISTER_OP("aten::sub_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)", sub_inplace);
TVK_REGISTER_OP("aten::mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", mul_inplace);
TVK_REGISTER_OP("aten::div_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", div_inplace);
TVK_REGISTER_OP("aten::add_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)", add_scalar_inplace);
TVK_REGISTER_OP("aten::sub_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)", sub_scalar_inplace);
TVK_REGISTER_OP("aten::mul_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)", mul_scalar_inplace);
TVK_REGISTER_OP("aten::div_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)", div_scalar_inplace);

}  // namespace tvk::ops::cpu
