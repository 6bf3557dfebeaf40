// Vulkan indexing and masks. aten::index (x[idx], x[:, rows, cols]), index_select and embedding:
// the index tensors are read on the host, which checks them and folds them into one row per
// output row (ops/index_plan.h), and index_rows.glsl gathers those rows. Reading the indices
// back waits for the GPU, so a graph that indexes by computed tensors runs op by op; models
// index by constants (relative-position tables), which optimize_for_mobile folds while freezing. Comparisons with a scalar give bool
// tensors (one byte per element, as on the CPU), which masked_fill reads (swin_t's attention mask).
#include <cstring>

#include "ops/index_plan.h"
#include "ops/registry.h"
#include "tvk/ops.h"
#include "vulkan/ops/shader_dispatch.h"

namespace tvk::vulkan {
namespace {

struct IndexRowsParams {
  uint32_t numel, count, size, inner;
};

// Rows `rows` (checked against `size`) of self seen as [outer, size, inner], gathered by
// index_rows.glsl into a new [outer, rows, inner] tensor of `out_sizes`.
Tensor gather_rows(const char* op, const Tensor& self, const IntList& out_sizes, int64_t size, int64_t inner,
                   const std::vector<int64_t>& rows) {
  Tensor out = empty(out_sizes, self.dtype(), tvk::Device::Vulkan);
  const int64_t words = self.dtype() == DType::Int64 ? 2 : 1;  // 32-bit words per element
  const int64_t count = static_cast<int64_t>(rows.size());
  if (out.numel() == 0) return out;
  Tensor table = empty({count}, DType::Int64);
  std::copy(rows.begin(), rows.end(), table.data<int64_t>());
  const IndexRowsParams params{static_cast<uint32_t>(to_i32(op, out.numel() * words)), static_cast<uint32_t>(to_i32(op, count)),
                               static_cast<uint32_t>(to_i32(op, size)), static_cast<uint32_t>(to_i32(op, inner * words))};
  launch(ShaderLaunch{"index_rows", elementwise_global(out.numel() * words), {64, 1, 1}, {}}, {out, self, table.vulkan()},
         params);
  return out;
}

void check_gather_source(const char* op, const Tensor& self, const char* arg) {
  ops::check_defined(op, self, arg);
  TVK_CHECK(self.device() == tvk::Device::Vulkan && (self.dtype() == DType::Float32 || self.dtype() == DType::Int64), op,
            ": argument '", arg, "' must be a float32 or int64 Vulkan tensor, got ", to_string(self.dtype()));
}

// The indices of an index tensor (CPU or Vulkan, int64; read on the host, which waits for the
// GPU when they are on it), each checked to lie in [0, size) as PyTorch requires.
std::vector<int64_t> host_indices(const char* op, const Tensor& index, const char* arg, int64_t size, int64_t dim) {
  ops::check_defined(op, index, arg);
  TVK_CHECK(index.dtype() == DType::Int64, op, ": argument '", arg, "' must be int64, got ", to_string(index.dtype()));
  const Tensor flat = index.cpu().contiguous();
  std::vector<int64_t> out(flat.data<int64_t>(), flat.data<int64_t>() + flat.numel());
  for (int64_t i : out)
    TVK_CHECK(i >= 0 && i < size, op, ": index ", i, " is out of bounds for dimension ", dim, " with size ", size);
  return out;
}

Tensor index(const Tensor& self, const IValue& indices) {
  const char* op = "aten::index";
  ops::check_defined(op, self);
  TVK_CHECK(self.device() == tvk::Device::Vulkan && (self.dtype() == DType::Float32 || self.dtype() == DType::Int64), op,
            ": argument 'self' must be a float32 or int64 Vulkan tensor, got ", to_string(self.dtype()));
  std::vector<Tensor> host = ops::optional_tensor_list(indices);
  for (Tensor& t : host)
    if (t.defined()) t = t.cpu();
  const ops::IndexPlan p = ops::index_plan(op, self, host);
  return gather_rows(op, self, p.out_sizes, p.size, p.inner, p.rows);
}

Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  const char* op = "aten::index_select";
  check_gather_source(op, self, "self");
  TVK_CHECK(index.defined() && index.dim() <= 1, op, ": index must be 0-D or 1-D, got ",
            index.defined() ? index.shape_string() : "None");
  const ops::DimSplit s = ops::split_at_dim(op, self.sizes(), dim);
  const std::vector<int64_t> rows = host_indices(op, index, "index", s.size, s.dim);
  IntList out_sizes = self.sizes();
  if (self.dim() > 0) out_sizes[static_cast<size_t>(s.dim)] = static_cast<int64_t>(rows.size());
  return gather_rows(op, self, out_sizes, s.size, s.inner, rows);
}

// tvk::gather_dim (flip and the non-constant pads): rows known on the host, one dispatch.
Tensor gather_dim(const Tensor& self, int64_t dim, IntList rows) {
  const char* op = "tvk::gather_dim";
  check_gather_source(op, self, "self");
  TVK_CHECK(self.dim() > 0, op, ": self must have at least one dimension");
  const ops::DimSplit s = ops::split_at_dim(op, self.sizes(), dim);
  for (int64_t r : rows)
    TVK_CHECK(r >= 0 && r < s.size, op, ": row ", r, " is out of bounds for dimension ", s.dim, " with size ", s.size);
  IntList out_sizes = self.sizes();
  out_sizes[static_cast<size_t>(s.dim)] = static_cast<int64_t>(rows.size());
  return gather_rows(op, self, out_sizes, s.size, s.inner, rows);
}

Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t /*padding_idx*/, bool /*scale_grad_by_freq*/,
                 bool /*sparse*/) {
  const char* op = "aten::embedding";
  check_gather_source(op, weight, "weight");
  TVK_CHECK(weight.dim() == 2, op, ": weight must be 2-D, got ", weight.shape_string());
  const std::vector<int64_t> rows = host_indices(op, indices, "indices", weight.sizes()[0], 0);
  IntList out_sizes = indices.sizes();
  out_sizes.push_back(weight.sizes()[1]);
  return gather_rows(op, weight, out_sizes, weight.sizes()[0], weight.sizes()[1], rows);
}

// gather(self, dim, index): self[i0, .., index[i], .., in] over index's shape, as advanced
// indexing with index along dim and a range along every other dim (indices read on the host).
Tensor gather(const Tensor& self, int64_t dim, const Tensor& index, bool /*sparse_grad*/) {
  const char* op = "aten::gather";
  ops::check_defined(op, self);
  ops::check_defined(op, index, "index");
  TVK_CHECK(index.dtype() == DType::Int64, op, ": argument 'index' must be int64, got ", to_string(index.dtype()));
  TVK_CHECK(self.dim() > 0 && index.dim() == self.dim(), op, ": index ", index.shape_string(), " and self ",
            self.shape_string(), " must have the same number of dimensions");
  const int64_t d = ops::wrap_dim(op, dim, self.dim());
  const Tensor idx = index.cpu().contiguous();
  const int64_t size = self.sizes()[static_cast<size_t>(d)];
  for (int64_t i = 0; i < idx.numel(); ++i) {
    const int64_t v = idx.data<int64_t>()[i];
    TVK_CHECK(v >= 0 && v < size, op, ": index ", v, " is out of bounds for dimension ", d, " with size ", size);
  }
  List indices;
  for (int64_t i = 0; i < self.dim(); ++i) {
    TVK_CHECK(i == d || index.sizes()[static_cast<size_t>(i)] <= self.sizes()[static_cast<size_t>(i)], op, ": index ",
              index.shape_string(), " is larger than self ", self.shape_string(), " outside dimension ", d);
    if (i == d) {
      indices.push_back(IValue(idx));
      continue;
    }
    const int64_t n = index.sizes()[static_cast<size_t>(i)];
    IntList shape(static_cast<size_t>(self.dim()), 1);
    shape[static_cast<size_t>(i)] = n;
    Tensor range = tvk::empty(shape, DType::Int64);
    for (int64_t k = 0; k < n; ++k) range.data<int64_t>()[k] = k;
    indices.push_back(IValue(range));
  }
  return ops::call("aten::index.Tensor", {IValue(self), IValue::list(std::move(indices))}).toTensor();
}

// Must match the OP constants of compare.glslh (compare_scalar.glsl, compare_tensor.glsl).
enum CompareOp : uint32_t { kEq = 0, kNe = 1, kGt = 2, kLt = 3, kGe = 4, kLe = 5 };

struct CompareParams {
  uint32_t numel;
  float value;
};

Tensor compare_scalar(const char* op, CompareOp code, const Tensor& self, double other) {
  ops::check_defined(op, self);
  TVK_CHECK(self.device() == tvk::Device::Vulkan, op, ": argument 'self' must be a Vulkan tensor");
  const Tensor in = self.contiguous();
  Tensor out = empty(self.sizes(), DType::Bool, tvk::Device::Vulkan);
  const int64_t words = (self.numel() + 3) / 4;
  const uint32_t int64 = self.dtype() == DType::Int64 ? 1 : 0, boolean = self.dtype() == DType::Bool ? 1 : 0;
  launch(ShaderLaunch{"compare_scalar", elementwise_global(words), {64, 1, 1}, {code, int64, boolean}}, {out, in},
         CompareParams{static_cast<uint32_t>(to_i32(op, self.numel())), static_cast<float>(other)});
  return out;
}
Tensor eq_scalar(const Tensor& self, double other) { return compare_scalar("aten::eq", kEq, self, other); }
Tensor logical_not(const Tensor& self) { return compare_scalar("aten::logical_not", kEq, self, 0.0); }

// logical_and / or / xor of two Vulkan tensors, broadcast: each side as 0 or 1 in float32 (a
// fill of ones where it is non-zero), summed, and the sum compared: 2, at least 1, exactly 1.
Tensor logical_binary(const char* op, const Tensor& self, const Tensor& other, CompareOp code, double value) {
  auto ones_where = [&](const Tensor& t) {
    ops::check_defined(op, t);
    const Tensor set = t.dtype() == DType::Bool ? t : compare_scalar(op, kNe, t, 0.0);
    return ops::call("aten::masked_fill.Scalar", {tvk::zeros(t.sizes(), DType::Float32, tvk::Device::Vulkan), set,
                                             IValue(1.0)})
        .toTensor();
  };
  return compare_scalar(op, code, tvk::add(ones_where(self), ones_where(other)), value);
}
Tensor logical_and(const Tensor& self, const Tensor& other) {
  return logical_binary("aten::logical_and", self, other, kEq, 2.0);
}
Tensor logical_or(const Tensor& self, const Tensor& other) {
  return logical_binary("aten::logical_or", self, other, kGe, 1.0);
}
Tensor logical_xor(const Tensor& self, const Tensor& other) {
  return logical_binary("aten::logical_xor", self, other, kEq, 1.0);
}
Tensor bitwise_not(const Tensor& self) {
  if (self.dtype() != DType::Bool)
    throw UnsupportedError("aten::bitwise_not: Vulkan negates bool tensors only (the CPU fallback runs the rest)");
  return logical_not(self);
}
Tensor ne_scalar(const Tensor& self, double other) { return compare_scalar("aten::ne", kNe, self, other); }

// Two float32 tensors compared with broadcasting (compare_tensor.glsl); int64 and bool operands
// decline (the CPU fallback compares them).
struct CompareTensorParams {
  uint32_t numel;
  uint32_t sizes[kMaxElementwiseRank];
  uint32_t a_strides[kMaxElementwiseRank];
  uint32_t b_strides[kMaxElementwiseRank];
};
Tensor compare_tensor(const char* op, CompareOp code, const Tensor& self, const Tensor& other) {
  check_vulkan_float(op, self, "self");
  check_vulkan_float(op, other, "other");
  const IntList sizes = ops::broadcast_shapes(op, self.sizes(), other.sizes());
  TVK_CHECK(sizes.size() <= kMaxElementwiseRank, op, ": tensors of rank ", sizes.size(), " exceed the Vulkan limit of ",
            kMaxElementwiseRank);
  Tensor out = empty(sizes, DType::Bool, tvk::Device::Vulkan);
  if (out.numel() == 0) return out;
  CompareTensorParams p{};
  p.numel = static_cast<uint32_t>(to_i32(op, out.numel()));
  right_aligned(p.sizes, sizes, 1);
  right_aligned(p.a_strides, ops::broadcast_strides(self, sizes), 0);
  right_aligned(p.b_strides, ops::broadcast_strides(other, sizes), 0);
  launch(ShaderLaunch{"compare_tensor", elementwise_global((out.numel() + 3) / 4), {64, 1, 1}, {code}},
         {out, self, other}, p);
  return out;
}
Tensor eq_tensor(const Tensor& self, const Tensor& other) { return compare_tensor("aten::eq", kEq, self, other); }
Tensor ne_tensor(const Tensor& self, const Tensor& other) { return compare_tensor("aten::ne", kNe, self, other); }
Tensor gt_tensor(const Tensor& self, const Tensor& other) { return compare_tensor("aten::gt", kGt, self, other); }
Tensor lt_tensor(const Tensor& self, const Tensor& other) { return compare_tensor("aten::lt", kLt, self, other); }
Tensor ge_tensor(const Tensor& self, const Tensor& other) { return compare_tensor("aten::ge", kGe, self, other); }
Tensor le_tensor(const Tensor& self, const Tensor& other) { return compare_tensor("aten::le", kLe, self, other); }
Tensor gt_scalar(const Tensor& self, double other) { return compare_scalar("aten::gt", kGt, self, other); }
Tensor lt_scalar(const Tensor& self, double other) { return compare_scalar("aten::lt", kLt, self, other); }
Tensor ge_scalar(const Tensor& self, double other) { return compare_scalar("aten::ge", kGe, self, other); }
Tensor le_scalar(const Tensor& self, double other) { return compare_scalar("aten::le", kLe, self, other); }

constexpr size_t kMaxRank = kMaxElementwiseRank;
struct MaskedFillParams {
  uint32_t numel;
  uint32_t value_lo, value_hi;
  uint32_t sizes[kMaxRank];
  uint32_t x_strides[kMaxRank];
  uint32_t mask_strides[kMaxRank];
};

Tensor masked_fill_scalar(const Tensor& self, const Tensor& mask, double value) {
  const char* op = "aten::masked_fill";
  ops::check_defined(op, self);
  TVK_CHECK(self.device() == tvk::Device::Vulkan && (self.dtype() == DType::Float32 || self.dtype() == DType::Int64), op,
            ": argument 'self' must be a float32 or int64 Vulkan tensor, got ", to_string(self.dtype()));
  ops::check_defined(op, mask, "mask");
  TVK_CHECK(mask.dtype() == DType::Bool && mask.device() == tvk::Device::Vulkan, op,
            ": mask must be a bool Vulkan tensor, got ", to_string(mask.dtype()));
  const IntList sizes = ops::broadcast_shapes(op, self.sizes(), mask.sizes());
  TVK_CHECK(sizes.size() <= kMaxRank, op, ": tensors of rank ", sizes.size(), " exceed the Vulkan limit of ", kMaxRank);
  MaskedFillParams p{};
  Tensor out = empty(sizes, self.dtype(), tvk::Device::Vulkan);
  p.numel = static_cast<uint32_t>(to_i32(op, out.numel()));
  const bool int64 = self.dtype() == DType::Int64;
  if (int64) {
    TVK_CHECK(value >= -9.2233720368547758e18 && value < 9.2233720368547758e18, op, ": value ", value,
              " does not fit an int64 tensor");
    const auto v = static_cast<uint64_t>(static_cast<int64_t>(value));
    p.value_lo = static_cast<uint32_t>(v);
    p.value_hi = static_cast<uint32_t>(v >> 32);
  } else {
    const float v = static_cast<float>(value);
    std::memcpy(&p.value_lo, &v, sizeof v);
  }
  right_aligned(p.sizes, sizes, 1);
  right_aligned(p.x_strides, ops::broadcast_strides(self, sizes), 0);
  right_aligned(p.mask_strides, ops::broadcast_strides(mask, sizes), 0);
  launch(ShaderLaunch{"masked_fill", elementwise_global(out.numel()), {64, 1, 1}, {int64 ? 1u : 0u}}, {out, self, mask},
         p);
  return out;
}

struct WhereParams {
  uint32_t numel;
  uint32_t sizes[kMaxRank];
  uint32_t cond_strides[kMaxRank];
  uint32_t a_strides[kMaxRank];
  uint32_t b_strides[kMaxRank];
};

Tensor where_self(const Tensor& condition, const Tensor& self, const Tensor& other) {
  const char* op = "aten::where";
  ops::check_defined(op, condition, "condition");
  ops::check_defined(op, self);
  ops::check_defined(op, other, "other");
  TVK_CHECK(condition.dtype() == DType::Bool, op, ": condition must be bool, got ", to_string(condition.dtype()));
  TVK_CHECK(self.dtype() == other.dtype(), op, ": self (", to_string(self.dtype()), ") and other (",
            to_string(other.dtype()), ") must have one dtype");
  TVK_CHECK(self.dtype() == DType::Float32 || self.dtype() == DType::Int64, op,
            ": self and other must be float32 or int64 Vulkan tensors, got ", to_string(self.dtype()));
  const IntList sizes =
      ops::broadcast_shapes(op, ops::broadcast_shapes(op, condition.sizes(), self.sizes()), other.sizes());
  TVK_CHECK(sizes.size() <= kMaxRank, op, ": tensors of rank ", sizes.size(), " exceed the Vulkan limit of ", kMaxRank);
  Tensor out = empty(sizes, self.dtype(), tvk::Device::Vulkan);
  WhereParams p{};
  p.numel = static_cast<uint32_t>(to_i32(op, out.numel()));
  right_aligned(p.sizes, sizes, 1);
  right_aligned(p.cond_strides, ops::broadcast_strides(condition, sizes), 0);
  right_aligned(p.a_strides, ops::broadcast_strides(self, sizes), 0);
  right_aligned(p.b_strides, ops::broadcast_strides(other, sizes), 0);
  const uint32_t int64 = self.dtype() == DType::Int64 ? 1 : 0;
  launch(ShaderLaunch{"where", elementwise_global(out.numel()), {64, 1, 1}, {int64}}, {out, condition, self, other}, p);
  return out;
}

}  // namespace

TVK_REGISTER_VULKAN_KERNEL("aten::where.self", where_self);
TVK_REGISTER_VULKAN_KERNEL("aten::index.Tensor", index);
TVK_REGISTER_VULKAN_KERNEL("aten::index_select", index_select);
TVK_REGISTER_VULKAN_KERNEL("aten::gather", gather);
TVK_REGISTER_VULKAN_KERNEL("tvk::gather_dim", gather_dim);
TVK_REGISTER_VULKAN_KERNEL("aten::embedding", embedding);
TVK_REGISTER_VULKAN_KERNEL("aten::eq.Scalar", eq_scalar);
TVK_REGISTER_VULKAN_KERNEL("aten::logical_not", logical_not);
TVK_REGISTER_VULKAN_KERNEL("aten::logical_and", logical_and);
TVK_REGISTER_VULKAN_KERNEL("aten::logical_or", logical_or);
TVK_REGISTER_VULKAN_KERNEL("aten::logical_xor", logical_xor);
TVK_REGISTER_VULKAN_KERNEL("aten::bitwise_not", bitwise_not);
TVK_REGISTER_VULKAN_KERNEL("aten::ne.Scalar", ne_scalar);
TVK_REGISTER_VULKAN_KERNEL("aten::gt.Scalar", gt_scalar);
TVK_REGISTER_VULKAN_KERNEL("aten::lt.Scalar", lt_scalar);
TVK_REGISTER_VULKAN_KERNEL("aten::ge.Scalar", ge_scalar);
TVK_REGISTER_VULKAN_KERNEL("aten::le.Scalar", le_scalar);
TVK_REGISTER_VULKAN_KERNEL("aten::eq.Tensor", eq_tensor);
TVK_REGISTER_VULKAN_KERNEL("aten::ne.Tensor", ne_tensor);
TVK_REGISTER_VULKAN_KERNEL("aten::gt.Tensor", gt_tensor);
TVK_REGISTER_VULKAN_KERNEL("aten::lt.Tensor", lt_tensor);
TVK_REGISTER_VULKAN_KERNEL("aten::ge.Tensor", ge_tensor);
TVK_REGISTER_VULKAN_KERNEL("aten::le.Tensor", le_tensor);
TVK_REGISTER_VULKAN_KERNEL("aten::masked_fill.Scalar", masked_fill_scalar);

}  // namespace tvk::vulkan
