#include "ops/conv_params.h"

#include <vector>

#include "ops/registry.h"
#include "ops/shape_utils.h"
#include "tvk/ops.h"

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

ConvAs2d conv_as_2d(const char* op, const Tensor& input, const Tensor& weight, const IntList& stride,
                    const IntList& padding, const IntList& dilation, const IntList& output_padding) {
  ConvAs2d c{input, weight, stride, padding, dilation, output_padding, false};
  check_defined(op, input, "input");
  check_defined(op, weight, "weight");
  if (weight.dim() != 3) return c;
  TVK_CHECK(input.dim() == 2 || input.dim() == 3, op, ": expected a 2-D (unbatched) or 3-D (batched) input to conv1d, got input of size ",
            input.shape_string());
  c.one_d = true;
  IntList in = input.sizes(), w = weight.sizes();
  in.insert(in.end() - 1, 1);
  w.insert(w.end() - 1, 1);
  c.input = input.contiguous().view(in);
  c.weight = weight.contiguous().view(w);
  // [v] -> [first, v]; a list of another length is left for conv2d_params to reject.
  auto widen = [](const IntList& v, int64_t first) { return v.size() == 1 ? IntList{first, v[0]} : v; };
  c.stride = widen(stride, 1);
  c.padding = widen(padding, 0);
  c.dilation = widen(dilation, 1);
  c.output_padding = widen(output_padding, 0);
  return c;
}

Tensor ConvAs2d::output(const Tensor& out) const {
  if (!one_d) return out;
  IntList sizes = out.sizes();
  sizes.erase(sizes.end() - 2);
  return out.view(sizes);
}

IntList same_or_valid_padding(const char* op, Tensor& input, const Tensor& weight, const std::string& padding,
                              const IntList& stride, const IntList& dilation) {
  check_defined(op, input, "input");
  check_defined(op, weight, "weight");
  TVK_CHECK(weight.dim() >= 3, op, ": weight must have 3 or more dimensions, got ", weight.shape_string());
  const size_t dims = static_cast<size_t>(weight.dim() - 2);
  TVK_CHECK(padding == "valid" || padding == "same", op, ": invalid padding string '", padding,
            "'; expected 'valid' or 'same'");
  if (padding == "valid") return IntList(dims, 0);
  for (int64_t s : stride) TVK_CHECK(s == 1, op, ": padding='same' is not supported for strided convolutions");
  TVK_CHECK(dilation.size() == 1 || dilation.size() == dims, op, ": dilation must have 1 or ", dims, " values, got ",
            shape_string(dilation));
  IntList pad(dims), extra;  // extra: constant_pad_nd's (before, after) pairs, last dim first
  bool asymmetric = false;
  for (size_t i = 0; i < dims; ++i) {
    const int64_t d = dilation.size() == 1 ? dilation[0] : dilation[i];
    const int64_t total = d * (weight.sizes()[i + 2] - 1);
    pad[i] = total / 2;
    asymmetric |= total % 2 != 0;
  }
  if (asymmetric) {
    for (size_t i = dims; i-- > 0;) {
      const int64_t d = dilation.size() == 1 ? dilation[0] : dilation[i];
      extra.push_back(0);
      extra.push_back(d * (weight.sizes()[i + 2] - 1) % 2);
    }
    input = call("aten::constant_pad_nd", {IValue(input), IValue(extra), IValue(0.0)}).toTensor();
  }
  return pad;
}

namespace {
Tensor zero_planes(const Tensor& like, int64_t n, int64_t c, int64_t depth, int64_t h, int64_t w) {
  return call("aten::new_zeros", {IValue(like), IValue(IntList{n, c, depth, h, w}), IValue(), IValue(), IValue(), IValue()})
      .toTensor();
}

Tensor conv_transpose3d_by_planes(const char* op, const Tensor& input, const Tensor& weight, const Tensor& bias,
                                  const IntList& s, const IntList& p, const IntList& d, const IntList& op_pad,
                                  int64_t groups) {
  const bool unbatched = input.dim() == 4;
  const Tensor x = unbatched ? unsqueeze(input, 0) : input;
  const int64_t n = x.sizes()[0], c = x.sizes()[1], depth = x.sizes()[2], h = x.sizes()[3], w = x.sizes()[4];
  TVK_CHECK(groups > 0 && weight.sizes()[0] == c && c % groups == 0, op, ": expected input ", x.shape_string(),
            " to have ", weight.sizes()[0], " channels for weight ", weight.shape_string(), " and groups=", groups);
  const int64_t out_c = weight.sizes()[1] * groups, kd = weight.sizes()[2];
  for (int i = 0; i < 3; ++i)
    TVK_CHECK(op_pad[i] >= 0 && (op_pad[i] < s[i] || op_pad[i] < d[i]), op,
              ": output padding must be smaller than either stride or dilation, got output_padding=",
              shape_string(op_pad), ", stride=", shape_string(s), ", dilation=", shape_string(d));
  // The full output depth before the padding is cut (output padding adds planes at the end).
  const int64_t full = (depth - 1) * s[0] + d[0] * (kd - 1) + 1 + op_pad[0];
  const int64_t out_d = full - 2 * p[0];
  TVK_CHECK(out_d > 0, op, ": the output depth ", out_d, " is not positive");
  const Tensor planes = reshape(permute(x, {0, 2, 1, 3, 4}), {n * depth, c, h, w});
  const int64_t spread_len = (depth - 1) * s[0] + 1;
  Tensor acc;
  for (int64_t t = 0; t < kd; ++t) {
    const Tensor y2 = call("aten::conv_transpose2d.input",
                           {IValue(planes), IValue(select(weight, 2, t)), IValue(), IValue(IntList{s[1], s[2]}),
                            IValue(IntList{p[1], p[2]}), IValue(IntList{op_pad[1], op_pad[2]}), IValue(groups),
                            IValue(IntList{d[1], d[2]})})
                          .toTensor();
    const int64_t oh = y2.sizes()[2], ow = y2.sizes()[3];
    Tensor y = permute(reshape(y2, {n, depth, out_c, oh, ow}), {0, 2, 1, 3, 4});  // (N, O, D, H, W)
    if (s[0] > 1) {  // stride: s - 1 zero planes after each input plane, the last ones dropped
      std::vector<Tensor> parts{unsqueeze(y, 3)};
      const Tensor zero = unsqueeze(zero_planes(y, n, out_c, depth, oh, ow), 3);
      for (int64_t k = 1; k < s[0]; ++k) parts.push_back(zero);
      y = slice(reshape(cat(parts, 3), {n, out_c, depth * s[0], oh, ow}), 2, 0, spread_len);
    }
    std::vector<Tensor> placed;
    const int64_t before = t * d[0], after = full - before - spread_len;
    if (before > 0) placed.push_back(zero_planes(y, n, out_c, before, oh, ow));
    placed.push_back(y);
    if (after > 0) placed.push_back(zero_planes(y, n, out_c, after, oh, ow));
    const Tensor shifted = placed.size() == 1 ? y : cat(placed, 2);
    acc = acc.defined() ? add(acc, shifted) : shifted;
  }
  Tensor out = slice(acc, 2, p[0], p[0] + out_d).contiguous();
  if (bias.defined()) out = add(out, reshape(bias, {out_c, 1, 1, 1}));
  return unbatched ? reshape(out, {out_c, out_d, out.sizes()[3], out.sizes()[4]}) : out;
}
}  // namespace

Tensor conv3d_by_planes(const char* op, const Tensor& input, const Tensor& weight, const Tensor& bias,
                        const IntList& stride, const IntList& padding, const IntList& dilation, bool transposed,
                        const IntList& output_padding, int64_t groups) {
  check_defined(op, input, "input");
  TVK_CHECK(input.dim() == 4 || input.dim() == 5, op,
            ": expected a 4-D (unbatched) or 5-D (batched) input to conv3d, got input of size ", input.shape_string());
  const IntList s = expand_triple(op, "stride", stride), p = expand_triple(op, "padding", padding);
  const IntList d = expand_triple(op, "dilation", dilation);
  for (int i = 0; i < 3; ++i)
    TVK_CHECK(s[i] > 0 && d[i] > 0 && p[i] >= 0, op, ": stride and dilation must be positive and padding non-negative");
  if (transposed) {
    const IntList op_pad = output_padding.empty() ? IntList{0, 0, 0} : expand_triple(op, "output_padding", output_padding);
    return conv_transpose3d_by_planes(op, input, weight, bias, s, p, d, op_pad, groups);
  }
  const bool unbatched = input.dim() == 4;
  Tensor x = unbatched ? unsqueeze(input, 0) : input;
  const int64_t n = x.sizes()[0], c = x.sizes()[1], depth = x.sizes()[2], h = x.sizes()[3], w = x.sizes()[4];
  const int64_t out_c = weight.sizes()[0], kd = weight.sizes()[2];
  TVK_CHECK(groups > 0 && c % groups == 0 && weight.sizes()[1] * groups == c && out_c % groups == 0, op,
            ": expected input ", x.shape_string(), " to have ", weight.sizes()[1] * groups, " channels for weight ",
            weight.shape_string(), " and groups=", groups);
  if (p[0] > 0)
    x = call("aten::constant_pad_nd", {IValue(x), IValue(IntList{0, 0, 0, 0, p[0], p[0]}), IValue(0.0)}).toTensor();
  const int64_t span = d[0] * (kd - 1) + 1, padded = depth + 2 * p[0];
  TVK_CHECK(padded >= span, op, ": the kernel's depth ", kd, " (dilated ", span, ") exceeds the padded input depth ",
            padded);
  const int64_t out_d = (padded - span) / s[0] + 1;
  Tensor acc;
  for (int64_t t = 0; t < kd; ++t) {
    // (N, C, D_out, H, W) -> (N * D_out, C, H, W): every output depth's input plane for tap t.
    const Tensor planes = slice(x, 2, t * d[0], t * d[0] + s[0] * (out_d - 1) + 1, s[0]);
    const Tensor batched = reshape(permute(planes, {0, 2, 1, 3, 4}), {n * out_d, c, h, w});
    const Tensor y = conv2d(batched, select(weight, 2, t), {}, {s[1], s[2]}, {p[1], p[2]}, {d[1], d[2]}, groups);
    acc = acc.defined() ? add(acc, y) : y;
  }
  const int64_t out_h = acc.sizes()[2], out_w = acc.sizes()[3];
  Tensor out = permute(reshape(acc, {n, out_d, out_c, out_h, out_w}), {0, 2, 1, 3, 4}).contiguous();
  if (bias.defined()) out = add(out, reshape(bias, {out_c, 1, 1, 1}));
  return unbatched ? reshape(out, {out_c, out_d, out_h, out_w}) : out;
}

}  // namespace tvk::ops
