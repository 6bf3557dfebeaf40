#include "vulkan/ops/shader_dispatch.h"

namespace tvk::vulkan {

void launch(const ShaderLaunch& l, std::initializer_list<Tensor> tensors, const void* params,
            uint32_t params_bytes) {
  Context& ctx = *Context::get();
  PipelineKey key{l.shader, static_cast<uint32_t>(tensors.size()), l.local, l.constants};
  const Pipeline& pipeline = ctx.pipelines().get(key);
  std::vector<BufferBinding> bindings;
  bindings.reserve(tensors.size());
  for (const Tensor& t : tensors) bindings.push_back({storage_of(t).buffer().handle(), 0, VK_WHOLE_SIZE});
  std::array<uint32_t, 3> groups;
  for (int i = 0; i < 3; ++i) groups[i] = (l.global[i] + l.local[i] - 1) / l.local[i];
  CommandStream& stream = ctx.stream();
  stream.dispatch(pipeline, bindings, params, params_bytes, groups);
  for (const Tensor& t : tensors) stream.keep_alive(t.storage());
}

std::array<uint32_t, 3> elementwise_global(int64_t n, uint32_t local_x) {
  constexpr int64_t kMaxGroupsX = 65535;
  const int64_t groups = (n + local_x - 1) / local_x;
  if (groups <= kMaxGroupsX) return {static_cast<uint32_t>(n), 1, 1};
  const int64_t rows = (groups + kMaxGroupsX - 1) / kMaxGroupsX;
  return {static_cast<uint32_t>(kMaxGroupsX * local_x), static_cast<uint32_t>(rows), 1};
}

Tensor empty_vulkan(const IntList& sizes) { return empty(sizes, DType::Float32, tvk::Device::Vulkan); }

void check_vulkan_float(const char* op, const Tensor& t, const char* arg) {
  ops::check_float(op, t, arg);
  TVK_CHECK(t.device() == tvk::Device::Vulkan, op, ": argument '", arg, "' is not a Vulkan tensor");
}

}  // namespace tvk::vulkan
