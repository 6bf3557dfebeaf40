// The typed C++ op API (like at::add): each call goes through the dispatcher, so it runs on the
// device its inputs live on and throws tvk::UnsupportedError where that device has no kernel.
#pragma once

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "tvk/ivalue.h"

namespace tvk {

Tensor add(const Tensor& self, const Tensor& other, double alpha = 1);
Tensor add(const Tensor& self, double other, double alpha = 1);
Tensor& add_(Tensor& self, const Tensor& other, double alpha = 1);
Tensor sub(const Tensor& self, const Tensor& other, double alpha = 1);
Tensor mul(const Tensor& self, const Tensor& other);
Tensor mul(const Tensor& self, double other);
Tensor div(const Tensor& self, const Tensor& other);
Tensor div(const Tensor& self, double other);
Tensor relu(const Tensor& self);
Tensor& relu_(Tensor& self);
Tensor clamp(const Tensor& self, std::optional<double> min, std::optional<double> max);
Tensor hardtanh(const Tensor& self, double min_val = -1, double max_val = 1);
Tensor& hardtanh_(Tensor& self, double min_val = -1, double max_val = 1);
Tensor relu6(const Tensor& self);
// x rounded onto an affine quantizer's grid and back (float in, float out), as PyTorch's op.
Tensor fake_quantize_per_tensor_affine(const Tensor& self, double scale, int64_t zero_point, int64_t quant_min,
                                       int64_t quant_max);
Tensor sigmoid(const Tensor& self);
Tensor tanh(const Tensor& self);
Tensor hardswish(const Tensor& self);
Tensor& hardswish_(Tensor& self);
Tensor hardsigmoid(const Tensor& self);
Tensor& hardsigmoid_(Tensor& self);
Tensor silu(const Tensor& self);
Tensor& silu_(Tensor& self);
// approximate: "none" (erf) or "tanh".
Tensor gelu(const Tensor& self, const std::string& approximate = "none");
// Identity for train = false (tvk runs inference; train = true throws).
Tensor dropout(const Tensor& input, double p, bool train);

// Convolutions. An undefined bias means none; one-value lists apply to both dims.
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, const IntList& stride = {1},
              const IntList& padding = {0}, const IntList& dilation = {1}, int64_t groups = 1);
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
                        const IntList& stride = {1}, const IntList& padding = {0},
                        const IntList& output_padding = {0}, int64_t groups = 1, const IntList& dilation = {1});
Tensor convolution(const Tensor& input, const Tensor& weight, const Tensor& bias, const IntList& stride,
                   const IntList& padding, const IntList& dilation, bool transposed, const IntList& output_padding,
                   int64_t groups);

// Pooling and resizing. An empty stride means stride = kernel_size.
Tensor max_pool2d(const Tensor& self, const IntList& kernel_size, const IntList& stride = {},
                  const IntList& padding = {0}, const IntList& dilation = {1}, bool ceil_mode = false);
Tensor avg_pool2d(const Tensor& self, const IntList& kernel_size, const IntList& stride = {},
                  const IntList& padding = {0}, bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
Tensor adaptive_avg_pool2d(const Tensor& self, const IntList& output_size);
// (values, indices); indices are int64 positions within each H x W plane.
std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& self, const IntList& output_size);
Tensor upsample_nearest2d(const Tensor& self, const IntList& output_size, std::optional<double> scales_h = std::nullopt,
                          std::optional<double> scales_w = std::nullopt);
// The .vec overload: exactly one of output_size and scale_factors.
Tensor upsample_nearest2d(const Tensor& input, std::optional<IntList> output_size,
                          std::optional<std::vector<double>> scale_factors);

// Matrix products.
Tensor mm(const Tensor& self, const Tensor& mat2);
Tensor bmm(const Tensor& self, const Tensor& mat2);
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, double beta = 1, double alpha = 1);
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {});
Tensor matmul(const Tensor& self, const Tensor& other);

// Normalization (inference batch_norm uses the running statistics).
Tensor batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                  const Tensor& running_var, bool training = false, double momentum = 0.1, double eps = 1e-5);
Tensor layer_norm(const Tensor& input, const IntList& normalized_shape, const Tensor& weight = {},
                  const Tensor& bias = {}, double eps = 1e-5);

// Reductions. mean over `dims` (empty: all dims).
Tensor mean(const Tensor& self, const IntList& dims, bool keepdim = false);
Tensor softmax(const Tensor& self, int64_t dim);
Tensor log_softmax(const Tensor& self, int64_t dim);

// Shape ops. CPU results are views where PyTorch's are; Vulkan results are contiguous copies
// unless the view is contiguous (view, reshape, flatten, unsqueeze).
Tensor view(const Tensor& self, const IntList& size);
Tensor reshape(const Tensor& self, const IntList& shape);
Tensor flatten(const Tensor& self, int64_t start_dim = 0, int64_t end_dim = -1);
Tensor unsqueeze(const Tensor& self, int64_t dim);
Tensor select(const Tensor& self, int64_t dim, int64_t index);
Tensor slice(const Tensor& self, int64_t dim = 0, std::optional<int64_t> start = std::nullopt,
             std::optional<int64_t> end = std::nullopt, int64_t step = 1);
Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1);
// tvk tensors are values: use the returned tensor (self's storage with the new shape).
Tensor transpose_(const Tensor& self, int64_t dim0, int64_t dim1);
Tensor permute(const Tensor& self, const IntList& dims);
Tensor t(const Tensor& self);
Tensor expand(const Tensor& self, const IntList& size);
Tensor as_strided(const Tensor& self, const IntList& size, const IntList& stride,
                  std::optional<int64_t> storage_offset = std::nullopt);
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0);
// An uninitialised tensor with the given strides (a Vulkan tensor is contiguous regardless).
Tensor empty_strided(const IntList& size, const IntList& stride, DType dtype = DType::Float32,
                     Device device = Device::CPU);

// Calls any registered op by schema name ("aten::add.Tensor") with positional arguments;
// trailing arguments with defaults may be left out.
IValue call_op(const std::string& full_name, Stack args);

}  // namespace tvk
