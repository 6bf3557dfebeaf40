// Normalization: batch_norm (running statistics, or batch statistics in training mode) and
// layer_norm over the trailing dims.
#include <cmath>

#include "ops/norm_params.h"
#include "ops/registry.h"
#include "ops/shape_utils.h"

namespace tvk::ops::cpu {
namespace {

float value_or(const Tensor& t, int64_t i, float fallback) { return t.defined() ? t.data<float>()[i * t.strides()[0]] : fallback; }

// Training mode normalizes by the batch statistics and updates the running ones in place
// (with the unbiased variance), as PyTorch does.
Tensor batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                  const Tensor& running_var, bool training, double momentum, double eps, bool) {
  const char* op = "aten::batch_norm";
  const int64_t channels = check_batch_norm(input, weight, bias, running_mean, running_var);
  TVK_CHECK(training || (running_mean.defined() && running_var.defined()), op,
            ": running_mean and running_var must be defined when training is false");
  const Tensor x = input.contiguous();
  const int64_t batch = input.sizes()[0];
  const int64_t inner = channels * batch == 0 ? 0 : input.numel() / (channels * batch);
  Tensor out = empty(input.sizes());
  const float* px = x.data<float>();
  float* py = out.data<float>();
  for (int64_t c = 0; c < channels; ++c) {
    double mean, var;
    if (training) {
      const int64_t count = batch * inner;
      TVK_CHECK(count > 1, op, ": training mode needs more than one value per channel, got input ",
                input.shape_string());
      double sum = 0, sq = 0;
      for (int64_t n = 0; n < batch; ++n)
        for (int64_t i = 0; i < inner; ++i) sum += px[(n * channels + c) * inner + i];
      mean = sum / static_cast<double>(count);
      for (int64_t n = 0; n < batch; ++n)
        for (int64_t i = 0; i < inner; ++i) sq += std::pow(px[(n * channels + c) * inner + i] - mean, 2);
      var = sq / static_cast<double>(count);
      if (running_mean.defined()) {
        float& rm = running_mean.data<float>()[c * running_mean.strides()[0]];
        rm = static_cast<float>((1 - momentum) * rm + momentum * mean);
      }
      if (running_var.defined()) {
        float& rv = running_var.data<float>()[c * running_var.strides()[0]];
        rv = static_cast<float>((1 - momentum) * rv + momentum * sq / static_cast<double>(count - 1));
      }
    } else {
      mean = value_or(running_mean, c, 0.f);
      var = value_or(running_var, c, 1.f);
    }
    const double scale = value_or(weight, c, 1.f) / std::sqrt(var + eps);
    const double shift = value_or(bias, c, 0.f);
    for (int64_t n = 0; n < batch; ++n)
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t o = (n * channels + c) * inner + i;
        py[o] = static_cast<float>((px[o] - mean) * scale + shift);
      }
  }
  return out;
}

// Normalizes the `count` values of x that lie `stride` apart (layer_norm's row: 1;
// layer_norm_channels' position: a plane), into the same places of y, times weight[i] plus
// bias[i] where given: biased variance, statistics in double.
void normalize(const float* x, float* y, int64_t count, int64_t stride, double eps, const Tensor& weight,
               const Tensor& bias) {
  double sum = 0, sq = 0;
  for (int64_t i = 0; i < count; ++i) sum += x[i * stride];
  const double mean = sum / static_cast<double>(count);
  for (int64_t i = 0; i < count; ++i) sq += (x[i * stride] - mean) * (x[i * stride] - mean);
  const double inv_std = 1.0 / std::sqrt(sq / static_cast<double>(count) + eps);
  for (int64_t i = 0; i < count; ++i)
    y[i * stride] = static_cast<float>((x[i * stride] - mean) * inv_std *
                                           (weight.defined() ? weight.data<float>()[i] : 1.f) +
                                       (bias.defined() ? bias.data<float>()[i] : 0.f));
}

Tensor layer_norm(const Tensor& input, IntList normalized_shape, const Tensor& weight, const Tensor& bias,
                  double eps, bool) {
  const int64_t cols = check_layer_norm(input, normalized_shape, weight, bias);
  const int64_t rows = cols == 0 ? 0 : input.numel() / cols;
  const Tensor x = input.contiguous();
  const Tensor w = weight.defined() ? weight.contiguous() : weight, b = bias.defined() ? bias.contiguous() : bias;
  Tensor out = empty(input.sizes());
  for (int64_t r = 0; r < rows; ++r)
    normalize(x.data<float>() + r * cols, out.data<float>() + r * cols, cols, 1, eps, w, b);
  return out;
}

// tvk::layer_norm_channels: layer_norm over dim 1 of (N, C, *), as permuting C last, layer_norm
// over [C] and permuting back would give (what ConvNeXt's blocks and LayerNorm2d spell out; the
// optimizer's rewrite_channel_layer_norms makes this op of them).
Tensor layer_norm_channels(const Tensor& input, IntList normalized_shape, const Tensor& weight, const Tensor& bias,
                           double eps) {
  const int64_t channels = check_layer_norm_channels(input, normalized_shape, weight, bias);
  const int64_t batch = input.size(0), plane = channels == 0 || batch == 0 ? 0 : input.numel() / (batch * channels);
  const Tensor x = input.contiguous();
  const Tensor w = weight.defined() ? weight.contiguous() : weight, b = bias.defined() ? bias.contiguous() : bias;
  Tensor out = empty(input.sizes());
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t p = 0; p < plane; ++p) {
      const int64_t base = n * channels * plane + p;
      normalize(x.data<float>() + base, out.data<float>() + base, channels, plane, eps, w, b);
    }
  return out;
}

}  // namespace

TVK_REGISTER_OP("tvk::layer_norm_channels(Tensor input, int[] normalized_shape, Tensor? weight=None, "
                "Tensor? bias=None, float eps=1e-05) -> Tensor",
                layer_norm_channels);
TVK_REGISTER_OP("aten::batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
                "Tensor? running_var, bool training, float momentum, float eps, bool cudnn_enabled) -> Tensor",
                batch_norm);
TVK_REGISTER_OP("aten::layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, "
                "float eps=1e-05, bool cudnn_enable=True) -> Tensor",
                layer_norm);

}  // namespace tvk::ops::cpu
