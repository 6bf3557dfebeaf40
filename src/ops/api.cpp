// The typed C++ op API: thin wrappers over the dispatcher.
#include "ops/registry.h"
#include "ops/shape_utils.h"
#include "tvk/ops.h"

namespace tvk {

namespace {
IValue optional_scalar(const std::optional<double>& v) { return v ? IValue(*v) : IValue(); }
IValue optional_int(const std::optional<int64_t>& v) { return v ? IValue(*v) : IValue(); }
IValue optional_tensor(const Tensor& t) { return t.defined() ? IValue(t) : IValue(); }
IValue int_list(const IntList& v) { return IValue(v); }
IValue double_list(const std::vector<double>& v) { return IValue::list(List(v.begin(), v.end())); }
Tensor tensor_op(const char* name, Stack args) { return call_op(name, std::move(args)).toTensor(); }
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

Tensor relu6(const Tensor& self) { return tensor_op("aten::relu6", {self}); }
Tensor sigmoid(const Tensor& self) { return tensor_op("aten::sigmoid", {self}); }
Tensor tanh(const Tensor& self) { return tensor_op("aten::tanh", {self}); }
Tensor hardswish(const Tensor& self) { return tensor_op("aten::hardswish", {self}); }
Tensor& hardswish_(Tensor& self) {
  call_op("aten::hardswish_", {self});
  return self;
}
Tensor hardsigmoid(const Tensor& self) { return tensor_op("aten::hardsigmoid", {self}); }
Tensor& hardsigmoid_(Tensor& self) {
  call_op("aten::hardsigmoid_", {self});
  return self;
}
Tensor silu(const Tensor& self) { return tensor_op("aten::silu", {self}); }
Tensor& silu_(Tensor& self) {
  call_op("aten::silu_", {self});
  return self;
}
Tensor gelu(const Tensor& self, const std::string& approximate) { return tensor_op("aten::gelu", {self, approximate}); }
Tensor dropout(const Tensor& input, double p, bool train) { return tensor_op("aten::dropout", {input, p, train}); }

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, const IntList& stride,
              const IntList& padding, const IntList& dilation, int64_t groups) {
  return tensor_op("aten::conv2d", {input, weight, optional_tensor(bias), int_list(stride), int_list(padding),
                                    int_list(dilation), groups});
}
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias, const IntList& stride,
                        const IntList& padding, const IntList& output_padding, int64_t groups,
                        const IntList& dilation) {
  return tensor_op("aten::conv_transpose2d.input", {input, weight, optional_tensor(bias), int_list(stride),
                                                    int_list(padding), int_list(output_padding), groups,
                                                    int_list(dilation)});
}
Tensor convolution(const Tensor& input, const Tensor& weight, const Tensor& bias, const IntList& stride,
                   const IntList& padding, const IntList& dilation, bool transposed, const IntList& output_padding,
                   int64_t groups) {
  return tensor_op("aten::convolution", {input, weight, optional_tensor(bias), int_list(stride), int_list(padding),
                                         int_list(dilation), transposed, int_list(output_padding), groups});
}

Tensor max_pool2d(const Tensor& self, const IntList& kernel_size, const IntList& stride, const IntList& padding,
                  const IntList& dilation, bool ceil_mode) {
  return tensor_op("aten::max_pool2d", {self, int_list(kernel_size), int_list(stride), int_list(padding),
                                        int_list(dilation), ceil_mode});
}
Tensor avg_pool2d(const Tensor& self, const IntList& kernel_size, const IntList& stride, const IntList& padding,
                  bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  return tensor_op("aten::avg_pool2d", {self, int_list(kernel_size), int_list(stride), int_list(padding), ceil_mode,
                                        count_include_pad, optional_int(divisor_override)});
}
Tensor adaptive_avg_pool2d(const Tensor& self, const IntList& output_size) {
  return tensor_op("aten::adaptive_avg_pool2d", {self, int_list(output_size)});
}
std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& self, const IntList& output_size) {
  const IValue r = call_op("aten::adaptive_max_pool2d", {self, int_list(output_size)});
  return {r.toTuple().at(0).toTensor(), r.toTuple().at(1).toTensor()};
}
Tensor upsample_nearest2d(const Tensor& self, const IntList& output_size, std::optional<double> scales_h,
                          std::optional<double> scales_w) {
  return tensor_op("aten::upsample_nearest2d",
                   {self, int_list(output_size), optional_scalar(scales_h), optional_scalar(scales_w)});
}
Tensor upsample_nearest2d(const Tensor& input, std::optional<IntList> output_size,
                          std::optional<std::vector<double>> scale_factors) {
  return tensor_op("aten::upsample_nearest2d.vec",
                   {input, output_size ? int_list(*output_size) : IValue(),
                    scale_factors ? double_list(*scale_factors) : IValue()});
}

Tensor mm(const Tensor& self, const Tensor& mat2) { return tensor_op("aten::mm", {self, mat2}); }
Tensor bmm(const Tensor& self, const Tensor& mat2) { return tensor_op("aten::bmm", {self, mat2}); }
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, double beta, double alpha) {
  return tensor_op("aten::addmm", {self, mat1, mat2, beta, alpha});
}
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  return tensor_op("aten::linear", {input, weight, optional_tensor(bias)});
}
Tensor matmul(const Tensor& self, const Tensor& other) { return tensor_op("aten::matmul", {self, other}); }

Tensor batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                  const Tensor& running_var, bool training, double momentum, double eps) {
  return tensor_op("aten::batch_norm", {input, optional_tensor(weight), optional_tensor(bias),
                                        optional_tensor(running_mean), optional_tensor(running_var), training,
                                        momentum, eps, true});
}
Tensor layer_norm(const Tensor& input, const IntList& normalized_shape, const Tensor& weight, const Tensor& bias,
                  double eps) {
  return tensor_op("aten::layer_norm",
                   {input, int_list(normalized_shape), optional_tensor(weight), optional_tensor(bias), eps, true});
}

Tensor mean(const Tensor& self, const IntList& dims, bool keepdim) {
  return tensor_op("aten::mean.dim", {self, int_list(dims), keepdim, IValue()});
}
Tensor softmax(const Tensor& self, int64_t dim) { return tensor_op("aten::softmax.int", {self, dim, IValue()}); }
Tensor log_softmax(const Tensor& self, int64_t dim) {
  return tensor_op("aten::log_softmax.int", {self, dim, IValue()});
}

Tensor view(const Tensor& self, const IntList& size) { return tensor_op("aten::view", {self, int_list(size)}); }
Tensor reshape(const Tensor& self, const IntList& shape) { return tensor_op("aten::reshape", {self, int_list(shape)}); }
Tensor flatten(const Tensor& self, int64_t start_dim, int64_t end_dim) {
  return tensor_op("aten::flatten.using_ints", {self, start_dim, end_dim});
}
Tensor unsqueeze(const Tensor& self, int64_t dim) { return tensor_op("aten::unsqueeze", {self, dim}); }
Tensor select(const Tensor& self, int64_t dim, int64_t index) {
  return tensor_op("aten::select.int", {self, dim, index});
}
Tensor slice(const Tensor& self, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) {
  return tensor_op("aten::slice.Tensor", {self, dim, optional_int(start), optional_int(end), step});
}
Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1) {
  return tensor_op("aten::transpose.int", {self, dim0, dim1});
}
Tensor transpose_(const Tensor& self, int64_t dim0, int64_t dim1) {
  return tensor_op("aten::transpose_", {self, dim0, dim1});
}
Tensor permute(const Tensor& self, const IntList& dims) { return tensor_op("aten::permute", {self, int_list(dims)}); }
Tensor t(const Tensor& self) { return tensor_op("aten::t", {self}); }
Tensor fake_quantize_per_tensor_affine(const Tensor& self, double scale, int64_t zero_point, int64_t quant_min,
                                       int64_t quant_max) {
  return tensor_op("aten::fake_quantize_per_tensor_affine", {self, scale, zero_point, quant_min, quant_max});
}
Tensor as_strided(const Tensor& self, const IntList& size, const IntList& stride, std::optional<int64_t> storage_offset) {
  return tensor_op("aten::as_strided", {self, int_list(size), int_list(stride), optional_int(storage_offset)});
}
Tensor expand(const Tensor& self, const IntList& size) { return tensor_op("aten::expand", {self, int_list(size), false}); }
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  return tensor_op("aten::cat", {IValue::list(List(tensors.begin(), tensors.end())), dim});
}
Tensor empty_strided(const IntList& size, const IntList& stride, DType dtype, Device device) {
  return tensor_op("aten::empty_strided",
                   {int_list(size), int_list(stride), ops::dtype_code(dtype), IValue(), IValue(device), IValue()});
}

}  // namespace tvk
