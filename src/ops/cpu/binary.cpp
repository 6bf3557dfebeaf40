// Elementwise arithmetic with broadcasting: add, sub, mul, div, minimum, maximum, atan2, fmod, and remainder and floor_divide
// (a traced model's size arithmetic: `W % 2` on 0-D int64 tensors), Tensor and Scalar forms.
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

#include "core/int_math.h"
#include "ops/cpu/cpu_loops.h"
#include "ops/registry.h"
#include "ops/shape_utils.h"

namespace tvk::ops::cpu {
namespace {

// PyTorch's type promotion over tvk's dtypes: int64 with int64 (or an integral scalar) stays
// int64 for add, sub and mul (traced models do shape arithmetic on 0-D int64 tensors from
// prim::NumToTensor); anything else computes in float32, bools and int64 converted.
bool is_whole(double v) { return v == static_cast<double>(static_cast<int64_t>(v)); }

Tensor to_float(const char* op, const Tensor& t, const char* arg) {
  check_defined(op, t, arg);
  if (t.dtype() == DType::Float32) return t;
  TVK_CHECK(t.device() == Device::CPU, op, ": argument '", arg, "' must be float32, got ", to_string(t.dtype()));
  const Tensor in = t.contiguous();
  Tensor out = empty(t.sizes());
  float* po = out.data<float>();
  if (t.dtype() == DType::Int64) {
    const int64_t* pi = in.data<int64_t>();
    for (int64_t i = 0; i < t.numel(); ++i) po[i] = static_cast<float>(pi[i]);
  } else {
    const bool* pi = in.data<bool>();
    for (int64_t i = 0; i < t.numel(); ++i) po[i] = pi[i] ? 1.0f : 0.0f;
  }
  return out;
}

template <typename T, typename F>
Tensor broadcast_loop(const char* op, const Tensor& a, const Tensor& b, DType dtype, F&& f) {
  const IntList sizes = broadcast_shapes(op, a.sizes(), b.sizes());
  Tensor out = empty(sizes, dtype);
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  T* po = out.data<T>();
  strided_loop<2>(sizes, {broadcast_strides(a, sizes), broadcast_strides(b, sizes)},
                  [&](int64_t i, int64_t oa, int64_t ob) { po[i] = f(pa[oa], pb[ob]); });
  return out;
}

// `f` is called with floats, or with int64s when `integral_too` and both operands are int64.
template <typename F>
Tensor broadcast_binary(const char* op, const Tensor& a, const Tensor& b, F&& f, bool integral_too = true) {
  if (integral_too && a.defined() && b.defined() && a.dtype() == DType::Int64 && b.dtype() == DType::Int64)
    return broadcast_loop<int64_t>(op, a, b, DType::Int64, f);
  return broadcast_loop<float>(op, to_float(op, a, "self"), to_float(op, b, "other"), DType::Float32, f);
}

// A tensor-and-scalar op: int64 when self is int64 and the scalar whole (and `integral_too`).
template <typename F>
Tensor scalar_binary(const char* op, const Tensor& self, double other, F&& f, bool integral_too = true) {
  check_defined(op, self);
  if (integral_too && self.dtype() == DType::Int64 && is_whole(other)) {
    Tensor value = empty({}, DType::Int64);
    *value.data<int64_t>() = static_cast<int64_t>(other);
    return broadcast_loop<int64_t>(op, self, value, DType::Int64, f);
  }
  return map_float(to_float(op, self, "self"), [&](float x) { return f(x, static_cast<float>(other)); });
}

// Writes `result` (same shape as `self`) back into `self`'s possibly strided view.
Tensor assign_in_place(const char* op, const Tensor& self, const Tensor& result) {
  TVK_CHECK(result.sizes() == self.sizes(), op, ": output of shape ", result.shape_string(),
            " does not match the in-place target ", self.shape_string());
  // int64 self keeps int64 results (in-place integer arithmetic); a float result cannot be cast
  // back into it, as in PyTorch.
  TVK_CHECK(self.dtype() == result.dtype() && self.dtype() != DType::Bool, op, ": result type ",
            to_string(result.dtype()), " can't be cast to the desired output type ", to_string(self.dtype()));
  auto copy = [&](auto* dst, const auto* src) {
    strided_loop<1>(self.sizes(), {self.strides()}, [&](int64_t i, int64_t o) { dst[o] = src[i]; });
  };
  if (self.dtype() == DType::Int64) copy(self.data<int64_t>(), result.data<int64_t>());
  else copy(self.data<float>(), result.data<float>());
  return self;
}

Tensor add_tensor(const Tensor& self, const Tensor& other, Scalar alpha) {
  return broadcast_binary("aten::add", self, other, [alpha](auto x, auto y) { return x + static_cast<decltype(x)>(alpha) * y; },
                          is_whole(alpha));
}
Tensor add_scalar(const Tensor& self, Scalar other, Scalar alpha) {
  return scalar_binary("aten::add", self, other * alpha, [](auto x, auto y) { return x + y; });
}
Tensor add_inplace(const Tensor& self, const Tensor& other, Scalar alpha) {
  return assign_in_place("aten::add_", self, add_tensor(self, other, alpha));
}
Tensor sub_tensor(const Tensor& self, const Tensor& other, Scalar alpha) {
  return broadcast_binary("aten::sub", self, other, [alpha](auto x, auto y) { return x - static_cast<decltype(x)>(alpha) * y; },
                          is_whole(alpha));
}
Tensor sub_scalar(const Tensor& self, Scalar other, Scalar alpha) {
  return scalar_binary("aten::sub", self, other * alpha, [](auto x, auto y) { return x - y; });
}
Tensor mul_tensor(const Tensor& self, const Tensor& other) {
  return broadcast_binary("aten::mul", self, other, [](auto x, auto y) { return x * y; });
}
Tensor mul_scalar(const Tensor& self, Scalar other) {
  return scalar_binary("aten::mul", self, other, [](auto x, auto y) { return x * y; });
}
// True division: float32 whatever the operands.
Tensor div_tensor(const Tensor& self, const Tensor& other) {
  return broadcast_binary("aten::div", self, other, [](auto x, auto y) { return x / y; }, false);
}
Tensor div_scalar(const Tensor& self, Scalar other) {
  return scalar_binary("aten::div", self, other, [](auto x, auto y) { return x / y; }, false);
}

// Python's rounding: the quotient toward minus infinity, the remainder with the divisor's sign.
template <typename T>
T floor_div(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    TVK_CHECK(b != 0, "aten::floor_divide / aten::remainder: integer division by zero");
    if (b == -1) return wrapping_negate(a);  // the lowest value divided by -1 overflows (a trap on x86)
    const T q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
  } else {
    return std::floor(a / b);
  }
}
template <typename T>
T python_mod(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    if (b == -1) return 0;  // floor_div(a, -1) * -1 overflows for the lowest value
    return a - floor_div(a, b) * b;
  } else {
    const T r = std::fmod(a, b);
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
  }
}
Tensor remainder_tensor(const Tensor& self, const Tensor& other) {
  return broadcast_binary("aten::remainder", self, other, [](auto x, auto y) { return python_mod(x, y); });
}
Tensor remainder_scalar(const Tensor& self, Scalar other) {
  return scalar_binary("aten::remainder", self, other, [](auto x, auto y) { return python_mod(x, y); });
}
Tensor floor_divide_tensor(const Tensor& self, const Tensor& other) {
  return broadcast_binary("aten::floor_divide", self, other, [](auto x, auto y) { return floor_div(x, y); });
}
Tensor floor_divide_scalar(const Tensor& self, Scalar other) {
  return scalar_binary("aten::floor_divide", self, other, [](auto x, auto y) { return floor_div(x, y); });
}
Tensor floor_divide_inplace(const Tensor& self, const Tensor& other) {
  return assign_in_place("aten::floor_divide_", self, floor_divide_tensor(self, other));
}
Tensor floor_divide_scalar_inplace(const Tensor& self, Scalar other) {
  return assign_in_place("aten::floor_divide_", self, floor_divide_scalar(self, other));
}

// x ** y as PyTorch computes it: int64 for int64 operands (a negative exponent is an error, as
// PyTorch's "Integers to negative integer powers are not allowed"), std::pow in float otherwise.
template <typename T>
T power(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    TVK_CHECK(b >= 0, "aten::pow: Integers to negative integer powers are not allowed.");
    T r = 1;
    for (T e = b, base = a; e > 0; e >>= 1) {  // wrapping as PyTorch's does, without signed overflow
      if (e & 1) r = static_cast<T>(static_cast<uint64_t>(r) * static_cast<uint64_t>(base));
      base = static_cast<T>(static_cast<uint64_t>(base) * static_cast<uint64_t>(base));
    }
    return r;
  } else {
    return static_cast<T>(std::pow(static_cast<double>(a), static_cast<double>(b)));
  }
}
Tensor pow_tensor(const Tensor& self, const Tensor& exponent) {
  return broadcast_binary("aten::pow", self, exponent, [](auto x, auto y) { return power(x, y); });
}
// scalar ** tensor: float32 unless both are whole (int64 exponent, whole base).
Tensor pow_scalar_base(Scalar self, const Tensor& exponent) {
  check_defined("aten::pow", exponent, "exponent");
  Tensor base = empty({}, exponent.dtype() == DType::Int64 && is_whole(self) ? DType::Int64 : DType::Float32);
  if (base.dtype() == DType::Int64) *base.data<int64_t>() = static_cast<int64_t>(self);
  else *base.data<float>() = static_cast<float>(self);
  return pow_tensor(base, exponent);
}
Tensor pow_inplace(const Tensor& self, const Tensor& exponent) {
  return assign_in_place("aten::pow_", self, pow_tensor(self, exponent));
}
Tensor pow_scalar_inplace(const Tensor& self, Scalar exponent) {
  return assign_in_place("aten::pow_", self, call("aten::pow.Tensor_Scalar", {IValue(self), IValue(exponent)}).toTensor());
}
Tensor floor_divide_inplace(const Tensor& self, const Tensor& other);
Tensor floor_divide_scalar_inplace(const Tensor& self, Scalar other);

// torch.div(a, b, rounding_mode=...): None is true division; 'trunc' rounds toward zero and
// 'floor' toward minus infinity, in int64 when both operands are (as PyTorch does).
template <typename T>
T trunc_div(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    TVK_CHECK(b != 0, "aten::div: integer division by zero");
    if (b == -1) return wrapping_negate(a);
    return a / b;
  } else {
    return std::trunc(a / b);
  }
}
Tensor div_mode_tensor(const Tensor& self, const Tensor& other, std::optional<std::string> mode) {
  if (!mode) return div_tensor(self, other);
  if (*mode == "trunc")
    return broadcast_binary("aten::div", self, other, [](auto x, auto y) { return trunc_div(x, y); });
  TVK_CHECK(*mode == "floor", "aten::div: rounding_mode must be 'trunc', 'floor' or None, got '", *mode, "'");
  return floor_divide_tensor(self, other);
}
Tensor div_mode_scalar(const Tensor& self, Scalar other, std::optional<std::string> mode) {
  if (!mode) return div_scalar(self, other);
  if (*mode == "trunc")
    return scalar_binary("aten::div", self, other, [](auto x, auto y) { return trunc_div(x, y); });
  TVK_CHECK(*mode == "floor", "aten::div: rounding_mode must be 'trunc', 'floor' or None, got '", *mode, "'");
  return floor_divide_scalar(self, other);
}

// Elementwise minimum and maximum (torch.min(a, b) scripts as min.other): NaN wins, as in PyTorch.
template <typename T>
T nan_min(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
  }
  return b < a ? b : a;
}
template <typename T>
T nan_max(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
  }
  return b > a ? b : a;
}
Tensor atan2(const Tensor& self, const Tensor& other) {
  return broadcast_binary("aten::atan2", self, other, [](auto x, auto y) { return std::atan2(x, y); }, false);
}
// C's fmod: the remainder with the dividend's sign (int64 for int64 operands).
template <typename T>
T c_fmod(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    TVK_CHECK(b != 0, "aten::fmod: integer division by zero");
    return b == -1 ? 0 : a % b;
  } else {
    return std::fmod(a, b);
  }
}
Tensor fmod_tensor(const Tensor& self, const Tensor& other) {
  return broadcast_binary("aten::fmod", self, other, [](auto x, auto y) { return c_fmod(x, y); });
}
Tensor fmod_scalar(const Tensor& self, Scalar other) {
  return scalar_binary("aten::fmod", self, other, [](auto x, auto y) { return c_fmod(x, y); });
}
Tensor minimum(const Tensor& self, const Tensor& other) {
  return broadcast_binary("aten::minimum", self, other, [](auto x, auto y) { return nan_min(x, y); });
}
Tensor maximum(const Tensor& self, const Tensor& other) {
  return broadcast_binary("aten::maximum", self, other, [](auto x, auto y) { return nan_max(x, y); });
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
TVK_REGISTER_OP("aten::div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor", div_mode_tensor);
TVK_REGISTER_OP("aten::div.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode) -> Tensor", div_mode_scalar);
TVK_REGISTER_OP("aten::remainder.Tensor(Tensor self, Tensor other) -> Tensor", remainder_tensor);
TVK_REGISTER_OP("aten::remainder.Scalar(Tensor self, Scalar other) -> Tensor", remainder_scalar);
TVK_REGISTER_OP("aten::floor_divide(Tensor self, Tensor other) -> Tensor", floor_divide_tensor);
TVK_REGISTER_OP("aten::floor_divide.Scalar(Tensor self, Scalar other) -> Tensor", floor_divide_scalar);
TVK_REGISTER_OP("aten::floor_divide_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", floor_divide_inplace);
TVK_REGISTER_OP("aten::floor_divide_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)", floor_divide_scalar_inplace);
TVK_REGISTER_OP("aten::pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor", pow_tensor);
TVK_REGISTER_OP("aten::pow.Scalar(Scalar self, Tensor exponent) -> Tensor", pow_scalar_base);
TVK_REGISTER_OP("aten::pow_.Tensor(Tensor(a!) self, Tensor exponent) -> Tensor(a!)", pow_inplace);
TVK_REGISTER_OP("aten::pow_.Scalar(Tensor(a!) self, Scalar exponent) -> Tensor(a!)", pow_scalar_inplace);
TVK_REGISTER_OP("aten::minimum(Tensor self, Tensor other) -> Tensor", minimum);
TVK_REGISTER_OP("aten::atan2(Tensor self, Tensor other) -> Tensor", atan2);
TVK_REGISTER_OP("aten::fmod.Tensor(Tensor self, Tensor other) -> Tensor", fmod_tensor);
TVK_REGISTER_OP("aten::fmod.Scalar(Tensor self, Scalar other) -> Tensor", fmod_scalar);
TVK_REGISTER_OP("aten::maximum(Tensor self, Tensor other) -> Tensor", maximum);
TVK_REGISTER_OP("aten::min.other(Tensor self, Tensor other) -> Tensor", minimum);
TVK_REGISTER_OP("aten::max.other(Tensor self, Tensor other) -> Tensor", maximum);
TVK_REGISTER_OP("aten::sub_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)", sub_inplace);
TVK_REGISTER_OP("aten::mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", mul_inplace);
TVK_REGISTER_OP("aten::div_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", div_inplace);
TVK_REGISTER_OP("aten::add_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)", add_scalar_inplace);
TVK_REGISTER_OP("aten::sub_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)", sub_scalar_inplace);
TVK_REGISTER_OP("aten::mul_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)", mul_scalar_inplace);
TVK_REGISTER_OP("aten::div_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)", div_scalar_inplace);

}  // namespace tvk::ops::cpu
