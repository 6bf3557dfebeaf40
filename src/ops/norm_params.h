// Argument checks of batch_norm and layer_norm, shared by the CPU and Vulkan kernels.
#pragma once

#include "tvk/tensor.h"

namespace tvk::ops {

// Checks an inference batch_norm: input rank >= 2 with channels at dim 1, and each defined
// per-channel tensor of shape [C]. Returns C.
int64_t check_batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                         const Tensor& running_var);

// Checks layer_norm's normalized_shape against the input's trailing dims and weight/bias shapes.
// Returns the number of elements normalized together (the product of normalized_shape).
int64_t check_layer_norm(const Tensor& input, const IntList& normalized_shape, const Tensor& weight, const Tensor& bias);

// Checks tvk::layer_norm_channels (layer_norm over dim 1): input (N, C, ...) of float32, the
// normalized_shape [C] that the channels-last layer_norm it replaces was given, weight and bias
// [C]. Returns C.
int64_t check_layer_norm_channels(const Tensor& input, const IntList& normalized_shape, const Tensor& weight,
                                  const Tensor& bias);

}  // namespace tvk::ops
