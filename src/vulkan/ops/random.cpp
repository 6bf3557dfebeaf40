// Vulkan kernels of the random fills (random.glsl; the seed and hash of ops/random.h): one
// dispatch, no state on the GPU.
#include "ops/random.h"
#include "ops/registry.h"
#include "ops/shape_utils.h"
#include "vulkan/ops/shader_dispatch.h"

namespace tvk::vulkan {
namespace {

// Must match random.glsl's push constants.
struct RandomParams {
  uint32_t numel, seed_lo, seed_hi;
  float lo, hi;
};

void fill(const char* op, const Tensor& out, bool uniform, double lo, double hi) {
  if (out.numel() == 0) return;
  const uint64_t seed = ops::next_random_seed();
  launch(ShaderLaunch{"random", elementwise_global(out.numel()), {64, 1, 1}, {uniform ? 1u : 0u}}, {out},
         RandomParams{static_cast<uint32_t>(to_i32(op, out.numel())), static_cast<uint32_t>(seed),
                      static_cast<uint32_t>(seed >> 32), static_cast<float>(lo), static_cast<float>(hi)});
}

Tensor like(const char* op, const Tensor& self, std::optional<int64_t> dtype, std::optional<tvk::Device> device, bool uniform) {
  check_vulkan_float(op, self);
  ops::check_float_dtype_arg(op, dtype);
  TVK_CHECK(!device || *device == tvk::Device::Vulkan, op, ": a device other than the input's is not supported");
  Tensor out = empty_vulkan(self.sizes());
  fill(op, out, uniform, 0.0, 1.0);
  return out;
}
Tensor rand_like(const Tensor& self, std::optional<int64_t> dtype, std::optional<int64_t>, std::optional<tvk::Device> device,
                 std::optional<bool>, std::optional<int64_t>) {
  return like("aten::rand_like", self, dtype, device, true);
}
Tensor randn_like(const Tensor& self, std::optional<int64_t> dtype, std::optional<int64_t>, std::optional<tvk::Device> device,
                  std::optional<bool>, std::optional<int64_t>) {
  return like("aten::randn_like", self, dtype, device, false);
}
Tensor uniform_(const Tensor& self, double from, double to, IValue) {
  const char* op = "aten::uniform_";
  check_vulkan_float(op, self);
  TVK_CHECK(from <= to, op, ": expects to return a [from, to) range, but found from=", from, " > to=", to);
  fill(op, self, true, from, to);
  return self;
}
Tensor normal_(const Tensor& self, double mean, double std, IValue) {
  const char* op = "aten::normal_";
  check_vulkan_float(op, self);
  TVK_CHECK(std >= 0, op, ": expects std >= 0.0, but found std ", std);
  fill(op, self, false, mean, std);
  return self;
}

}  // namespace

TVK_REGISTER_VULKAN_KERNEL("aten::rand_like", rand_like);
TVK_REGISTER_VULKAN_KERNEL("aten::randn_like", randn_like);
TVK_REGISTER_VULKAN_KERNEL("aten::uniform_", uniform_);
TVK_REGISTER_VULKAN_KERNEL("aten::normal_", normal_);

}  // namespace tvk::vulkan
