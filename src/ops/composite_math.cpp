// Math ops made of other registered ops, one kernel for both devices (as composite.cpp's): each
// dispatches through the ops it calls, so on Vulkan every step is a Vulkan kernel.
// - aliases: detach, lift_fresh, alias, sgn, square, ger, row_stack, moveaxis;
// - clamps by tensors (clamp.Tensor, clamp_min / clamp_max .Tensor) through maximum / minimum;
// - float classification: isnan, isinf, isposinf, isneginf, isfinite, nan_to_num;
// - arithmetic: addcmul, addcdiv, hypot, logaddexp, xlogy, logit;
// - reductions: logsumexp, the vector norms (linalg_vector_norm, norm, frobenius_norm, and
//   linalg_norm's vector and Frobenius / max-abs matrix forms), count_nonzero, dot, dist,
//   cosine_similarity, pairwise_distance, cdist;
// - layout: triu / tril (a mask built on the host), diagonal (a strided view), diag, movedim,
//   rot90, hstack / vstack / dstack / column_stack, mv, outer;
// - col2im (F.fold) as a transposed convolution with one-hot weights, one group per channel;
// - affine_grid_generator (F.affine_grid): a host-made base grid times theta;
// - unfold (a strided view), unflatten, channel_shuffle, repeat_interleave, tensor_split, one_hot,
//   new_ones, eval-mode rrelu, index_put, and the in-place scatters;
// - bitwise and / or / xor (`&` of masks): logical ops for bool, host integer ops for int64;
// - anti-aliased bilinear and bicubic resizing as two products with host-made weight matrices.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "ops/registry.h"
#include "ops/shape_utils.h"
#include "tvk/ops.h"

namespace tvk::ops {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor op(const char* name, Stack args) { return call(name, std::move(args)).toTensor(); }
Tensor assign(const Tensor& self, const Tensor& value) { return op("aten::copy_", {IValue(self), IValue(value), IValue(false)}); }

// ---- aliases ------------------------------------------------------------------------------------

Tensor same(const Tensor& self) { return self; }
Tensor clone_of(const Tensor& self) { return self.clone(); }
Tensor sgn(const Tensor& self) { return op("aten::sign", {IValue(self)}); }
Tensor square(const Tensor& self) { return op("aten::mul.Tensor", {IValue(self), IValue(self)}); }
Tensor square_(const Tensor& self) { return assign(self, square(self)); }

// ---- clamps by tensors --------------------------------------------------------------------------

Tensor clamp_tensor(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  const bool lo = min && min->defined(), hi = max && max->defined();
  TVK_CHECK(lo || hi, "aten::clamp: at least one of 'min' or 'max' must not be None");
  Tensor r = self;
  if (lo) r = op("aten::maximum", {IValue(r), IValue(*min)});
  if (hi) r = op("aten::minimum", {IValue(r), IValue(*max)});  // min > max gives max, as in PyTorch
  return r;
}
Tensor clamp_tensor_(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  return assign(self, clamp_tensor(self, min, max));
}
Tensor clamp_min_tensor(const Tensor& self, const Tensor& min) { return clamp_tensor(self, min, std::nullopt); }
Tensor clamp_max_tensor(const Tensor& self, const Tensor& max) { return clamp_tensor(self, std::nullopt, max); }

// ---- float classification -----------------------------------------------------------------------

bool is_float(const Tensor& t) { return t.dtype() == DType::Float32; }
Tensor all_false(const Tensor& self) { return op("aten::ne.Tensor", {IValue(self), IValue(self)}); }  // integers equal themselves

Tensor isnan(const Tensor& self) {
  check_defined("aten::isnan", self);
  return op("aten::ne.Tensor", {IValue(self), IValue(self)});
}
Tensor isinf(const Tensor& self) {
  check_defined("aten::isinf", self);
  if (!is_float(self)) return all_false(self);
  return op("aten::eq.Scalar", {IValue(op("aten::abs", {IValue(self)})), IValue(kInf)});
}
Tensor isposinf(const Tensor& self) {
  check_defined("aten::isposinf", self);
  return is_float(self) ? op("aten::eq.Scalar", {IValue(self), IValue(kInf)}) : all_false(self);
}
Tensor isneginf(const Tensor& self) {
  check_defined("aten::isneginf", self);
  return is_float(self) ? op("aten::eq.Scalar", {IValue(self), IValue(-kInf)}) : all_false(self);
}
// x - x is 0 for finite x, NaN for infinities and NaN.
Tensor isfinite(const Tensor& self) {
  check_defined("aten::isfinite", self);
  if (!is_float(self)) return op("aten::eq.Tensor", {IValue(self), IValue(self)});
  return op("aten::eq.Scalar", {IValue(op("aten::sub.Tensor", {IValue(self), IValue(self), IValue(1.0)})), IValue(0.0)});
}
Tensor nan_to_num(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  check_defined("aten::nan_to_num", self);
  if (!is_float(self)) return self.clone();
  const double big = std::numeric_limits<float>::max();
  Tensor r = op("aten::masked_fill.Scalar", {IValue(self), IValue(isnan(self)), IValue(nan.value_or(0.0))});
  r = op("aten::masked_fill.Scalar", {IValue(r), IValue(isposinf(self)), IValue(posinf.value_or(big))});
  return op("aten::masked_fill.Scalar", {IValue(r), IValue(isneginf(self)), IValue(neginf.value_or(-big))});
}
Tensor nan_to_num_(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                   std::optional<double> neginf) {
  return assign(self, nan_to_num(self, nan, posinf, neginf));
}

// ---- arithmetic ---------------------------------------------------------------------------------

Tensor addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2, double value) {
  return add(self, op("aten::mul.Tensor", {IValue(t1), IValue(t2)}), value);
}
Tensor addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, double value) {
  return add(self, op("aten::div.Tensor", {IValue(t1), IValue(t2)}), value);
}
Tensor addcmul_(const Tensor& self, const Tensor& t1, const Tensor& t2, double value) {
  return assign(self, addcmul(self, t1, t2, value));
}
Tensor addcdiv_(const Tensor& self, const Tensor& t1, const Tensor& t2, double value) {
  return assign(self, addcdiv(self, t1, t2, value));
}
Tensor hypot(const Tensor& self, const Tensor& other) {
  return op("aten::sqrt", {IValue(add(mul(self, self), mul(other, other)))});
}
// max(a, b) + log1p(exp(-|a - b|)); equal infinities give themselves (their difference is NaN).
Tensor logaddexp(const Tensor& self, const Tensor& other) {
  const Tensor m = op("aten::maximum", {IValue(self), IValue(other)});
  const Tensor d = op("aten::abs", {IValue(sub(self, other))});
  const Tensor r = add(m, op("aten::log1p", {IValue(op("aten::exp", {IValue(mul(d, -1.0))}))}));
  const Tensor same_inf = op("aten::logical_and", {IValue(isinf(self)), IValue(op("aten::eq.Tensor", {IValue(self), IValue(other)}))});
  return op("aten::where.self", {IValue(same_inf), IValue(self), IValue(r)});
}
// x * log(y), 0 where x is 0 and y is not NaN.
Tensor xlogy(const Tensor& self, const Tensor& other) {
  const Tensor r = mul(self, op("aten::log", {IValue(other)}));
  const Tensor zero = op("aten::logical_and", {IValue(op("aten::eq.Scalar", {IValue(self), IValue(0.0)})),
                                               IValue(op("aten::eq.Tensor", {IValue(other), IValue(other)}))});
  return op("aten::masked_fill.Scalar", {IValue(r), IValue(zero), IValue(0.0)});
}
Tensor logit(const Tensor& self, std::optional<double> eps) {
  check_defined("aten::logit", self);
  const Tensor x = eps ? clamp(self, *eps, 1.0 - *eps) : self;
  return op("aten::log", {IValue(div(x, op("aten::rsub.Scalar", {IValue(x), IValue(1.0), IValue(1.0)})))});
}

// ---- reductions ---------------------------------------------------------------------------------

Tensor sum(const Tensor& self, const IntList& dims, bool keepdim) {
  return op("aten::sum.dim_IntList", {IValue(self), IValue(dims), IValue(keepdim), IValue()});
}
Tensor as_float(const Tensor& t) { return to_dtype(t, DType::Float32); }

// log(sum(exp(x - m))) + m with m the max over dims (0 where it is infinite, so that all -inf
// rows give -inf and +inf ones +inf).
Tensor logsumexp(const Tensor& self, IntList dims, bool keepdim) {
  check_defined("aten::logsumexp", self);
  const Tensor x = as_float(self);
  Tensor m = op("aten::amax", {IValue(x), IValue(dims), IValue(true)});
  m = op("aten::masked_fill.Scalar", {IValue(m), IValue(isinf(m)), IValue(0.0)});
  const Tensor s = sum(op("aten::exp", {IValue(sub(x, m))}), dims, keepdim);
  return add(op("aten::log", {IValue(s)}), reshape(m, s.sizes()));
}

// The p-norm over dims (all when empty): max / min |x| for +-inf, the count of non-zeros for 0.
Tensor vector_norm(const char* name, const Tensor& self, double p, const IntList& dims, bool keepdim) {
  check_defined(name, self);
  const Tensor x = as_float(self);
  if (x.dim() > 0)
    for (int64_t d : dims) {
      const int64_t n = x.sizes()[static_cast<size_t>(wrap_dim(name, d, x.dim()))];
      TVK_CHECK(n > 0 || p >= 0, name, ": the norm of order ", p, " over an empty dimension is undefined");
    }
  if (p == 2) return op("aten::sqrt", {IValue(sum(mul(x, x), dims, keepdim))});
  const Tensor a = op("aten::abs", {IValue(x)});
  if (p == kInf || p == -kInf) {
    TVK_CHECK(x.numel() > 0, name, ": the norm of order ", p, " of an empty tensor is undefined");
    return op(p > 0 ? "aten::amax" : "aten::amin", {IValue(a), IValue(dims), IValue(keepdim)});
  }
  if (p == 1) return sum(a, dims, keepdim);
  if (p == 0) return sum(as_float(op("aten::ne.Scalar", {IValue(x), IValue(0.0)})), dims, keepdim);
  const Tensor powered = op("aten::pow.Tensor_Scalar", {IValue(a), IValue(p)});
  return op("aten::pow.Tensor_Scalar", {IValue(sum(powered, dims, keepdim)), IValue(1.0 / p)});
}
Tensor linalg_vector_norm(const Tensor& self, double ord, std::optional<IntList> dim, bool keepdim, std::optional<int64_t>) {
  return vector_norm("aten::linalg_vector_norm", self, ord, dim.value_or(IntList{}), keepdim);
}
Tensor norm_dim(const Tensor& self, std::optional<double> p, IntList dim, bool keepdim) {
  return vector_norm("aten::norm", self, p.value_or(2.0), dim, keepdim);
}
Tensor norm_dim_dtype(const Tensor& self, std::optional<double> p, IntList dim, bool keepdim, int64_t) {
  return norm_dim(self, p, dim, keepdim);
}
Tensor norm_all(const Tensor& self, double p) { return vector_norm("aten::norm", self, p, {}, false); }
Tensor frobenius_norm(const Tensor& self, IntList dim, bool keepdim) {
  return vector_norm("aten::frobenius_norm", self, 2.0, dim, keepdim);
}

// Matrix norms of order +-1 and +-inf (the max / min over columns or rows of the abs sums);
// the spectral and nuclear ones need singular values, which tvk does not compute.
Tensor matrix_norm(const char* name, const Tensor& self, double ord, const IntList& dims, bool keepdim) {
  TVK_CHECK(dims.size() == 2, name, ": a matrix norm takes two dims, got ", shape_string(dims));
  TVK_CHECK(ord == 1 || ord == -1 || ord == kInf || ord == -kInf, name, ": the matrix norm of order ", ord,
            " (singular values) is not supported; orders 1, -1, inf, -inf and 'fro' are");
  int64_t d0 = wrap_dim(name, dims[0], self.dim()), d1 = wrap_dim(name, dims[1], self.dim());
  // ord +-1: sum over rows (d0), then max / min over columns; ord +-inf: the other way round.
  const bool cols = ord == 1 || ord == -1;
  const int64_t summed = cols ? d0 : d1, other = cols ? d1 : d0;
  const Tensor s = sum(op("aten::abs", {IValue(as_float(self))}), {summed}, true);
  Tensor r = op(ord > 0 ? "aten::amax" : "aten::amin", {IValue(s), IValue(IntList{other}), IValue(true)});
  if (!keepdim) r = op("aten::squeeze.dims", {IValue(r), IValue(IntList{std::max(d0, d1), std::min(d0, d1)})});
  return r;
}
Tensor linalg_norm(const Tensor& self, std::optional<double> ord, std::optional<IntList> dim, bool keepdim,
                   std::optional<int64_t>) {
  const char* name = "aten::linalg_norm";
  check_defined(name, self);
  const IntList dims = dim.value_or(IntList{});
  if (!ord) return vector_norm(name, self, 2.0, dims, keepdim);  // 2-norm of vectors, Frobenius of matrices
  if (dims.size() == 1 || (!dim && self.dim() == 1)) return vector_norm(name, self, *ord, dims, keepdim);
  const IntList matrix = dim ? dims : IntList{0, 1};
  TVK_CHECK(dim || self.dim() == 2, name, ": with an order and no dim, input must be 1-D or 2-D, got ", self.shape_string());
  return matrix_norm(name, self, *ord, matrix, keepdim);
}
Tensor linalg_norm_str(const Tensor& self, std::string ord, std::optional<IntList> dim, bool keepdim,
                       std::optional<int64_t>) {
  const char* name = "aten::linalg_norm";
  TVK_CHECK(ord == "fro", name, ": the matrix norm '", ord, "' (singular values) is not supported; 'fro' is");
  return vector_norm(name, self, 2.0, dim.value_or(IntList{-2, -1}), keepdim);
}

// The count of non-zeros as int64 on the CPU (a count is read there; a float sum is exact to 2^24).
Tensor count_nonzero_dims(const Tensor& self, IntList dims) {
  check_defined("aten::count_nonzero", self);
  const Tensor set = as_float(op("aten::ne.Scalar", {IValue(self), IValue(0.0)}));
  const Tensor counts = sum(set, dims, false).cpu();
  return to_dtype(counts, DType::Int64);
}
Tensor count_nonzero(const Tensor& self, std::optional<int64_t> dim) {
  return count_nonzero_dims(self, dim ? IntList{*dim} : IntList{});
}

Tensor dot(const Tensor& self, const Tensor& other) {
  TVK_CHECK(self.dim() == 1 && other.dim() == 1, "aten::dot: 1D tensors expected, but got ", self.dim(), "D and ",
            other.dim(), "D tensors");
  TVK_CHECK(self.sizes() == other.sizes(), "aten::dot: inconsistent tensor size, expected tensor [", self.numel(),
            "] and src [", other.numel(), "] to have the same number of elements, but got ", self.numel(), " and ",
            other.numel(), " elements respectively");
  return sum(mul(self, other), {}, false);
}
Tensor dist(const Tensor& self, const Tensor& other, double p) { return vector_norm("aten::dist", sub(self, other), p, {}, false); }
// w12 / sqrt(max(w1 * w2, eps^2)), the sums over dim (x1 and x2 broadcast).
Tensor cosine_similarity(const Tensor& a, const Tensor& b, int64_t dim, double eps) {
  check_defined("aten::cosine_similarity", a);
  check_defined("aten::cosine_similarity", b);
  const IntList shape = broadcast_shapes("aten::cosine_similarity", a.sizes(), b.sizes());
  const Tensor x1 = expand(a, shape), x2 = expand(b, shape);
  const Tensor w12 = sum(mul(x1, x2), {dim}, false);
  const Tensor w1 = sum(mul(x1, x1), {dim}, false), w2 = sum(mul(x2, x2), {dim}, false);
  return div(w12, op("aten::sqrt", {IValue(clamp(mul(w1, w2), eps * eps, std::nullopt))}));
}
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps, bool keepdim) {
  const int64_t rank = std::max(x1.dim(), x2.dim());
  const Tensor d = add(sub(x1, x2), eps);
  return vector_norm("aten::pairwise_distance", d, p, {rank > 0 ? -1 : 0}, keepdim && rank > 0);
}
// ||x1[i] - x2[j]||_p over the last dim, for every pair: (B, P, M) and (B, R, M) give (B, P, R).
Tensor cdist(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t>) {
  const char* name = "aten::cdist";
  check_defined(name, x1);
  check_defined(name, x2);
  TVK_CHECK(x1.dim() >= 2 && x2.dim() >= 2, name, ": only supports at least 2D tensors, X1 got: ", x1.dim(),
            "D, X2 got: ", x2.dim(), "D");
  TVK_CHECK(x1.sizes().back() == x2.sizes().back(), name, ": X1 and X2 must have the same number of columns. X1: ",
            x1.sizes().back(), " X2: ", x2.sizes().back());
  TVK_CHECK(p >= 0, name, ": only supports non-negative p values");
  const Tensor d = sub(unsqueeze(x1, -2), unsqueeze(x2, -3));
  return vector_norm(name, d, p, {-1}, false);
}

// ---- layout -------------------------------------------------------------------------------------

// Zeroes the elements of the last two dims where keep(row, col) is false.
template <typename Keep>
Tensor triangle(const char* name, const Tensor& self, Keep&& keep) {
  check_defined(name, self);
  TVK_CHECK(self.dim() >= 2, name, ": input tensor must have at least 2 dimensions");
  const int64_t rows = self.sizes()[self.sizes().size() - 2], cols = self.sizes().back();
  Tensor drop = empty({rows, cols}, DType::Bool);
  bool* p = drop.data<bool>();
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) p[i * cols + j] = !keep(i, j);
  return op("aten::masked_fill.Scalar", {IValue(self), IValue(drop.to(self.device())), IValue(0.0)});
}
Tensor triu(const Tensor& self, int64_t k) {
  return triangle("aten::triu", self, [k](int64_t i, int64_t j) { return j - i >= k; });
}
Tensor tril(const Tensor& self, int64_t k) {
  return triangle("aten::tril", self, [k](int64_t i, int64_t j) { return j - i <= k; });
}
Tensor triu_(const Tensor& self, int64_t k) { return assign(self, triu(self, k)); }
Tensor tril_(const Tensor& self, int64_t k) { return assign(self, tril(self, k)); }

// A strided view: the other dims as they are, then the diagonal of (dim1, dim2).
Tensor diagonal(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  const char* name = "aten::diagonal";
  check_defined(name, self);
  const int64_t d1 = wrap_dim(name, dim1, self.dim()), d2 = wrap_dim(name, dim2, self.dim());
  TVK_CHECK(d1 != d2, name, ": dimensions cannot be identical ", dim1, ", ", dim2);
  const IntList& z = self.sizes();
  const IntList& st = self.strides();
  int64_t start = self.storage_offset(), length = 0;
  if (offset >= 0) {
    length = std::max<int64_t>(std::min(z[static_cast<size_t>(d1)], z[static_cast<size_t>(d2)] - offset), 0);
    if (length > 0) start += offset * st[static_cast<size_t>(d2)];
  } else {
    length = std::max<int64_t>(std::min(z[static_cast<size_t>(d1)] + offset, z[static_cast<size_t>(d2)]), 0);
    if (length > 0) start -= offset * st[static_cast<size_t>(d1)];
  }
  IntList sizes, strides;
  for (int64_t d = 0; d < self.dim(); ++d)
    if (d != d1 && d != d2) {
      sizes.push_back(z[static_cast<size_t>(d)]);
      strides.push_back(st[static_cast<size_t>(d)]);
    }
  sizes.push_back(length);
  strides.push_back(st[static_cast<size_t>(d1)] + st[static_cast<size_t>(d2)]);
  return as_strided(self, sizes, strides, start);
}
// 1-D: the square matrix with self on diagonal k (a row of zeros padded around, then strided);
// 2-D: diagonal k, copied.
Tensor diag(const Tensor& self, int64_t k) {
  const char* name = "aten::diag";
  check_defined(name, self);
  TVK_CHECK(self.dim() == 1 || self.dim() == 2, name, ": matrix or a vector expected");
  if (self.dim() == 2) return diagonal(self, k, 0, 1).contiguous();
  const int64_t m = self.numel(), n = m + (k < 0 ? -k : k);
  // Each row of the n x (n + 1) layout holds one value then n zeros, so that read as n x n rows
  // the values fall on the main diagonal; the offset k shifts rows or columns.
  const Tensor values = unsqueeze(self, 1);
  const Tensor zeros_block = op("aten::new_zeros", {IValue(self), IValue(IntList{m, n}), IValue(), IValue(), IValue(), IValue()});
  const Tensor rows = reshape(cat({values, zeros_block}, 1), {m * (n + 1)});
  const Tensor square_m = reshape(slice(rows, 0, 0, m * n), {m, n});  // row i: values[i] at column i
  if (k == 0) return square_m;
  const Tensor pad_rows = op("aten::new_zeros", {IValue(self), IValue(IntList{n - m, n}), IValue(), IValue(), IValue(), IValue()});
  if (k >= 0) {
    // shift columns right by k: the m x n block's row i has its value at column i + k
    const Tensor shifted = cat({op("aten::new_zeros", {IValue(self), IValue(IntList{m, k}), IValue(), IValue(), IValue(), IValue()}),
                                slice(square_m, 1, 0, n - k)}, 1);
    return cat({shifted, pad_rows}, 0);
  }
  return cat({pad_rows, square_m}, 0);
}

IntList movedim_order(const char* name, int64_t rank, IntList source, IntList destination) {
  TVK_CHECK(source.size() == destination.size(), name, ": Invalid source or destination dims: source (",
            shape_string(source), " dims) should contain the same number of dims as destination (",
            shape_string(destination), " dims)");
  for (auto& d : source) d = wrap_dim(name, d, rank);
  for (auto& d : destination) d = wrap_dim(name, d, rank);
  IntList order(static_cast<size_t>(rank), -1);
  std::vector<bool> used(static_cast<size_t>(rank), false);
  for (size_t i = 0; i < source.size(); ++i) {
    TVK_CHECK(order[static_cast<size_t>(destination[i])] == -1 && !used[static_cast<size_t>(source[i])], name,
              ": repeated dim in source or destination");
    order[static_cast<size_t>(destination[i])] = source[i];
    used[static_cast<size_t>(source[i])] = true;
  }
  int64_t next = 0;
  for (auto& o : order) {
    if (o != -1) continue;
    while (used[static_cast<size_t>(next)]) ++next;
    o = next++;
  }
  return order;
}
Tensor movedim_list(const Tensor& self, IntList source, IntList destination) {
  check_defined("aten::movedim", self);
  return permute(self, movedim_order("aten::movedim", self.dim(), std::move(source), std::move(destination)));
}
Tensor movedim_int(const Tensor& self, int64_t source, int64_t destination) {
  return movedim_list(self, {source}, {destination});
}
Tensor flip(const Tensor& self, IntList dims) { return op("aten::flip", {IValue(self), IValue(dims)}); }
Tensor rot90(const Tensor& self, int64_t k, IntList dims) {
  const char* name = "aten::rot90";
  check_defined(name, self);
  TVK_CHECK(dims.size() == 2, name, ": expected total rotation dims == 2, but got dims = ", dims.size());
  TVK_CHECK(self.dim() >= 2, name, ": expected total dims >= 2, but got total dims = ", self.dim());
  const int64_t d0 = wrap_dim(name, dims[0], self.dim()), d1 = wrap_dim(name, dims[1], self.dim());
  TVK_CHECK(d0 != d1, name, ": expected rotation dims to be different, but got dim0 = ", d0, " and dim1 = ", d1);
  switch (((k % 4) + 4) % 4) {
    case 1: return transpose(flip(self, {d1}), d0, d1).contiguous();
    case 2: return flip(self, {d0, d1});
    case 3: return transpose(flip(self, {d0}), d0, d1).contiguous();
    default: return self.clone();
  }
}

Tensor at_least(const Tensor& t, int64_t rank) {
  if (t.dim() >= rank) return t;
  if (rank == 1 || t.dim() == 0) return reshape(t, IntList(static_cast<size_t>(rank), 1));
  if (rank == 2) return unsqueeze(t, 0);                       // (n) -> (1, n)
  return t.dim() == 1 ? reshape(t, {1, t.numel(), 1}) : unsqueeze(t, 2);  // (n) -> (1, n, 1); (m, n) -> (m, n, 1)
}
Tensor stacked(const char* name, const std::vector<Tensor>& tensors, int64_t rank, int64_t dim_for_1d, int64_t dim) {
  TVK_CHECK(!tensors.empty(), name, " expects a non-empty TensorList");
  std::vector<Tensor> parts;
  bool all_1d = true;
  for (const Tensor& t : tensors) {
    check_defined(name, t);
    all_1d = all_1d && t.dim() == 1;
    parts.push_back(at_least(t, rank));
  }
  return cat(parts, all_1d ? dim_for_1d : dim);
}
Tensor hstack(std::vector<Tensor> tensors) {
  std::vector<Tensor> parts;
  for (const Tensor& t : tensors) parts.push_back(t.defined() && t.dim() == 0 ? reshape(t, {1}) : t);
  return stacked("aten::hstack", parts, 1, 0, 1);
}
Tensor vstack(std::vector<Tensor> tensors) { return stacked("aten::vstack", tensors, 2, 0, 0); }
Tensor dstack(std::vector<Tensor> tensors) { return stacked("aten::dstack", tensors, 3, 2, 2); }
Tensor column_stack(std::vector<Tensor> tensors) {
  std::vector<Tensor> parts;
  for (const Tensor& t : tensors) {
    check_defined("aten::column_stack", t);
    parts.push_back(t.dim() <= 1 ? reshape(t, {t.numel(), 1}) : t);
  }
  return stacked("aten::column_stack", parts, 2, 1, 1);
}

Tensor mv(const Tensor& self, const Tensor& vec) {
  TVK_CHECK(self.dim() == 2 && vec.dim() == 1, "aten::mv: vector + matrix @ vector expected, got ", self.dim(), ", ",
            vec.dim());
  return matmul(self, vec);
}
Tensor outer(const Tensor& self, const Tensor& vec2) {
  TVK_CHECK(self.dim() == 1 && vec2.dim() == 1, "aten::outer: 1D tensors expected, got ", self.dim(), "D and ",
            vec2.dim(), "D");
  return mul(unsqueeze(self, 1), unsqueeze(vec2, 0));
}

// F.fold: (N, C * kh * kw, L) columns summed into (N, C, H, W). Column c * kh * kw + i * kw + j
// of block (bh, bw) lands at (bh * sh - ph + i * dh, bw * sw - pw + j * dw): a transposed
// convolution whose weight is one-hot, one group per channel; output padding reaches H and W
// when the blocks stop short of them.
Tensor col2im(const Tensor& self, IntList output_size, IntList kernel_size, IntList dilation, IntList padding,
              IntList stride) {
  const char* name = "aten::col2im";
  check_defined(name, self);
  auto pair = [&](const IntList& v, const char* what) {
    TVK_CHECK(v.size() == 2 || v.size() == 1, name, ": '", what, "' must have 1 or 2 values, got ", shape_string(v));
    return v.size() == 1 ? IntList{v[0], v[0]} : v;
  };
  const IntList out = pair(output_size, "output_size"), k = pair(kernel_size, "kernel_size"), d = pair(dilation, "dilation"),
                p = pair(padding, "padding"), s = pair(stride, "stride");
  for (int i = 0; i < 2; ++i) {
    TVK_CHECK(k[i] > 0 && d[i] > 0 && s[i] > 0 && p[i] >= 0 && out[i] > 0, name,
              ": kernel size, dilation, stride and output size must be positive and padding non-negative");
  }
  TVK_CHECK(self.dim() == 2 || self.dim() == 3, name, ": Expected 2D or 3D (batched) input, got ", self.shape_string());
  const bool batched = self.dim() == 3;
  const Tensor x = batched ? self : unsqueeze(self, 0);
  const int64_t n = x.sizes()[0], rows = x.sizes()[1], length = x.sizes()[2], kk = k[0] * k[1];
  TVK_CHECK(rows % kk == 0, name, ": Expected size of input's dimension 1 to be divisible by the product of kernel_size, ",
            "but got input.size(1)=", rows, " and kernel_size=", shape_string(k));
  int64_t blocks[2];
  for (int i = 0; i < 2; ++i) {
    blocks[i] = (out[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) / s[i] + 1;
    TVK_CHECK(out[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1 >= 0, name, ": the kernel does not fit the padded output");
  }
  TVK_CHECK(blocks[0] * blocks[1] == length, name, ": Given output_size=", shape_string(out), ", kernel_size=",
            shape_string(k), ", dilation=", shape_string(d), ", padding=", shape_string(p), ", stride=",
            shape_string(s), ", expected size of input's dimension 2 to match the calculated number of sliding blocks ",
            blocks[0], " * ", blocks[1], " = ", blocks[0] * blocks[1], ", but got input.size(2)=", length, ".");
  const int64_t channels = rows / kk;
  Tensor w = zeros({rows, 1, k[0], k[1]});
  float* pw = w.data<float>();
  for (int64_t r = 0; r < rows; ++r) pw[r * kk + r % kk] = 1.0f;
  IntList output_padding(2);
  for (int i = 0; i < 2; ++i) output_padding[i] = out[i] - ((blocks[i] - 1) * s[i] - 2 * p[i] + d[i] * (k[i] - 1) + 1);
  const Tensor cols = reshape(as_float(x), {n, rows, blocks[0], blocks[1]});
  const Tensor y = op("aten::conv_transpose2d.input", {IValue(cols), IValue(w.to(x.device())), IValue(), IValue(s), IValue(p),
                                                       IValue(output_padding), IValue(channels), IValue(d)});
  return batched ? y : reshape(y, {channels, out[0], out[1]});
}

// ---- views, splits and repeats -----------------------------------------------------------------

// Tensor.unfold: windows of `size` every `step` along dim, as a strided view with the window last.
Tensor unfold(const Tensor& self, int64_t dimension, int64_t size, int64_t step) {
  const char* name = "aten::unfold";
  check_defined(name, self);
  const int64_t rank = std::max<int64_t>(self.dim(), 1);
  const int64_t d = wrap_dim(name, dimension, rank);
  const int64_t length = self.dim() == 0 ? 1 : self.sizes()[static_cast<size_t>(d)];
  TVK_CHECK(size >= 0 && size <= length, name, ": maximum size for tensor at dimension ", d, " is ", length,
            " but size is ", size);
  TVK_CHECK(step > 0, name, ": step is ", step, " but must be > 0");
  IntList sizes = self.dim() == 0 ? IntList{} : self.sizes(), strides = self.dim() == 0 ? IntList{} : self.strides();
  const int64_t stride = self.dim() == 0 ? 1 : strides[static_cast<size_t>(d)];
  if (self.dim() > 0) {
    sizes[static_cast<size_t>(d)] = (length - size) / step + 1;
    strides[static_cast<size_t>(d)] = stride * step;
  }
  sizes.push_back(size);
  strides.push_back(stride);
  return as_strided(self, sizes, strides, self.storage_offset());
}
Tensor unflatten(const Tensor& self, int64_t dim, IntList sizes, const IValue& /*names*/) {
  const char* name = "aten::unflatten";
  check_defined(name, self);
  const int64_t d = wrap_dim(name, dim, self.dim());
  TVK_CHECK(!sizes.empty(), name, ": sizes must be non-empty");
  const IntList inner = infer_size(name, sizes, self.sizes()[static_cast<size_t>(d)]);
  IntList shape(self.sizes().begin(), self.sizes().begin() + d);
  shape.insert(shape.end(), inner.begin(), inner.end());
  shape.insert(shape.end(), self.sizes().begin() + d + 1, self.sizes().end());
  return reshape(self, shape);
}
// (N, g, C / g, ...) transposed to (N, C / g, g, ...): shufflenet's channel shuffle.
Tensor channel_shuffle(const Tensor& self, int64_t groups) {
  const char* name = "aten::channel_shuffle";
  check_defined(name, self);
  TVK_CHECK(self.dim() > 2, name, ": expected input with more than 2 dimensions, got ", self.shape_string());
  TVK_CHECK(groups > 0 && self.sizes()[1] % groups == 0, name, ": number of channels (", self.sizes()[1],
            ") must be divisible by groups (", groups, ")");
  IntList split = self.sizes();
  split[1] = self.sizes()[1] / groups;
  split.insert(split.begin() + 1, groups);
  return reshape(transpose(reshape(self, split), 1, 2).contiguous(), self.sizes());
}
// Each element (or slice along dim) repeated `repeats` times in place: an expand of a new axis.
Tensor repeat_interleave_int(const Tensor& self, int64_t repeats, std::optional<int64_t> dim, std::optional<int64_t>) {
  const char* name = "aten::repeat_interleave";
  check_defined(name, self);
  TVK_CHECK(repeats >= 0, name, ": repeats can not be negative");
  const Tensor x = dim ? self : reshape(self, {self.numel()});
  const int64_t d = dim ? wrap_dim(name, *dim, std::max<int64_t>(x.dim(), 1)) : 0;
  if (x.dim() == 0) return reshape(expand(reshape(x, {1}), {repeats}), {repeats});
  IntList with_axis = x.sizes();
  with_axis.insert(with_axis.begin() + d + 1, 1);
  IntList expanded = with_axis;
  expanded[static_cast<size_t>(d + 1)] = repeats;
  IntList out = x.sizes();
  out[static_cast<size_t>(d)] *= repeats;
  return reshape(expand(reshape(x, with_axis), expanded).contiguous(), out);
}
// Per-element repeat counts: the rows picked on the host, then one gather.
Tensor repeat_interleave_tensor(const Tensor& self, const Tensor& repeats, std::optional<int64_t> dim,
                                std::optional<int64_t>) {
  const char* name = "aten::repeat_interleave";
  check_defined(name, self);
  check_defined(name, repeats, "repeats");
  TVK_CHECK(repeats.dtype() == DType::Int64 && repeats.dim() <= 1, name, ": repeats must be a 0-D or 1-D int64 tensor");
  const Tensor x = dim ? self : reshape(self, {self.numel()});
  const int64_t d = dim ? wrap_dim(name, *dim, std::max<int64_t>(x.dim(), 1)) : 0;
  const int64_t n = x.dim() == 0 ? 1 : x.sizes()[static_cast<size_t>(d)];
  const Tensor r = repeats.cpu().contiguous();
  TVK_CHECK(r.numel() == 1 || r.numel() == n, name, ": repeats must have the same size as input along dim, got ",
            r.numel(), " for ", n);
  std::vector<int64_t> rows;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = r.data<int64_t>()[r.numel() == 1 ? 0 : i];
    TVK_CHECK(k >= 0, name, ": repeats can not be negative");
    TVK_CHECK(static_cast<int64_t>(rows.size()) + k < (int64_t{1} << 31), name, ": too many repeats");
    rows.insert(rows.end(), static_cast<size_t>(k), i);
  }
  Tensor index = empty({static_cast<int64_t>(rows.size())}, DType::Int64);
  std::copy(rows.begin(), rows.end(), index.data<int64_t>());
  return op("aten::index_select", {IValue(x.dim() == 0 ? reshape(x, {1}) : x), IValue(d), IValue(index)});
}
// repeat_interleave(repeats): each index i repeated repeats[i] times.
Tensor repeat_interleave_counts(const Tensor& repeats, std::optional<int64_t> size) {
  check_defined("aten::repeat_interleave", repeats, "repeats");
  const int64_t n = repeats.numel();
  Tensor positions = empty({n}, DType::Int64);
  for (int64_t i = 0; i < n; ++i) positions.data<int64_t>()[i] = i;
  return repeat_interleave_tensor(positions, repeats.cpu(), 0, size);
}
std::vector<Tensor> tensor_split_at(const char* name, const Tensor& self, const std::vector<int64_t>& cuts, int64_t dim) {
  check_defined(name, self);
  TVK_CHECK(self.dim() > 0, name, ": expected at least a 1-dimensional tensor");
  const int64_t d = wrap_dim(name, dim, self.dim()), n = self.sizes()[static_cast<size_t>(d)];
  std::vector<Tensor> parts;
  // Part i is self[cuts[i - 1] : cuts[i]] along d, as Python slices it (empty when end < start).
  int64_t start = 0;
  for (size_t i = 0; i <= cuts.size(); ++i) {
    const int64_t cut = i < cuts.size() ? (cuts[i] < 0 ? cuts[i] + n : cuts[i]) : n;  // negative: from the end
    const int64_t end = std::clamp<int64_t>(cut, 0, n);
    parts.push_back(slice(self, d, start, std::max(start, end)));
    start = end;
  }
  return parts;
}
std::vector<Tensor> tensor_split_sections(const Tensor& self, int64_t sections, int64_t dim) {
  const char* name = "aten::tensor_split";
  TVK_CHECK(sections > 0, name, ": number of sections must be larger than 0, got ", sections);
  check_defined(name, self);
  TVK_CHECK(self.dim() > 0, name, ": expected at least a 1-dimensional tensor");
  const int64_t n = self.sizes()[static_cast<size_t>(wrap_dim(name, dim, self.dim()))];
  std::vector<int64_t> cuts;
  const int64_t base = n / sections, extra = n % sections;
  int64_t at = 0;
  for (int64_t i = 0; i + 1 < sections; ++i) cuts.push_back(at += base + (i < extra ? 1 : 0));
  return tensor_split_at(name, self, cuts, dim);
}
std::vector<Tensor> tensor_split_indices(const Tensor& self, IntList indices, int64_t dim) {
  return tensor_split_at("aten::tensor_split", self, indices, dim);
}
std::vector<Tensor> tensor_split_tensor(const Tensor& self, const Tensor& split, int64_t dim) {
  const char* name = "aten::tensor_split";
  check_defined(name, split, "tensor_indices_or_sections");
  TVK_CHECK(split.dtype() == DType::Int64 && split.dim() <= 1, name,
            ": tensor_indices_or_sections must be a zero-dimensional or one-dimensional tensor of int64");
  const Tensor s = split.cpu().contiguous();
  if (s.dim() == 0) return tensor_split_sections(self, s.data<int64_t>()[0], dim);
  return tensor_split_at(name, self, std::vector<int64_t>(s.data<int64_t>(), s.data<int64_t>() + s.numel()), dim);
}

// F.one_hot: int64 on the CPU, read there (class ids are data the host decides with).
Tensor one_hot(const Tensor& self, int64_t num_classes) {
  const char* name = "aten::one_hot";
  check_defined(name, self);
  TVK_CHECK(self.dtype() == DType::Int64, name, ": one_hot is only applicable to index tensor, got ",
            to_string(self.dtype()));
  const Tensor ids = self.cpu().contiguous();
  const int64_t* p = ids.data<int64_t>();
  int64_t classes = num_classes;
  if (classes < 0) {
    TVK_CHECK(ids.numel() > 0, name, ": Can not infer total number of classes from empty tensor.");
    classes = *std::max_element(p, p + ids.numel()) + 1;
  }
  TVK_CHECK(classes <= (int64_t{1} << 24) && ids.numel() * classes < (int64_t{1} << 31), name, ": ", classes,
            " classes for ", ids.numel(), " ids is too large");
  IntList sizes = ids.sizes();
  sizes.push_back(classes);
  Tensor out = zeros(sizes, DType::Int64);
  for (int64_t i = 0; i < ids.numel(); ++i) {
    TVK_CHECK(p[i] >= 0, name, ": Class values must be non-negative.");
    TVK_CHECK(p[i] < classes, name, ": Class values must be smaller than num_classes.");
    out.data<int64_t>()[i * classes + p[i]] = 1;
  }
  return out;
}

// ---- eval-mode randomness and small aliases -----------------------------------------------------

Tensor new_ones(const Tensor& self, IntList size, std::optional<int64_t> dtype, std::optional<int64_t> layout,
                std::optional<Device> device, std::optional<bool> pin) {
  auto opt = [](const auto& v) { return v ? IValue(*v) : IValue(); };
  return op("aten::new_full", {IValue(self), IValue(size), IValue(1.0), opt(dtype), opt(layout), opt(device), opt(pin)});
}
// rrelu in eval: a leaky relu with the slope (lower + upper) / 2; training draws slopes.
Tensor rrelu(const Tensor& self, double lower, double upper, bool training, const IValue& /*generator*/) {
  TVK_CHECK(!training, "aten::rrelu: training mode (random slopes) is not supported; call the model in eval mode");
  return op("aten::leaky_relu", {IValue(self), IValue((lower + upper) / 2)});
}
Tensor rrelu_(const Tensor& self, double lower, double upper, bool training, const IValue& generator) {
  return assign(self, rrelu(self, lower, upper, training, generator));
}
Tensor index_put(const Tensor& self, const IValue& indices, const Tensor& values, bool accumulate) {
  check_defined("aten::index_put", self);
  return op("aten::index_put_", {IValue(self.clone()), indices, IValue(values), IValue(accumulate)});
}
Tensor scatter_src_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return assign(self, op("aten::scatter.src", {IValue(self), IValue(dim), IValue(index), IValue(src)}));
}
Tensor scatter_value_(const Tensor& self, int64_t dim, const Tensor& index, double value) {
  return assign(self, op("aten::scatter.value", {IValue(self), IValue(dim), IValue(index), IValue(value)}));
}
Tensor scatter_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return assign(self, op("aten::scatter_add", {IValue(self), IValue(dim), IValue(index), IValue(src)}));
}
Tensor index_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, double alpha) {
  return assign(self, op("aten::index_add", {IValue(self), IValue(dim), IValue(index), IValue(source), IValue(alpha)}));
}

// ---- bitwise ops: logical for bool tensors (on either device), integer bitwise for int64 --------

template <typename F>
Tensor bitwise(const char* name, const char* logical, const Tensor& self, const Tensor& other, F&& f) {
  check_defined(name, self);
  check_defined(name, other, "other");
  if (self.dtype() == DType::Bool && other.dtype() == DType::Bool) return op(logical, {IValue(self), IValue(other)});
  TVK_CHECK(self.dtype() != DType::Float32 && other.dtype() != DType::Float32, name,
            " is only supported for integer and bool tensors, got ", to_string(self.dtype()), " and ",
            to_string(other.dtype()));
  const auto as_int64 = [](const Tensor& t) { return to_dtype(t.cpu(), DType::Int64).contiguous(); };
  const Tensor a = as_int64(self), b = as_int64(other);
  const IntList sizes = broadcast_shapes(name, a.sizes(), b.sizes());
  const Tensor ea = expand(a, sizes).contiguous(), eb = expand(b, sizes).contiguous();
  Tensor out = empty(sizes, DType::Int64);
  for (int64_t i = 0; i < out.numel(); ++i) out.data<int64_t>()[i] = f(ea.data<int64_t>()[i], eb.data<int64_t>()[i]);
  return out;
}
Tensor bitwise_and(const Tensor& self, const Tensor& other) {
  return bitwise("aten::bitwise_and", "aten::logical_and", self, other, [](int64_t a, int64_t b) { return a & b; });
}
Tensor bitwise_or(const Tensor& self, const Tensor& other) {
  return bitwise("aten::bitwise_or", "aten::logical_or", self, other, [](int64_t a, int64_t b) { return a | b; });
}
Tensor bitwise_xor(const Tensor& self, const Tensor& other) {
  return bitwise("aten::bitwise_xor", "aten::logical_xor", self, other, [](int64_t a, int64_t b) { return a ^ b; });
}
Tensor bitwise_and_(const Tensor& self, const Tensor& other) { return assign(self, bitwise_and(self, other)); }
Tensor bitwise_or_(const Tensor& self, const Tensor& other) { return assign(self, bitwise_or(self, other)); }
Tensor bitwise_xor_(const Tensor& self, const Tensor& other) { return assign(self, bitwise_xor(self, other)); }

// ---- anti-aliased resizing (F.interpolate(..., antialias=True)) ---------------------------------
// Separable: out = A_h @ x @ A_w^T per plane, each A the out x in matrix of one dim's normalized
// filter weights, made on the host as PyTorch makes them (float): the filter (a tent for
// bilinear, Keys' cubic with a = -0.5 for bicubic) widened by the scale when downsampling,
// centred at scale * (i + 0.5). The products run wherever x is (matmul on Vulkan).
Tensor aa_weights(int64_t in, int64_t out, bool align_corners, std::optional<double> scale_opt, bool bicubic) {
  const float scale = align_corners ? (out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1) : 0.f)
                      : (scale_opt && *scale_opt > 0) ? static_cast<float>(1.0 / *scale_opt)
                                                      : static_cast<float>(in) / static_cast<float>(out);
  const float half = bicubic ? 2.f : 1.f;  // half the filter's width at scale 1
  const float support = scale >= 1.f ? half * scale : half;
  const float invscale = scale >= 1.f ? 1.f / scale : 1.f;
  auto filter = [bicubic](float x) {
    x = std::fabs(x);
    if (!bicubic) return x < 1.f ? 1.f - x : 0.f;
    constexpr float a = -0.5f;
    if (x < 1.f) return ((a + 2.f) * x - (a + 3.f)) * x * x + 1.f;
    if (x < 2.f) return (((x - 5.f) * x + 8.f) * x - 4.f) * a;
    return 0.f;
  };
  Tensor w = zeros({out, in});
  float* pw = w.data<float>();
  std::vector<float> row;
  for (int64_t i = 0; i < out; ++i) {
    const float center = scale * (static_cast<float>(i) + 0.5f);
    const int64_t lo = std::max<int64_t>(static_cast<int64_t>(center - support + 0.5f), 0);
    const int64_t hi = std::min<int64_t>(static_cast<int64_t>(center + support + 0.5f), in);
    row.assign(static_cast<size_t>(std::max<int64_t>(hi - lo, 0)), 0.f);
    float total = 0.f;
    for (int64_t j = lo; j < hi; ++j) {
      row[static_cast<size_t>(j - lo)] = filter((static_cast<float>(j) - center + 0.5f) * invscale);
      total += row[static_cast<size_t>(j - lo)];
    }
    for (int64_t j = lo; j < hi; ++j) pw[i * in + j] = total != 0.f ? row[static_cast<size_t>(j - lo)] / total : row[static_cast<size_t>(j - lo)];
  }
  return w;
}
Tensor aa_resize(const char* name, const Tensor& self, IntList size, bool align_corners, std::optional<double> sh,
                 std::optional<double> sw, bool bicubic) {
  check_defined(name, self);
  TVK_CHECK(self.dim() == 4, name, ": expected a 4-D input (N, C, H, W), got ", self.shape_string());
  TVK_CHECK(size.size() == 2 && size[0] > 0 && size[1] > 0, name, ": output_size must be 2 positive values, got ",
            shape_string(size));
  const int64_t n = self.sizes()[0], c = self.sizes()[1], h = self.sizes()[2], w = self.sizes()[3];
  TVK_CHECK(h > 0 && w > 0, name, ": input ", self.shape_string(), " is empty");
  TVK_CHECK(size[0] <= (int64_t{1} << 16) && size[1] <= (int64_t{1} << 16) && h <= (int64_t{1} << 16) &&
                w <= (int64_t{1} << 16),
            name, ": sizes past 65536 are not supported");
  const Tensor wh = aa_weights(h, size[0], align_corners, sh, bicubic).to(self.device());
  const Tensor ww = aa_weights(w, size[1], align_corners, sw, bicubic).to(self.device());
  const Tensor rows = matmul(reshape(as_float(self), {n * c * h, w}), t(ww));  // (N C H, W_out)
  const Tensor out = matmul(wh, reshape(rows, {n * c, h, size[1]}));            // (N C, H_out, W_out)
  return reshape(out, {n, c, size[0], size[1]});
}
IntList aa_size(const char* name, const Tensor& input, const std::optional<IntList>& output_size,
                const std::optional<std::vector<double>>& scales) {
  check_defined(name, input);
  TVK_CHECK(output_size.has_value() != scales.has_value(), name, ": exactly one of output_size and scale_factors must be given");
  if (output_size) return *output_size;
  TVK_CHECK(input.dim() == 4 && scales->size() == 2, name, ": expected a 4-D input and 2 scale factors");
  return {static_cast<int64_t>(std::floor(static_cast<double>(input.sizes()[2]) * (*scales)[0])),
          static_cast<int64_t>(std::floor(static_cast<double>(input.sizes()[3]) * (*scales)[1]))};
}
std::optional<double> aa_scale(const std::optional<std::vector<double>>& scales, size_t i) {
  return scales ? std::optional<double>((*scales)[i]) : std::nullopt;
}
Tensor upsample_bilinear2d_aa(const Tensor& self, IntList size, bool align, std::optional<double> sh, std::optional<double> sw) {
  return aa_resize("aten::_upsample_bilinear2d_aa", self, size, align, sh, sw, false);
}
Tensor upsample_bicubic2d_aa(const Tensor& self, IntList size, bool align, std::optional<double> sh, std::optional<double> sw) {
  return aa_resize("aten::_upsample_bicubic2d_aa", self, size, align, sh, sw, true);
}
Tensor upsample_bilinear2d_aa_vec(const Tensor& input, std::optional<IntList> size, bool align,
                                  std::optional<std::vector<double>> scales) {
  const char* name = "aten::_upsample_bilinear2d_aa";
  return aa_resize(name, input, aa_size(name, input, size, scales), align, aa_scale(scales, 0), aa_scale(scales, 1), false);
}
Tensor upsample_bicubic2d_aa_vec(const Tensor& input, std::optional<IntList> size, bool align,
                                 std::optional<std::vector<double>> scales) {
  const char* name = "aten::_upsample_bicubic2d_aa";
  return aa_resize(name, input, aa_size(name, input, size, scales), align, aa_scale(scales, 0), aa_scale(scales, 1), true);
}

// torch.where with a number on either side: the number as a 0-D tensor of the other side's dtype
// (float32 when both are numbers), which goes wherever the condition is.
Tensor scalar_like(double v, const Tensor* like) {
  const DType t = like && like->dtype() == DType::Int64 && v == std::floor(v) ? DType::Int64 : DType::Float32;
  return full({}, v, t);
}
Tensor where_scalar_other(const Tensor& condition, const Tensor& self, double other) {
  return op("aten::where.self", {IValue(condition), IValue(self), IValue(scalar_like(other, &self))});
}
Tensor where_scalar_self(const Tensor& condition, double self, const Tensor& other) {
  return op("aten::where.self", {IValue(condition), IValue(scalar_like(self, &other)), IValue(other)});
}
Tensor where_scalars(const Tensor& condition, double self, double other) {
  return op("aten::where.self", {IValue(condition), IValue(scalar_like(self, nullptr)), IValue(scalar_like(other, nullptr))});
}
// |a - b| <= atol + rtol * |b| with a finite |a - b|, or a == b (equal infinities); NaNs equal
// when equal_nan (PyTorch's definition).
Tensor isclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  const char* name = "aten::isclose";
  check_defined(name, self);
  check_defined(name, other, "other");
  TVK_CHECK(rtol >= 0 && atol >= 0, name, ": rtol and atol must be non-negative, got ", rtol, " and ", atol);
  const Tensor a = as_float(self), b = as_float(other);
  const Tensor diff = op("aten::abs", {IValue(sub(a, b))});
  const Tensor bound = add(mul(op("aten::abs", {IValue(b)}), rtol), atol);
  Tensor close = op("aten::logical_and", {IValue(op("aten::le.Tensor", {IValue(diff), IValue(bound)})), IValue(isfinite(diff))});
  close = op("aten::logical_or", {IValue(close), IValue(op("aten::eq.Tensor", {IValue(a), IValue(b)}))});
  if (equal_nan)
    close = op("aten::logical_or", {IValue(close), IValue(op("aten::logical_and", {IValue(isnan(a)), IValue(isnan(b))}))});
  return close;
}

// max_unpool2d: zeros of output_size with each value put at its index in the plane (a scatter).
Tensor max_unpool2d(const Tensor& self, const Tensor& indices, IntList output_size) {
  const char* name = "aten::max_unpool2d";
  check_defined(name, self);
  check_defined(name, indices, "indices");
  TVK_CHECK(output_size.size() == 2 && output_size[0] > 0 && output_size[1] > 0, name,
            ": output_size must be 2 positive values, got ", shape_string(output_size));
  TVK_CHECK((self.dim() == 3 || self.dim() == 4) && indices.sizes() == self.sizes(), name,
            ": expected 3-D or 4-D input and indices of the same shape, got ", self.shape_string(), " and ",
            indices.shape_string());
  IntList lead(self.sizes().begin(), self.sizes().end() - 2);
  int64_t planes = 1;
  for (int64_t d : lead) planes *= d;
  const int64_t area = output_size[0] * output_size[1];
  const Tensor flat = reshape(self, {planes, -1}), idx = reshape(indices, {planes, -1});
  const Tensor zero = op("aten::new_zeros", {IValue(flat), IValue(IntList{planes, area}), IValue(), IValue(), IValue(), IValue()});
  const Tensor out = op("aten::scatter.src", {IValue(zero), IValue(int64_t{1}), IValue(idx), IValue(flat)});
  lead.push_back(output_size[0]);
  lead.push_back(output_size[1]);
  return reshape(out, lead);
}

// F.affine_grid: the base grid of normalized coordinates (x, y[, z], 1) for every output
// position, made on the host, times theta transposed: (N, H * W, 3) @ (N, 3, 2).
Tensor affine_grid_generator(const Tensor& theta, IntList size, bool align_corners) {
  const char* name = "aten::affine_grid_generator";
  check_defined(name, theta);
  TVK_CHECK(size.size() == 4 || size.size() == 5, name, ": affine_grid only supports 4D and 5D sizes, got ",
            shape_string(size));
  const size_t spatial = size.size() - 2;
  const int64_t n = size[0];
  TVK_CHECK(theta.dim() == 3 && theta.sizes()[0] == n && theta.sizes()[1] == static_cast<int64_t>(spatial) &&
                theta.sizes()[2] == static_cast<int64_t>(spatial) + 1,
            name, ": expected theta of shape (", n, ", ", spatial, ", ", spatial + 1, "), got ", theta.shape_string());
  int64_t points = 1;
  for (size_t i = 2; i < size.size(); ++i) {
    TVK_CHECK(size[i] > 0 && size[i] < (int64_t{1} << 20), name, ": size ", shape_string(size), " is out of range");
    points *= size[i];
  }
  TVK_CHECK(points < (int64_t{1} << 26), name, ": ", points, " grid points is too many");
  // linspace(-1, 1, steps), shrunk by (steps - 1) / steps without align_corners; 0 for one step.
  auto coordinate = [&](int64_t i, int64_t steps) {
    if (steps <= 1) return 0.0f;
    const double v = -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(steps - 1);
    return static_cast<float>(align_corners ? v : v * static_cast<double>(steps - 1) / static_cast<double>(steps));
  };
  const int64_t cols = static_cast<int64_t>(spatial) + 1;
  Tensor base = empty({1, points, cols});
  float* b = base.data<float>();
  // Points in (D,) H, W order; columns x (W), y (H)[, z (D)], 1.
  const int64_t w = size.back(), h = size[size.size() - 2];
  for (int64_t p = 0; p < points; ++p) {
    float* row = b + p * cols;
    row[0] = coordinate(p % w, w);
    row[1] = coordinate((p / w) % h, h);
    if (spatial == 3) row[2] = coordinate(p / (w * h), size[2]);
    row[cols - 1] = 1.0f;
  }
  const Tensor grid = matmul(expand(base.to(theta.device()), {n, points, cols}), transpose(theta, 1, 2));
  IntList out{n};
  for (size_t i = 2; i < size.size(); ++i) out.push_back(size[i]);
  out.push_back(static_cast<int64_t>(spatial));
  return reshape(grid, out);
}

}  // namespace

TVK_REGISTER_OP_ANY_DEVICE("aten::_upsample_bilinear2d_aa(Tensor self, SymInt[2] output_size, bool align_corners, "
                           "float? scales_h=None, float? scales_w=None) -> Tensor",
                           upsample_bilinear2d_aa);
TVK_REGISTER_OP_ANY_DEVICE("aten::_upsample_bicubic2d_aa(Tensor self, SymInt[2] output_size, bool align_corners, "
                           "float? scales_h=None, float? scales_w=None) -> Tensor",
                           upsample_bicubic2d_aa);
TVK_REGISTER_OP_ANY_DEVICE("aten::_upsample_bilinear2d_aa.vec(Tensor input, SymInt[]? output_size, bool align_corners, "
                           "float[]? scale_factors) -> Tensor",
                           upsample_bilinear2d_aa_vec);
TVK_REGISTER_OP_ANY_DEVICE("aten::_upsample_bicubic2d_aa.vec(Tensor input, SymInt[]? output_size, bool align_corners, "
                           "float[]? scale_factors) -> Tensor",
                           upsample_bicubic2d_aa_vec);
TVK_REGISTER_OP_ANY_DEVICE("aten::where.ScalarOther(Tensor condition, Tensor self, Scalar other) -> Tensor",
                           where_scalar_other);
TVK_REGISTER_OP_ANY_DEVICE("aten::where.ScalarSelf(Tensor condition, Scalar self, Tensor other) -> Tensor",
                           where_scalar_self);
TVK_REGISTER_OP_ANY_DEVICE("aten::where.Scalar(Tensor condition, Scalar self, Scalar other) -> Tensor", where_scalars);
TVK_REGISTER_OP_ANY_DEVICE("aten::isclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, "
                           "bool equal_nan=False) -> Tensor",
                           isclose);
TVK_REGISTER_OP_ANY_DEVICE("aten::max_unpool2d(Tensor self, Tensor indices, SymInt[2] output_size) -> Tensor",
                           max_unpool2d);
TVK_REGISTER_OP_ANY_DEVICE("aten::bitwise_and.Tensor(Tensor self, Tensor other) -> Tensor", bitwise_and);
TVK_REGISTER_OP_ANY_DEVICE("aten::bitwise_or.Tensor(Tensor self, Tensor other) -> Tensor", bitwise_or);
TVK_REGISTER_OP_ANY_DEVICE("aten::bitwise_xor.Tensor(Tensor self, Tensor other) -> Tensor", bitwise_xor);
TVK_REGISTER_OP_ANY_DEVICE("aten::__and__.Tensor(Tensor self, Tensor other) -> Tensor", bitwise_and);
TVK_REGISTER_OP_ANY_DEVICE("aten::__or__.Tensor(Tensor self, Tensor other) -> Tensor", bitwise_or);
TVK_REGISTER_OP_ANY_DEVICE("aten::__xor__.Tensor(Tensor self, Tensor other) -> Tensor", bitwise_xor);
TVK_REGISTER_OP_ANY_DEVICE("aten::__iand__.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", bitwise_and_);
TVK_REGISTER_OP_ANY_DEVICE("aten::__ior__.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", bitwise_or_);
TVK_REGISTER_OP_ANY_DEVICE("aten::__ixor__.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", bitwise_xor_);
TVK_REGISTER_OP_ANY_DEVICE("aten::bitwise_and_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", bitwise_and_);
TVK_REGISTER_OP_ANY_DEVICE("aten::bitwise_or_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", bitwise_or_);
TVK_REGISTER_OP_ANY_DEVICE("aten::unfold(Tensor(a) self, int dimension, int size, int step) -> Tensor(a)", unfold);
TVK_REGISTER_OP_ANY_DEVICE("aten::unflatten.int(Tensor(a) self, int dim, int[] sizes, str[]? names=None) -> Tensor(a)",
                           unflatten);
TVK_REGISTER_OP_ANY_DEVICE("aten::channel_shuffle(Tensor self, int groups) -> Tensor", channel_shuffle);
TVK_REGISTER_OP_ANY_DEVICE("aten::native_channel_shuffle(Tensor self, int groups) -> Tensor", channel_shuffle);
TVK_REGISTER_OP_ANY_DEVICE("aten::repeat_interleave.self_int(Tensor self, SymInt repeats, int? dim=None, *, "
                           "int? output_size=None) -> Tensor",
                           repeat_interleave_int);
TVK_REGISTER_OP_ANY_DEVICE("aten::repeat_interleave.self_Tensor(Tensor self, Tensor repeats, int? dim=None, *, "
                           "int? output_size=None) -> Tensor",
                           repeat_interleave_tensor);
TVK_REGISTER_OP_ANY_DEVICE("aten::repeat_interleave.Tensor(Tensor repeats, *, int? output_size=None) -> Tensor",
                           repeat_interleave_counts);
TVK_REGISTER_OP_ANY_DEVICE("aten::tensor_split.sections(Tensor(a -> *) self, SymInt sections, int dim=0) -> Tensor(a)[]",
                           tensor_split_sections);
TVK_REGISTER_OP_ANY_DEVICE("aten::tensor_split.indices(Tensor(a -> *) self, SymInt[] indices, int dim=0) -> Tensor(a)[]",
                           tensor_split_indices);
TVK_REGISTER_OP_ANY_DEVICE("aten::tensor_split.tensor_indices_or_sections(Tensor(a -> *) self, "
                           "Tensor tensor_indices_or_sections, int dim=0) -> Tensor(a)[]",
                           tensor_split_tensor);
TVK_REGISTER_OP_ANY_DEVICE("aten::one_hot(Tensor self, int num_classes=-1) -> Tensor", one_hot);
TVK_REGISTER_OP_ANY_DEVICE("aten::new_ones(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, "
                           "Device? device=None, bool? pin_memory=None) -> Tensor",
                           new_ones);
TVK_REGISTER_OP_ANY_DEVICE("aten::rrelu(Tensor self, Scalar lower=0.125, Scalar upper=0.3333333333333333, "
                           "bool training=False, Generator? generator=None) -> Tensor",
                           rrelu);
TVK_REGISTER_OP_ANY_DEVICE("aten::rrelu_(Tensor(a!) self, Scalar lower=0.125, Scalar upper=0.3333333333333333, "
                           "bool training=False, Generator? generator=None) -> Tensor(a!)",
                           rrelu_);
TVK_REGISTER_OP_ANY_DEVICE("aten::index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor",
                           index_put);
TVK_REGISTER_OP_ANY_DEVICE("aten::scatter_.src(Tensor(a!) self, int dim, Tensor index, Tensor src) -> Tensor(a!)",
                           scatter_src_);
TVK_REGISTER_OP_ANY_DEVICE("aten::scatter_.value(Tensor(a!) self, int dim, Tensor index, Scalar value) -> Tensor(a!)",
                           scatter_value_);
TVK_REGISTER_OP_ANY_DEVICE("aten::scatter_add_(Tensor(a!) self, int dim, Tensor index, Tensor src) -> Tensor(a!)",
                           scatter_add_);
TVK_REGISTER_OP_ANY_DEVICE("aten::index_add_(Tensor(a!) self, int dim, Tensor index, Tensor source, *, "
                           "Scalar alpha=1) -> Tensor(a!)",
                           index_add_);
TVK_REGISTER_OP_ANY_DEVICE("aten::affine_grid_generator(Tensor theta, SymInt[] size, bool align_corners) -> Tensor",
                           affine_grid_generator);
TVK_REGISTER_OP_ANY_DEVICE("aten::detach(Tensor(a) self) -> Tensor(a)", same);
TVK_REGISTER_OP_ANY_DEVICE("aten::detach_(Tensor(a!) self) -> Tensor(a!)", same);
TVK_REGISTER_OP_ANY_DEVICE("aten::lift_fresh(Tensor(a) self) -> Tensor(a)", same);
TVK_REGISTER_OP_ANY_DEVICE("aten::alias(Tensor(a) self) -> Tensor(a)", same);
TVK_REGISTER_OP_ANY_DEVICE("aten::lift_fresh_copy(Tensor self) -> Tensor", clone_of);
TVK_REGISTER_OP_ANY_DEVICE("aten::sgn(Tensor self) -> Tensor", sgn);
TVK_REGISTER_OP_ANY_DEVICE("aten::square(Tensor self) -> Tensor", square);
TVK_REGISTER_OP_ANY_DEVICE("aten::square_(Tensor(a!) self) -> Tensor(a!)", square_);
TVK_REGISTER_OP_ANY_DEVICE("aten::clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor", clamp_tensor);
TVK_REGISTER_OP_ANY_DEVICE("aten::clamp_.Tensor(Tensor(a!) self, Tensor? min=None, Tensor? max=None) -> Tensor(a!)",
                           clamp_tensor_);
TVK_REGISTER_OP_ANY_DEVICE("aten::clamp_min.Tensor(Tensor self, Tensor min) -> Tensor", clamp_min_tensor);
TVK_REGISTER_OP_ANY_DEVICE("aten::clamp_max.Tensor(Tensor self, Tensor max) -> Tensor", clamp_max_tensor);
TVK_REGISTER_OP_ANY_DEVICE("aten::isnan(Tensor self) -> Tensor", isnan);
TVK_REGISTER_OP_ANY_DEVICE("aten::isinf(Tensor self) -> Tensor", isinf);
TVK_REGISTER_OP_ANY_DEVICE("aten::isposinf(Tensor self) -> Tensor", isposinf);
TVK_REGISTER_OP_ANY_DEVICE("aten::isneginf(Tensor self) -> Tensor", isneginf);
TVK_REGISTER_OP_ANY_DEVICE("aten::isfinite(Tensor self) -> Tensor", isfinite);
TVK_REGISTER_OP_ANY_DEVICE("aten::nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor",
                           nan_to_num);
TVK_REGISTER_OP_ANY_DEVICE("aten::nan_to_num_(Tensor(a!) self, float? nan=None, float? posinf=None, "
                           "float? neginf=None) -> Tensor(a!)",
                           nan_to_num_);
TVK_REGISTER_OP_ANY_DEVICE("aten::addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor", addcmul);
TVK_REGISTER_OP_ANY_DEVICE("aten::addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor", addcdiv);
TVK_REGISTER_OP_ANY_DEVICE("aten::addcmul_(Tensor(a!) self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor(a!)",
                           addcmul_);
TVK_REGISTER_OP_ANY_DEVICE("aten::addcdiv_(Tensor(a!) self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor(a!)",
                           addcdiv_);
TVK_REGISTER_OP_ANY_DEVICE("aten::hypot(Tensor self, Tensor other) -> Tensor", hypot);
TVK_REGISTER_OP_ANY_DEVICE("aten::logaddexp(Tensor self, Tensor other) -> Tensor", logaddexp);
TVK_REGISTER_OP_ANY_DEVICE("aten::xlogy.Tensor(Tensor self, Tensor other) -> Tensor", xlogy);
TVK_REGISTER_OP_ANY_DEVICE("aten::logit(Tensor self, float? eps=None) -> Tensor", logit);
TVK_REGISTER_OP_ANY_DEVICE("aten::logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor", logsumexp);
TVK_REGISTER_OP_ANY_DEVICE("aten::linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, "
                           "*, ScalarType? dtype=None) -> Tensor",
                           linalg_vector_norm);
TVK_REGISTER_OP_ANY_DEVICE("aten::norm.ScalarOpt_dim(Tensor self, Scalar? p, int[1] dim, bool keepdim=False) -> Tensor",
                           norm_dim);
TVK_REGISTER_OP_ANY_DEVICE("aten::norm.ScalarOpt_dim_dtype(Tensor self, Scalar? p, int[1] dim, bool keepdim, *, "
                           "ScalarType dtype) -> Tensor",
                           norm_dim_dtype);
TVK_REGISTER_OP_ANY_DEVICE("aten::norm.Scalar(Tensor self, Scalar p=2) -> Tensor", norm_all);
TVK_REGISTER_OP_ANY_DEVICE("aten::frobenius_norm.dim(Tensor self, int[1] dim, bool keepdim=False) -> Tensor", frobenius_norm);
TVK_REGISTER_OP_ANY_DEVICE("aten::linalg_norm(Tensor self, Scalar? ord=None, int[1]? dim=None, bool keepdim=False, *, "
                           "ScalarType? dtype=None) -> Tensor",
                           linalg_norm);
TVK_REGISTER_OP_ANY_DEVICE("aten::linalg_norm.ord_str(Tensor self, str ord, int[1]? dim=None, bool keepdim=False, *, "
                           "ScalarType? dtype=None) -> Tensor",
                           linalg_norm_str);
TVK_REGISTER_OP_ANY_DEVICE("aten::count_nonzero.dim_IntList(Tensor self, int[] dim) -> Tensor", count_nonzero_dims);
TVK_REGISTER_OP_ANY_DEVICE("aten::count_nonzero(Tensor self, int? dim=None) -> Tensor", count_nonzero);
TVK_REGISTER_OP_ANY_DEVICE("aten::dot(Tensor self, Tensor tensor) -> Tensor", dot);
TVK_REGISTER_OP_ANY_DEVICE("aten::vdot(Tensor self, Tensor other) -> Tensor", dot);
TVK_REGISTER_OP_ANY_DEVICE("aten::dist(Tensor self, Tensor other, Scalar p=2) -> Tensor", dist);
TVK_REGISTER_OP_ANY_DEVICE("aten::cosine_similarity(Tensor x1, Tensor x2, int dim=1, float eps=1e-08) -> Tensor",
                           cosine_similarity);
TVK_REGISTER_OP_ANY_DEVICE("aten::pairwise_distance(Tensor x1, Tensor x2, float p=2, float eps=1e-06, "
                           "bool keepdim=False) -> Tensor",
                           pairwise_distance);
TVK_REGISTER_OP_ANY_DEVICE("aten::cdist(Tensor x1, Tensor x2, float p=2, int? compute_mode=None) -> Tensor", cdist);
TVK_REGISTER_OP_ANY_DEVICE("aten::triu(Tensor self, int diagonal=0) -> Tensor", triu);
TVK_REGISTER_OP_ANY_DEVICE("aten::tril(Tensor self, int diagonal=0) -> Tensor", tril);
TVK_REGISTER_OP_ANY_DEVICE("aten::triu_(Tensor(a!) self, int diagonal=0) -> Tensor(a!)", triu_);
TVK_REGISTER_OP_ANY_DEVICE("aten::tril_(Tensor(a!) self, int diagonal=0) -> Tensor(a!)", tril_);
TVK_REGISTER_OP_ANY_DEVICE("aten::diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)", diagonal);
TVK_REGISTER_OP_ANY_DEVICE("aten::diag(Tensor self, int diagonal=0) -> Tensor", diag);
TVK_REGISTER_OP_ANY_DEVICE("aten::movedim.intlist(Tensor(a) self, int[] source, int[] destination) -> Tensor(a)", movedim_list);
TVK_REGISTER_OP_ANY_DEVICE("aten::movedim.int(Tensor(a) self, int source, int destination) -> Tensor(a)", movedim_int);
TVK_REGISTER_OP_ANY_DEVICE("aten::moveaxis.intlist(Tensor(a) self, int[] source, int[] destination) -> Tensor(a)",
                           movedim_list);
TVK_REGISTER_OP_ANY_DEVICE("aten::moveaxis.int(Tensor(a) self, int source, int destination) -> Tensor(a)", movedim_int);
TVK_REGISTER_OP_ANY_DEVICE("aten::rot90(Tensor self, int k=1, int[] dims=[0,1]) -> Tensor", rot90);
TVK_REGISTER_OP_ANY_DEVICE("aten::hstack(Tensor[] tensors) -> Tensor", hstack);
TVK_REGISTER_OP_ANY_DEVICE("aten::vstack(Tensor[] tensors) -> Tensor", vstack);
TVK_REGISTER_OP_ANY_DEVICE("aten::row_stack(Tensor[] tensors) -> Tensor", vstack);
TVK_REGISTER_OP_ANY_DEVICE("aten::dstack(Tensor[] tensors) -> Tensor", dstack);
TVK_REGISTER_OP_ANY_DEVICE("aten::column_stack(Tensor[] tensors) -> Tensor", column_stack);
TVK_REGISTER_OP_ANY_DEVICE("aten::mv(Tensor self, Tensor vec) -> Tensor", mv);
TVK_REGISTER_OP_ANY_DEVICE("aten::outer(Tensor self, Tensor vec2) -> Tensor", outer);
TVK_REGISTER_OP_ANY_DEVICE("aten::ger(Tensor self, Tensor vec2) -> Tensor", outer);
TVK_REGISTER_OP_ANY_DEVICE("aten::col2im(Tensor self, SymInt[2] output_size, int[2] kernel_size, int[2] dilation, "
                           "int[2] padding, int[2] stride) -> Tensor",
                           col2im);

}  // namespace tvk::ops
