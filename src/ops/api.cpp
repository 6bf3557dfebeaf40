// The typed C++ op API: thin wrappers over the dispatcher.
#include "ops/registry.h"
#include "tvk/ops.h"

namespace tvk {

namespace {
IValue optional_scalar(const std::optional<double>& v) { return v ? IValue(*v) : IValue(); }
}  // namespace

IValue call_op(const std::string& full_name, Stack args) { return ops::call(full_name, std::move(args)); }

Tensor add(const Tensor& self, const Tensor& other, double alpha) {
  return call_op("aten::add.Tensor", {self, other, alpha}).toTensor();
}
Tensor add(const Tensor& self, double other, double alpha) {
  return call_op("aten::add.Scalar", {self, other, alpha}).toTensor();
}
Tensor& add_(Tensor& self, const Tensor& other, double alpha) {
  call_op("aten::add_.Tensor", {self, other, alpha});
  return self;
}
Tensor sub(const Tensor& self, const Tensor& other, double alpha) {
  return call_op("aten::sub.Tensor", {self, other, alpha}).toTensor();
}
Tensor mul(const Tensor& self, const Tensor& other) { return call_op("aten::mul.Tensor", {self, other}).toTensor(); }
Tensor mul(const Tensor& self, double other) { return call_op("aten::mul.Scalar", {self, other}).toTensor(); }
Tensor div(const Tensor& self, const Tensor& other) { return call_op("aten::div.Tensor", {self, other}).toTensor(); }
Tensor div(const Tensor& self, double other) { return call_op("aten::div.Scalar", {self, other}).toTensor(); }
Tensor relu(const Tensor& self) { return call_op("aten::relu", {self}).toTensor(); }
Tensor& relu_(Tensor& self) {
  call_op("aten::relu_", {self});
  return self;
}
Tensor clamp(const Tensor& self, std::optional<double> min, std::optional<double> max) {
  return call_op("aten::clamp", {self, optional_scalar(min), optional_scalar(max)}).toTensor();
}
Tensor hardtanh(const Tensor& self, double min_val, double max_val) {
  return call_op("aten::hardtanh", {self, min_val, max_val}).toTensor();
}
Tensor& hardtanh_(Tensor& self, double min_val, double max_val) {
  call_op("aten::hardtanh_", {self, min_val, max_val});
  return self;
}

}  // namespace tvk
