// Matrix products: mm, bmm, addmm, linear, matmul. One strided batched product, accumulating in
// double; the ops differ only in how they shape their operands and add a bias.
#include "ops/matmul_shapes.h"
#include "ops/registry.h"
#include "ops/shape_utils.h"
#include "ops/view_geometry.h"

namespace tvk::ops::cpu {
namespace {

// [B, n, m] x [B, m, p] -> contiguous [B, n, p], reading both operands through their strides.
Tensor batched_product(const Tensor& a, const Tensor& b) {
  const int64_t batch = a.sizes()[0], n = a.sizes()[1], m = a.sizes()[2], p = b.sizes()[2];
  Tensor out = empty({batch, n, p});
  const float* pa = a.data<float>();
  const float* pb = b.data<float>();
  float* po = out.data<float>();
  const IntList& sa = a.strides();
  const IntList& sb = b.strides();
  for (int64_t s = 0; s < batch; ++s)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < p; ++j) {
        double acc = 0;
        for (int64_t k = 0; k < m; ++k)
          acc += static_cast<double>(pa[s * sa[0] + i * sa[1] + k * sa[2]]) * pb[s * sb[0] + k * sb[1] + j * sb[2]];
        po[(s * n + i) * p + j] = static_cast<float>(acc);
      }
  return out;
}

// A [n, m] matrix viewed as a batch of one.
Tensor as_batch(const Tensor& t) { return as_view(t, unsqueeze_geometry(t, 0)); }

// beta * bias + alpha * product, with `bias` broadcast to the product's [n, p] shape.
Tensor scale_and_add_bias(Tensor product, const Tensor& bias, double beta, double alpha) {
  const IntList& sizes = product.sizes();
  float* po = product.data<float>();
  const bool use_bias = bias.defined() && beta != 0;  // beta == 0 ignores bias, NaN included
  const IntList bs = use_bias ? broadcast_strides(bias, sizes) : IntList(sizes.size(), 0);
  const float* pb = use_bias ? bias.data<float>() : nullptr;
  const int64_t rows = sizes[0], cols = sizes[1];
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      double v = alpha * po[i * cols + j];
      if (use_bias) v += beta * pb[i * bs[0] + j * bs[1]];
      po[i * cols + j] = static_cast<float>(v);
    }
  return product;
}

Tensor mm(const Tensor& self, const Tensor& mat2) {
  check_mm("aten::mm", self, mat2);
  return batched_product(as_batch(self), as_batch(mat2)).view({self.sizes()[0], mat2.sizes()[1]});
}

Tensor bmm(const Tensor& self, const Tensor& mat2) {
  check_bmm("aten::bmm", self, mat2);
  return batched_product(self, mat2);
}

Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, Scalar beta, Scalar alpha) {
  const char* op = "aten::addmm";
  check_mm(op, mat1, mat2);
  check_float(op, self, "self");
  const IntList out_sizes{mat1.sizes()[0], mat2.sizes()[1]};
  TVK_CHECK(broadcast_shapes(op, self.sizes(), out_sizes) == out_sizes, op, ": self ", self.shape_string(),
            " does not broadcast to the product's shape ", shape_string(out_sizes));
  Tensor product = batched_product(as_batch(mat1), as_batch(mat2)).view(out_sizes);
  return scale_and_add_bias(product, self, beta, alpha);
}

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  check_linear(input, weight, bias);
  const int64_t in = weight.sizes()[1], out = weight.sizes()[0];
  const Tensor rows = input.reshape({input.numel() / std::max<int64_t>(in, 1), in});
  Tensor product = batched_product(as_batch(rows), as_batch(as_view(weight, t_geometry(weight))))
                       .view({rows.sizes()[0], out});
  product = scale_and_add_bias(product, bias.defined() ? bias.reshape({out}) : bias, 1, 1);
  IntList out_sizes = input.sizes();
  out_sizes.back() = out;
  return product.view(out_sizes);
}

Tensor matmul(const Tensor& self, const Tensor& other) {
  Tensor a, b;
  const MatmulShape s = matmul_shape(self, other, a, b);
  const int64_t batch = numel_of(s.batch);
  const Tensor a3 = as_view(a, expand_geometry("aten::matmul", a, s.a_sizes)).contiguous().view({batch, s.rows, s.inner});
  const Tensor b3 = as_view(b, expand_geometry("aten::matmul", b, s.b_sizes)).contiguous().view({batch, s.inner, s.cols});
  return batched_product(a3, b3).view(s.out_sizes);
}

}  // namespace

TVK_REGISTER_OP("aten::mm(Tensor self, Tensor mat2) -> Tensor", mm);
TVK_REGISTER_OP("aten::bmm(Tensor self, Tensor mat2) -> Tensor", bmm);
TVK_REGISTER_OP("aten::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor", addmm);
TVK_REGISTER_OP("aten::linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor", linear);
TVK_REGISTER_OP("aten::matmul(Tensor self, Tensor other) -> Tensor", matmul);

}  // namespace tvk::ops::cpu
