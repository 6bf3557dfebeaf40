// Factories: empty, empty_strided, zeros, ones, full, zeros_like, ones_like, full_like,
// new_zeros, new_full, tensor and as_tensor (of numbers or nested lists), arange, linspace,
// logspace, eye, clone.
// They make tensors on the device they are given (CPU when None; self's for new_zeros and
// clone), so one kernel serves every device. dtype is PyTorch's ScalarType code.
#include <algorithm>
#include <cmath>

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

// The dtype PyTorch gives a Python number: int64 for ints, float32 for floats, bool for bools.
DType natural_dtype(const char* op, const IValue& v) {
  if (v.isInt()) return DType::Int64;
  if (v.isDouble()) return DType::Float32;
  if (v.isBool()) return DType::Bool;
  throw Error(detail::concat(op, ": expected a number, got ", v.tag_name()));
}
double number(const IValue& v) {
  if (v.isInt()) return static_cast<double>(v.toInt());
  if (v.isBool()) return v.toBool() ? 1.0 : 0.0;
  return v.toDouble();
}
// An int64 tensor holds ints exactly; tvk::full goes through a double, exact below 2^53.
Tensor filled(const char* op, IntList size, const IValue& value, DType type, Device device) {
  if (type == DType::Int64 && value.isInt()) {
    Tensor t = empty(std::move(size), DType::Int64);
    std::fill_n(t.data<int64_t>(), t.numel(), value.toInt());
    return t.to(device);
  }
  natural_dtype(op, value);
  return tvk::full(std::move(size), number(value), type, device);
}

Tensor full(IntList size, IValue fill_value, std::optional<int64_t> dtype, std::optional<int64_t>,
            std::optional<Device> device, std::optional<bool>) {
  const char* op = "aten::full";
  const DType type = dtype ? dtype_from_code(op, dtype) : natural_dtype(op, fill_value);
  return filled(op, std::move(size), fill_value, type, device_or_cpu(device));
}
Tensor full_like(const Tensor& self, IValue fill_value, std::optional<int64_t> dtype, std::optional<int64_t>,
                 std::optional<Device> device, std::optional<bool>, std::optional<int64_t>) {
  const char* op = "aten::full_like";
  check_defined(op, self);
  const DType type = dtype ? dtype_from_code(op, dtype) : self.dtype();
  return filled(op, self.sizes(), fill_value, type, device.value_or(self.device()));
}
Tensor new_full(const Tensor& self, IntList size, IValue fill_value, std::optional<int64_t> dtype,
                std::optional<int64_t>, std::optional<Device> device, std::optional<bool>) {
  const char* op = "aten::new_full";
  check_defined(op, self);
  const DType type = dtype ? dtype_from_code(op, dtype) : self.dtype();
  return filled(op, std::move(size), fill_value, type, device.value_or(self.device()));
}
// Uninitialised in PyTorch; zeros here (a model that reads them reads zeros, not old memory).
Tensor new_empty(const Tensor& self, IntList size, std::optional<int64_t> dtype, std::optional<int64_t> layout,
                 std::optional<Device> device, std::optional<bool> pin) {
  return new_full(self, std::move(size), IValue(0.0), dtype ? dtype : std::optional<int64_t>(dtype_code(self.dtype())),
                  layout, device, pin);
}
Tensor scalar_tensor(IValue s, std::optional<int64_t> dtype, std::optional<int64_t>, std::optional<Device> device,
                     std::optional<bool>) {
  const char* op = "aten::scalar_tensor";
  // float32 unless asked (PyTorch's default dtype), whatever the scalar's kind.
  return filled(op, {}, s, dtype ? dtype_from_code(op, dtype) : DType::Float32, device_or_cpu(device));
}

// torch.tensor(data) / torch.as_tensor(data) of a (nested, rectangular) list of numbers: the
// shape is the nesting, the dtype the widest kind of number unless given.
void flatten_numbers(const char* op, const IValue& data, size_t depth, IntList& sizes, std::vector<IValue>& out) {
  if (!data.isList()) {
    TVK_CHECK(depth == sizes.size(), op, ": the nested lists are not rectangular");
    natural_dtype(op, data);
    out.push_back(data);
    return;
  }
  const List& items = data.toList();
  const int64_t n = static_cast<int64_t>(items.size());
  if (depth == sizes.size()) {
    TVK_CHECK(out.empty() && depth < 16, op, ": the nested lists are not rectangular");
    sizes.push_back(n);
  } else {
    TVK_CHECK(depth < sizes.size() && sizes[depth] == n, op, ": the nested lists are not rectangular (a list of ", n,
              " where ", depth < sizes.size() ? sizes[depth] : 0, " were expected)");
  }
  for (const IValue& item : items) flatten_numbers(op, item, depth + 1, sizes, out);
}
Tensor tensor_from_list(const char* op, const IValue& data, std::optional<int64_t> dtype, std::optional<Device> device) {
  IntList sizes;
  std::vector<IValue> values;
  flatten_numbers(op, data, 0, sizes, values);
  DType type = DType::Float32;
  if (dtype) {
    type = dtype_from_code(op, dtype);
  } else if (!values.empty()) {
    bool all_bool = true, any_float = false;
    for (const IValue& v : values) {
      all_bool = all_bool && v.isBool();
      any_float = any_float || v.isDouble();
    }
    type = any_float ? DType::Float32 : all_bool ? DType::Bool : DType::Int64;
  }
  Tensor t = empty(sizes, type);
  for (size_t i = 0; i < values.size(); ++i) {
    const IValue& v = values[i];
    switch (type) {
      case DType::Float32: t.data<float>()[i] = static_cast<float>(number(v)); break;
      case DType::Int64: t.data<int64_t>()[i] = v.isInt() ? v.toInt() : static_cast<int64_t>(number(v)); break;
      case DType::Bool: t.data<bool>()[i] = number(v) != 0; break;
    }
  }
  return t.to(device_or_cpu(device));
}
Tensor tensor_list(IValue data, std::optional<int64_t> dtype, std::optional<Device> device, bool) {
  return tensor_from_list("aten::tensor", data, dtype, device);
}
Tensor as_tensor_list(IValue data, std::optional<int64_t> dtype, std::optional<Device> device) {
  return tensor_from_list("aten::as_tensor", data, dtype, device);
}

// arange: ceil((end - start) / step) values start + i * step; int64 when every bound is an int.
Tensor arange_impl(const IValue& start, const IValue& end, const IValue& step, std::optional<int64_t> dtype,
                   std::optional<Device> device) {
  const char* op = "aten::arange";
  const bool ints = natural_dtype(op, start) != DType::Float32 && natural_dtype(op, end) != DType::Float32 &&
                    natural_dtype(op, step) != DType::Float32;
  const DType type = dtype ? dtype_from_code(op, dtype) : ints ? DType::Int64 : DType::Float32;
  const double a = number(start), b = number(end), s = number(step);
  TVK_CHECK(s != 0 && std::isfinite(a) && std::isfinite(b) && std::isfinite(s), op, ": start (", a, "), end (", b,
            ") and step (", s, ") must be finite with a non-zero step");
  TVK_CHECK((b - a) / s >= 0 || a == b, op, ": the step (", s, ") goes away from end (", b, ") from start (", a, ")");
  const double count = std::ceil((b - a) / s);
  TVK_CHECK(count < static_cast<double>(int64_t{1} << 31), op, ": ", count, " values is too many");
  const int64_t n = static_cast<int64_t>(count);
  Tensor t = empty({n}, type);
  for (int64_t i = 0; i < n; ++i) {
    switch (type) {
      case DType::Float32: t.data<float>()[i] = static_cast<float>(a + s * static_cast<double>(i)); break;
      case DType::Int64:
        t.data<int64_t>()[i] = ints ? start.toInt() + step.toInt() * i : static_cast<int64_t>(a + s * static_cast<double>(i));
        break;
      case DType::Bool: t.data<bool>()[i] = a + s * static_cast<double>(i) != 0; break;
    }
  }
  return t.to(device_or_cpu(device));
}
Tensor arange(IValue end, std::optional<int64_t> dtype, std::optional<int64_t>, std::optional<Device> device,
              std::optional<bool>) {
  return arange_impl(IValue(int64_t{0}), end, IValue(int64_t{1}), dtype, device);
}
Tensor arange_start(IValue start, IValue end, std::optional<int64_t> dtype, std::optional<int64_t>,
                    std::optional<Device> device, std::optional<bool>) {
  return arange_impl(start, end, IValue(int64_t{1}), dtype, device);
}
Tensor arange_start_step(IValue start, IValue end, IValue step, std::optional<int64_t> dtype, std::optional<int64_t>,
                         std::optional<Device> device, std::optional<bool>) {
  return arange_impl(start, end, step, dtype, device);
}

// linspace as PyTorch computes it: the first half of the values counted from start, the second
// from end, so that both ends are exact; logspace is base to those powers.
Tensor spaced(const char* op, const IValue& start, const IValue& end, int64_t steps, std::optional<int64_t> dtype,
              std::optional<Device> device, std::optional<double> base) {
  TVK_CHECK(steps >= 0, op, ": number of steps must be non-negative");
  TVK_CHECK(steps < (int64_t{1} << 31), op, ": ", steps, " steps is too many");
  const DType type = dtype ? dtype_from_code(op, dtype) : DType::Float32;
  const double a = number(start), b = number(end);
  const double step = steps > 1 ? (b - a) / static_cast<double>(steps - 1) : 0.0;
  const int64_t half = steps / 2;
  Tensor t = empty({steps}, type);
  for (int64_t i = 0; i < steps; ++i) {
    double v = steps == 1 || i < half ? a + step * static_cast<double>(i) : b - step * static_cast<double>(steps - 1 - i);
    if (base) v = std::pow(*base, v);
    switch (type) {
      case DType::Float32: t.data<float>()[i] = static_cast<float>(v); break;
      case DType::Int64: t.data<int64_t>()[i] = static_cast<int64_t>(v); break;
      case DType::Bool: t.data<bool>()[i] = v != 0; break;
    }
  }
  return t.to(device_or_cpu(device));
}
Tensor linspace(IValue start, IValue end, int64_t steps, std::optional<int64_t> dtype, std::optional<int64_t>,
                std::optional<Device> device, std::optional<bool>) {
  return spaced("aten::linspace", start, end, steps, dtype, device, std::nullopt);
}
Tensor logspace(IValue start, IValue end, int64_t steps, double base, std::optional<int64_t> dtype,
                std::optional<int64_t>, std::optional<Device> device, std::optional<bool>) {
  return spaced("aten::logspace", start, end, steps, dtype, device, base);
}
// n x m with ones on the diagonal.
Tensor eye_m(int64_t n, int64_t m, std::optional<int64_t> dtype, std::optional<int64_t>, std::optional<Device> device,
             std::optional<bool>) {
  const char* op = "aten::eye";
  TVK_CHECK(n >= 0 && m >= 0, op, ": n and m must be non-negative, got ", n, " and ", m);
  TVK_CHECK(n < (int64_t{1} << 16) && m < (int64_t{1} << 16), op, ": ", n, " x ", m, " is too large");
  const DType type = dtype ? dtype_from_code(op, dtype) : DType::Float32;
  Tensor t = zeros({n, m}, type);
  for (int64_t i = 0; i < std::min(n, m); ++i) {
    switch (type) {
      case DType::Float32: t.data<float>()[i * m + i] = 1.0f; break;
      case DType::Int64: t.data<int64_t>()[i * m + i] = 1; break;
      case DType::Bool: t.data<bool>()[i * m + i] = true; break;
    }
  }
  return t.to(device_or_cpu(device));
}
Tensor eye(int64_t n, std::optional<int64_t> dtype, std::optional<int64_t> layout, std::optional<Device> device,
           std::optional<bool> pin) {
  return eye_m(n, n, dtype, layout, device, pin);
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
TVK_REGISTER_OP_ANY_DEVICE("aten::full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, "
                           "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
                           full);
TVK_REGISTER_OP_ANY_DEVICE("aten::full_like(Tensor self, Scalar fill_value, *, ScalarType? dtype=None, "
                           "Layout? layout=None, Device? device=None, bool? pin_memory=None, "
                           "MemoryFormat? memory_format=None) -> Tensor",
                           full_like);
TVK_REGISTER_OP_ANY_DEVICE("aten::new_full(Tensor self, SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, "
                           "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
                           new_full);
TVK_REGISTER_OP_ANY_DEVICE("aten::new_empty(Tensor self, SymInt[] size, *, ScalarType? dtype=None, "
                           "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
                           new_empty);
TVK_REGISTER_OP_ANY_DEVICE("aten::scalar_tensor(Scalar s, *, ScalarType? dtype=None, Layout? layout=None, "
                           "Device? device=None, bool? pin_memory=None) -> Tensor",
                           scalar_tensor);
TVK_REGISTER_OP_ANY_DEVICE("aten::tensor(t[] data, *, ScalarType? dtype=None, Device? device=None, "
                           "bool requires_grad=False) -> Tensor",
                           tensor_list);
TVK_REGISTER_OP_ANY_DEVICE("aten::as_tensor.list(t[] data, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
                           as_tensor_list);
TVK_REGISTER_OP_ANY_DEVICE("aten::arange(Scalar end, *, ScalarType? dtype=None, Layout? layout=None, "
                           "Device? device=None, bool? pin_memory=None) -> Tensor",
                           arange);
TVK_REGISTER_OP_ANY_DEVICE("aten::arange.start(Scalar start, Scalar end, *, ScalarType? dtype=None, "
                           "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
                           arange_start);
TVK_REGISTER_OP_ANY_DEVICE("aten::arange.start_step(Scalar start, Scalar end, Scalar step=1, *, "
                           "ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
                           "bool? pin_memory=None) -> Tensor",
                           arange_start_step);
TVK_REGISTER_OP_ANY_DEVICE("aten::clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor", clone);
TVK_REGISTER_OP_ANY_DEVICE("aten::linspace(Scalar start, Scalar end, int steps, *, ScalarType? dtype=None, "
                           "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
                           linspace);
TVK_REGISTER_OP_ANY_DEVICE("aten::logspace(Scalar start, Scalar end, int steps, float base=10.0, *, "
                           "ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
                           "bool? pin_memory=None) -> Tensor",
                           logspace);
TVK_REGISTER_OP_ANY_DEVICE("aten::eye(SymInt n, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
                           "bool? pin_memory=None) -> Tensor",
                           eye);
TVK_REGISTER_OP_ANY_DEVICE("aten::eye.m(SymInt n, SymInt m, *, ScalarType? dtype=None, Layout? layout=None, "
                           "Device? device=None, bool? pin_memory=None) -> Tensor",
                           eye_m);
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
