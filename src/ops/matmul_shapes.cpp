#include "ops/matmul_shapes.h"

#include "ops/shape_utils.h"
#include "ops/view_geometry.h"

namespace tvk::ops {

void check_mm(const char* op, const Tensor& a, const Tensor& b) {
  check_float(op, a, "self");
  check_float(op, b, "mat2");
  TVK_CHECK(a.dim() == 2 && b.dim() == 2, op, ": expected 2-D matrices, got ", a.shape_string(), " and ",
            b.shape_string());
  TVK_CHECK(a.sizes()[1] == b.sizes()[0], op, ": shapes ", a.shape_string(), " and ", b.shape_string(),
            " cannot be multiplied (", a.sizes()[1], " != ", b.sizes()[0], ")");
}

void check_bmm(const char* op, const Tensor& a, const Tensor& b) {
  check_float(op, a, "self");
  check_float(op, b, "mat2");
  TVK_CHECK(a.dim() == 3 && b.dim() == 3, op, ": expected 3-D batches of matrices, got ", a.shape_string(), " and ",
            b.shape_string());
  TVK_CHECK(a.sizes()[0] == b.sizes()[0] && a.sizes()[2] == b.sizes()[1], op, ": shapes ", a.shape_string(), " and ",
            b.shape_string(), " cannot be multiplied batch by batch");
}

void check_linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  const char* op = "aten::linear";
  check_float(op, input, "input");
  check_float(op, weight, "weight");
  TVK_CHECK(input.dim() >= 1, op, ": expected an input of rank >= 1, got ", input.shape_string());
  TVK_CHECK(weight.dim() == 2, op, ": expected a 2-D weight [out, in], got ", weight.shape_string());
  TVK_CHECK(input.sizes().back() == weight.sizes()[1], op, ": input ", input.shape_string(),
            " does not match weight ", weight.shape_string(), " (", input.sizes().back(), " != ", weight.sizes()[1],
            ")");
  if (bias.defined()) {
    check_float(op, bias, "bias");
    TVK_CHECK(bias.dim() <= 1 && bias.numel() == weight.sizes()[0], op, ": expected bias of shape [",
              weight.sizes()[0], "], got ", bias.shape_string());
  }
}

MatmulShape matmul_shape(const Tensor& a, const Tensor& b, Tensor& a_2d, Tensor& b_2d) {
  const char* op = "aten::matmul";
  check_float(op, a, "self");
  check_float(op, b, "other");
  TVK_CHECK(a.dim() >= 1 && b.dim() >= 1, op, ": both arguments need at least 1 dimension, got ", a.shape_string(),
            " and ", b.shape_string());
  a_2d = a.dim() == 1 ? as_view(a, unsqueeze_geometry(a, 0)) : a;
  b_2d = b.dim() == 1 ? as_view(b, unsqueeze_geometry(b, 1)) : b;
  MatmulShape s;
  s.rows = a_2d.sizes()[a_2d.dim() - 2];
  s.inner = a_2d.sizes().back();
  s.cols = b_2d.sizes().back();
  TVK_CHECK(b_2d.sizes()[b_2d.dim() - 2] == s.inner, op, ": shapes ", a.shape_string(), " and ", b.shape_string(),
            " cannot be multiplied (", s.inner, " != ", b_2d.sizes()[b_2d.dim() - 2], ")");
  s.batch = broadcast_shapes(op, IntList(a_2d.sizes().begin(), a_2d.sizes().end() - 2),
                             IntList(b_2d.sizes().begin(), b_2d.sizes().end() - 2));
  s.a_sizes = s.batch;
  s.a_sizes.insert(s.a_sizes.end(), {s.rows, s.inner});
  s.b_sizes = s.batch;
  s.b_sizes.insert(s.b_sizes.end(), {s.inner, s.cols});
  s.out_sizes = s.batch;
  if (a.dim() > 1) s.out_sizes.push_back(s.rows);
  if (b.dim() > 1) s.out_sizes.push_back(s.cols);
  return s;
}

}  // namespace tvk::ops
