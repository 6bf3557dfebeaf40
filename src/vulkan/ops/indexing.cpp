// Vulkan aten::index (x[idx], x[:, rows, cols]): the index tensors are read on the host, which
// checks them and folds them into one row per output row (ops/index_plan.h), and
// index_rows.glsl gathers those rows. Reading the indices back waits for the GPU, so a graph
// that indexes by computed tensors runs op by op; models index by constants (relative-position
// tables), which optimize_for_mobile folds while freezing.
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

}  // namespace

TVK_REGISTER_VULKAN_KERNEL("aten::index.Tensor", index);

}  // namespace tvk::vulkan
