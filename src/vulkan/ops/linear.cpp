// Vulkan matrix products (shader matmul.glsl): mm, bmm, addmm, linear, matmul. Operands are read
// through strides, so linear's transposed weight and broadcast biases need no copies.
#include "ops/matmul_shapes.h"
#include "ops/registry.h"
#include "ops/view_geometry.h"
#include "vulkan/ops/shader_dispatch.h"
#include "vulkan/ops/strided_copy.h"

namespace tvk::vulkan {
namespace {

struct MatmulParams {
  int32_t rows, cols, inner, batch;
  int32_t a_batch_stride, a_row_stride, a_inner_stride;
  int32_t b_batch_stride, b_inner_stride, b_col_stride;
  int32_t bias_row_stride, bias_col_stride, has_bias;
  float alpha, beta;
};

// A matrix operand: a contiguous Vulkan buffer and the (batch, row, col) strides to read it by.
struct Operand {
  Tensor buffer;
  int64_t batch_stride, row_stride, col_stride;
};
Operand matrix(const Tensor& t) { return {t, t.sizes()[0] * t.sizes()[1], t.sizes()[1], 1}; }          // [n, m]
Operand batched(const Tensor& t) { return {t, t.sizes()[1] * t.sizes()[2], t.sizes()[2], 1}; }         // [B, n, m]
Operand transposed(const Tensor& t) { return {t, t.sizes()[0] * t.sizes()[1], 1, t.sizes()[1]}; }      // [m, n] as [n, m]

// out [batch, rows, cols] = beta * bias + alpha * a @ b, `bias` broadcast to [rows, cols].
Tensor product(const char* op, const IntList& out_sizes, int64_t batch, int64_t rows, int64_t inner, int64_t cols,
               const Operand& a, const Operand& b, const Tensor& bias, double beta, double alpha) {
  Tensor out = empty_vulkan(out_sizes);
  const bool use_bias = bias.defined() && beta != 0;  // beta == 0 ignores the bias, NaN included
  IntList bias_strides{0, 0};
  if (use_bias) {
    check_vulkan_float(op, bias, "bias");
    bias_strides = ops::broadcast_strides(bias, {rows, cols});
  }
  auto i32 = [op](int64_t v) { return to_i32(op, v); };
  const MatmulParams p{i32(rows), i32(cols), i32(inner), i32(batch),
                       i32(a.batch_stride), i32(a.row_stride), i32(a.col_stride),
                       i32(b.batch_stride), i32(b.row_stride), i32(b.col_stride),
                       i32(bias_strides[0]), i32(bias_strides[1]), use_bias ? 1 : 0,
                       static_cast<float>(alpha), static_cast<float>(beta)};
  const std::array<uint32_t, 3> grid{static_cast<uint32_t>(cols), static_cast<uint32_t>(rows),
                                     static_cast<uint32_t>(batch)};
  for (const Tensor* t : {&a.buffer, &b.buffer, &bias})
    TVK_CHECK(!t->defined() || texel_view_fits(*t, Buffer::TexelFormat::R32), op, ": an operand ",
              t->shape_string(), " exceeds this device's texel buffer limit (maxTexelBufferElements)");
  launch(grid_launch("matmul", grid), {out, texels1(a.buffer), texels1(b.buffer), texels1(use_bias ? bias : a.buffer)},
         p);
  return out;
}

Tensor mm(const Tensor& self, const Tensor& mat2) {
  const char* op = "aten::mm";
  ops::check_mm(op, self, mat2);
  check_vulkan_float(op, self, "self");
  check_vulkan_float(op, mat2, "mat2");
  const int64_t n = self.sizes()[0], m = self.sizes()[1], p = mat2.sizes()[1];
  return product(op, {n, p}, 1, n, m, p, matrix(self), matrix(mat2), Tensor(), 0, 1);
}

Tensor bmm(const Tensor& self, const Tensor& mat2) {
  const char* op = "aten::bmm";
  ops::check_bmm(op, self, mat2);
  check_vulkan_float(op, self, "self");
  check_vulkan_float(op, mat2, "mat2");
  const int64_t batch = self.sizes()[0], n = self.sizes()[1], m = self.sizes()[2], p = mat2.sizes()[2];
  return product(op, {batch, n, p}, batch, n, m, p, batched(self), batched(mat2), Tensor(), 0, 1);
}

Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, ops::Scalar beta, ops::Scalar alpha) {
  const char* op = "aten::addmm";
  ops::check_mm(op, mat1, mat2);
  check_vulkan_float(op, mat1, "mat1");
  check_vulkan_float(op, mat2, "mat2");
  check_vulkan_float(op, self, "self");
  const int64_t n = mat1.sizes()[0], m = mat1.sizes()[1], p = mat2.sizes()[1];
  const IntList out_sizes{n, p};
  TVK_CHECK(ops::broadcast_shapes(op, self.sizes(), out_sizes) == out_sizes, op, ": self ", self.shape_string(),
            " does not broadcast to the product's shape ", shape_string(out_sizes));
  return product(op, out_sizes, 1, n, m, p, matrix(mat1), matrix(mat2), self, beta, alpha);
}

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  const char* op = "aten::linear";
  ops::check_linear(input, weight, bias);
  check_vulkan_float(op, input, "input");
  check_vulkan_float(op, weight, "weight");
  const int64_t in = weight.sizes()[1], out = weight.sizes()[0];
  const int64_t rows = in == 0 ? 0 : input.numel() / in;
  IntList out_sizes = input.sizes();
  out_sizes.back() = out;
  return product(op, out_sizes, 1, rows, in, out, {input, rows * in, in, 1}, transposed(weight),
                 bias.defined() ? bias.view({out}) : bias, 1, 1);
}

// Expands a (possibly unsqueezed) operand to its broadcast batch shape; a copy only when the
// batch dims actually broadcast.
Tensor expand_operand(const Tensor& t, const IntList& sizes) {
  if (t.sizes() == sizes) return t;
  if (numel_of(t.sizes()) == numel_of(sizes)) return t.view(sizes);
  return materialize("aten::matmul", t, ops::expand_geometry("aten::matmul", t, sizes));
}

Tensor matmul(const Tensor& self, const Tensor& other) {
  const char* op = "aten::matmul";
  check_vulkan_float(op, self, "self");
  check_vulkan_float(op, other, "other");
  Tensor a, b;
  const ops::MatmulShape s = ops::matmul_shape(self, other, a, b);
  const int64_t batch = numel_of(s.batch);
  const Tensor a3 = expand_operand(a, s.a_sizes).view({batch, s.rows, s.inner});
  const Tensor b3 = expand_operand(b, s.b_sizes).view({batch, s.inner, s.cols});
  return product(op, s.out_sizes, batch, s.rows, s.inner, s.cols, batched(a3), batched(b3), Tensor(), 0, 1);
}

}  // namespace

TVK_REGISTER_VULKAN_KERNEL("aten::mm", mm);
TVK_REGISTER_VULKAN_KERNEL("aten::bmm", bmm);
TVK_REGISTER_VULKAN_KERNEL("aten::addmm", addmm);
TVK_REGISTER_VULKAN_KERNEL("aten::linear", linear);
TVK_REGISTER_VULKAN_KERNEL("aten::matmul", matmul);

}  // namespace tvk::vulkan
