#include "vulkan/ops/shader_dispatch.h"

#include <algorithm>
#include <cstdint>

#include "ops/registry.h"

namespace tvk::vulkan {

bool texel_view_fits(const Tensor& t, Buffer::TexelFormat format) {
  return Buffer::texel_view_fits(Context::get()->device(), storage_of(t).buffer().bytes(), format);
}

void launch(const ShaderLaunch& l, std::initializer_list<Binding> tensors, const void* params,
            uint32_t params_bytes) {
  if (l.global[0] == 0 || l.global[1] == 0 || l.global[2] == 0) return;
  Context& ctx = *Context::get();
  PipelineKey key{l.shader, static_cast<uint32_t>(tensors.size()), l.local, l.constants};
  const Pipeline& pipeline = ctx.pipelines().get(key);
  std::vector<BufferBinding> bindings;
  bindings.reserve(tensors.size());
  for (const Binding& b : tensors) {
    const Buffer& buffer = storage_of(b.tensor).buffer();
    bindings.push_back({buffer.handle(), buffer.offset(), std::max<VkDeviceSize>(buffer.bytes(), 4),
                        b.texel ? buffer.texel_view(b.format) : VK_NULL_HANDLE});
  }
  std::array<uint32_t, 3> groups;
  for (int i = 0; i < 3; ++i) groups[i] = (l.global[i] + l.local[i] - 1) / l.local[i];
  CommandStream& stream = ctx.stream();
  const ops::OpEntry* op = ops::current_op();
  stream.dispatch(pipeline, bindings, params, params_bytes, groups, op ? op->schema.name.c_str() : nullptr);
  // A capture's arena outlives what it recorded, and its ranges may be reused once a tensor
  // dies (that is its memory plan); everything else must live as long as the work.
  const bool capturing = CommandStream::current_capture() != nullptr;
  for (const Binding& b : tensors)
    if (!capturing || !storage_of(b.tensor).buffer().in_arena()) stream.keep_alive(b.tensor.storage());
}

std::array<uint32_t, 3> elementwise_global(int64_t n, uint32_t local_x) {
  constexpr int64_t kMaxGroupsX = 65535;
  const int64_t groups = (n + local_x - 1) / local_x;
  if (groups <= kMaxGroupsX) return {static_cast<uint32_t>(n), 1, 1};
  const int64_t rows = (groups + kMaxGroupsX - 1) / kMaxGroupsX;
  return {static_cast<uint32_t>(kMaxGroupsX * local_x), static_cast<uint32_t>(rows), 1};
}

std::array<uint32_t, 3> local_size_for(const std::array<uint32_t, 3>& global) {
  uint32_t x = 1, y = 1, z = 1;
  while (x < 8 && x < global[0]) x *= 2;
  while (y < 8 && y < global[1]) y *= 2;
  while (x * y * z < 64 && z < global[2]) z *= 2;
  // Too small a grid in z: give x the spare width (keeps groups at a useful size).
  while (x * y * z < 64 && x < global[0]) x *= 2;
  return {x, y, z};
}

int32_t to_i32(const char* op, int64_t v) {
  TVK_CHECK(v >= INT32_MIN && v <= INT32_MAX, op, ": size ", v, " exceeds the 32-bit range of the Vulkan kernels");
  return static_cast<int32_t>(v);
}

Tensor empty_vulkan(const IntList& sizes) { return empty(sizes, DType::Float32, tvk::Device::Vulkan); }

void check_vulkan_float(const char* op, const Tensor& t, const char* arg) {
  ops::check_float(op, t, arg);
  TVK_CHECK(t.device() == tvk::Device::Vulkan, op, ": argument '", arg, "' is not a Vulkan tensor");
}

}  // namespace tvk::vulkan
