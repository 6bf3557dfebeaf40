// Selection, sorting and indexing: the ops detection and sequence models reach after their
// convolutions (argmax, topk, sort, argsort, unique, cumsum, cumprod, scatter, scatter_add,
// index_add, index, index_put_, index_select, gather, where, embedding, nonzero, comparisons,
// masked_fill, torchvision::nms). Most have CPU kernels only: data-dependent shapes and sorting
// fit a GPU poorly, and on Vulkan tensors they run through the opt-in CPU fallback. index,
// index_select, gather, embedding (gathers of rows), where, comparisons and masked_fill (swin_t's
// and maxvit_t's attention) have Vulkan kernels too (vulkan/ops/indexing.cpp), and so have
// argmax, cumsum and cumprod (vulkan/ops/reduction.cpp).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

#include "ops/cpu/cpu_loops.h"
#include "ops/index_plan.h"
#include "ops/registry.h"
#include "ops/shape_utils.h"

namespace tvk::ops::cpu {
namespace {

// `t` along `dim` as [outer, size, inner], contiguous.
struct AlongDim {
  Tensor data;
  int64_t dim = 0, outer = 1, size = 1, inner = 1;
};

AlongDim along_dim(const char* op, const Tensor& t, int64_t dim) {
  const DimSplit s = split_at_dim(op, t.sizes(), dim);
  return {t.contiguous(), s.dim, s.outer, s.size, s.inner};
}

// Calls f(T*) with the element type of `t` (float32, int64, bool).
template <typename F>
decltype(auto) with_dtype(const Tensor& t, F&& f) {
  switch (t.dtype()) {
    case DType::Float32: return f(static_cast<float*>(nullptr));
    case DType::Int64: return f(static_cast<int64_t*>(nullptr));
    case DType::Bool: return f(static_cast<bool*>(nullptr));
  }
  throw Error("unknown dtype");
}

template <typename T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  return false;
}

// NaN sorts above every number, as in PyTorch.
template <typename T>
bool greater(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return !std::isnan(b);
    if (std::isnan(b)) return false;
  }
  return a > b;
}

void check_index_tensor(const char* op, const Tensor& index, const char* arg = "index") {
  TVK_CHECK(index.dtype() == DType::Int64, op, ": argument '", arg, "' must be int64, got ", to_string(index.dtype()));
}

// PyTorch's index_select, gather and embedding take no negative indices.
void check_in_range(const char* op, int64_t i, int64_t size, int64_t dim) {
  TVK_CHECK(i >= 0 && i < size, op, ": index ", i, " is out of bounds for dimension ", dim, " with size ", size);
}

// Sorts every row along `dim`; keeps the first `k` of each (all for sort). Stable, so equal
// values keep their order (PyTorch leaves that order unspecified).
std::tuple<Tensor, Tensor> sort_rows(const char* op, const Tensor& self, int64_t k, int64_t dim, bool descending) {
  const AlongDim a = along_dim(op, self, dim);
  TVK_CHECK(k >= 0 && k <= a.size, op, ": k (", k, ") is out of range for dimension of size ", a.size);
  IntList out_sizes = self.sizes();
  if (self.dim() > 0) out_sizes[a.dim] = k;
  Tensor values = empty(out_sizes, self.dtype());
  Tensor indices = empty(out_sizes, DType::Int64);
  with_dtype(self, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T* in = a.data.template data<T>();
    T* vo = values.template data<T>();
    int64_t* io = indices.data<int64_t>();
    std::vector<int64_t> order(static_cast<size_t>(a.size));
    for (int64_t o = 0; o < a.outer; ++o)
      for (int64_t i = 0; i < a.inner; ++i) {
        const T* row = in + o * a.size * a.inner + i;
        std::iota(order.begin(), order.end(), 0);
        auto before = [&](int64_t x, int64_t y) {
          return descending ? greater(row[x * a.inner], row[y * a.inner]) : greater(row[y * a.inner], row[x * a.inner]);
        };
        std::stable_sort(order.begin(), order.end(), before);
        for (int64_t j = 0; j < k; ++j) {
          const int64_t out = (o * k + j) * a.inner + i;
          vo[out] = row[order[j] * a.inner];
          io[out] = order[j];
        }
      }
    return 0;
  });
  return {values, indices};
}

std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim, bool largest, bool /*sorted*/) {
  return sort_rows("aten::topk", self, k, dim, largest);
}
std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim, bool descending) {
  const int64_t size = self.dim() == 0 ? 1 : self.sizes()[wrap_dim("aten::sort", dim, self.dim())];
  return sort_rows("aten::sort", self, size, dim, descending);
}
Tensor argsort(const Tensor& self, int64_t dim, bool descending) {
  const int64_t size = self.dim() == 0 ? 1 : self.sizes()[wrap_dim("aten::argsort", dim, self.dim())];
  return std::get<1>(sort_rows("aten::argsort", self, size, dim, descending));
}

// argmax / argmin: the first index of the largest (smallest) value; NaN beats every number in
// both, as in PyTorch.
template <bool kMax>
Tensor arg_extreme(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  const char* op = kMax ? "aten::argmax" : "aten::argmin";
  TVK_CHECK(self.numel() > 0, op, ": cannot take the ", kMax ? "argmax" : "argmin", " of an empty tensor");
  const Tensor flat = dim ? self : self.reshape({self.numel()});
  const AlongDim a = along_dim(op, flat, dim.value_or(0));
  Tensor out = empty(reduced_sizes(op, self.sizes(), dim, keepdim), DType::Int64);
  with_dtype(self, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T* in = a.data.template data<T>();
    int64_t* po = out.data<int64_t>();
    for (int64_t o = 0; o < a.outer; ++o)
      for (int64_t i = 0; i < a.inner; ++i) {
        const T* row = in + o * a.size * a.inner + i;
        int64_t best = 0;
        for (int64_t j = 1; j < a.size; ++j) {
          const T v = row[j * a.inner], b = row[best * a.inner];
          // NaN beats numbers both ways; among numbers, larger (smaller) wins; ties keep the first.
          const bool beats = is_nan(v) || is_nan(b) ? is_nan(v) && !is_nan(b) : kMax ? v > b : v < b;
          if (beats) best = j;
        }
        po[o * a.inner + i] = best;
      }
    return 0;
  });
  return out;
}

// Running sums (cumsum) or products (cumprod) along dim, in order.
Tensor running(const char* op, const Tensor& self, int64_t dim, std::optional<int64_t> dtype, bool product) {
  TVK_CHECK(self.dtype() != DType::Bool, op, ": bool tensors are not supported");
  if (dtype) TVK_CHECK(dtype_from_code(op, dtype) == self.dtype(), op, ": a dtype other than the input's is not supported");
  const AlongDim a = along_dim(op, self, dim);
  Tensor out = empty(self.sizes(), self.dtype());
  with_dtype(self, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    if constexpr (!std::is_same_v<T, bool>) {
      const T* in = a.data.template data<T>();
      T* po = out.template data<T>();
      for (int64_t o = 0; o < a.outer; ++o)
        for (int64_t i = 0; i < a.inner; ++i) {
          T acc = product ? 1 : 0;
          for (int64_t j = 0; j < a.size; ++j) {
            const int64_t at = (o * a.size + j) * a.inner + i;
            po[at] = acc = product ? acc * in[at] : acc + in[at];
          }
        }
    }
    return 0;
  });
  return out;
}

Tensor cumsum(const Tensor& self, int64_t dim, std::optional<int64_t> dtype) {
  return running("aten::cumsum", self, dim, dtype, false);
}
Tensor cumprod(const Tensor& self, int64_t dim, std::optional<int64_t> dtype) {
  return running("aten::cumprod", self, dim, dtype, true);
}

// x[idx] and x[:, rows, cols]: rows of the indexed block, gathered (ops/index_plan.h).
Tensor index(const Tensor& self, const IValue& indices) {
  const IndexPlan p = index_plan("aten::index", self, optional_tensor_list(indices));
  const Tensor in = self.contiguous();
  Tensor out = empty(p.out_sizes, self.dtype());
  with_dtype(self, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T* src = in.template data<T>();
    T* dst = out.template data<T>();
    for_each_indexed_row(p, [&](int64_t from, int64_t to) { std::copy_n(src + from, p.inner, dst + to); });
  });
  return out;
}

// tvk::gather_dim: out row i along `dim` is self's row rows[i] (ops/index_plan.h: flip and the
// non-constant pads).
Tensor gather_dim(const Tensor& self, int64_t dim, IntList rows) {
  const char* op = "tvk::gather_dim";
  check_defined(op, self);
  TVK_CHECK(self.dim() > 0, op, ": self must have at least one dimension");
  const AlongDim a = along_dim(op, self, dim);
  for (int64_t r : rows) check_in_range(op, r, a.size, a.dim);
  const int64_t n = static_cast<int64_t>(rows.size());
  IntList out_sizes = self.sizes();
  out_sizes[static_cast<size_t>(a.dim)] = n;
  Tensor out = empty(out_sizes, self.dtype());
  with_dtype(self, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T* in = a.data.template data<T>();
    T* po = out.template data<T>();
    for (int64_t o = 0; o < a.outer; ++o)
      for (int64_t j = 0; j < n; ++j)
        std::copy_n(in + (o * a.size + rows[static_cast<size_t>(j)]) * a.inner, a.inner, po + (o * n + j) * a.inner);
    return 0;
  });
  return out;
}

Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  const char* op = "aten::index_select";
  check_index_tensor(op, index);
  TVK_CHECK(index.dim() <= 1, op, ": index must be 0-D or 1-D, got ", index.shape_string());
  const AlongDim a = along_dim(op, self, dim);
  const Tensor idx = index.contiguous();
  const int64_t n = idx.numel();
  IntList out_sizes = self.sizes();
  if (self.dim() > 0) out_sizes[a.dim] = n;
  Tensor out = empty(out_sizes, self.dtype());
  const int64_t* ip = idx.data<int64_t>();
  for (int64_t j = 0; j < n; ++j) check_in_range(op, ip[j], a.size, a.dim);
  with_dtype(self, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T* in = a.data.template data<T>();
    T* po = out.template data<T>();
    for (int64_t o = 0; o < a.outer; ++o)
      for (int64_t j = 0; j < n; ++j) {
        std::copy_n(in + (o * a.size + ip[j]) * a.inner, a.inner, po + (o * n + j) * a.inner);
      }
    return 0;
  });
  return out;
}

// scatter / scatter_add: a copy of self where each element e of index (over index's shape) puts
// src[e] (or the value) at self's position with dim replaced by index[e], or adds it there.
// Later writes win for scatter, as PyTorch's CPU kernel does in order.
Tensor scatter_impl(const char* op, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                    std::optional<double> value, bool add) {
  check_defined(op, self);
  check_index_tensor(op, index);
  TVK_CHECK(index.dim() == self.dim() || (index.dim() <= 1 && self.dim() <= 1), op, ": index ", index.shape_string(),
            " and self ", self.shape_string(), " must have the same number of dimensions");
  const int64_t d = self.dim() == 0 ? 0 : wrap_dim(op, dim, self.dim());
  if (src.defined()) {
    TVK_CHECK(src.dtype() == self.dtype(), op, ": expected self and src to have the same dtype, got ",
              to_string(self.dtype()), " and ", to_string(src.dtype()));
    TVK_CHECK(src.dim() == index.dim(), op, ": index ", index.shape_string(), " and src ", src.shape_string(),
              " must have the same number of dimensions");
  }
  for (int64_t i = 0; i < index.dim(); ++i) {
    TVK_CHECK(i == d || self.dim() == 0 || index.sizes()[i] <= self.sizes()[i], op, ": index ", index.shape_string(),
              " is larger than self ", self.shape_string(), " outside dimension ", d);
    TVK_CHECK(!src.defined() || index.sizes()[i] <= src.sizes()[i], op, ": index ", index.shape_string(),
              " is larger than src ", src.shape_string());
  }
  Tensor out = self.contiguous().clone();
  const Tensor idx = index.contiguous();
  const Tensor from = src.defined() ? src.contiguous() : Tensor();
  const IntList out_strides = contiguous_strides(self.sizes());
  const IntList src_strides = from.defined() ? contiguous_strides(from.sizes()) : IntList{};
  const IntList idx_strides = contiguous_strides(index.sizes());
  const int64_t* ip = idx.data<int64_t>();
  const int64_t size = self.dim() == 0 ? 1 : self.sizes()[static_cast<size_t>(d)];
  with_dtype(self, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    T* po = out.template data<T>();
    const T* ps = from.defined() ? from.template data<T>() : nullptr;
    for (int64_t e = 0; e < idx.numel(); ++e) {
      int64_t rest = e, at = 0, from_at = 0;
      for (int64_t i = 0; i < index.dim(); ++i) {
        const int64_t c = rest / idx_strides[static_cast<size_t>(i)];
        rest %= idx_strides[static_cast<size_t>(i)];
        if (ps) from_at += c * src_strides[static_cast<size_t>(i)];
        if (self.dim() == 0) continue;
        if (i == d) {
          int64_t j = ip[e];
          TVK_CHECK(j >= -size && j < size, op, ": index ", j, " is out of bounds for dimension ", d, " with size ", size);
          if (j < 0) j += size;
          at += j * out_strides[static_cast<size_t>(i)];
        } else {
          at += c * out_strides[static_cast<size_t>(i)];
        }
      }
      const T v = ps ? ps[from_at] : static_cast<T>(*value);
      if constexpr (std::is_same_v<T, bool>) {
        po[at] = add ? (po[at] || v) : v;
      } else {
        po[at] = add ? static_cast<T>(po[at] + v) : v;
      }
    }
    return 0;
  });
  return out;
}
Tensor scatter_src(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_impl("aten::scatter", self, dim, index, src, std::nullopt, false);
}
Tensor scatter_value(const Tensor& self, int64_t dim, const Tensor& index, Scalar value) {
  return scatter_impl("aten::scatter", self, dim, index, Tensor(), value, false);
}
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_impl("aten::scatter_add", self, dim, index, src, std::nullopt, true);
}
// index_add: self with alpha * source's slices along dim added at the rows index names.
Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, Scalar alpha) {
  const char* op = "aten::index_add";
  check_defined(op, self);
  check_defined(op, source, "source");
  check_index_tensor(op, index);
  TVK_CHECK(index.dim() <= 1, op, ": index must be 0-D or 1-D, got ", index.shape_string());
  TVK_CHECK(source.dim() == self.dim(), op, ": source ", source.shape_string(), " and self ", self.shape_string(),
            " must have the same number of dimensions");
  const AlongDim a = along_dim(op, self, dim);
  const AlongDim b = along_dim(op, source, dim);
  TVK_CHECK(b.size == index.numel() && b.outer == a.outer && b.inner == a.inner, op, ": source ", source.shape_string(),
            " does not match self ", self.shape_string(), " outside dimension ", a.dim, " or index's ", index.numel(),
            " entries along it");
  const Tensor rows = index.contiguous();
  Tensor out = self.contiguous().clone();
  const Tensor src = source.dtype() == self.dtype() ? b.data : Tensor();
  TVK_CHECK(src.defined(), op, ": self and source must have the same dtype");
  with_dtype(self, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    if constexpr (!std::is_same_v<T, bool>) {
      T* po = out.template data<T>();
      const T* ps = src.template data<T>();
      const T scale = static_cast<T>(alpha);
      for (int64_t j = 0; j < b.size; ++j) {
        const int64_t r = rows.data<int64_t>()[j];
        check_in_range(op, r < 0 ? r + a.size : r, a.size, a.dim);
        const int64_t row = r < 0 ? r + a.size : r;
        for (int64_t o = 0; o < a.outer; ++o)
          for (int64_t i = 0; i < a.inner; ++i)
            po[(o * a.size + row) * a.inner + i] += scale * ps[(o * b.size + j) * b.inner + i];
      }
    }
    return 0;
  });
  return out;
}

Tensor gather(const Tensor& self, int64_t dim, const Tensor& index, bool /*sparse_grad*/) {
  const char* op = "aten::gather";
  check_index_tensor(op, index);
  TVK_CHECK(index.dim() == self.dim(), op, ": index ", index.shape_string(), " and self ", self.shape_string(),
            " must have the same number of dimensions");
  const int64_t d = self.dim() == 0 ? 0 : wrap_dim(op, dim, self.dim());
  for (int64_t i = 0; i < self.dim(); ++i)
    TVK_CHECK(i == d || index.sizes()[i] <= self.sizes()[i], op, ": index ", index.shape_string(),
              " is larger than self ", self.shape_string(), " outside dimension ", d);
  const Tensor src = self.contiguous(), idx = index.contiguous();
  const IntList src_strides = contiguous_strides(self.sizes());
  Tensor out = empty(index.sizes(), self.dtype());
  const int64_t* ip = idx.data<int64_t>();
  const int64_t size = self.dim() == 0 ? 1 : self.sizes()[d];
  with_dtype(self, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T* in = src.template data<T>();
    T* po = out.template data<T>();
    const IntList out_strides = contiguous_strides(index.sizes());
    for (int64_t e = 0; e < idx.numel(); ++e) {
      int64_t rest = e, offset = 0;
      for (int64_t i = 0; i < index.dim(); ++i) {
        const int64_t c = rest / out_strides[i];
        rest %= out_strides[i];
        if (i == d) {
          check_in_range(op, ip[e], size, d);
          offset += ip[e] * src_strides[i];
        } else {
          offset += c * src_strides[i];
        }
      }
      po[e] = in[offset];
    }
    return 0;
  });
  return out;
}

Tensor where_self(const Tensor& condition, const Tensor& self, const Tensor& other) {
  const char* op = "aten::where";
  TVK_CHECK(condition.dtype() == DType::Bool, op, ": condition must be bool, got ", to_string(condition.dtype()));
  TVK_CHECK(self.dtype() == other.dtype(), op, ": self (", to_string(self.dtype()), ") and other (",
            to_string(other.dtype()), ") must have one dtype");
  const IntList sizes = broadcast_shapes(op, broadcast_shapes(op, condition.sizes(), self.sizes()), other.sizes());
  Tensor out = empty(sizes, self.dtype());
  const bool* c = condition.data<bool>();
  with_dtype(self, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T* a = self.template data<T>();
    const T* b = other.template data<T>();
    T* po = out.template data<T>();
    strided_loop<3>(sizes, {broadcast_strides(condition, sizes), broadcast_strides(self, sizes), broadcast_strides(other, sizes)},
                    [&](int64_t i, int64_t oc, int64_t oa, int64_t ob) { po[i] = c[oc] ? a[oa] : b[ob]; });
    return 0;
  });
  return out;
}

Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t /*padding_idx*/, bool /*scale_grad_by_freq*/,
                 bool /*sparse*/) {
  const char* op = "aten::embedding";
  check_index_tensor(op, indices, "indices");
  TVK_CHECK(weight.dim() == 2, op, ": weight must be 2-D, got ", weight.shape_string());
  const Tensor flat = indices.reshape({indices.numel()}).contiguous();
  for (int64_t i = 0; i < flat.numel(); ++i) {
    const int64_t v = flat.data<int64_t>()[i];
    TVK_CHECK(v >= 0 && v < weight.sizes()[0], op, ": index ", v, " is out of range for ", weight.sizes()[0], " rows");
  }
  IntList out_sizes = indices.sizes();
  out_sizes.push_back(weight.sizes()[1]);
  return index_select(weight, 0, flat).reshape(out_sizes);
}

Tensor nonzero(const Tensor& self) {
  const Tensor t = self.contiguous();
  const IntList strides = contiguous_strides(self.sizes());
  std::vector<int64_t> hits;
  with_dtype(self, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T* p = t.template data<T>();
    for (int64_t e = 0; e < t.numel(); ++e)
      if (p[e] != T(0)) hits.push_back(e);
    return 0;
  });
  const int64_t rank = self.dim();
  Tensor out = empty({static_cast<int64_t>(hits.size()), rank}, DType::Int64);
  int64_t* po = out.data<int64_t>();
  for (size_t h = 0; h < hits.size(); ++h) {
    int64_t rest = hits[h];
    for (int64_t i = 0; i < rank; ++i) {
      po[static_cast<int64_t>(h) * rank + i] = rest / strides[i];
      rest %= strides[i];
    }
  }
  return out;
}

// Comparisons with a scalar give bool tensors (masks for where, nonzero, index).
template <typename Cmp>
Tensor compare_scalar(const char* op, const Tensor& self, Scalar other, Cmp cmp) {
  // Bool elements compare as 0 and 1, as in PyTorch (mask == 0, logical_not).
  check_defined(op, self);
  Tensor out = empty(self.sizes(), DType::Bool);
  bool* po = out.data<bool>();
  with_dtype(self, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T* p = self.template data<T>();
    // A float tensor compares in float32, as PyTorch casts the scalar to the tensor's type.
    const double b = std::is_floating_point_v<T> ? static_cast<double>(static_cast<float>(other)) : other;
    strided_loop<1>(self.sizes(), {self.strides()},
                    [&](int64_t i, int64_t o) { po[i] = cmp(static_cast<double>(p[o]), b); });
    return 0;
  });
  return out;
}
Tensor gt_scalar(const Tensor& self, Scalar other) {
  return compare_scalar("aten::gt", self, other, [](double a, double b) { return a > b; });
}
Tensor lt_scalar(const Tensor& self, Scalar other) {
  return compare_scalar("aten::lt", self, other, [](double a, double b) { return a < b; });
}
Tensor ge_scalar(const Tensor& self, Scalar other) {
  return compare_scalar("aten::ge", self, other, [](double a, double b) { return a >= b; });
}
Tensor le_scalar(const Tensor& self, Scalar other) {
  return compare_scalar("aten::le", self, other, [](double a, double b) { return a <= b; });
}
Tensor eq_scalar(const Tensor& self, Scalar other) {
  return compare_scalar("aten::eq", self, other, [](double a, double b) { return a == b; });
}
Tensor ne_scalar(const Tensor& self, Scalar other) {
  return compare_scalar("aten::ne", self, other, [](double a, double b) { return a != b; });
}

// Comparisons of two tensors, broadcast: each side read as a double (float32 and int64 values
// below 2^53 compare exactly), giving a bool tensor.
template <typename Cmp>
Tensor compare_tensors(const char* op, const Tensor& self, const Tensor& other, Cmp cmp) {
  check_defined(op, self);
  check_defined(op, other, "other");
  const IntList sizes = broadcast_shapes(op, self.sizes(), other.sizes());
  Tensor out = empty(sizes, DType::Bool);
  bool* po = out.data<bool>();
  with_dtype(self, [&](auto* ta) {
    using A = std::remove_pointer_t<decltype(ta)>;
    return with_dtype(other, [&](auto* tb) {
      using B = std::remove_pointer_t<decltype(tb)>;
      const A* pa = self.template data<A>();
      const B* pb = other.template data<B>();
      strided_loop<2>(sizes, {broadcast_strides(self, sizes), broadcast_strides(other, sizes)},
                      [&](int64_t i, int64_t oa, int64_t ob) {
                        po[i] = cmp(static_cast<double>(pa[oa]), static_cast<double>(pb[ob]));
                      });
      return 0;
    });
  });
  return out;
}
Tensor gt_tensor(const Tensor& self, const Tensor& other) {
  return compare_tensors("aten::gt", self, other, [](double a, double b) { return a > b; });
}
Tensor lt_tensor(const Tensor& self, const Tensor& other) {
  return compare_tensors("aten::lt", self, other, [](double a, double b) { return a < b; });
}
Tensor ge_tensor(const Tensor& self, const Tensor& other) {
  return compare_tensors("aten::ge", self, other, [](double a, double b) { return a >= b; });
}
Tensor le_tensor(const Tensor& self, const Tensor& other) {
  return compare_tensors("aten::le", self, other, [](double a, double b) { return a <= b; });
}
Tensor eq_tensor(const Tensor& self, const Tensor& other) {
  return compare_tensors("aten::eq", self, other, [](double a, double b) { return a == b; });
}
Tensor ne_tensor(const Tensor& self, const Tensor& other) {
  return compare_tensors("aten::ne", self, other, [](double a, double b) { return a != b; });
}

// Logical ops: any non-zero value (NaN included) is true; a bool tensor out, broadcast.
Tensor logical_not(const Tensor& self) {
  return compare_scalar("aten::logical_not", self, Scalar(int64_t{0}), [](double a, double b) { return a == b; });
}
// ~x: logical not of a bool tensor, the bits of an int64 one (float32 has no bitwise not).
Tensor bitwise_not(const Tensor& self) {
  check_defined("aten::bitwise_not", self);
  if (self.dtype() == DType::Bool) return logical_not(self);
  TVK_CHECK(self.dtype() == DType::Int64, "aten::bitwise_not: not defined for float32 tensors, only integer and bool");
  Tensor out = empty(self.sizes(), DType::Int64);
  const int64_t* p = self.data<int64_t>();
  int64_t* po = out.data<int64_t>();
  strided_loop<1>(self.sizes(), {self.strides()}, [&](int64_t i, int64_t o) { po[i] = ~p[o]; });
  return out;
}
Tensor logical_and(const Tensor& self, const Tensor& other) {
  return compare_tensors("aten::logical_and", self, other, [](double a, double b) { return a != 0 && b != 0; });
}
Tensor logical_or(const Tensor& self, const Tensor& other) {
  return compare_tensors("aten::logical_or", self, other, [](double a, double b) { return a != 0 || b != 0; });
}
Tensor logical_xor(const Tensor& self, const Tensor& other) {
  return compare_tensors("aten::logical_xor", self, other, [](double a, double b) { return (a != 0) != (b != 0); });
}

// torch.where(condition): the coordinates of the non-zero elements, one int64 tensor per dim.
std::vector<Tensor> where_condition(const Tensor& condition) {
  check_defined("aten::where", condition, "condition");
  const Tensor coords = nonzero(condition);  // [hits, rank]
  std::vector<Tensor> out;
  const int64_t hits = coords.sizes()[0];
  for (int64_t d = 0; d < condition.dim(); ++d)
    out.push_back(coords.as_strided({hits}, {condition.dim()}, d).contiguous());
  if (condition.dim() == 0) out.push_back(zeros({hits}, DType::Int64));  // as PyTorch: a 0-D tensor acts as 1-D
  return out;
}

// torch.unique without dim: the distinct values of the flattened tensor in increasing order
// (tvk sorts whether or not `sorted` asks it to; PyTorch's unsorted order is unspecified), and
// when asked, each element's position in them (inverse, self's shape; also given with counts, as
// PyTorch does) and how often each occurs (counts); empty tensors otherwise.
std::tuple<Tensor, Tensor, Tensor> unique2(const Tensor& self, bool /*sorted*/, bool return_inverse, bool return_counts) {
  const char* op = "aten::_unique2";
  check_defined(op, self);
  const Tensor flat = self.contiguous();
  const int64_t n = flat.numel();
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  Tensor values, inverse = empty({0}, DType::Int64), counts = empty({0}, DType::Int64);
  with_dtype(self, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T* p = flat.template data<T>();
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return greater(p[b], p[a]); });
    std::vector<T> distinct;
    std::vector<int64_t> count, position(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) {
      const T v = p[order[static_cast<size_t>(j)]];
      // NaNs stay apart, as PyTorch keeps each NaN a value of its own.
      const bool same = !distinct.empty() && distinct.back() == v;
      if (!same) {
        distinct.push_back(v);
        count.push_back(0);
      }
      ++count.back();
      position[static_cast<size_t>(order[static_cast<size_t>(j)])] = static_cast<int64_t>(distinct.size()) - 1;
    }
    values = empty({static_cast<int64_t>(distinct.size())}, self.dtype());
    std::copy(distinct.begin(), distinct.end(), values.template data<T>());
    if (return_inverse || return_counts) {  // PyTorch fills inverse for either
      inverse = empty(self.sizes(), DType::Int64);
      std::copy(position.begin(), position.end(), inverse.data<int64_t>());
    }
    if (return_counts) {
      counts = empty({static_cast<int64_t>(count.size())}, DType::Int64);
      std::copy(count.begin(), count.end(), counts.data<int64_t>());
    }
    return 0;
  });
  return {values, inverse, counts};
}

// self[indices] = values (accumulate: +=), values broadcast to the indexed shape and converted
// to self's dtype; the indices as aten::index takes them (int64 or bool masks).
Tensor index_put_(const Tensor& self, const IValue& indices, const Tensor& values, bool accumulate) {
  const char* op = "aten::index_put_";
  check_defined(op, values, "values");
  const IndexPlan p = index_plan(op, self, optional_tensor_list(indices));
  TVK_CHECK(broadcast_shapes(op, p.out_sizes, values.sizes()) == p.out_sizes, op, ": values of shape ",
            values.shape_string(), " cannot be broadcast to the indexed shape ", shape_string(p.out_sizes));
  Tensor source = empty(p.out_sizes, self.dtype());
  copy_converting(source, values);
  const Tensor target = self.is_contiguous() ? self : self.contiguous();
  with_dtype(self, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T* src = source.template data<T>();
    T* dst = target.template data<T>();
    // The indexed rows of self take the values' rows (index's walk, run backwards).
    for_each_indexed_row(p, [&](int64_t in_self, int64_t in_values) {
      T* row = dst + in_self;
      const T* from = src + in_values;
      for (int64_t j = 0; j < p.inner; ++j) {
        if constexpr (std::is_same_v<T, bool>) row[j] = accumulate ? (row[j] || from[j]) : from[j];
        else row[j] = accumulate ? static_cast<T>(row[j] + from[j]) : from[j];
      }
    });
    return 0;
  });
  if (!target.is_same(self)) copy_converting(self, target);
  return self;
}

// self where mask is false, value where it is true, over the broadcast of the two shapes.
Tensor masked_fill_scalar(const Tensor& self, const Tensor& mask, Scalar value) {
  const char* op = "aten::masked_fill";
  check_defined(op, self);
  check_defined(op, mask, "mask");
  TVK_CHECK(mask.dtype() == DType::Bool, op, ": mask must be a bool tensor, got ", to_string(mask.dtype()));
  const IntList sizes = broadcast_shapes(op, self.sizes(), mask.sizes());
  Tensor out = empty(sizes, self.dtype());
  const bool* pm = mask.data<bool>();
  with_dtype(self, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T* p = self.template data<T>();
    T* po = out.template data<T>();
    const T v = static_cast<T>(value);
    strided_loop<2>(sizes, {broadcast_strides(self, sizes), broadcast_strides(mask, sizes)},
                    [&](int64_t i, int64_t o, int64_t m) { po[i] = pm[m] ? v : p[o]; });
    return 0;
  });
  return out;
}

// torchvision::nms: indices of the boxes kept, by decreasing score; a box is dropped when its
// IoU with a kept, higher-scoring box exceeds the threshold. Boxes are (x1, y1, x2, y2).
Tensor nms(const Tensor& dets, const Tensor& scores, double iou_threshold) {
  const char* op = "torchvision::nms";
  check_float(op, dets, "dets");
  check_float(op, scores, "scores");
  TVK_CHECK(dets.dim() == 2 && dets.sizes()[1] == 4, op, ": boxes must be [N, 4], got ", dets.shape_string());
  TVK_CHECK(scores.dim() == 1 && scores.sizes()[0] == dets.sizes()[0], op, ": scores ", scores.shape_string(),
            " must be [N] for ", dets.sizes()[0], " boxes");
  const Tensor order = argsort(scores, 0, true);
  const Tensor b = dets.contiguous();
  const float* box = b.data<float>();
  const int64_t* ord = order.data<int64_t>();
  const int64_t n = dets.sizes()[0];
  std::vector<bool> removed(static_cast<size_t>(n), false);
  std::vector<int64_t> keep;
  auto area = [&](int64_t i) { return (box[i * 4 + 2] - box[i * 4]) * (box[i * 4 + 3] - box[i * 4 + 1]); };
  for (int64_t a = 0; a < n; ++a) {
    const int64_t i = ord[a];
    if (removed[static_cast<size_t>(i)]) continue;
    keep.push_back(i);
    for (int64_t c = a + 1; c < n; ++c) {
      const int64_t j = ord[c];
      if (removed[static_cast<size_t>(j)]) continue;
      const float w = std::max(0.0f, std::min(box[i * 4 + 2], box[j * 4 + 2]) - std::max(box[i * 4], box[j * 4]));
      const float h = std::max(0.0f, std::min(box[i * 4 + 3], box[j * 4 + 3]) - std::max(box[i * 4 + 1], box[j * 4 + 1]));
      const float inter = w * h;
      if (inter / (area(i) + area(j) - inter) > iou_threshold) removed[static_cast<size_t>(j)] = true;
    }
  }
  Tensor out = empty({static_cast<int64_t>(keep.size())}, DType::Int64);
  std::copy(keep.begin(), keep.end(), out.data<int64_t>());
  return out;
}

}  // namespace

TVK_REGISTER_OP("aten::argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor", arg_extreme<true>);
TVK_REGISTER_OP("aten::argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor", arg_extreme<false>);
TVK_REGISTER_OP("aten::topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, "
                "Tensor indices)", topk);
TVK_REGISTER_OP("aten::sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)", sort);
TVK_REGISTER_OP("aten::argsort(Tensor self, int dim=-1, bool descending=False) -> Tensor", argsort);
TVK_REGISTER_OP("aten::cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor", cumsum);
TVK_REGISTER_OP("aten::cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor", cumprod);
TVK_REGISTER_OP("aten::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor", index);
TVK_REGISTER_OP("aten::index_select(Tensor self, int dim, Tensor index) -> Tensor", index_select);
TVK_REGISTER_OP("tvk::gather_dim(Tensor self, int dim, int[] rows) -> Tensor", gather_dim);
TVK_REGISTER_OP("aten::gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor", gather);
TVK_REGISTER_OP("aten::scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor", scatter_src);
TVK_REGISTER_OP("aten::scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor", scatter_value);
TVK_REGISTER_OP("aten::scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor", scatter_add);
TVK_REGISTER_OP("aten::index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor",
                index_add);
TVK_REGISTER_OP("aten::where.self(Tensor condition, Tensor self, Tensor other) -> Tensor", where_self);
TVK_REGISTER_OP("aten::embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False, "
                "bool sparse=False) -> Tensor", embedding);
TVK_REGISTER_OP("aten::nonzero(Tensor self) -> Tensor", nonzero);
TVK_REGISTER_OP("aten::gt.Scalar(Tensor self, Scalar other) -> Tensor", gt_scalar);
TVK_REGISTER_OP("aten::lt.Scalar(Tensor self, Scalar other) -> Tensor", lt_scalar);
TVK_REGISTER_OP("aten::ge.Scalar(Tensor self, Scalar other) -> Tensor", ge_scalar);
TVK_REGISTER_OP("aten::le.Scalar(Tensor self, Scalar other) -> Tensor", le_scalar);
TVK_REGISTER_OP("aten::eq.Scalar(Tensor self, Scalar other) -> Tensor", eq_scalar);
TVK_REGISTER_OP("aten::ne.Scalar(Tensor self, Scalar other) -> Tensor", ne_scalar);
TVK_REGISTER_OP("aten::gt.Tensor(Tensor self, Tensor other) -> Tensor", gt_tensor);
TVK_REGISTER_OP("aten::lt.Tensor(Tensor self, Tensor other) -> Tensor", lt_tensor);
TVK_REGISTER_OP("aten::ge.Tensor(Tensor self, Tensor other) -> Tensor", ge_tensor);
TVK_REGISTER_OP("aten::le.Tensor(Tensor self, Tensor other) -> Tensor", le_tensor);
TVK_REGISTER_OP("aten::eq.Tensor(Tensor self, Tensor other) -> Tensor", eq_tensor);
TVK_REGISTER_OP("aten::logical_not(Tensor self) -> Tensor", logical_not);
TVK_REGISTER_OP("aten::bitwise_not(Tensor self) -> Tensor", bitwise_not);
TVK_REGISTER_OP("aten::logical_and(Tensor self, Tensor other) -> Tensor", logical_and);
TVK_REGISTER_OP("aten::logical_or(Tensor self, Tensor other) -> Tensor", logical_or);
TVK_REGISTER_OP("aten::logical_xor(Tensor self, Tensor other) -> Tensor", logical_xor);
TVK_REGISTER_OP("aten::ne.Tensor(Tensor self, Tensor other) -> Tensor", ne_tensor);
TVK_REGISTER_OP("aten::where(Tensor condition) -> Tensor[]", where_condition);
TVK_REGISTER_OP("aten::_unique2(Tensor self, bool sorted=True, bool return_inverse=False, bool return_counts=False) "
                "-> (Tensor, Tensor, Tensor)", unique2);
TVK_REGISTER_OP("aten::index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) "
                "-> Tensor(a!)", index_put_);
TVK_REGISTER_OP("aten::masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor", masked_fill_scalar);
TVK_REGISTER_OP("torchvision::nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor", nms);

}  // namespace tvk::ops::cpu
