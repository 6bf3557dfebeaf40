// Reductions: mean and sum (all dims or a list), min and max of all elements, softmax and
// log_softmax along one dim.
#include <cmath>
#include <limits>
#include <type_traits>

#include "ops/registry.h"
#include "ops/shape_utils.h"
#include "ops/view_geometry.h"

namespace tvk::ops::cpu {
namespace {

Tensor mean_impl(const char* op, const Tensor& self, const std::optional<IntList>& dims, bool keepdim,
                 std::optional<int64_t> dtype) {
  check_float(op, self);
  check_float_dtype_arg(op, dtype);
  const ReducePlan plan = plan_reduce(op, self, dims, keepdim);
  // Kept dims first, reduced dims last: each output element is the mean of one row.
  const Tensor rows = as_view(self, permute_geometry(self, plan.order)).contiguous();
  Tensor out = empty(plan.out_sizes);
  const float* in = rows.data<float>();
  for (int64_t r = 0; r < plan.rows; ++r) {
    double sum = 0;
    for (int64_t c = 0; c < plan.cols; ++c) sum += in[r * plan.cols + c];
    out.data<float>()[r] = static_cast<float>(sum / static_cast<double>(plan.cols));
  }
  return out;
}
Tensor mean_dim(const Tensor& self, std::optional<IntList> dim, bool keepdim, std::optional<int64_t> dtype) {
  return mean_impl("aten::mean", self, dim, keepdim, dtype);
}
Tensor mean_all(const Tensor& self, std::optional<int64_t> dtype) {
  return mean_impl("aten::mean", self, std::nullopt, false, dtype);
}

// torch.sum: float32 sums stay float32 (accumulated in double); int64 and bool ones are int64,
// as in PyTorch, unless dtype asks for float32 (or int64 of a float32 tensor, truncating the sum).
// A sum's or product's rows (the reduced dims last, contiguous) and its output: float32 for
// float32 input, int64 for int64 and bool, unless dtype says otherwise (never bool).
struct RowReduce {
  ReducePlan plan;
  Tensor rows, out;
  DType out_dtype;
};
RowReduce row_reduce(const char* op, const Tensor& self, const std::optional<IntList>& dims, bool keepdim,
                     std::optional<int64_t> dtype) {
  check_defined(op, self);
  const DType out_dtype = dtype ? dtype_from_code(op, dtype) : (self.dtype() == DType::Float32 ? DType::Float32
                                                                                              : DType::Int64);
  TVK_CHECK(out_dtype != DType::Bool, op, ": dtype=bool is not supported");
  ReducePlan plan = plan_reduce(op, self, dims, keepdim);
  Tensor rows = as_view(self, permute_geometry(self, plan.order)).contiguous();
  Tensor out = empty(plan.out_sizes, out_dtype);
  return {std::move(plan), std::move(rows), std::move(out), out_dtype};
}

Tensor sum_impl(const Tensor& self, const std::optional<IntList>& dims, bool keepdim, std::optional<int64_t> dtype) {
  auto [plan, rows, out, out_dtype] = row_reduce("aten::sum", self, dims, keepdim, dtype);
  for (int64_t r = 0; r < plan.rows; ++r) {
    double total = 0;
    int64_t whole = 0;
    for (int64_t c = 0; c < plan.cols; ++c) {
      const int64_t i = r * plan.cols + c;
      switch (rows.dtype()) {
        case DType::Float32: total += rows.data<float>()[i]; break;
        // Wrapping adds, as int64 sums wrap in PyTorch, without signed overflow.
        case DType::Int64:
          whole = static_cast<int64_t>(static_cast<uint64_t>(whole) + static_cast<uint64_t>(rows.data<int64_t>()[i]));
          break;
        case DType::Bool: whole += rows.data<bool>()[i] ? 1 : 0; break;
      }
    }
    if (rows.dtype() != DType::Float32) total = static_cast<double>(whole);
    if (out_dtype == DType::Float32) out.data<float>()[r] = static_cast<float>(total);
    else out.data<int64_t>()[r] = rows.dtype() == DType::Float32 ? static_cast<int64_t>(total) : whole;
  }
  return out;
}
Tensor sum_dim(const Tensor& self, std::optional<IntList> dim, bool keepdim, std::optional<int64_t> dtype) {
  return sum_impl(self, dim, keepdim, dtype);
}
Tensor sum_all(const Tensor& self, std::optional<int64_t> dtype) { return sum_impl(self, std::nullopt, false, dtype); }

// torch.prod: products in order, float32 for float32 input, int64 (wrapping) for int64 and bool.
Tensor prod_impl(const Tensor& self, const std::optional<IntList>& dims, bool keepdim, std::optional<int64_t> dtype) {
  auto [plan, rows, out, out_dtype] = row_reduce("aten::prod", self, dims, keepdim, dtype);
  for (int64_t r = 0; r < plan.rows; ++r) {
    float product = 1.f;
    uint64_t whole = 1;
    for (int64_t c = 0; c < plan.cols; ++c) {
      const int64_t i = r * plan.cols + c;
      switch (rows.dtype()) {
        case DType::Float32: product *= rows.data<float>()[i]; break;
        case DType::Int64: whole *= static_cast<uint64_t>(rows.data<int64_t>()[i]); break;
        case DType::Bool: whole *= rows.data<bool>()[i] ? 1 : 0; break;
      }
    }
    if (rows.dtype() != DType::Float32) product = static_cast<float>(static_cast<int64_t>(whole));
    if (out_dtype == DType::Float32) out.data<float>()[r] = product;
    else out.data<int64_t>()[r] = rows.dtype() == DType::Float32 ? static_cast<int64_t>(product) : static_cast<int64_t>(whole);
  }
  return out;
}
Tensor prod_dim(const Tensor& self, int64_t dim, bool keepdim, std::optional<int64_t> dtype) {
  return prod_impl(self, IntList{dim}, keepdim, dtype);
}
Tensor prod_all(const Tensor& self, std::optional<int64_t> dtype) { return prod_impl(self, std::nullopt, false, dtype); }

// torch.any / torch.all: whether any / every element is non-zero (NaN is), as a bool tensor;
// all of an empty set is true, any false.
template <bool kAll>
Tensor any_all_impl(const Tensor& self, const std::optional<IntList>& dims, bool keepdim) {
  const char* op = kAll ? "aten::all" : "aten::any";
  check_defined(op, self);
  const ReducePlan plan = plan_reduce(op, self, dims, keepdim);
  const Tensor rows = as_view(self, permute_geometry(self, plan.order)).contiguous();
  Tensor out = empty(plan.out_sizes, DType::Bool);
  for (int64_t r = 0; r < plan.rows; ++r) {
    bool result = kAll;
    for (int64_t c = 0; c < plan.cols && result == kAll; ++c) {
      const int64_t i = r * plan.cols + c;
      bool v = false;
      switch (rows.dtype()) {
        case DType::Float32: v = rows.data<float>()[i] != 0.f; break;
        case DType::Int64: v = rows.data<int64_t>()[i] != 0; break;
        case DType::Bool: v = rows.data<bool>()[i]; break;
      }
      if (v != kAll) result = !kAll;
    }
    out.data<bool>()[r] = result;
  }
  return out;
}
Tensor any_all(const Tensor& self) { return any_all_impl<false>(self, std::nullopt, false); }
Tensor any_dim(const Tensor& self, int64_t dim, bool keepdim) { return any_all_impl<false>(self, IntList{dim}, keepdim); }
Tensor all_all(const Tensor& self) { return any_all_impl<true>(self, std::nullopt, false); }
Tensor all_dim(const Tensor& self, int64_t dim, bool keepdim) { return any_all_impl<true>(self, IntList{dim}, keepdim); }

// The largest (kMax) or smallest value of each row of a contiguous [rows, cols] tensor into
// out's elements, in its dtype; NaN wins, as in PyTorch. cols > 0.
template <bool kMax>
void extreme_rows(const Tensor& in, int64_t rows, int64_t cols, Tensor& out) {
  auto pick = [&](const auto* p, auto* o) {
    for (int64_t r = 0; r < rows; ++r) {
      auto best = p[r * cols];
      for (int64_t c = 1; c < cols; ++c) {
        const auto v = p[r * cols + c];
        if constexpr (std::is_floating_point_v<std::remove_const_t<std::remove_reference_t<decltype(v)>>>) {
          if (std::isnan(best)) break;
          if (std::isnan(v)) {
            best = v;
            break;
          }
        }
        if (kMax ? v > best : v < best) best = v;
      }
      o[r] = best;
    }
  };
  switch (in.dtype()) {
    case DType::Float32: pick(in.data<float>(), out.data<float>()); break;
    case DType::Int64: pick(in.data<int64_t>(), out.data<int64_t>()); break;
    case DType::Bool: pick(in.data<bool>(), out.data<bool>()); break;
  }
}

// torch.amax / torch.amin over dims (all of them for an empty list); a reduced dim of size 0 is
// an error, as in PyTorch.
template <bool kMax>
Tensor extreme_dims(const Tensor& self, IntList dims, bool keepdim) {
  const char* op = kMax ? "aten::amax" : "aten::amin";
  check_defined(op, self);
  const ReducePlan plan = plan_reduce(op, self, dims.empty() ? std::nullopt : std::optional<IntList>(dims), keepdim);
  TVK_CHECK(plan.cols > 0 || plan.rows == 0, op, ": a reduced dimension of ", self.shape_string(),
            " is empty; its ", kMax ? "maximum" : "minimum", " is undefined");
  Tensor out = empty(plan.out_sizes, self.dtype());
  if (plan.rows > 0)
    extreme_rows<kMax>(as_view(self, permute_geometry(self, plan.order)).contiguous(), plan.rows, plan.cols, out);
  return out;
}
Tensor amax(const Tensor& self, IntList dim, bool keepdim) { return extreme_dims<true>(self, std::move(dim), keepdim); }
Tensor amin(const Tensor& self, IntList dim, bool keepdim) { return extreme_dims<false>(self, std::move(dim), keepdim); }

// torch.min(x) / torch.max(x): a 0-D tensor of x's dtype.
template <bool kMax>
Tensor extreme_all(const Tensor& self) {
  const char* op = kMax ? "aten::max" : "aten::min";
  check_defined(op, self);
  TVK_CHECK(self.numel() > 0, op, ": the ", kMax ? "maximum" : "minimum", " of an empty tensor (",
            self.shape_string(), ") is undefined; give a dim");
  Tensor out = empty({}, self.dtype());
  extreme_rows<kMax>(self.contiguous(), 1, self.numel(), out);
  return out;
}
Tensor min_all(const Tensor& self) { return extreme_all<false>(self); }
Tensor max_all(const Tensor& self) { return extreme_all<true>(self); }

// Softmax over `dim` viewed as [outer, size, inner]; log form subtracts log(sum) instead of dividing.
Tensor softmax_impl(const char* op, const Tensor& self, int64_t dim, bool log) {
  check_float(op, self);
  const int64_t d = wrap_dim(op, dim, self.dim());
  const Tensor x = self.contiguous();
  const int64_t size = self.dim() == 0 ? 1 : self.sizes()[d];
  int64_t inner = 1;
  for (int64_t i = d + 1; i < self.dim(); ++i) inner *= self.sizes()[i];
  const int64_t outer = size * inner == 0 ? 0 : self.numel() / (size * inner);
  Tensor out = empty(self.sizes());
  const float* in = x.data<float>();
  float* po = out.data<float>();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t base = o * size * inner + i;
      float max = -std::numeric_limits<float>::infinity();
      for (int64_t k = 0; k < size; ++k) max = std::max(max, in[base + k * inner]);
      double sum = 0;
      for (int64_t k = 0; k < size; ++k) sum += std::exp(static_cast<double>(in[base + k * inner]) - max);
      for (int64_t k = 0; k < size; ++k) {
        const double shifted = static_cast<double>(in[base + k * inner]) - max;
        po[base + k * inner] = static_cast<float>(log ? shifted - std::log(sum) : std::exp(shifted) / sum);
      }
    }
  return out;
}
Tensor softmax(const Tensor& self, int64_t dim, std::optional<int64_t> dtype) {
  check_float_dtype_arg("aten::softmax", dtype);
  return softmax_impl("aten::softmax", self, dim, false);
}
Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<int64_t> dtype) {
  check_float_dtype_arg("aten::log_softmax", dtype);
  return softmax_impl("aten::log_softmax", self, dim, true);
}

}  // namespace

TVK_REGISTER_OP("aten::mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
                mean_dim);
TVK_REGISTER_OP("aten::mean(Tensor self, *, ScalarType? dtype=None) -> Tensor", mean_all);
TVK_REGISTER_OP("aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
                sum_dim);
TVK_REGISTER_OP("aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor", sum_all);
TVK_REGISTER_OP("aten::prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
                prod_dim);
TVK_REGISTER_OP("aten::prod(Tensor self, *, ScalarType? dtype=None) -> Tensor", prod_all);
TVK_REGISTER_OP("aten::any(Tensor self) -> Tensor", any_all);
TVK_REGISTER_OP("aten::any.dim(Tensor self, int dim, bool keepdim=False) -> Tensor", any_dim);
TVK_REGISTER_OP("aten::all(Tensor self) -> Tensor", all_all);
TVK_REGISTER_OP("aten::all.dim(Tensor self, int dim, bool keepdim=False) -> Tensor", all_dim);
TVK_REGISTER_OP("aten::min(Tensor self) -> Tensor", min_all);
TVK_REGISTER_OP("aten::max(Tensor self) -> Tensor", max_all);
TVK_REGISTER_OP("aten::amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor", amax);
TVK_REGISTER_OP("aten::amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor", amin);
TVK_REGISTER_OP("aten::softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor", softmax);
TVK_REGISTER_OP("aten::log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor", log_softmax);

}  // namespace tvk::ops::cpu
