#include "vulkan/ops/shader_dispatch.h"

#include "tvk/vulkan_info.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>

#include "ops/registry.h"
#include "vulkan/ops/kernel_options.h"

namespace tvk::vulkan {

namespace {
// A dispatch's profile label: the op's name, followed by its method where the op family named
// one ("aten::conv2d winograd"). Labels must outlive the stream; the few distinct ones (ops x
// methods) are kept for the process.
const char* dispatch_label(const ops::OpEntry* op) {
  const char* method = current_method();
  if (!op) return method;
  if (!method) return op->schema.name.c_str();
  static std::mutex mutex;
  static std::set<std::string, std::less<>> labels;
  const std::string label = op->schema.name + " " + method;
  std::lock_guard<std::mutex> lock(mutex);
  return labels.insert(label).first->c_str();
}
}  // namespace

VkDeviceSize max_storage_binding() { return Context::get()->device().physical().limits.maxStorageBufferRange; }

StoredWeights store_weights(const Tensor& values, Buffer::TexelFormat full_format, Buffer::TexelFormat half_format,
                            Precision precision) {
  if (precision != Precision::FP16 || values.numel() == 0) return {values, full_format};
  const char* op = "fp16 weights";
  TVK_CHECK(texel_view_fits(values, Buffer::TexelFormat::R32), op, ": ", values.shape_string(),
            " exceeds this device's texel buffer limit");
  const int64_t pairs = (values.numel() + 1) / 2;
  Tensor halves = empty_vulkan({pairs});
  struct {
    int32_t pairs, count;
  } params{to_i32(op, pairs), to_i32(op, values.numel())};
  launch(ShaderLaunch{"to_half", elementwise_global(pairs), {64, 1, 1}, {}}, {halves, texels1(values)}, params);
  return {halves, half_format};
}

bool texel_view_fits(const Tensor& t, Buffer::TexelFormat format) {
  return Buffer::texel_view_fits(Context::get()->device(), storage_of(t).buffer().bytes(), format);
}

bool storage_binding_fits(const Tensor& t) { return storage_of(t).buffer().bytes() <= max_storage_binding(); }

void launch(const ShaderLaunch& l, std::initializer_list<Binding> tensors, const void* params,
            uint32_t params_bytes) {
  if (l.global[0] == 0 || l.global[1] == 0 || l.global[2] == 0) return;
  Context& ctx = *Context::get();
  PipelineKey key{l.shader, static_cast<uint32_t>(tensors.size()), l.local, l.constants, l.activation};
  const Pipeline& pipeline = ctx.pipelines().get(key);
  std::vector<BufferBinding> bindings;
  bindings.reserve(tensors.size());
  const VkDeviceSize max_range = ctx.device().physical().limits.maxStorageBufferRange;
  for (const Binding& b : tensors) {
    const Buffer& buffer = storage_of(b.tensor).buffer();
    if (b.texel) {
      bindings.push_back({buffer.handle(), buffer.offset(), buffer.bytes(), buffer.texel_view(b.format)});
      continue;
    }
    const VkDeviceSize size = b.byte_size ? b.byte_size : std::max<VkDeviceSize>(buffer.bytes(), 4);
    TVK_CHECK(b.byte_offset + size <= std::max<VkDeviceSize>(buffer.bytes(), 4), "shader ", l.shader,
              ": binding range past the end of its tensor");
    if (size > max_range) {
      const ops::OpEntry* op = ops::current_op();
      throw OutOfMemoryError(detail::concat(op ? op->schema.name : l.shader, ": a Vulkan tensor of ", size,
                                            " bytes exceeds this device's largest storage buffer "
                                            "(maxStorageBufferRange = ", max_range, " bytes)"));
    }
    bindings.push_back({buffer.handle(), buffer.offset() + b.byte_offset, size, VK_NULL_HANDLE});
  }
  std::array<uint32_t, 3> groups;
  for (int i = 0; i < 3; ++i) groups[i] = (l.global[i] + l.local[i] - 1) / l.local[i];
  // A capture's arena outlives what it recorded, and its ranges may be reused once a tensor
  // dies (that is its memory plan); everything else must live as long as the work.
  const bool capturing = CommandStream::current_capture() != nullptr;
  std::vector<std::shared_ptr<const void>> keep;
  keep.reserve(tensors.size());
  for (const Binding& b : tensors)
    if (!capturing || !storage_of(b.tensor).buffer().in_arena()) keep.push_back(b.tensor.storage());
  const ops::OpEntry* op = ops::current_op();
  ctx.stream().dispatch(pipeline, bindings, params, params_bytes, groups, dispatch_label(op),
                        std::move(keep));
}

namespace {
// The split the options force (KernelOptions::reduction_split), 0 where none is forced.
uint32_t forced_split() { return kernel_options().reduction_split; }
}  // namespace

bool gpu_shaped_kernels() {
  if (const Toggle t = kernel_options().gpu_shapes; t != Toggle::Auto) return t == Toggle::On;
  return forced_split() != 0 || Context::get()->device().physical().type != VK_PHYSICAL_DEVICE_TYPE_CPU;
}

uint32_t reduction_split(int64_t invocations, int64_t k, uint32_t max_split, int64_t min_per_slice) {
  const uint32_t forced = forced_split();
  if (forced) {
    uint32_t split = std::min(forced, max_split);
    while (split > 1 && k < split) split /= 2;
    return split;
  }
  const PhysicalDeviceInfo& dev = Context::get()->device().physical();
  if (dev.type == VK_PHYSICAL_DEVICE_TYPE_CPU) return 1;
  // Enough invocations for every core of a large GPU (132 SMs x 1024 on an H200) to hide its
  // memory latency; measured there, splitting until this many ran fastest.
  constexpr int64_t kFill = 131072;
  uint32_t split = 1;
  while (split < max_split && invocations * split < kFill && k / (int64_t{split} * 2) >= min_per_slice) split *= 2;
  return split;
}

ShaderLaunch row_groups_launch(std::string shader, int64_t rows, uint32_t group) {
  constexpr int64_t kMaxGroupsX = 65535;
  const int64_t gx = std::min(rows, kMaxGroupsX), gy = rows == 0 ? 0 : (rows + kMaxGroupsX - 1) / kMaxGroupsX;
  return ShaderLaunch{std::move(shader), {static_cast<uint32_t>(gx * group), static_cast<uint32_t>(gy), 1},
                      {group, 1, 1}, {}};
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

bool reads_f16_storage() {
  const PhysicalDeviceInfo& dev = Context::get()->device().physical();
  return dev.storage_16bit && dev.fp16_arithmetic;
}

bool shader_selectable(const std::string& shader) {
  if (shader == "conv2d_oc8_storage16" || shader == "conv2d_split16") return reads_f16_storage();
  if (shader.rfind("gemm_coopmat", 0) == 0) return Context::get()->device().physical().cooperative_matrix();
  return true;
}

int32_t to_i32(const char* op, int64_t v) {
  TVK_CHECK(v >= INT32_MIN && v <= INT32_MAX, op, ": size ", v, " exceeds the 32-bit range of the Vulkan kernels");
  return static_cast<int32_t>(v);
}

Tensor empty_vulkan(const IntList& sizes) { return empty(sizes, DType::Float32, tvk::Device::Vulkan); }

void check_vulkan_float(const char* op, const Tensor& t, const char* arg) {
  ops::check_defined(op, t, arg);
  // UnsupportedError: a case this kernel lacks, which the opt-in CPU fallback runs instead.
  if (t.dtype() != DType::Float32)
    throw UnsupportedError(detail::concat(op, ": argument '", arg, "' must be float32 on Vulkan, got ",
                                          to_string(t.dtype()), " (the CPU fallback, --cpu-fallback or TVK_CPU_FALLBACK=1, runs it on the CPU)"));
  TVK_CHECK(t.device() == tvk::Device::Vulkan, op, ": argument '", arg, "' is not a Vulkan tensor");
}


}  // namespace tvk::vulkan
