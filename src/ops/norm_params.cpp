#include "ops/norm_params.h"

#include "ops/shape_utils.h"

namespace tvk::ops {

int64_t check_batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                         const Tensor& running_var) {
  const char* op = "aten::batch_norm";
  check_float(op, input, "input");
  TVK_CHECK(input.dim() >= 2, op, ": expected an input of rank >= 2 (N, C, ...), got ", input.shape_string());
  const int64_t channels = input.sizes()[1];
  const std::pair<const Tensor*, const char*> per_channel[] = {
      {&weight, "weight"}, {&bias, "bias"}, {&running_mean, "running_mean"}, {&running_var, "running_var"}};
  for (const auto& [t, name] : per_channel) {
    if (!t->defined()) continue;
    check_float(op, *t, name);
    TVK_CHECK(t->dim() == 1 && t->numel() == channels, op, ": expected ", name, " of shape [", channels,
              "] for input ", input.shape_string(), ", got ", t->shape_string());
  }
  return channels;
}

namespace {
// A layer norm's weight and bias, where given: float32, of the normalized shape.
void check_affine(const char* op, const Tensor& weight, const Tensor& bias, const IntList& normalized_shape) {
  for (const auto& [t, name] : {std::pair<const Tensor*, const char*>{&weight, "weight"}, {&bias, "bias"}}) {
    if (!t->defined()) continue;
    check_float(op, *t, name);
    TVK_CHECK(t->sizes() == normalized_shape, op, ": expected ", name, " of shape ", shape_string(normalized_shape),
              ", got ", t->shape_string());
  }
}
}  // namespace

int64_t check_layer_norm_channels(const Tensor& input, const IntList& normalized_shape, const Tensor& weight,
                                  const Tensor& bias) {
  const char* op = "tvk::layer_norm_channels";
  check_float(op, input, "input");
  TVK_CHECK(input.dim() >= 2, op, ": expected (N, C, ...), got ", input.shape_string());
  const int64_t channels = input.size(1);
  TVK_CHECK(normalized_shape == IntList{channels}, op, ": normalized_shape ", shape_string(normalized_shape),
            " does not match the channels of the input ", input.shape_string());
  check_affine(op, weight, bias, normalized_shape);
  return channels;
}

int64_t check_layer_norm(const Tensor& input, const IntList& normalized_shape, const Tensor& weight,
                         const Tensor& bias) {
  const char* op = "aten::layer_norm";
  check_float(op, input, "input");
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  TVK_CHECK(k >= 1, op, ": normalized_shape must not be empty");
  bool match = input.dim() >= k;
  for (int64_t i = 0; match && i < k; ++i) match = input.sizes()[input.dim() - k + i] == normalized_shape[i];
  TVK_CHECK(match, op, ": normalized_shape ", shape_string(normalized_shape),
            " does not match the trailing dims of the input ", input.shape_string());
  check_affine(op, weight, bias, normalized_shape);
  return numel_of(normalized_shape);
}

}  // namespace tvk::ops
