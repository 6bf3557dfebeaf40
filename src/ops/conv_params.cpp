#include "ops/conv_params.h"

#include "ops/shape_utils.h"

namespace tvk::ops {

IntList Conv2dParams::output_sizes() const {
  if (unbatched) return {out_channels, out_h, out_w};
  return {batch, out_channels, out_h, out_w};
}

Conv2dParams conv2d_params(const char* op, const Tensor& input, const Tensor& weight, const Tensor& bias,
                           const IntList& stride, const IntList& padding, const IntList& dilation, bool transposed,
                           const IntList& output_padding, int64_t groups, bool allow_unbatched) {
  check_float(op, input, "input");
  check_float(op, weight, "weight");
  check_rank(op, input, allow_unbatched ? 3 : 4, 4, allow_unbatched ? "(N, C, H, W) or (C, H, W)" : "(N, C, H, W)");
  check_rank(op, weight, 4, 4, transposed ? "(Cin, Cout/groups, kH, kW)" : "(Cout, Cin/groups, kH, kW)", "weight");
  Conv2dParams p;
  p.stride = expand_pair(op, "stride", stride);
  p.padding = expand_pair(op, "padding", padding);
  p.dilation = expand_pair(op, "dilation", dilation);
  p.output_padding = transposed ? expand_pair(op, "output_padding", output_padding) : std::array<int64_t, 2>{0, 0};
  p.groups = groups;
  p.transposed = transposed;
  p.unbatched = input.dim() == 3;
  for (int i = 0; i < 2; ++i) {
    TVK_CHECK(p.stride[i] > 0, op, ": stride must be positive, got ", shape_string(stride));
    TVK_CHECK(p.dilation[i] > 0, op, ": dilation must be positive, got ", shape_string(dilation));
    TVK_CHECK(p.padding[i] >= 0, op, ": padding must be non-negative, got ", shape_string(padding));
    TVK_CHECK(p.output_padding[i] >= 0 && (p.output_padding[i] < p.stride[i] || p.output_padding[i] < p.dilation[i]),
              op, ": output_padding ", shape_string(output_padding), " must be smaller than stride or dilation");
  }
  TVK_CHECK(groups > 0, op, ": groups must be positive, got ", groups);

  const int64_t off = p.unbatched ? 1 : 0;
  p.batch = p.unbatched ? 1 : input.sizes()[0];
  p.in_channels = input.sizes()[1 - off];
  p.in_h = input.sizes()[2 - off];
  p.in_w = input.sizes()[3 - off];
  p.kernel_h = weight.sizes()[2];
  p.kernel_w = weight.sizes()[3];
  if (transposed) {
    TVK_CHECK(p.in_channels == weight.sizes()[0], op, ": weight ", weight.shape_string(), " expects ",
              weight.sizes()[0], " input channels, but the input ", input.shape_string(), " has ", p.in_channels);
    TVK_CHECK(p.in_channels % groups == 0, op, ": groups ", groups, " does not divide the ", p.in_channels,
              " input channels");
    p.out_channels = weight.sizes()[1] * groups;
  } else {
    TVK_CHECK(p.in_channels == weight.sizes()[1] * groups, op, ": weight ", weight.shape_string(), " with groups ",
              groups, " expects ", weight.sizes()[1] * groups, " input channels, but the input ", input.shape_string(),
              " has ", p.in_channels);
    p.out_channels = weight.sizes()[0];
    TVK_CHECK(p.out_channels % groups == 0, op, ": groups ", groups, " does not divide the ", p.out_channels,
              " output channels of weight ", weight.shape_string());
  }
  if (bias.defined()) {
    check_float(op, bias, "bias");
    TVK_CHECK(bias.dim() == 1 && bias.sizes()[0] == p.out_channels, op, ": expected bias of shape [",
              p.out_channels, "], got ", bias.shape_string());
  }
  const int64_t eff_kh = p.dilation[0] * (p.kernel_h - 1) + 1, eff_kw = p.dilation[1] * (p.kernel_w - 1) + 1;
  if (transposed) {
    p.out_h = (p.in_h - 1) * p.stride[0] - 2 * p.padding[0] + eff_kh + p.output_padding[0];
    p.out_w = (p.in_w - 1) * p.stride[1] - 2 * p.padding[1] + eff_kw + p.output_padding[1];
  } else {
    TVK_CHECK(p.in_h + 2 * p.padding[0] >= eff_kh && p.in_w + 2 * p.padding[1] >= eff_kw, op, ": input ",
              input.shape_string(), " padded by ", shape_string(padding), " is smaller than the dilated kernel (",
              eff_kh, ", ", eff_kw, ")");
    p.out_h = (p.in_h + 2 * p.padding[0] - eff_kh) / p.stride[0] + 1;
    p.out_w = (p.in_w + 2 * p.padding[1] - eff_kw) / p.stride[1] + 1;
  }
  TVK_CHECK(p.out_h > 0 && p.out_w > 0, op, ": the output size (", p.out_h, ", ", p.out_w, ") for input ",
            input.shape_string(), " is too small");
  return p;
}

}  // namespace tvk::ops
