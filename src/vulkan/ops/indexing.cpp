// Vulkan indexing and masks. aten::index (x[idx], x[:, rows, cols]): the index tensors are read
// on the host, which checks them and folds them into one row per output row
// (ops/index_plan.h), and index_rows.glsl gathers those rows. Reading the indices back waits for the GPU, so a graph
// that indexes by computed tensors runs op by op; models index by constants (relative-position
// tables), which optimize_for_mobile folds while freezing. Comparisons with a scalar give bool
// tensors (one byte per element, as on the CPU), which masked_fill reads (swin_t's attention mask).
#include <cstring>

#include "ops/index_plan.h"
#include "ops/registry.h"
#include "vulkan/ops/shader_dispatch.h"

namespace tvk::vulkan {
namespace {

struct IndexRowsParams {
  uint32_t numel, count, size, inner;
};

Tensor index(const Tensor& self, const IValue& indices) {
  const char* op = "aten::index";
  ops::check_defined(op, self);
  TVK_CHECK(self.device() == tvk::Device::Vulkan && (self.dtype() == DType::Float32 || self.dtype() == DType::Int64), op,
            ": argument 'self' must be a float32 or int64 Vulkan tensor, got ", to_string(self.dtype()));
  std::vector<Tensor> host = ops::optional_tensor_list(indices);
  for (Tensor& t : host)
    if (t.defined()) t = t.cpu();
  const ops::IndexPlan p = ops::index_plan(op, self, host);
  Tensor out = empty(p.out_sizes, self.dtype(), tvk::Device::Vulkan);
  const int64_t words = self.dtype() == DType::Int64 ? 2 : 1;  // 32-bit words per element
  const int64_t count = static_cast<int64_t>(p.rows.size());
  if (out.numel() == 0) return out;
  Tensor rows = empty({count}, DType::Int64);
  std::copy(p.rows.begin(), p.rows.end(), rows.data<int64_t>());
  const IndexRowsParams params{static_cast<uint32_t>(to_i32(op, out.numel() * words)), static_cast<uint32_t>(to_i32(op, count)),
                               static_cast<uint32_t>(to_i32(op, p.size)), static_cast<uint32_t>(to_i32(op, p.inner * words))};
  launch(ShaderLaunch{"index_rows", elementwise_global(out.numel() * words), {64, 1, 1}, {}}, {out, self, rows.vulkan()}, params);
  return out;
}

// Must match the OP constants of compare_scalar.glsl.
enum CompareOp : uint32_t { kEq = 0, kNe = 1, kGt = 2, kLt = 3, kGe = 4, kLe = 5 };

struct CompareParams {
  uint32_t numel;
  float value;
};

Tensor compare_scalar(const char* op, CompareOp code, const Tensor& self, double other) {
  ops::check_defined(op, self);
  TVK_CHECK(self.device() == tvk::Device::Vulkan && (self.dtype() == DType::Float32 || self.dtype() == DType::Int64), op,
            ": argument 'self' must be a float32 or int64 Vulkan tensor, got ", to_string(self.dtype()));
  Tensor out = empty(self.sizes(), DType::Bool, tvk::Device::Vulkan);
  const int64_t words = (self.numel() + 3) / 4;
  const uint32_t int64 = self.dtype() == DType::Int64 ? 1 : 0;
  launch(ShaderLaunch{"compare_scalar", elementwise_global(words), {64, 1, 1}, {code, int64}}, {out, self},
         CompareParams{static_cast<uint32_t>(to_i32(op, self.numel())), static_cast<float>(other)});
  return out;
}
Tensor eq_scalar(const Tensor& self, double other) { return compare_scalar("aten::eq", kEq, self, other); }
Tensor ne_scalar(const Tensor& self, double other) { return compare_scalar("aten::ne", kNe, self, other); }
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

}  // namespace

TVK_REGISTER_VULKAN_KERNEL("aten::index.Tensor", index);
TVK_REGISTER_VULKAN_KERNEL("aten::eq.Scalar", eq_scalar);
TVK_REGISTER_VULKAN_KERNEL("aten::ne.Scalar", ne_scalar);
TVK_REGISTER_VULKAN_KERNEL("aten::gt.Scalar", gt_scalar);
TVK_REGISTER_VULKAN_KERNEL("aten::lt.Scalar", lt_scalar);
TVK_REGISTER_VULKAN_KERNEL("aten::ge.Scalar", ge_scalar);
TVK_REGISTER_VULKAN_KERNEL("aten::le.Scalar", le_scalar);
TVK_REGISTER_VULKAN_KERNEL("aten::masked_fill.Scalar", masked_fill_scalar);

}  // namespace tvk::vulkan
