// Convolutions: conv2d, convolution, _convolution (both overloads), conv_transpose2d. Direct
// loops over contiguous copies, accumulating in double: the reference the GPU is checked against.
#include "ops/conv_params.h"
#include "ops/registry.h"
#include "ops/shape_utils.h"

namespace tvk::ops::cpu {
namespace {

Tensor conv2d_direct(const Conv2dParams& p, const Tensor& input, const Tensor& weight, const Tensor& bias) {
  const Tensor x = input.contiguous(), w = weight.contiguous();
  const Tensor b = bias.defined() ? bias.contiguous() : Tensor();
  Tensor out = empty(p.output_sizes());
  const float* px = x.data<float>();
  const float* pw = w.data<float>();
  float* py = out.data<float>();
  const int64_t icg = p.in_channels_per_group(), ocg = p.out_channels_per_group();
  for (int64_t n = 0; n < p.batch; ++n)
    for (int64_t oc = 0; oc < p.out_channels; ++oc) {
      const int64_t g = oc / ocg;
      for (int64_t oy = 0; oy < p.out_h; ++oy)
        for (int64_t ox = 0; ox < p.out_w; ++ox) {
          double acc = b.defined() ? b.data<float>()[oc] : 0.0;
          for (int64_t ic = 0; ic < icg; ++ic)
            for (int64_t ky = 0; ky < p.kernel_h; ++ky) {
              const int64_t iy = oy * p.stride[0] - p.padding[0] + ky * p.dilation[0];
              if (iy < 0 || iy >= p.in_h) continue;
              for (int64_t kx = 0; kx < p.kernel_w; ++kx) {
                const int64_t ix = ox * p.stride[1] - p.padding[1] + kx * p.dilation[1];
                if (ix < 0 || ix >= p.in_w) continue;
                const float v = px[((n * p.in_channels + g * icg + ic) * p.in_h + iy) * p.in_w + ix];
                acc += static_cast<double>(v) * pw[((oc * icg + ic) * p.kernel_h + ky) * p.kernel_w + kx];
              }
            }
          py[((n * p.out_channels + oc) * p.out_h + oy) * p.out_w + ox] = static_cast<float>(acc);
        }
    }
  return out;
}

// Transposed convolution as a scatter: every input pixel adds its weighted kernel into the output.
Tensor conv_transpose2d_direct(const Conv2dParams& p, const Tensor& input, const Tensor& weight, const Tensor& bias) {
  const Tensor x = input.contiguous(), w = weight.contiguous();
  const int64_t icg = p.in_channels_per_group(), ocg = p.out_channels_per_group();
  const int64_t plane = p.out_h * p.out_w;
  std::vector<double> acc(static_cast<size_t>(p.batch * p.out_channels * plane), 0.0);
  const float* px = x.data<float>();
  const float* pw = w.data<float>();
  for (int64_t n = 0; n < p.batch; ++n)
    for (int64_t ic = 0; ic < p.in_channels; ++ic) {
      const int64_t g = ic / icg;
      for (int64_t iy = 0; iy < p.in_h; ++iy)
        for (int64_t ix = 0; ix < p.in_w; ++ix) {
          const double v = px[((n * p.in_channels + ic) * p.in_h + iy) * p.in_w + ix];
          for (int64_t o = 0; o < ocg; ++o) {
            const int64_t oc = g * ocg + o;
            for (int64_t ky = 0; ky < p.kernel_h; ++ky) {
              const int64_t oy = iy * p.stride[0] - p.padding[0] + ky * p.dilation[0];
              if (oy < 0 || oy >= p.out_h) continue;
              for (int64_t kx = 0; kx < p.kernel_w; ++kx) {
                const int64_t ox = ix * p.stride[1] - p.padding[1] + kx * p.dilation[1];
                if (ox < 0 || ox >= p.out_w) continue;
                acc[static_cast<size_t>((n * p.out_channels + oc) * plane + oy * p.out_w + ox)] +=
                    v * pw[((ic * ocg + o) * p.kernel_h + ky) * p.kernel_w + kx];
              }
            }
          }
        }
    }
  Tensor out = empty(p.output_sizes());
  float* py = out.data<float>();
  const Tensor b = bias.defined() ? bias.contiguous() : Tensor();
  for (size_t i = 0; i < acc.size(); ++i) {
    const int64_t oc = (static_cast<int64_t>(i) / plane) % p.out_channels;
    py[i] = static_cast<float>(acc[i] + (b.defined() ? b.data<float>()[oc] : 0.0));
  }
  return out;
}

Tensor convolution_impl(const char* op, const Tensor& input, const Tensor& weight, const Tensor& bias,
                        const IntList& stride, const IntList& padding, const IntList& dilation, bool transposed,
                        const IntList& output_padding, int64_t groups, bool allow_unbatched) {
  const Conv2dParams p = conv2d_params(op, input, weight, bias, stride, padding, dilation, transposed, output_padding,
                                       groups, allow_unbatched);
  return transposed ? conv_transpose2d_direct(p, input, weight, bias) : conv2d_direct(p, input, weight, bias);
}

using Schemas = ConvolutionSchemas<convolution_impl>;

}  // namespace

TVK_REGISTER_OP("aten::_convolution_mode(Tensor input, Tensor weight, Tensor? bias, int[] stride, str padding, "
                "int[] dilation, int groups) -> Tensor",
                Schemas::convolution_mode);
TVK_REGISTER_OP("aten::convolution_overrideable(Tensor input, Tensor weight, Tensor? bias, int[] stride, "
                "int[] padding, int[] dilation, bool transposed, int[] output_padding, int groups) -> Tensor",
                Schemas::convolution);
TVK_REGISTER_OP("aten::conv3d(Tensor input, Tensor weight, Tensor? bias=None, int[3] stride=1, int[3] padding=0, "
                "int[3] dilation=1, int groups=1) -> Tensor",
                Schemas::conv3d);
TVK_REGISTER_OP("aten::conv3d.padding(Tensor input, Tensor weight, Tensor? bias=None, int[3] stride=1, "
                "str padding=\"valid\", int[3] dilation=1, int groups=1) -> Tensor",
                Schemas::conv3d_padding);
TVK_REGISTER_OP("aten::conv1d(Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, int[1] padding=0, "
                "int[1] dilation=1, int groups=1) -> Tensor",
                Schemas::conv1d);
TVK_REGISTER_OP("aten::conv1d.padding(Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, "
                "str padding=\"valid\", int[1] dilation=1, int groups=1) -> Tensor",
                Schemas::conv1d_padding);
TVK_REGISTER_OP("aten::conv2d.padding(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, "
                "str padding=\"valid\", int[2] dilation=1, int groups=1) -> Tensor",
                Schemas::conv2d_padding);
TVK_REGISTER_OP("aten::conv_transpose1d(Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, "
                "int[1] padding=0, int[1] output_padding=0, int groups=1, int[1] dilation=1) -> Tensor",
                Schemas::conv_transpose1d);
TVK_REGISTER_OP("aten::conv_transpose3d.input(Tensor input, Tensor weight, Tensor? bias=None, int[3] stride=1, "
                "int[3] padding=0, int[3] output_padding=0, int groups=1, int[3] dilation=1) -> Tensor",
                Schemas::conv_transpose3d);
TVK_REGISTER_OP("aten::conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0, "
                "int[2] dilation=1, int groups=1) -> Tensor",
                Schemas::conv2d);
TVK_REGISTER_OP("aten::conv_transpose2d.input(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, "
                "int[2] padding=0, int[2] output_padding=0, int groups=1, int[2] dilation=1) -> Tensor",
                Schemas::conv_transpose2d);
TVK_REGISTER_OP("aten::convolution(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding, "
                "int[] dilation, bool transposed, int[] output_padding, int groups) -> Tensor",
                Schemas::convolution);
TVK_REGISTER_OP("aten::_convolution(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding, "
                "int[] dilation, bool transposed, int[] output_padding, int groups, bool benchmark, "
                "bool deterministic, bool cudnn_enabled, bool allow_tf32) -> Tensor",
                Schemas::convolution_underscore);
TVK_REGISTER_OP("aten::_convolution.deprecated(Tensor input, Tensor weight, Tensor? bias, int[] stride, "
                "int[] padding, int[] dilation, bool transposed, int[] output_padding, int groups, "
                "bool benchmark, bool deterministic, bool cudnn_enabled) -> Tensor",
                Schemas::convolution_deprecated);

}  // namespace tvk::ops::cpu
